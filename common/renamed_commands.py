"""Management commands kept under an old name for one release after a rename.

A module of the old name holds `class Command(RenamedCommand, NewCommand)` with `old_name` and `new_name`: the
command runs as under its new name, after one line on stderr naming the new name."""
from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand


class RenamedCommand(BaseCommand):
    old_name: str
    new_name: str

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.help = f"Deprecated name of `{cls.new_name}`, kept for one release. {cls.help}"

    def handle(self, *args: Any, **options: Any) -> Any:
        self.stderr.write(f"`{self.old_name}` is deprecated: use `{self.new_name}` (the old name goes in the next "
                          "release).")
        return super().handle(*args, **options)
