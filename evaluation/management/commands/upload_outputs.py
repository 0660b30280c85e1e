from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from common.cli_errors import file_errors

from ...services.uploads import UploadError, upload_outputs
from ._human_eval import evaluation_named


class Command(BaseCommand):
    help = ("Upload a system's outputs to a draft human evaluation: captions in the COCO results format "
            '([{"image_id": ..., "caption": "..."}]), stories in the VIST challenge format (output_stories). All or '
            "nothing; prints the automatic scores (BLEU-4, CIDEr, METEOR), or the state of their job when a "
            "worker computes them.")

    def add_arguments(self, parser):
        parser.add_argument("name", help="the evaluation's name or id")
        parser.add_argument("system", help="the system's name")
        parser.add_argument("file", type=Path)

    def handle(self, *args: Any, name: str, system: str, file: Path, **options: Any) -> None:
        evaluation = evaluation_named(name)
        try:
            if file.stat().st_size > settings.RUN_MAX_BYTES:
                raise CommandError(f"{file}: larger than {settings.RUN_MAX_BYTES} bytes (RUN_MAX_BYTES)")
            content = file.read_bytes()
        except OSError as exc:
            raise CommandError(f"cannot read {file}: {exc}") from None
        try:
            stored = upload_outputs(evaluation, system=system, content=content, file_name=file.name)
        except UploadError as exc:
            raise file_errors(file, exc.errors) from None
        scores = []
        for metric, entry in stored.automatic.items():
            value = entry.get("system")
            scores.append(f"{metric} {value:.4f}" if value is not None else
                          f"{metric} not computed ({entry.get('unavailable') or 'no reference'})")
        if not scores:
            job = getattr(stored, "scoring", None)
            state = "queued" if job is None else job.status + (f": {job.error}" if job.error else "")
            scores.append(f"automatic scores {state} (a worker computes them; see the console or the API)")
        self.stdout.write(f"system '{stored.name}': {stored.outputs.count()} outputs; " + "; ".join(scores))
