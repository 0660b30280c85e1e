import json
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from metrics.compositional.report_html import percent
from mturk.management.commands._common import find_campaign

from ...compositional.services.evaluations import (
    DEFAULT_EVAL_SHARE,
    EvaluationRejected,
    evaluation_report_html,
    run_evaluation,
    submit_evaluation,
)


class Command(BaseCommand):
    help = ("Score a system's generated captions (K per evaluation image, best first: the COCO results format "
            '[{"image_id": ..., "caption": ...}] or {"<image id>": [captions]}) for compositional generalization: '
            "Recall@K of the held-out concept pairs per pair, per category, on average and by reference agreement "
            "(n = 1..5), with BLEU-4, METEOR and CIDEr of the first caption. Runs in this process; the evaluation is "
            "stored like an uploaded one.")

    def add_arguments(self, parser):
        parser.add_argument("generated", type=Path, help="GENERATED.json")
        parser.add_argument("--pairs", default="", help="comma-separated pair names (default: every stored pair)")
        parser.add_argument("--group", default="", help="the pairs of this held-out group")
        parser.add_argument("--k", type=int, default=5, help="captions read per image (default 5)")
        parser.add_argument("--split-seed", default="compositional",
                            help="seed of the split (as given to export_dataset; default compositional)")
        parser.add_argument("--eval-share", type=float, default=DEFAULT_EVAL_SHARE,
                            help="share of the matching images in D_eval when the corpus has no val2014 image (as "
                                 "given to export_dataset; default 0.5)")
        parser.add_argument("--campaign", action="append", default=[],
                            help="the corpus: approved captions of this describe_image campaign (name or id; "
                                 "repeatable); default every description")
        parser.add_argument("--system", default="", help="the system's name (default: the file name)")
        parser.add_argument("--html", type=Path, help="write the HTML report there")
        parser.add_argument("--json", dest="json_out", type=Path, help="write the result (JSON) there")

    def handle(self, *args: Any, generated: Path, pairs: str, group: str, k: int, split_seed: str, eval_share: float,
               campaign: list[str], system: str, html: Path | None, json_out: Path | None, **options: Any) -> None:
        campaigns = [find_campaign(name) for name in campaign]
        try:
            content = generated.read_bytes()
        except OSError as exc:
            raise CommandError(f"cannot read {generated}: {exc}") from None
        names = [name.strip() for name in pairs.split(",") if name.strip()] or None
        try:
            evaluation = submit_evaluation(system=system or generated.stem, content=content, file_name=generated.name,
                                           pairs=names, group=group, k=k, split_seed=split_seed,
                                           eval_share=eval_share, campaigns=campaigns, background=False)
        except EvaluationRejected as exc:
            raise CommandError(f"{generated}:\n" + "\n".join(exc.errors)) from None
        bar = tqdm(total=0, unit="caption", file=sys.stderr, desc="parsing generated captions")

        def progress(done: int, total: int) -> None:
            bar.total = total
            bar.update(done - bar.n)
            if done == total:
                bar.close()
                self.stderr.write("Scoring: Recall@K, then BLEU-4, METEOR (one JVM) and CIDEr of the first captions")

        try:
            evaluation = run_evaluation(evaluation, progress=progress)
        except Exception as exc:
            raise CommandError(f"evaluation {evaluation.pk} failed: {type(exc).__name__}: {exc}") from None
        finally:
            bar.close()
        result = evaluation.result
        self._print(result)
        if html is not None:
            html.write_text(evaluation_report_html(evaluation), encoding="utf-8")
            self.stdout.write(f"HTML report: {html}")
        if json_out is not None:
            json_out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
            self.stdout.write(f"Result: {json_out}")
        self.stdout.write(f"Evaluation {evaluation.pk} stored.")

    def _print(self, result: dict[str, Any]) -> None:
        recall, k = result["recall"], result["k"]
        levels = len(recall["by_agreement"])
        self.stdout.write(f"{result['system']}: Recall@{k} (%) on {result['split']['eval_images']} evaluation images "
                          f"(split {result['split']['mode']}, seed {result['split']['seed']}; parser "
                          f"{result['parser']})")
        header = f"{'pair':<16} {'category':<13} {'images':>6} {'R@' + str(k):>6} " + " ".join(
            f"{'>=' + str(n):>12}" for n in range(1, levels + 1))
        self.stdout.write(header)
        for row in recall["pairs"]:
            cells = " ".join(f"{percent(f['recall']):>6} ({f['images']:>3})" for f in row["by_agreement"])
            self.stdout.write(f"{row['name']:<16} {row['category']:<13} {row['images']:>6} "
                              f"{percent(row['recall']):>6} {cells}")
        for row in recall["categories"]:
            self.stdout.write(f"category {row['category']}: {percent(row['recall'])} ({row['pairs']} pairs)")
        average = recall["average"]
        self.stdout.write(f"average: {percent(average['recall'])} ({average['pairs']} pairs)")
        self.stdout.write("average by agreement: " + ", ".join(
            f">= {n}: {percent(m['recall'])} ({m['pairs']} pairs)" for n, m in enumerate(recall["by_agreement"], 1)))
        metrics = result["caption_metrics"]
        meteor = ("none (" + metrics["meteor_error"] + ")" if metrics["meteor"] is None
                  else f"{metrics['meteor']:.3f}")
        self.stdout.write(f"first caption on {metrics['images']} images: BLEU-4 {_score(metrics['bleu4'])}, "
                          f"METEOR {meteor}, CIDEr {_score(metrics['cider'])}")
        for note in result.get("notes", []):
            self.stdout.write(f"note: {note}")


def _score(value: float | None) -> str:
    return "none" if value is None else f"{value:.3f}"
