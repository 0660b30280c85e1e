from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from ...exports import write_exports
from ...listing import find_evaluation
from ...services.analysis import AnalysisError, analyse_evaluation


class Command(BaseCommand):
    help = ("Write a human evaluation's report.html, analysis.json, judgements.jsonl and judgements.csv into a "
            "folder; --analyse first analyses the judgements stored so far.")

    def add_arguments(self, parser):
        parser.add_argument("evaluation", help="the human evaluation's name or id")
        parser.add_argument("--out", type=Path, required=True, help="the folder to write into (made if missing)")
        parser.add_argument("--analyse", action="store_true",
                            help="analyse the judgements stored so far before writing (else the stored analysis)")
        parser.add_argument("--permutation-resamples", type=int, default=None, metavar="N",
                            help="with --analyse: the random sign patterns of the permutation tests on more than "
                                 "20 items (exact up to 20); default the last analysis's, else 100,000")

    def handle(self, *args, evaluation: str, out: Path, analyse: bool, permutation_resamples: int | None,
               **options):
        if permutation_resamples is not None and not analyse:
            raise CommandError("--permutation-resamples applies to an analysis: add --analyse")
        found = find_evaluation(evaluation)
        if found is None:
            raise CommandError(f"no human evaluation '{evaluation}'")
        if out.exists() and not out.is_dir():
            raise CommandError(f"{out} is a file, not a folder")
        if analyse:
            try:
                analyse_evaluation(found, permutation_resamples=permutation_resamples)
            except AnalysisError as exc:
                raise CommandError(str(exc)) from None
        elif not found.analysis:
            self.stderr.write(f"'{found.name}' has not been analysed yet: the report says so (use --analyse)")
        try:
            paths = write_exports(found, out)
        except OSError as exc:
            raise CommandError(f"cannot write into {out}: {exc}") from None
        for path in paths:
            self.stdout.write(str(path))
