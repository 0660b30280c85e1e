import sys

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from ...compositional.models import ParseJob
from ...compositional.selectors import parse_coverage
from ...compositional.services.caption_parses import BATCH_SIZE, parse_all


class Command(BaseCommand):
    help = ("Parse (lemmas and dependency parse) every description that has no parse by the current parser "
            "(COMPOSITIONAL_PARSER), in this process, with a progress bar, and store the parses for the concept pair "
            "counts, splits and evaluations. Safe to interrupt and to run again: it goes on with what is left.")

    def add_arguments(self, parser):
        parser.add_argument("--batch-size", type=int, default=BATCH_SIZE,
                            help=f"captions parsed and stored per step (default {BATCH_SIZE})")

    def handle(self, *args, batch_size: int, **options):
        if batch_size < 1:
            raise CommandError("--batch-size must be at least 1")
        bar: tqdm | None = None

        def progress(job: ParseJob) -> None:
            nonlocal bar
            if bar is None:
                bar = tqdm(total=job.total, unit="caption", file=sys.stderr, desc=job.parser,
                           disable=options["verbosity"] < 1)
            bar.total = max(bar.total or 0, job.total)
            bar.update(job.done - bar.n)

        try:
            parsed = parse_all(progress=progress, batch_size=batch_size)
        except ValueError as exc:  # the parser cannot load (COMPOSITIONAL_PARSER)
            raise CommandError(str(exc)) from None
        except Exception as exc:
            raise CommandError(f"parsing failed: {type(exc).__name__}: {exc}") from None
        finally:
            if bar is not None:
                bar.close()
        coverage = parse_coverage()
        self.stdout.write(f"{parsed} caption(s) parsed; {coverage.parsed} of {coverage.descriptions} captions have "
                          f"a parse by {coverage.parser}")
