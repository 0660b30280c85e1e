"""`manage.py list_prolific_filters`: Prolific's participant filters (`GET /filters/`): the ids that studies'
`filters` (and the campaign settings naming them, such as PROLIFIC_GROUP_BLOCKLIST_FILTER) refer to."""
from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from ..base import ProviderError
from .hooks_command import prolific


class Command(BaseCommand):
    help = ("List Prolific's participant filters (id, type, title), e.g. to find the id of the filter that keeps "
            "a participant group out of a study (PROLIFIC_GROUP_BLOCKLIST_FILTER).")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("search", nargs="?", default="",
                            help="only filters whose id or title contains this text (case-insensitive)")

    def handle(self, *args: Any, search: str, **options: Any) -> None:
        provider = prolific(workspace=False)
        needle = search.casefold()
        try:
            filters = [f for f in provider.list_filters()
                       if needle in f"{f.get('filter_id', '')} {f.get('title', '')}".casefold()]
        except ProviderError as exc:
            raise CommandError(f"Prolific: {exc}") from None
        if not filters:
            self.stdout.write("No filter matches." if needle else "Prolific listed no filters.")
            return
        width = max(len(str(f.get("filter_id", ""))) for f in filters)
        kinds = max(len(str(f.get("type", ""))) for f in filters)
        for item in sorted(filters, key=lambda f: str(f.get("filter_id", ""))):
            self.stdout.write(f"{str(item.get('filter_id', '')):<{width}}  {str(item.get('type', '')):<{kinds}}  "
                              f"{item.get('title', '')}")
        self.stdout.write(f"{len(filters)} filter(s).")
