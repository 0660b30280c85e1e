"""`manage.py manage_prolific_hooks`: Prolific webhooks of the workspace: subscribe (idempotently) this server's
receiver, list, delete."""
from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from ..base import ProviderError
from ..registry import get_provider
from .events import HANDLED_EVENT_TYPES
from .provider import ProlificProvider

RECEIVER_PATH = "/hooks/prolific/"


def prolific(workspace: bool = True) -> ProlificProvider:
    """The provider, once its settings are there (PROLIFIC_WORKSPACE_ID only if `workspace`)."""
    if not settings.PROLIFIC_TOKEN:
        raise CommandError("PROLIFIC_TOKEN is not set (an API token of the workspace)")
    if workspace and not settings.PROLIFIC_WORKSPACE_ID:
        raise CommandError("PROLIFIC_WORKSPACE_ID is not set (the id of the workspace whose events to receive)")
    provider = get_provider("prolific")
    assert isinstance(provider, ProlificProvider)
    return provider


def receiver_url(url: str | None, allow_http: bool) -> str:
    target = url or settings.PUBLIC_BASE_URL.rstrip("/") + RECEIVER_PATH
    parts = urlsplit(target)
    if parts.scheme not in ("https", "http") or not parts.netloc:
        raise CommandError(f"'{target}' is not an absolute URL")
    if parts.scheme != "https" and not allow_http:
        raise CommandError(f"'{target}' is not https: Prolific only delivers to a public https:// URL (set "
                           "PUBLIC_BASE_URL or pass --url; --allow-http is for a local test server only)")
    return target


def describe(subscription: dict[str, Any]) -> str:
    state = "enabled" if subscription.get("is_enabled") else "disabled"
    return f"{subscription.get('id')}  {subscription.get('event_type')}  {subscription.get('target_url')}  ({state})"


class Command(BaseCommand):
    help = ("Prolific webhooks of the workspace (PROLIFIC_WORKSPACE_ID). `subscribe` creates the signing secret "
            "if needed and subscribes this server's receiver to submission and study status changes (running it "
            "again changes nothing); `list` shows the subscriptions; `delete ID|--all` removes them.")

    def add_arguments(self, parser: CommandParser) -> None:
        actions = parser.add_subparsers(dest="action", required=True)
        subscribe = actions.add_parser("subscribe", help="subscribe the receiver (idempotent)")
        subscribe.add_argument("--url", help=f"the receiver's public https URL (default: PUBLIC_BASE_URL + "
                                             f"{RECEIVER_PATH})")
        subscribe.add_argument("--events", nargs="+", default=list(HANDLED_EVENT_TYPES), metavar="EVENT_TYPE",
                               help=f"event types (default: {' '.join(HANDLED_EVENT_TYPES)})")
        subscribe.add_argument("--new-secret", action="store_true",
                               help="create a new signing secret even though one exists (the old one stops "
                                    "working at once: every server verifying with it refuses the events)")
        subscribe.add_argument("--allow-http", action="store_true", help="accept an http:// URL (local tests only)")
        actions.add_parser("list", help="list the workspace's subscriptions")
        delete = actions.add_parser("delete", help="delete one subscription, or all of them")
        delete.add_argument("id", nargs="?", help="the subscription id (see `list`)")
        delete.add_argument("--all", action="store_true", help="delete every subscription of the workspace")

    def handle(self, *args: Any, action: str, **options: Any) -> None:
        provider = prolific()
        try:
            if action == "subscribe":
                self.subscribe(provider, receiver_url(options["url"], options["allow_http"]), options["events"],
                               options["new_secret"])
            elif action == "list":
                self.list(provider)
            else:
                self.delete(provider, options["id"], options["all"])
        except ProviderError as exc:
            raise CommandError(f"Prolific: {exc}") from None

    def subscribe(self, provider: ProlificProvider, url: str, events: list[str], new_secret: bool) -> None:
        known = {str(item.get("event_type")) for item in provider.hook_event_types() if item.get("event_type")}
        unknown = [event for event in events if known and event not in known]
        if unknown:
            raise CommandError(f"unknown event type(s) {', '.join(unknown)}; Prolific offers: "
                               f"{', '.join(sorted(known))}")
        self.ensure_secret(provider, new_secret)

        existing = [s for s in provider.hook_subscriptions() if s.get("target_url") == url]
        for event in dict.fromkeys(events):
            same = [s for s in existing if s.get("event_type") == event]
            if any(s.get("is_enabled") for s in same):
                self.stdout.write(f"Already subscribed: {event} -> {url}")
                continue
            for stale in same:  # created but never confirmed (or disabled by Prolific): its confirmation is lost
                provider.delete_hook_subscription(str(stale["id"]))
                self.stdout.write(f"Deleted disabled subscription {stale['id']} ({event}); creating it again.")
            created, hook_secret = provider.create_hook_subscription(event, url)
            if not hook_secret:
                raise CommandError(f"Prolific created subscription {created['id']} ({event}) without an "
                                   "X-Hook-Secret header to confirm it with: it stays disabled (run the command "
                                   "again to replace it)")
            provider.confirm_hook_subscription(str(created["id"]), hook_secret)
            self.stdout.write(f"Subscribed and confirmed: {event} -> {url} (subscription {created['id']})")

    def ensure_secret(self, provider: ProlificProvider, new_secret: bool) -> None:
        """The workspace's signing secret (one per workspace; subscriptions need it). Created only when the
        workspace has none, or on --new-secret; an existing one is never replaced silently."""
        configured = settings.PROLIFIC_WEBHOOK_SECRET
        existing = provider.hook_secrets()
        if existing and not new_secret:
            if not configured:
                raise CommandError(
                    "The workspace already has a webhook signing secret, but PROLIFIC_WEBHOOK_SECRET is not set "
                    "here. Export the existing one (Prolific's API: GET /api/v1/hooks/secrets/?workspace_id=<id>), "
                    "or pass --new-secret to create a new one: the old one then stops working at once, for every "
                    "server that verifies with it.")
            values = [str(item["value"]) for item in existing if item.get("value")]
            if values and configured not in values:
                self.stderr.write(self.style.WARNING(
                    "PROLIFIC_WEBHOOK_SECRET is not the workspace's current secret: this server refuses every "
                    "event (401). Export the current one, or pass --new-secret."))
            return
        replaced = bool(existing)
        value = provider.create_hook_secret()
        self.stdout.write(self.style.WARNING(
            "Created the workspace's webhook signing secret" + (" (the previous one no longer works)" if replaced
                                                              else "") + ". Set it on every server that receives "
            "the webhooks, then restart them; until then they refuse the events (401) and only the periodic sync "
            "keeps submissions up to date:"))
        self.stdout.write(f"  export PROLIFIC_WEBHOOK_SECRET={value}")

    def list(self, provider: ProlificProvider) -> None:
        subscriptions = provider.hook_subscriptions()
        if not subscriptions:
            self.stdout.write("No webhook subscriptions in the workspace.")
        for subscription in subscriptions:
            self.stdout.write(describe(subscription))

    def delete(self, provider: ProlificProvider, subscription_id: str | None, everything: bool) -> None:
        if bool(subscription_id) == everything:
            raise CommandError("give one subscription id, or --all")
        if subscription_id:
            ids = [subscription_id]
        else:
            ids = [str(s["id"]) for s in provider.hook_subscriptions()]
        for one in ids:
            provider.delete_hook_subscription(one)
            self.stdout.write(f"Deleted subscription {one}.")
        if not ids:
            self.stdout.write("No webhook subscriptions in the workspace.")
