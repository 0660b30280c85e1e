"""Fire-and-forget tasks of one campaign (their first argument is the campaign's id): a failure is recorded as the
campaign's last background error (`Campaign.marketplace_error`: its page and the API show it), and cleared once
the same task succeeds."""
from __future__ import annotations

from typing import Any

from ..jobs import FireAndForget


class CampaignTask(FireAndForget):
    def _campaigns(self, args: tuple[Any, ...]) -> Any:
        from ..models import Campaign

        return Campaign.objects.filter(pk=args[0]) if args else Campaign.objects.none()

    def record(self, args: tuple[Any, ...], line: str) -> None:
        self._campaigns(args).update(marketplace_error=line)

    def succeeded(self, args: tuple[Any, ...]) -> None:
        self._campaigns(args).filter(marketplace_error__startswith=f"{self.describe()} failed").update(
            marketplace_error="")
