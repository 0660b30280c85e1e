import csv
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from common.cli_errors import file_errors
from metrics.run_format import RunFormatError, evaluate_run
from mturk.management.commands._common import find_campaign

from ...selectors import grounded_dataset


class Command(BaseCommand):
    help = "Score a system run (one sentence in markup per image) by content selection against the gold data."

    def add_arguments(self, parser):
        parser.add_argument("run_file", type=Path)
        parser.add_argument("--campaign", action="append", default=[], help="name or id (repeatable); default all")
        parser.add_argument("--out", type=Path, help="per-image scores CSV (default: RUN_FILE with .scores.csv)")

    def handle(self, *args, run_file: Path, campaign: list[str], out: Path | None, **options):
        try:
            text = run_file.read_bytes()
        except OSError as exc:
            raise CommandError(f"cannot read {run_file}: {exc}") from None
        records = grounded_dataset([find_campaign(c) for c in campaign]).records()
        try:
            result = evaluate_run(text, records)
        except RunFormatError as exc:
            raise file_errors(run_file, exc.errors) from None
        out = out or run_file.with_suffix(".scores.csv")
        with out.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(["image", "p", "r", "f"])
            for row in result["per_image"]:
                writer.writerow([row["key"], f"{row['p']:.4f}", f"{row['r']:.4f}", f"{row['f']:.4f}"])
        s = result["summary"]
        self.stdout.write(f"P = {s['p_mean']:.4f} ± {s['p_std']:.4f}")
        self.stdout.write(f"R = {s['r_mean']:.4f} ± {s['r_std']:.4f}")
        self.stdout.write(f"F = {s['f_mean']:.4f} ± {s['f_std']:.4f}")
        self.stdout.write(f"{s['images']} images scored, {len(result['missing'])} missing from the run "
                          f"(scored as empty), {len(result['skipped'])} without gold links (skipped)")
        self.stdout.write(f"Per-image scores: {out}")
