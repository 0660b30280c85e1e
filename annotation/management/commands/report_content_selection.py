import json
from pathlib import Path

from django.core.management.base import BaseCommand

from metrics.content_selection_report_html import render_html
from mturk.management.commands._common import find_campaign

from ...reports import grounded_report
from ...selectors import grounded_dataset


class Command(BaseCommand):
    help = "Write the content-selection report (JSON and HTML) of the grounded descriptions."

    def add_arguments(self, parser):
        parser.add_argument("--campaign", action="append", default=[], help="name or id (repeatable); default all")
        parser.add_argument("--out", required=True, type=Path, help="directory for report.json and report.html")
        parser.add_argument("--k-max", type=int, default=15)
        parser.add_argument("--seed", type=int, default=0, help="seed of the random baseline")

    def handle(self, *args, campaign: list[str], out: Path, k_max: int, seed: int, **options):
        dataset = grounded_dataset([find_campaign(c) for c in campaign])
        report = grounded_report(dataset, k_max=k_max, seed=seed)
        out.mkdir(parents=True, exist_ok=True)
        (out / "report.json").write_text(json.dumps(report, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        (out / "report.html").write_text(render_html(report, "Content selection"), encoding="utf-8")
        upper, stats = report["upper_bound"], report["statistics"]
        bound = (f"human upper bound P = {upper['p_mean']:.2f} ± {upper['p_std']:.2f}, R = {upper['r_mean']:.2f} ± "
                 f"{upper['r_std']:.2f}, F = {upper['f_mean']:.2f} ± {upper['f_std']:.2f} over {upper['images']} images"
                 if upper["images"] else
                 "no human upper bound: it needs an image with at least two linked descriptions")
        self.stdout.write(f"{stats['images']} images, {stats['descriptions']} linked descriptions; {bound}")
        self.stdout.write(f"Wrote {out / 'report.json'} and {out / 'report.html'}")
