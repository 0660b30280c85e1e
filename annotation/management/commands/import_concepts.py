from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from ...services.concepts import ConceptImportError, import_concepts


class Command(BaseCommand):
    help = "Import a concept vocabulary from a tab-separated file (name, synset, synonyms, parent)."

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)
        parser.add_argument("--vocabulary", help="vocabulary name (default: the file name without extension)")

    def handle(self, *args, file: Path, vocabulary: str | None, **options):
        try:
            text = file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise CommandError(f"cannot read {file}: {exc}") from None
        try:
            result = import_concepts(text, vocabulary or file.stem, source=file.name)
        except ConceptImportError as exc:
            raise CommandError("\n".join(exc.errors)) from None
        offered = result.vocabulary.concepts.filter(offered=True).count()
        self.stdout.write(
            f"Vocabulary '{result.vocabulary.name}': {offered} concepts "
            f"({result.created} new, {result.updated} updated)"
        )
