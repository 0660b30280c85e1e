"""`manage.py manage_prolific_hooks subscribe|list|delete` and `manage.py list_prolific_filters` against Prolific's
hooks and filters endpoints (a small stateful stand-in answering with the documented shapes)."""
from __future__ import annotations

import json
import re
import secrets
from collections.abc import Iterator
from dataclasses import dataclass, field
from io import StringIO
from urllib.parse import parse_qs, urlsplit

import pytest
import responses
from django.core.management import CommandError, call_command

from mturk.providers.prolific.client import reset_client

API = "https://api.prolific.test/api/v1/"
RECEIVER = "https://crowd.example.org/hooks/prolific/"
EVENTS = ("submission.status.change", "study.status.change")


@dataclass
class Hooks:
    """Prolific's side: one secret per workspace, subscriptions disabled until confirmed with their X-Hook-Secret."""

    secrets: list[str] = field(default_factory=list)
    subscriptions: dict[str, dict] = field(default_factory=dict)
    hook_secrets: dict[str, str] = field(default_factory=dict)
    confirmations: list[tuple[str, str]] = field(default_factory=list)
    send_hook_secret: bool = True

    def install(self, mock: responses.RequestsMock) -> None:
        mock.add(responses.GET, f"{API}hooks/event-types/", json={"results": [
            {"event_type": name, "description": name} for name in (*EVENTS, "study.progress.change")]})
        mock.add_callback(responses.GET, re.compile(rf"{re.escape(API)}hooks/secrets/\?.*"), self.list_secrets)
        mock.add_callback(responses.POST, f"{API}hooks/secrets/", self.create_secret)
        mock.add_callback(responses.GET, re.compile(rf"{re.escape(API)}hooks/subscriptions/\?.*"), self.list)
        mock.add_callback(responses.POST, f"{API}hooks/subscriptions/", self.create)
        mock.add_callback(responses.POST, re.compile(rf"{re.escape(API)}hooks/subscriptions/[^/]+/"), self.confirm)
        mock.add_callback(responses.DELETE, re.compile(rf"{re.escape(API)}hooks/subscriptions/[^/]+/"), self.delete)

    @staticmethod
    def query(request) -> dict[str, str]:
        return {key: values[0] for key, values in parse_qs(urlsplit(request.url).query).items()}

    def list_secrets(self, request):
        assert self.query(request)["workspace_id"] == "W1"
        return 200, {}, json.dumps({"results": [{"id": f"sec{i}", "value": value, "workspace_id": "W1"}
                                                for i, value in enumerate(self.secrets[-1:])]})

    def create_secret(self, request):
        assert json.loads(request.body) == {"workspace_id": "W1"}
        self.secrets.append(f"secret-{len(self.secrets) + 1}")
        return 201, {}, json.dumps({"id": f"sec{len(self.secrets)}", "value": self.secrets[-1],
                                    "workspace_id": "W1"})

    def list(self, request):
        query = self.query(request)
        assert query["workspace_id"] == "W1"
        enabled = query["is_enabled"] == "true"
        found = [s for s in self.subscriptions.values() if s["is_enabled"] is enabled]
        window = found[int(query.get("offset", 0)):][:int(query.get("limit", 200))]
        return 200, {}, json.dumps({"results": window, "meta": {"count": len(found)}})

    def create(self, request):
        body = json.loads(request.body)
        if not self.secrets:
            return 400, {}, json.dumps({"error": {"status": 400, "title": "Bad request", "detail":
                                                  "Subscriptions can only be created for workspaces with a secret."}})
        assert body["workspace_id"] == "W1" and body["target_url"].startswith(("https://", "http://"))
        sub_id = f"hook{len(self.hook_secrets) + 1}"
        self.subscriptions[sub_id] = {"id": sub_id, "event_type": body["event_type"], "target_url": body["target_url"],
                                      "is_enabled": False, "workspace_id": "W1"}
        self.hook_secrets[sub_id] = secrets.token_hex(8)
        headers = {"X-Hook-Secret": self.hook_secrets[sub_id]} if self.send_hook_secret else {}
        return 201, headers, json.dumps(self.subscriptions[sub_id])

    def confirm(self, request):
        sub_id = urlsplit(request.url).path.rstrip("/").rsplit("/", 1)[-1]
        given = json.loads(request.body).get("secret")
        self.confirmations.append((sub_id, given))
        if sub_id not in self.subscriptions or given != self.hook_secrets[sub_id]:
            return 400, {}, json.dumps({"message": "Invalid secret", "detail": "the secret does not match"})
        self.subscriptions[sub_id]["is_enabled"] = True
        return 200, {}, json.dumps(self.subscriptions[sub_id])

    def delete(self, request):
        sub_id = urlsplit(request.url).path.rstrip("/").rsplit("/", 1)[-1]
        if self.subscriptions.pop(sub_id, None) is None:
            return 404, {}, json.dumps({"error": {"status": 404, "title": "Not found", "detail": "No subscription"}})
        return 204, {}, ""

    def enabled(self) -> list[tuple[str, str]]:
        return sorted((s["event_type"], s["target_url"]) for s in self.subscriptions.values() if s["is_enabled"])


@pytest.fixture(autouse=True)
def prolific_settings(settings):
    settings.PROLIFIC_API_URL = API
    settings.PROLIFIC_TOKEN = "token-test"
    settings.PROLIFIC_WORKSPACE_ID = "W1"
    settings.PROLIFIC_WEBHOOK_SECRET = ""
    settings.PUBLIC_BASE_URL = "https://crowd.example.org"
    reset_client()
    yield settings
    reset_client()


@pytest.fixture
def mock() -> Iterator[responses.RequestsMock]:
    with responses.RequestsMock(assert_all_requests_are_fired=False) as requests_mock:
        yield requests_mock


@pytest.fixture
def hooks(mock) -> Hooks:
    state = Hooks()
    state.install(mock)
    return state


def run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=out)
    return out.getvalue()


def posts(mock: responses.RequestsMock, path: str) -> int:
    return sum(1 for call in mock.calls if call.request.method == "POST" and call.request.url == API + path)


def test_subscribe_twice_gives_one_confirmed_subscription_per_event(hooks, mock, settings):
    output = run("manage_prolific_hooks", "subscribe")
    assert hooks.secrets == ["secret-1"]
    assert "export PROLIFIC_WEBHOOK_SECRET=secret-1" in output
    assert hooks.enabled() == sorted((event, RECEIVER) for event in EVENTS)
    # each subscription was confirmed with the X-Hook-Secret its creation answered
    assert sorted(hooks.confirmations) == sorted(hooks.hook_secrets.items())
    assert output.count("Subscribed and confirmed") == 2

    settings.PROLIFIC_WEBHOOK_SECRET = "secret-1"  # exported as told
    again = run("manage_prolific_hooks", "subscribe")
    assert again.count("Already subscribed") == 2 and "export" not in again
    assert len(hooks.subscriptions) == 2 and hooks.secrets == ["secret-1"]
    assert posts(mock, "hooks/subscriptions/") == 2 and posts(mock, "hooks/secrets/") == 1


def test_subscribe_with_a_configured_secret_creates_none(hooks, mock, settings):
    hooks.secrets.append("existing")
    settings.PROLIFIC_WEBHOOK_SECRET = "existing"
    output = run("manage_prolific_hooks", "subscribe", "--events", "submission.status.change")
    assert "export" not in output and posts(mock, "hooks/secrets/") == 0
    assert hooks.enabled() == [("submission.status.change", RECEIVER)]


def test_an_existing_secret_is_not_replaced_without_new_secret(hooks, mock):
    hooks.secrets.append("existing")
    with pytest.raises(CommandError, match="already has a webhook signing secret.*--new-secret"):
        run("manage_prolific_hooks", "subscribe")
    assert hooks.secrets == ["existing"] and not hooks.subscriptions
    output = run("manage_prolific_hooks", "subscribe", "--new-secret")
    assert hooks.secrets == ["existing", "secret-2"]
    assert "previous one no longer works" in output and "export PROLIFIC_WEBHOOK_SECRET=secret-2" in output
    assert len(hooks.enabled()) == 2


def test_a_configured_secret_that_is_not_the_workspace_s_is_reported(hooks, settings):
    hooks.secrets.append("current")
    settings.PROLIFIC_WEBHOOK_SECRET = "outdated"
    output = run("manage_prolific_hooks", "subscribe")
    assert "is not the workspace's current secret" in output
    assert hooks.secrets == ["current"]


def test_the_receiver_url_must_be_https(hooks, mock, settings):
    settings.PUBLIC_BASE_URL = "http://127.0.0.1:8000"
    with pytest.raises(CommandError, match="not https"):
        run("manage_prolific_hooks", "subscribe")
    with pytest.raises(CommandError, match="not https"):
        run("manage_prolific_hooks", "subscribe", "--url", "http://crowd.example.org/hooks/prolific/")
    assert not mock.calls
    run("manage_prolific_hooks", "subscribe", "--url", "http://127.0.0.1:8000/hooks/prolific/", "--allow-http")
    assert {url for _, url in hooks.enabled()} == {"http://127.0.0.1:8000/hooks/prolific/"}
    settings.PROLIFIC_WEBHOOK_SECRET = hooks.secrets[-1]
    run("manage_prolific_hooks", "subscribe", "--url", "https://other.example.org/hooks/prolific/")
    assert len(hooks.enabled()) == 4  # another receiver is another subscription


def test_an_unconfirmed_subscription_is_replaced(hooks, settings):
    hooks.secrets.append("s")
    settings.PROLIFIC_WEBHOOK_SECRET = "s"
    hooks.subscriptions["old"] = {"id": "old", "event_type": "study.status.change", "target_url": RECEIVER,
                                  "is_enabled": False, "workspace_id": "W1"}
    output = run("manage_prolific_hooks", "subscribe")
    assert "Deleted disabled subscription old" in output
    assert "old" not in hooks.subscriptions
    assert hooks.enabled() == sorted((event, RECEIVER) for event in EVENTS)


def test_a_creation_without_x_hook_secret_is_an_error(hooks, settings):
    hooks.secrets.append("s")
    settings.PROLIFIC_WEBHOOK_SECRET = "s"
    hooks.send_hook_secret = False
    with pytest.raises(CommandError, match="without an X-Hook-Secret"):
        run("manage_prolific_hooks", "subscribe")
    assert not hooks.enabled() and not hooks.confirmations


def test_unknown_event_types_are_refused_before_anything_is_created(hooks, mock):
    with pytest.raises(CommandError, match="unknown event type.*submission.changed"):
        run("manage_prolific_hooks", "subscribe", "--events", "submission.changed")
    assert posts(mock, "hooks/secrets/") == 0 and not hooks.subscriptions


def test_list_and_delete(hooks, settings):
    hooks.secrets.append("s")
    settings.PROLIFIC_WEBHOOK_SECRET = "s"
    assert "No webhook subscriptions" in run("manage_prolific_hooks", "list")
    run("manage_prolific_hooks", "subscribe")
    listing = run("manage_prolific_hooks", "list")
    assert "hook1  submission.status.change  https://crowd.example.org/hooks/prolific/  (enabled)" in listing
    assert "hook2  study.status.change" in listing
    assert "Deleted subscription hook1." in run("manage_prolific_hooks", "delete", "hook1")
    assert list(hooks.subscriptions) == ["hook2"]
    with pytest.raises(CommandError, match="one subscription id, or --all"):
        run("manage_prolific_hooks", "delete")
    with pytest.raises(CommandError, match="Prolific: .*404"):
        run("manage_prolific_hooks", "delete", "hook1")
    run("manage_prolific_hooks", "subscribe", "--url", "https://other.example.org/hooks/prolific/")
    output = run("manage_prolific_hooks", "delete", "--all")
    assert output.count("Deleted subscription") == 3 and not hooks.subscriptions


def test_settings_are_checked_first(mock, settings):
    settings.PROLIFIC_TOKEN = ""
    with pytest.raises(CommandError, match="PROLIFIC_TOKEN"):
        run("manage_prolific_hooks", "list")
    settings.PROLIFIC_TOKEN = "t"
    settings.PROLIFIC_WORKSPACE_ID = ""
    with pytest.raises(CommandError, match="PROLIFIC_WORKSPACE_ID"):
        run("manage_prolific_hooks", "subscribe")
    assert not mock.calls


def test_prolific_errors_become_command_errors(mock):
    mock.get(f"{API}hooks/event-types/", status=401, json={"error": {"status": 401, "title": "Unauthorized",
                                                                     "detail": "Invalid token."}})
    with pytest.raises(CommandError, match="Invalid token"):
        run("manage_prolific_hooks", "subscribe")


def filter_page(items: list[tuple[str, str, str]], offset: int, total: int) -> dict:
    return {"results": [{"filter_id": fid, "title": title, "type": kind, "data_type": "ChoiceID"}
                        for fid, title, kind in items],
            "_links": {"next": {"href": f"{API}filters/?offset={offset + len(items)}" if offset + len(items) < total
                                else None}},
            "meta": {"count": total}}


def test_filters_are_listed_from_every_page(mock):
    first = [("participant_group_allowlist", "Custom allowlist", "select"), ("age", "Age", "range")]
    second = [("participant_group_blocklist", "Custom blocklist", "select")]
    mock.get(f"{API}filters/", json=filter_page(first, 0, 3),
             match=[responses.matchers.query_param_matcher({"limit": "200", "offset": "0"})])
    mock.get(f"{API}filters/", json=filter_page(second, 2, 3),
             match=[responses.matchers.query_param_matcher({"limit": "200", "offset": "2"})])
    output = run("list_prolific_filters")
    lines = output.splitlines()
    assert lines[0].split() == ["age", "range", "Age"]
    assert lines[2].split()[:2] == ["participant_group_blocklist", "select"]
    assert "3 filter(s)." in output
    found = run("list_prolific_filters", "BLOCK")
    assert "participant_group_blocklist" in found and "allowlist" not in found and "1 filter(s)." in found
    assert "No filter matches." in run("list_prolific_filters", "nothing-like-this")


def test_filters_need_only_a_token(mock, settings):
    settings.PROLIFIC_WORKSPACE_ID = ""
    mock.get(f"{API}filters/", json={"results": [], "meta": {"count": 0}})
    assert "Prolific listed no filters." in run("list_prolific_filters")
    settings.PROLIFIC_TOKEN = ""
    with pytest.raises(CommandError, match="PROLIFIC_TOKEN"):
        run("list_prolific_filters")
