from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from common.cli_errors import file_errors

from ...ranking.services.judgement_import import JudgementImportError, import_judgements


class Command(BaseCommand):
    help = ("Import relevance judgements (CSV or TSV, header image,caption,relevant[,judge] or "
            "image,caption,grade[,judge]; grades 4 = describes the image ... 1 = unrelated); all or nothing. A file of "
            "the Flickr8k release is pointed to import_flickr8k.")

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)

    def handle(self, *args, file: Path, **options):
        try:
            content = file.read_bytes()
        except OSError as exc:
            raise CommandError(f"cannot read {file}: {exc}") from None
        try:
            count = import_judgements(content)
        except JudgementImportError as exc:
            raise file_errors(file, exc.errors) from None
        self.stdout.write(f"{count} judgements imported")
