from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from ...ranking.selectors import find_pool
from ...ranking.services.submissions import DEFAULT_TOP_K, SubmissionError, submit_ranking


class Command(BaseCommand):
    help = ("Submit a system's rankings (.json) or score matrix (.npy, .npz, .csv) on a test pool: checked, "
            "stored, evaluated, and its top-k pairs queued for relevance judgements.")

    def add_arguments(self, parser):
        parser.add_argument("submission", type=Path)
        parser.add_argument("--pool", required=True, help="test pool name or id")
        parser.add_argument("--system", required=True, help="the system's name (once per pool)")
        parser.add_argument("--top-k", type=int, default=DEFAULT_TOP_K, help="pairs per query to judge")

    def handle(self, *args, submission: Path, pool: str, system: str, top_k: int, **options):
        found = find_pool(pool)
        if found is None:
            raise CommandError(f"no test pool '{pool}'")
        if top_k < 1:
            raise CommandError("--top-k must be at least 1")
        try:
            content = submission.read_bytes()
        except OSError as exc:
            raise CommandError(f"cannot read {submission}: {exc}") from None
        try:
            result = submit_ranking(found, system, content, submission.name, k=top_k)
        except SubmissionError as exc:
            raise CommandError(f"{submission}:\n" + "\n".join(exc.errors)) from None
        for direction, metrics in result.metrics.items():
            if isinstance(metrics, dict):
                self.stdout.write(f"{direction}: R@1 {metrics['R@1']:.3f}  R@5 {metrics['R@5']:.3f}  "
                                  f"R@10 {metrics['R@10']:.3f}  median rank {metrics['median_rank']:g}")
        self.stdout.write(f"submission {result.pk} of '{result.system}' stored")
