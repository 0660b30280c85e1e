import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from common.cli_errors import file_errors
from metrics.meteor import MeteorError
from metrics.story_eval import SubmissionError
from mturk.management.commands._common import find_campaign

from ...exports.records import SPLITS
from ...services.story_runs import NoHumanStories, score_story_run


def show(value: float | None) -> str:
    return "–" if value is None else f"{value:.4f}"


class Command(BaseCommand):
    help = ("Score generated stories (VIST challenge format) against the human stories: METEOR 1.5 (max over "
            "the references of each sequence, averaged over sequences), BLEU-4 and CIDEr.")

    def add_arguments(self, parser):
        parser.add_argument("submission", type=Path)
        parser.add_argument("--campaign", action="append", default=[], help="name or id (repeatable); default all")
        parser.add_argument("--split", choices=SPLITS, help="only the sequences of this split (as exported; an "
                            "imported VIST album's released split)")
        parser.add_argument("--released", action="store_true",
                            help="only the stories imported from VIST (e.g. --released --split test: the released "
                                 "test stories)")
        parser.add_argument("--split-seed", default="sind", help="the export's split seed (default: sind)")
        parser.add_argument("--out", type=Path, help="write the full result (per sequence) as JSON here")

    def handle(self, *args, submission: Path, campaign: list[str], split: str | None, split_seed: str,
               out: Path | None, released: bool = False, **options):
        try:
            data = submission.read_bytes()
        except OSError as exc:
            raise CommandError(f"cannot read {submission}: {exc}") from None
        try:
            result = score_story_run(data, [find_campaign(c) for c in campaign], split, split_seed, released)
        except SubmissionError as exc:
            raise file_errors(submission, exc.errors) from None
        except (NoHumanStories, MeteorError) as exc:
            raise CommandError(str(exc)) from None
        if out:
            out.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        self.stdout.write(f"METEOR = {show(result['meteor'])}")
        self.stdout.write(f"BLEU-4 = {show(result['bleu4'])}")
        self.stdout.write(f"CIDEr  = {show(result['cider'])}")
        self.stdout.write(f"{result['matched']} of {result['generated']} generated stories matched a human sequence; "
                          f"{result['uncovered']} of {result['reference_sequences']} sequences had no generated story")
