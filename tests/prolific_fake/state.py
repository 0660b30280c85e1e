"""The fake Prolific's records and rules (what the HTTP layer in `server.py` exposes), and the control API
tests drive it with: participants start studies, enter completion codes, return or time out; faults are
injected per endpoint; webhook deliveries are built and signed like Prolific's.

Everything follows Prolific's documentation (../shared/design/prolific.md, sections 2-13): payload shapes,
amounts in minor units except the bonus CSV (major units), the two error shapes, the two paginations, the
submission transition's idempotency and the bonus payment's lack of it. All state is guarded by one lock:
the HTTP server runs each request in its own thread, and tests call the control API from theirs."""
from __future__ import annotations

import base64
import hashlib
import hmac
import itertools
import json
import math
import re
import secrets
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

STUDY_STATUSES = ("UNPUBLISHED", "PUBLISHING", "ACTIVE", "SCHEDULED", "PAUSED", "AWAITING REVIEW", "COMPLETED")
SUBMISSION_STATUSES = ("RESERVED", "ACTIVE", "TIMED-OUT", "AWAITING REVIEW", "APPROVED", "RETURNED", "REJECTED",
                       "SCREENED OUT", "PARTIALLY APPROVED")
# Statuses that hold one of the study's places (returned, timed-out and rejected submissions free theirs).
TAKING_PLACE = frozenset({"RESERVED", "ACTIVE", "AWAITING REVIEW", "APPROVED", "SCREENED OUT", "PARTIALLY APPROVED"})
CODE_TYPES = ("COMPLETED", "FAILED_ATTENTION_CHECK", "FOLLOW_UP_STUDY", "GIVE_BONUS", "INCOMPATIBLE_DEVICE",
              "NO_CONSENT", "OTHER", "FIXED_SCREENOUT")
CODE_ACTIONS = ("AUTOMATICALLY_APPROVE", "MANUALLY_REVIEW", "ADD_TO_PARTICIPANT_GROUP",
                "REMOVE_FROM_PARTICIPANT_GROUP", "DYNAMIC_PAYMENT", "REQUEST_RETURN")
REJECTION_CATEGORIES = ("TOO_QUICKLY", "TOO_SLOWLY", "FAILED_INSTRUCTIONS", "INCOMP_LONGITUDINAL", "FAILED_CHECK",
                        "LOW_EFFORT", "MALINGERING", "NO_CODE", "BAD_CODE", "NO_DATA", "UNSUPP_DEVICE", "OTHER")
MIN_REJECTION_MESSAGE = 100
DEVICES = ("desktop", "tablet", "mobile")
PERIPHERALS = ("audio", "camera", "download", "microphone")
ID_OPTIONS = ("question", "url_parameters", "not_required")
EVENT_TYPES = {
    "submission.status.change": "A submission of one of the workspace's studies changed status.",
    "study.status.change": "A study of the workspace changed status.",
    "study.progress.change": "A study's number of places taken changed.",
    "study.has_high_return_rate": "A study has an unusually high share of returned submissions.",
}
# Editable after publishing (Mephisto's observation, kept by the provider): everything else is read-only.
EDITABLE_AFTER_PUBLISH = frozenset({"total_available_places", "internal_name"})
FAULT_KINDS = ("429", "500", "502", "503", "504", "timeout", "timeout_after", "reset", "reset_before")


def utcnow() -> datetime:
    return datetime.now(UTC)


def iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def round_cents(value: Decimal) -> int:
    return int(value.quantize(Decimal("1"), rounding=ROUND_HALF_UP))


class ApiError(Exception):
    """An HTTP error answer. `simple` picks the {"message", "detail"} shape; the default is Prolific's
    {"error": {"status", "title", "error_code", "detail", "additional_information"}}."""

    TITLES = {400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
              405: "Method Not Allowed", 409: "Conflict", 429: "Too Many Requests", 500: "Internal Server Error",
              502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout"}

    def __init__(self, status: int, detail: Any, *, simple: bool = False, title: str = "",
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(f"{status}: {detail}")
        self.status = status
        self.detail = detail
        self.simple = simple
        self.title = title or self.TITLES.get(status, "Error")
        self.headers = headers or {}

    def body(self) -> dict[str, Any]:
        if self.simple:
            return {"message": self.title, "detail": self.detail if isinstance(self.detail, str)
                    else json.dumps(self.detail)}
        return {"error": {"status": self.status, "title": self.title, "error_code": self.status * 1000 + 1,
                          "detail": self.detail, "additional_information": ""}}


class Refused(Exception):
    """The control API refused a participant action (excluded by a filter, no place left, ...)."""


@dataclass
class Submission:
    id: str
    study_id: str
    participant_id: str
    status: str
    started_at: datetime
    device: str = "desktop"
    completed_at: datetime | None = None
    entered_code: str | None = None
    return_requested: datetime | None = None
    message: str = ""
    rejection_category: str = ""
    history: list[str] = field(default_factory=list)


@dataclass
class Group:
    id: str
    name: str
    workspace_id: str | None
    organisation_id: str | None
    description: str
    members: dict[str, datetime] = field(default_factory=dict)
    created_at: datetime = field(default_factory=utcnow)


@dataclass
class BonusSetup:
    """One POST /submissions/bonus-payments/: rows (submission id, participant id, minor units)."""

    id: str
    study_id: str
    rows: list[tuple[str, str, int]]
    amount: int
    fees: int
    vat: int
    pay_requests: int = 0

    @property
    def total_amount(self) -> int:
        return self.amount + self.fees + self.vat

    def as_json(self) -> dict[str, Any]:
        return {"id": self.id, "study": self.study_id, "amount": self.amount, "fees": self.fees, "vat": self.vat,
                "total_amount": self.total_amount}


@dataclass
class Payment:
    """One bonus actually paid (one row of a bulk, each time its /pay/ was called)."""

    bulk_id: str
    study_id: str
    submission_id: str
    participant_id: str
    amount: int
    paid_at: datetime


@dataclass
class Event:
    id: str
    event_type: str
    payload: dict[str, Any]
    created: float


@dataclass
class Delivery:
    """One signed webhook call: POST `body` with `headers` to our /hooks/prolific/."""

    event: Event
    body: bytes
    headers: dict[str, str]

    def django_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for Django's test client: `client.post(url, **delivery.django_kwargs())`."""
        return {"data": self.body, "content_type": "application/json",
                "headers": {k: v for k, v in self.headers.items() if k.lower() != "content-type"}}


@dataclass
class Fault:
    method: str | None
    pattern: re.Pattern[str]
    path: str
    kind: str
    remaining: int
    hits: int = 0


@dataclass
class Call:
    """One request the fake received (faulted ones too): path without the /api/v1/ prefix and slashes."""

    method: str
    path: str
    query: dict[str, str]
    body: Any
    fault: str = ""
    status: int = 0


def compile_path(pattern: str) -> re.Pattern[str]:
    """`submissions/{id}/transition` (slashes and an /api/v1/ prefix optional; `*` matches anything)."""
    clean = normalise_path(pattern)
    if clean == "*":
        return re.compile(r".*")
    parts = [r"[^/]+" if re.fullmatch(r"\{[^/]*\}", part) else re.escape(part) for part in clean.split("/")]
    return re.compile("/".join(parts))


def normalise_path(path: str) -> str:
    path = path.split("?", 1)[0].strip("/")
    if path.startswith("api/v1"):
        path = path[len("api/v1"):].strip("/")
    return path


def sign(secret: str, timestamp: str, body: bytes) -> str:
    """Prolific's webhook signature: base64(HMAC-SHA256(secret, timestamp + raw body))."""
    digest = hmac.new(secret.encode(), timestamp.encode() + body, hashlib.sha256).digest()
    return base64.b64encode(digest).decode()


class FakeProlific:
    """A workspace on a fake Prolific. Attributes tests may set: `fee_percentage`, `vat_percentage` (the cost
    calculator's and the bonus set-up's), `balance` (available, minor units), `max_page_size`,
    `default_page_size`, `hang_seconds`, `strict_study_transitions`, `require_https_hooks`,
    `blocklist_filter_id`, `allowlist_filter_id`."""

    def __init__(self, *, token: str = "fake-prolific-token", workspace_id: str = "",
                 fee_percentage: Decimal | str = "33.33", vat_percentage: Decimal | str = "20",
                 currency: str = "GBP", balance: int = 50_000_000) -> None:
        self.lock = threading.RLock()
        self._ids = itertools.count(1)
        self._seed = secrets.randbits(40)
        self.token = token
        self.workspace_id = workspace_id or self.new_id()
        self.project_ids: set[str] = set()
        self.fee_percentage = Decimal(fee_percentage)
        self.vat_percentage = Decimal(vat_percentage)
        self.currency = currency
        self.balance = balance
        self.max_page_size = 500
        self.default_page_size = 20  # a reader that ignores paging sees only the first 20
        self.hang_seconds = 5.0
        self.strict_study_transitions = True
        self.require_https_hooks = True
        self.blocklist_filter_id = "participant_group_blocklist"
        self.allowlist_filter_id = "participant_group_allowlist"
        self.studies: dict[str, dict[str, Any]] = {}
        self.submissions: dict[str, Submission] = {}
        self.groups: dict[str, Group] = {}
        self.bonus_setups: dict[str, BonusSetup] = {}
        self.payments: list[Payment] = []
        self.messages: list[dict[str, Any]] = []
        self.hook_secret: dict[str, Any] | None = None
        self.subscriptions: dict[str, dict[str, Any]] = {}
        self.subscription_secrets: dict[str, str] = {}
        self.events: list[Event] = []
        self.calls: list[Call] = []
        self.internal_errors: list[str] = []  # tracebacks of the fake's own bugs (answered as 500)
        self.faults: list[Fault] = []
        self.bulk_approvals: list[list[str]] = []
        self._pending: list[Callable[[], None]] = []
        self.stopping = threading.Event()

    # ---- ids -------------------------------------------------------------------------------------
    def new_id(self) -> str:
        """A 24-hex-digit id like Prolific's (ObjectId-shaped), unique within this fake."""
        return f"{self._seed:010x}{next(self._ids):014x}"

    def new_participant_id(self) -> str:
        return self.new_id()

    # ---- faults and the request log ----------------------------------------------------------------
    def fail(self, path: str, kind: str, *, method: str | None = None, times: int = 1) -> Fault:
        """The next `times` calls to `path` (e.g. "bulk-bonus-payments/{id}/pay/", "*") fail with `kind`:
        "429" / "500" / "502" / "503" / "504" (not processed), "timeout" (hangs past the client's timeout,
        not processed), "timeout_after" (processed, then the answer comes too late), "reset" (processed, then
        the connection is reset: the answer is lost), "reset_before" (reset, not processed)."""
        if kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault kind {kind!r} (known: {', '.join(FAULT_KINDS)})")
        fault = Fault(method.upper() if method else None, compile_path(path), path, kind, times)
        with self.lock:
            self.faults.append(fault)
        return fault

    def take_fault(self, method: str, path: str) -> Fault | None:
        with self.lock:
            for fault in self.faults:
                if fault.remaining > 0 and (fault.method in (None, method)) and fault.pattern.fullmatch(path):
                    fault.remaining -= 1
                    fault.hits += 1
                    return fault
        return None

    def received(self, method: str | None = None, path: str | None = None, *,
                 served: bool | None = None) -> list[Call]:
        """The calls received, optionally of one method and path pattern; `served=True`: only those
        processed (no fault before processing)."""
        pattern = compile_path(path) if path else None
        with self.lock:
            found = [c for c in self.calls if (method is None or c.method == method.upper())
                     and (pattern is None or pattern.fullmatch(c.path))]
        if served is not None:
            before = {"429", "500", "502", "503", "504", "timeout", "reset_before"}
            found = [c for c in found if (c.fault not in before) == served]
        return found

    # ---- asynchronous effects (bulk approve, bonus payments) --------------------------------------------
    def later(self, effect: Callable[[], None]) -> None:
        """An effect that happens "shortly after": before the next request (or control call) is handled."""
        with self.lock:
            self._pending.append(effect)

    def settle(self) -> None:
        with self.lock:
            pending, self._pending = self._pending, []
            for effect in pending:
                effect()

    # ---- studies -----------------------------------------------------------------------------------------
    def study(self, study_id: str) -> dict[str, Any]:
        with self.lock:
            self.settle()
            try:
                return self.studies[study_id]
            except KeyError:
                raise ApiError(404, f"Study {study_id} not found.") from None

    def study_submissions(self, study_id: str) -> list[Submission]:
        with self.lock:
            return [s for s in self.submissions.values() if s.study_id == study_id]

    def places_taken(self, study_id: str) -> int:
        return sum(1 for s in self.study_submissions(study_id) if s.status in TAKING_PLACE)

    def _costs(self, reward: int, places: int) -> dict[str, int]:
        rewards = reward * places
        fees = round_cents(Decimal(rewards) * self.fee_percentage / 100)
        vat = round_cents(Decimal(fees) * self.vat_percentage / 100)
        return {"rewards": rewards, "fees": fees, "vat": vat, "total": rewards + fees + vat}

    def study_cost(self, reward: Any, places: Any) -> dict[str, Any]:
        problems: dict[str, list[str]] = {}
        for name, value in (("reward", reward), ("total_available_places", places)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                problems[name] = ["A valid non-negative integer is required."]
        if problems:
            raise ApiError(400, problems)
        return {"total_cost": self._costs(reward, places)["total"]}

    def study_json(self, study: dict[str, Any]) -> dict[str, Any]:
        data = dict(study)
        taken = self.places_taken(study["id"])
        costs = self._costs(study["reward"], study["total_available_places"])
        per_place = self._costs(study["reward"], 1)
        data.update({
            "places_taken": taken,
            "number_of_submissions": len(self.study_submissions(study["id"])),
            "total_cost": costs["total"],
            "fees_per_submission": per_place["fees"] + per_place["vat"],
            "fees_percentage": float(self.fee_percentage),
            "vat_percentage": float(self.vat_percentage),
            "service_margin_percentage": float(self.fee_percentage),
            "currency_code": self.currency,
        })
        return data

    def create_study(self, payload: Any) -> dict[str, Any]:
        if not isinstance(payload, dict):
            raise ApiError(400, "A JSON object is required.")
        with self.lock:
            problems = self._study_problems(payload, partial=False)
            if problems:
                raise ApiError(400, problems)
            study_id = self.new_id()
            study = {key: value for key, value in payload.items() if key not in ("id", "status")}
            study.setdefault("internal_name", "")
            study.setdefault("device_compatibility", list(DEVICES))
            study.setdefault("peripheral_requirements", [])
            study.setdefault("filters", [])
            study.setdefault("project", payload.get("project"))
            study.update({"id": study_id, "status": "UNPUBLISHED", "workspace": self.workspace_id,
                          "date_created": iso(utcnow()), "published_at": None})
            self.studies[study_id] = study
            return self.study_json(study)

    def _study_problems(self, data: dict[str, Any], *, partial: bool) -> dict[str, list[str]]:
        problems: dict[str, list[str]] = {}

        def problem(key: str, text: str) -> None:
            problems.setdefault(key, []).append(text)

        def present(key: str) -> bool:
            return key in data

        required = ("name", "description", "total_available_places", "reward", "estimated_completion_time",
                    "completion_codes")
        if not partial:
            for key in required:
                if data.get(key) in (None, "", []):
                    problem(key, "This field is required.")
            if not data.get("external_study_url") and not data.get("access_details"):
                problem("external_study_url", "external_study_url or access_details is required.")
        for key in ("name", "description", "internal_name"):
            if present(key) and not isinstance(data[key], str):
                problem(key, "Not a valid string.")
        for key, low in (("total_available_places", 1), ("reward", 1), ("estimated_completion_time", 1)):
            value = data.get(key)
            if present(key) and value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                problem(key, "A valid integer is required.")
            elif isinstance(value, int) and value < low:
                problem(key, f"Ensure this value is greater than or equal to {low}.")
        if present("maximum_allowed_time") and data["maximum_allowed_time"] is not None:
            value = data["maximum_allowed_time"]
            estimate = data.get("estimated_completion_time")
            if isinstance(value, bool) or not isinstance(value, int):
                problem("maximum_allowed_time", "A valid integer is required.")
            elif isinstance(estimate, int) and value < 2 + estimate + 2 * math.sqrt(estimate):
                floor = math.ceil(2 + estimate + 2 * math.sqrt(estimate))
                problem("maximum_allowed_time", f"Must be at least {floor} minutes for an estimated "
                                                f"completion time of {estimate} minutes.")
        url = data.get("external_study_url")
        if present("external_study_url") and url is not None and (
                not isinstance(url, str) or not re.match(r"https?://[^\s/]+", url)):
            problem("external_study_url", "Enter a valid URL.")
        if present("access_details") and data["access_details"] is not None:
            details = data["access_details"]
            if not isinstance(details, list) or not all(
                    isinstance(d, dict) and isinstance(d.get("external_url"), str)
                    and isinstance(d.get("total_allocation"), int) for d in details):
                problem("access_details", "A list of {external_url, total_allocation} is required.")
            elif isinstance(data.get("total_available_places"), int) and sum(
                    d["total_allocation"] for d in details) != data["total_available_places"]:
                problem("access_details", "The allocations must sum to total_available_places.")
        if present("prolific_id_option") and data["prolific_id_option"] not in ID_OPTIONS:
            problem("prolific_id_option", f"Must be one of: {', '.join(ID_OPTIONS)}.")
        for key, allowed in (("device_compatibility", DEVICES), ("peripheral_requirements", PERIPHERALS)):
            if present(key) and (not isinstance(data[key], list) or not all(v in allowed for v in data[key])):
                problem(key, f"Must be a list of: {', '.join(allowed)}.")
        if present("completion_codes"):
            for text in self._code_problems(data["completion_codes"]):
                problem("completion_codes", text)
        if present("filters"):
            for text in self._filter_problems(data["filters"]):
                problem("filters", text)
        return problems

    def _code_problems(self, codes: Any) -> Iterator[str]:
        if not isinstance(codes, list) or not codes:
            yield "A non-empty list of completion codes is required."
            return
        seen: set[str] = set()
        for number, item in enumerate(codes, 1):
            if not isinstance(item, dict) or not isinstance(item.get("code"), str) or not item["code"]:
                yield f"Code {number}: `code` (a string) is required."
                continue
            if item["code"] in seen:
                yield f"Code {item['code']} is used twice: codes must be unique within a study."
            seen.add(item["code"])
            if item.get("code_type") not in CODE_TYPES:
                yield f"Code {item['code']}: code_type must be one of {', '.join(CODE_TYPES)}."
            if item.get("actor", "participant") not in ("participant", "researcher"):
                yield f"Code {item['code']}: actor must be participant or researcher."
            actions = item.get("actions", [])
            if not isinstance(actions, list):
                yield f"Code {item['code']}: actions must be a list."
                continue
            names = []
            for action in actions:
                name = action.get("action") if isinstance(action, dict) else None
                names.append(name)
                if name not in CODE_ACTIONS:
                    yield f"Code {item['code']}: unknown action {name!r}."
                elif name in ("ADD_TO_PARTICIPANT_GROUP", "REMOVE_FROM_PARTICIPANT_GROUP"):
                    group = action.get("participant_group")
                    if not isinstance(group, str) or group not in self.groups:
                        yield f"Code {item['code']}: {name} needs an existing participant_group (got {group!r})."
            if "AUTOMATICALLY_APPROVE" in names and "MANUALLY_REVIEW" in names:
                yield f"Code {item['code']}: AUTOMATICALLY_APPROVE cannot be combined with MANUALLY_REVIEW."

    def known_filters(self) -> list[dict[str, Any]]:
        return [
            {"filter_id": self.allowlist_filter_id, "title": "Custom allowlist (participant groups)",
             "type": "select", "data_type": "ChoiceID", "choices": {}},
            {"filter_id": self.blocklist_filter_id, "title": "Custom blocklist (participant groups)",
             "type": "select", "data_type": "ChoiceID", "choices": {}},
            {"filter_id": "previous_studies_blocklist", "title": "Exclude participants from previous studies",
             "type": "select", "data_type": "ChoiceID", "choices": {}},
            {"filter_id": "previous_studies_allowlist", "title": "Include participants from previous studies",
             "type": "select", "data_type": "ChoiceID", "choices": {}},
            {"filter_id": "approval_rate", "title": "Approval Rate", "type": "range", "data_type": "integer",
             "min": 0, "max": 100},
            {"filter_id": "approval_numbers", "title": "Approval Numbers", "type": "range", "data_type": "integer",
             "min": 0, "max": 10000},
            {"filter_id": "age", "title": "Age", "type": "range", "data_type": "integer", "min": 18, "max": 100},
            {"filter_id": "first-language", "title": "First language", "type": "select", "data_type": "ChoiceID",
             "choices": {"0": "English", "1": "French", "2": "German", "3": "Spanish"}},
            {"filter_id": "current-country-of-residence", "title": "Current country of residence",
             "type": "select", "data_type": "ChoiceID",
             "choices": {"0": "United Kingdom", "1": "United States", "2": "Canada", "3": "Ireland"}},
        ]

    def _filter_problems(self, filters: Any) -> Iterator[str]:
        if not isinstance(filters, list):
            yield "A list of filters is required."
            return
        known = {f["filter_id"]: f for f in self.known_filters()}
        for number, item in enumerate(filters, 1):
            if not isinstance(item, dict) or item.get("filter_id") not in known:
                name = item.get("filter_id") if isinstance(item, dict) else item
                yield f"Filter {number}: unknown filter_id {name!r} (GET /filters/ lists them)."
                continue
            kind = known[item["filter_id"]]["type"]
            if kind == "select":
                values = item.get("selected_values")
                if not isinstance(values, list) or not values or not all(isinstance(v, str) for v in values):
                    yield f"Filter {item['filter_id']}: selected_values (a non-empty list of strings) is required."
                    continue
                if item["filter_id"] in (self.allowlist_filter_id, self.blocklist_filter_id):
                    unknown = [v for v in values if v not in self.groups]
                    if unknown:
                        yield f"Filter {item['filter_id']}: unknown participant group(s) {', '.join(unknown)}."
            elif not isinstance(item.get("selected_range"), dict):
                yield f"Filter {item['filter_id']}: selected_range (an object) is required."

    def update_study(self, study_id: str, changes: Any) -> dict[str, Any]:
        with self.lock:
            study = self.study(study_id)
            if not isinstance(changes, dict):
                raise ApiError(400, "A JSON object is required.")
            if study["status"] != "UNPUBLISHED":
                frozen = sorted(set(changes) - EDITABLE_AFTER_PUBLISH)
                if frozen:
                    raise ApiError(400, {key: ["This field cannot be changed once the study is published."]
                                         for key in frozen})
                places = changes.get("total_available_places")
                if "total_available_places" in changes:
                    if isinstance(places, bool) or not isinstance(places, int):
                        raise ApiError(400, {"total_available_places": ["A valid integer is required."]})
                    if places < study["total_available_places"]:
                        raise ApiError(400, {"total_available_places": [
                            f"Places can only be increased once the study is published (now "
                            f"{study['total_available_places']})."]})
            problems = self._study_problems({**study, **changes}, partial=False)
            if problems:
                raise ApiError(400, problems)
            study.update({k: v for k, v in changes.items() if k not in ("id", "status", "workspace")})
            self._refresh_study(study)
            return self.study_json(study)

    def delete_study(self, study_id: str) -> None:
        with self.lock:
            study = self.study(study_id)
            if study["status"] != "UNPUBLISHED":
                raise ApiError(400, "Only draft (UNPUBLISHED) studies can be deleted.")
            del self.studies[study_id]

    def transition_study(self, study_id: str, body: Any) -> dict[str, Any]:
        action = body.get("action") if isinstance(body, dict) else None
        allowed = {"PUBLISH": ("UNPUBLISHED",), "PAUSE": ("ACTIVE",), "START": ("PAUSED",),
                   "STOP": ("ACTIVE", "PAUSED", "SCHEDULED")}
        with self.lock:
            study = self.study(study_id)
            if action not in allowed:
                raise ApiError(400, {"action": [f"Must be one of: {', '.join(allowed)}."]})
            current = study["status"]
            target = {"PUBLISH": "ACTIVE", "PAUSE": "PAUSED", "START": "ACTIVE", "STOP": "AWAITING REVIEW"}[action]
            if current not in allowed[action]:
                already = target == current or (action == "STOP" and current == "COMPLETED")
                if self.strict_study_transitions or not already:
                    raise ApiError(400, f"Cannot {action} a study whose status is {current}.")
                return self.study_json(study)
            if action == "PUBLISH":
                cost = self._costs(study["reward"], study["total_available_places"])["total"]
                if cost > self.balance:
                    raise ApiError(400, f"Insufficient balance: the study costs {cost}, the workspace has "
                                        f"{self.balance} available.")
                study["published_at"] = iso(utcnow())
            if action == "STOP":
                study["stopped"] = True
                if current in ("PAUSED", "SCHEDULED"):  # a stopped study no longer waits to be started
                    study["status"] = "ACTIVE"
            else:
                self._set_study_status(study, target)
            self._refresh_study(study)
            return self.study_json(study)

    def _set_study_status(self, study: dict[str, Any], status: str) -> None:
        if study["status"] != status:
            study["status"] = status
            self._emit("study.status.change", {"resource_id": study["id"], "event_type": "study.status.change",
                                               "metadata": {}, "status": status})

    def _refresh_study(self, study: dict[str, Any]) -> None:
        """A published study's status follows its submissions: while places are left (and it is not stopped)
        it is ACTIVE; full or stopped, it stays ACTIVE while a full study has participants at work, then
        AWAITING REVIEW until every submission is reviewed, then COMPLETED; a freed place reopens it."""
        if study["status"] not in ("ACTIVE", "AWAITING REVIEW", "COMPLETED"):
            return
        subs = self.study_submissions(study["id"])
        working = any(s.status in ("RESERVED", "ACTIVE") for s in subs)
        if not study.get("stopped") and (self.places_taken(study["id"]) < study["total_available_places"]
                                         or working):
            self._set_study_status(study, "ACTIVE")
        elif working or any(s.status == "AWAITING REVIEW" for s in subs):
            self._set_study_status(study, "AWAITING REVIEW")
        else:
            self._set_study_status(study, "COMPLETED")

    # ---- submissions -------------------------------------------------------------------------------------
    def submission(self, submission_id: str) -> Submission:
        with self.lock:
            self.settle()
            try:
                return self.submissions[submission_id]
            except KeyError:
                raise ApiError(404, f"Submission {submission_id} not found.") from None

    def paid_bonuses(self, submission_id: str) -> list[int]:
        """The bonuses paid on a submission, in minor units (its `bonus_payments`)."""
        with self.lock:
            self.settle()
            return [p.amount for p in self.payments if p.submission_id == submission_id]

    def submission_single(self, sub: Submission) -> dict[str, Any]:
        """GET /submissions/{id}/ (documented single shape)."""
        return {"id": sub.id, "participant": sub.participant_id, "study_id": sub.study_id, "status": sub.status,
                "started_at": iso(sub.started_at), "completed_at": iso(sub.completed_at),
                "entered_code": sub.entered_code, "parent_study_id": None,
                "bonus_payments": self.paid_bonuses(sub.id), "return_requested": iso(sub.return_requested)}

    def submission_item(self, sub: Submission, *, with_study: bool = False) -> dict[str, Any]:
        """An item of the submission lists (documented list shape, different from the single one)."""
        study = self.studies.get(sub.study_id, {})
        taken = int((sub.completed_at - sub.started_at).total_seconds()) if sub.completed_at else None
        item = {"id": sub.id, "participant_id": sub.participant_id, "started_at": iso(sub.started_at),
                "completed_at": iso(sub.completed_at), "is_complete": sub.completed_at is not None,
                "time_taken": taken, "reward": study.get("reward", 0), "status": sub.status, "strata": {},
                "study_code": sub.entered_code, "entered_code": sub.entered_code, "ip": "127.0.0.1",
                "return_requested": iso(sub.return_requested), "has_siblings": False, "star_awarded": False,
                "bonus_payments": self.paid_bonuses(sub.id)}
        if with_study:
            item["study_id"] = sub.study_id
        return item

    def _set_status(self, sub: Submission, status: str) -> None:
        if sub.status == status:
            return
        sub.status = status
        sub.history.append(status)
        self._emit("submission.status.change", {"resource_id": sub.id, "event_type": "submission.status.change",
                                                "participant_id": sub.participant_id, "status": status})
        study = self.studies.get(sub.study_id)
        if study is not None:
            self._refresh_study(study)

    def transition_submission(self, submission_id: str, body: Any) -> dict[str, Any]:
        """Documented as idempotent: the same request twice -> the second is ignored (200, current state)."""
        with self.lock:
            sub = self.submission(submission_id)
            if not isinstance(body, dict):
                raise ApiError(400, "A JSON object is required.", simple=True)
            action = body.get("action")
            targets = {"APPROVE": "APPROVED", "REJECT": "REJECTED", "COMPLETE": "AWAITING REVIEW",
                       "SCREEN_OUT": "SCREENED OUT"}
            if action not in targets:
                raise ApiError(400, f"Unknown action {action!r}: one of {', '.join(targets)}.", simple=True,
                               title="Invalid action")
            if action == "REJECT":
                message, category = body.get("message"), body.get("rejection_category")
                if not isinstance(message, str) or len(message) < MIN_REJECTION_MESSAGE:
                    raise ApiError(400, f"A rejection needs a message of at least {MIN_REJECTION_MESSAGE} "
                                        "characters.", simple=True, title="Invalid rejection")
                if not isinstance(category, str) or category not in REJECTION_CATEGORIES:
                    raise ApiError(400, f"rejection_category must be one of: {', '.join(REJECTION_CATEGORIES)}.",
                                   simple=True, title="Invalid rejection")
            if sub.status == targets[action] and action != "COMPLETE":
                return self.submission_single(sub)  # the same request again: ignored
            if action in ("APPROVE", "REJECT"):
                if sub.status != "AWAITING REVIEW":
                    raise ApiError(400, f"A submission in status {sub.status} cannot be "
                                        f"{targets[action].lower()}.", simple=True, title="Invalid transition")
                if action == "REJECT":
                    sub.message, sub.rejection_category = body["message"], body["rejection_category"]
                self._set_status(sub, targets[action])
            elif action == "COMPLETE":
                code = self._study_code(sub.study_id, body.get("completion_code"))
                if code is None or code.get("actor") != "researcher":
                    raise ApiError(400, "COMPLETE needs a completion_code of this study whose actor is researcher.",
                                   simple=True, title="Invalid completion code")
                if sub.status != "ACTIVE":
                    if sub.entered_code == code["code"]:
                        return self.submission_single(sub)
                    raise ApiError(400, f"A submission in status {sub.status} cannot be completed.", simple=True,
                                   title="Invalid transition")
                self._complete(sub, code["code"])
            else:
                if sub.status not in ("ACTIVE", "AWAITING REVIEW"):
                    raise ApiError(400, f"A submission in status {sub.status} cannot be screened out.",
                                   simple=True, title="Invalid transition")
                self._set_status(sub, "SCREENED OUT")
            return self.submission_single(sub)

    def bulk_approve(self, body: Any) -> str:
        """Asynchronous: the approvals happen before the next request; the answer only says it started."""
        with self.lock:
            if not isinstance(body, dict):
                raise ApiError(400, "A JSON object is required.")
            if "submission_ids" in body:
                ids = body["submission_ids"]
                if not isinstance(ids, list) or not ids or not all(isinstance(i, str) for i in ids):
                    raise ApiError(400, {"submission_ids": ["A non-empty list of submission ids is required."]})
            elif "study_id" in body and "participant_ids" in body:
                pids = body["participant_ids"]
                if not isinstance(pids, list) or not pids:
                    raise ApiError(400, {"participant_ids": ["A non-empty list of participant ids is required."]})
                ids = [s.id for s in self.study_submissions(str(body["study_id"])) if s.participant_id in pids]
            else:
                raise ApiError(400, "submission_ids, or study_id and participant_ids, are required.")
            chosen = list(ids)
            self.bulk_approvals.append(chosen)

            def approve() -> None:
                for sid in chosen:
                    sub = self.submissions.get(sid)
                    if sub is not None and sub.status == "AWAITING REVIEW":
                        self._set_status(sub, "APPROVED")

            self.later(approve)
            return "Bulk approve in progress"

    # ---- bonuses ----------------------------------------------------------------------------------------
    def set_up_bonuses(self, body: Any) -> dict[str, Any]:
        with self.lock:
            if not isinstance(body, dict):
                raise ApiError(400, "A JSON object is required.")
            study_id, csv = body.get("study_id"), body.get("csv_bonuses")
            if not isinstance(study_id, str) or study_id not in self.studies:
                raise ApiError(400, {"study_id": [f"Study {study_id!r} not found."]})
            if not isinstance(csv, str) or not csv.strip():
                raise ApiError(400, {"csv_bonuses": ["This field is required."]})
            subs = self.study_submissions(study_id)
            by_id = {s.id: s for s in subs}
            by_participant = {s.participant_id: s for s in sorted(subs, key=lambda s: s.started_at)}
            rows: list[tuple[str, str, int]] = []
            unknown: list[str] = []
            malformed: list[str] = []
            for line in csv.splitlines():
                if not line.strip():
                    continue
                parts = [p.strip() for p in line.split(",")]
                if len(parts) != 2:
                    malformed.append(line)
                    continue
                who, text = parts
                try:
                    amount = Decimal(text)
                except InvalidOperation:
                    malformed.append(line)
                    continue
                if not amount.is_finite() or amount <= 0 or amount != amount.quantize(Decimal("0.01")):
                    malformed.append(line)
                    continue
                sub = by_id.get(who) or by_participant.get(who)
                if sub is None:
                    unknown.append(who)
                    continue
                rows.append((sub.id, sub.participant_id, round_cents(amount * 100)))
            if malformed:
                raise ApiError(400, {"csv_bonuses": [f"Invalid line(s): {'; '.join(malformed)} (expected "
                                                     "<id>,<amount in major units>, e.g. 60bf93...,1.50)"]})
            if unknown:
                raise ApiError(400, {"csv_bonuses": [f"These ids did not take part in study {study_id}: "
                                                     f"{', '.join(unknown)}"]})
            total = sum(cents for _, _, cents in rows)
            fees = round_cents(Decimal(total) * self.fee_percentage / 100)
            vat = round_cents(Decimal(fees) * self.vat_percentage / 100)
            setup = BonusSetup(self.new_id(), study_id, rows, total, fees, vat)
            self.bonus_setups[setup.id] = setup
            return setup.as_json()

    def pay_bonuses(self, bulk_id: str) -> None:
        """NOT idempotent (documented): every call pays the whole bulk again, shortly after."""
        with self.lock:
            setup = self.bonus_setups.get(bulk_id)
            if setup is None:
                raise ApiError(404, f"Bulk bonus payment {bulk_id} not found.", simple=True, title="Not found")
            if setup.total_amount > self.balance:
                raise ApiError(400, "Insufficient balance to pay these bonuses.", simple=True,
                               title="Insufficient balance")
            setup.pay_requests += 1
            self.balance -= setup.total_amount

            def pay() -> None:
                for submission_id, participant_id, cents in setup.rows:
                    self.payments.append(Payment(bulk_id, setup.study_id, submission_id, participant_id, cents,
                                                 utcnow()))

            self.later(pay)

    def pay_calls(self, bulk_id: str | None = None) -> int:
        """How many times /pay/ was processed (for one bulk, or in all)."""
        with self.lock:
            setups = [self.bonus_setups[bulk_id]] if bulk_id else list(self.bonus_setups.values())
            return sum(s.pay_requests for s in setups)

    # ---- participant groups ---------------------------------------------------------------------------
    def group(self, group_id: str) -> Group:
        with self.lock:
            try:
                return self.groups[group_id]
            except KeyError:
                raise ApiError(404, f"Participant group {group_id} not found.") from None

    def group_json(self, group: Group) -> dict[str, Any]:
        return {"id": group.id, "name": group.name, "workspace_id": group.workspace_id, "project_id": None,
                "organisation_id": group.organisation_id, "description": group.description,
                "participant_count": len(group.members), "is_deleted": False, "feeder_studies": []}

    def create_group(self, body: Any) -> dict[str, Any]:
        with self.lock:
            if not isinstance(body, dict) or not isinstance(body.get("name"), str) or not body["name"].strip():
                raise ApiError(400, {"name": ["This field is required."]})
            workspace, organisation = body.get("workspace_id"), body.get("organisation_id")
            if not workspace and not organisation:
                raise ApiError(400, {"workspace_id": ["workspace_id or organisation_id is required."]})
            if workspace and workspace != self.workspace_id:
                raise ApiError(404, f"Workspace {workspace} not found.")
            group = Group(self.new_id(), body["name"], workspace, organisation, str(body.get("description") or ""))
            for pid in self._participant_ids(body.get("participant_ids", [])):
                group.members.setdefault(pid, utcnow())
            self.groups[group.id] = group
            return self.group_json(group)

    def _participant_ids(self, value: Any) -> list[str]:
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise ApiError(400, {"participant_ids": ["A list of participant ids is required."]})
        return value

    def add_to_group(self, group_id: str, body: Any) -> list[dict[str, Any]]:
        """Members already in the group are ignored."""
        with self.lock:
            group = self.group(group_id)
            ids = self._participant_ids(body.get("participant_ids") if isinstance(body, dict) else None)
            for pid in ids:
                group.members.setdefault(pid, utcnow())
            return self.members_json(group)

    def remove_from_group(self, group_id: str, body: Any) -> list[dict[str, Any]]:
        with self.lock:
            group = self.group(group_id)
            for pid in self._participant_ids(body.get("participant_ids") if isinstance(body, dict) else None):
                group.members.pop(pid, None)
            return self.members_json(group)

    def members_json(self, group: Group) -> list[dict[str, Any]]:
        return [{"participant_id": pid, "datetime_created": iso(when)} for pid, when in group.members.items()]

    def members(self, group_id: str) -> set[str]:
        with self.lock:
            self.settle()
            return set(self.group(group_id).members)

    # ---- messages, balance ---------------------------------------------------------------------------
    def send_bulk_message(self, body: Any) -> None:
        with self.lock:
            if not isinstance(body, dict):
                raise ApiError(400, "A JSON object is required.")
            ids, text, study = body.get("ids"), body.get("body"), body.get("study_id")
            problems: dict[str, list[str]] = {}
            if not isinstance(ids, list) or not ids or not all(isinstance(i, str) for i in ids):
                problems["ids"] = ["A non-empty list of participant ids is required."]
            if not isinstance(text, str) or not text.strip():
                problems["body"] = ["This field may not be blank."]
            if not isinstance(study, str) or study not in self.studies:
                problems["study_id"] = [f"Study {study!r} not found."]
            if problems:
                raise ApiError(400, problems)
            self.messages.append({"ids": list(ids or []), "study_id": study, "body": text})

    def send_message(self, body: Any) -> None:
        with self.lock:
            if not isinstance(body, dict) or not all(isinstance(body.get(k), str) and body[k]
                                                     for k in ("recipient_id", "study_id", "body")):
                raise ApiError(400, "recipient_id, study_id and body are required.")
            self.messages.append({"ids": [body["recipient_id"]], "study_id": body["study_id"], "body": body["body"]})

    def balance_json(self, workspace_id: str) -> dict[str, Any]:
        if workspace_id != self.workspace_id:
            raise ApiError(404, f"Workspace {workspace_id} not found.")
        breakdown = {"rewards": self.balance, "fees": 0, "vat": 0}
        return {"currency_code": self.currency, "total_balance": self.balance, "balance_breakdown": breakdown,
                "available_balance": self.balance, "available_balance_breakdown": breakdown}

    # ---- hooks -------------------------------------------------------------------------------------------
    def create_secret(self, body: Any) -> dict[str, Any]:
        """One active secret per workspace: a new one replaces (invalidates) the old."""
        with self.lock:
            workspace = body.get("workspace_id") if isinstance(body, dict) else None
            if workspace != self.workspace_id:
                raise ApiError(400 if not workspace else 404, {"workspace_id": ["A known workspace_id is required."]})
            self.hook_secret = {"id": self.new_id(), "value": secrets.token_urlsafe(32), "workspace_id": workspace}
            return dict(self.hook_secret)

    def secret_value(self) -> str:
        """The workspace's signing secret (one is made if the workspace has none yet)."""
        with self.lock:
            if self.hook_secret is None:
                self.create_secret({"workspace_id": self.workspace_id})
            assert self.hook_secret is not None
            return str(self.hook_secret["value"])

    def create_subscription(self, body: Any) -> tuple[dict[str, Any], str]:
        with self.lock:
            if not isinstance(body, dict):
                raise ApiError(400, "A JSON object is required.")
            problems: dict[str, list[str]] = {}
            if body.get("workspace_id") != self.workspace_id:
                problems["workspace_id"] = ["A known workspace_id is required."]
            if body.get("event_type") not in EVENT_TYPES:
                problems["event_type"] = [f"Must be one of: {', '.join(EVENT_TYPES)}."]
            url = body.get("target_url")
            scheme = ("https://",) if self.require_https_hooks else ("https://", "http://")
            if not isinstance(url, str) or not url.startswith(scheme):
                problems["target_url"] = ["A public https:// URL is required."]
            if problems:
                raise ApiError(400, problems)
            sub = {"id": self.new_id(), "event_type": body["event_type"], "target_url": url, "is_enabled": False,
                   "workspace_id": self.workspace_id}
            self.subscriptions[sub["id"]] = sub
            self.subscription_secrets[sub["id"]] = secrets.token_hex(16)
            return dict(sub), self.subscription_secrets[sub["id"]]

    def subscription(self, subscription_id: str) -> dict[str, Any]:
        try:
            return self.subscriptions[subscription_id]
        except KeyError:
            raise ApiError(404, f"Subscription {subscription_id} not found.") from None

    def confirm_subscription(self, subscription_id: str, body: Any) -> dict[str, Any]:
        with self.lock:
            sub = self.subscription(subscription_id)
            secret = body.get("secret") if isinstance(body, dict) else None
            if not isinstance(secret, str) or not hmac.compare_digest(secret,
                                                                     self.subscription_secrets[subscription_id]):
                raise ApiError(400, {"secret": ["Does not match the X-Hook-Secret this subscription was created "
                                                "with."]})
            sub["is_enabled"] = True
            return dict(sub)

    def update_subscription(self, subscription_id: str, body: Any) -> dict[str, Any]:
        with self.lock:
            sub = self.subscription(subscription_id)
            if not isinstance(body, dict):
                raise ApiError(400, "A JSON object is required.")
            if "is_enabled" in body:
                sub["is_enabled"] = bool(body["is_enabled"])
            if isinstance(body.get("target_url"), str):
                sub["target_url"] = body["target_url"]
            return dict(sub)

    def delete_subscription(self, subscription_id: str) -> None:
        with self.lock:
            self.subscription(subscription_id)
            del self.subscriptions[subscription_id]

    def _emit(self, event_type: str, payload: dict[str, Any]) -> None:
        self.events.append(Event(str(uuid.uuid4()), event_type, payload, time.time()))

    def events_of(self, event_type: str | None = None, resource_id: str | None = None) -> list[Event]:
        with self.lock:
            self.settle()
            return [e for e in self.events if (event_type is None or e.event_type == event_type)
                    and (resource_id is None or e.payload.get("resource_id") == resource_id)]

    def delivery(self, event: Event, *, secret: str | None = None, timestamp: str | int | float | None = None,
                 body: bytes | None = None) -> Delivery:
        """The signed call Prolific would make for `event` (headers X-Prolific-Request-Signature,
        X-Prolific-Request-Timestamp, X-Event-ID, X-Timestamp). `secret`, `timestamp` and `body` can be
        overridden to build forged, stale or tampered calls."""
        raw = body if body is not None else json.dumps(event.payload, separators=(",", ":")).encode()
        stamp = str(int(time.time()) if timestamp is None else int(timestamp))
        key = secret if secret is not None else self.secret_value()
        return Delivery(event, raw, {
            "Content-Type": "application/json",
            "X-Prolific-Request-Signature": sign(key, stamp, raw),
            "X-Prolific-Request-Timestamp": stamp,
            "X-Event-ID": event.id,
            "X-Timestamp": str(int(event.created)),
        })

    def deliveries(self, events: Iterable[Event] | None = None, *, duplicate: bool = False,
                   reverse: bool = False) -> list[Delivery]:
        """Signed deliveries of `events` (default: every event so far), each twice if `duplicate`, in
        reverse order if `reverse` (at-least-once and unordered, as Prolific documents)."""
        chosen = list(self.events_of() if events is None else events)
        if reverse:
            chosen.reverse()
        out: list[Delivery] = []
        for event in chosen:
            delivery = self.delivery(event)
            out.append(delivery)
            if duplicate:
                out.append(self.delivery(event))
        return out

    def deliver(self, to: Any, path: str = "/hooks/prolific/", events: Iterable[Event] | None = None, *,
                duplicate: bool = False, reverse: bool = False) -> list[Any]:
        """POST signed deliveries (see `deliveries`) to our webhook endpoint and return the answers. `to` is
        Django's test client (anything with its `post(path, data=, content_type=, headers=)`), or the base
        URL of a live server ("http://127.0.0.1:8000"), posted to with `requests`."""
        answers = []
        for item in self.deliveries(events, duplicate=duplicate, reverse=reverse):
            if isinstance(to, str):
                import requests

                answers.append(requests.post(to.rstrip("/") + path, data=item.body, headers=item.headers,
                                             timeout=30))
            else:
                answers.append(to.post(path, **item.django_kwargs()))
        return answers

    # ---- the control API: participants ------------------------------------------------------------------
    def start(self, study_id: str, participant_id: str | None = None, *, device: str = "desktop",
              reserve: bool = False) -> Submission:
        """A participant takes part: a new submission (ACTIVE, or RESERVED with `reserve`), whose id is the
        SESSION_ID Prolific would put into the study URL. Raises Refused when the study would not be shown
        to them (not active, no place left, excluded by a filter, wrong device, already took part)."""
        pid = participant_id or self.new_participant_id()
        with self.lock:
            self.settle()
            study = self.studies.get(study_id)
            if study is None:
                raise Refused(f"no study {study_id}")
            if study["status"] != "ACTIVE":
                raise Refused(f"study {study_id} is {study['status']}, not ACTIVE")
            if self.places_taken(study_id) >= study["total_available_places"]:
                raise Refused(f"study {study_id} has no place left ({study['total_available_places']} taken)")
            if device not in (study.get("device_compatibility") or []):
                raise Refused(f"device {device} is not allowed (allowed: {study.get('device_compatibility')})")
            if any(s.participant_id == pid for s in self.study_submissions(study_id)):
                raise Refused(f"participant {pid} already took part in study {study_id}")
            reason = self._excluded(study, pid)
            if reason:
                raise Refused(reason)
            sub = Submission(self.new_id(), study_id, pid, "RESERVED" if reserve else "ACTIVE", utcnow(), device)
            self.submissions[sub.id] = sub
            sub.history.append(sub.status)
            self._emit("submission.status.change", {"resource_id": sub.id, "event_type": "submission.status.change",
                                                    "participant_id": pid, "status": sub.status})
            self._refresh_study(study)
            return sub

    def eligible(self, study_id: str, participant_id: str) -> bool:
        with self.lock:
            return not self._excluded(self.study(study_id), participant_id)

    def _excluded(self, study: dict[str, Any], pid: str) -> str:
        for item in study.get("filters") or []:
            fid, values = item.get("filter_id"), item.get("selected_values") or []
            if fid == self.blocklist_filter_id and any(pid in self.groups[g].members for g in values if g in
                                                       self.groups):
                return f"participant {pid} is in a blocklisted participant group"
            if fid == self.allowlist_filter_id and not any(pid in self.groups[g].members for g in values if g in
                                                           self.groups):
                return f"participant {pid} is in none of the allowlisted participant groups"
            if fid == "previous_studies_blocklist" and any(
                    s.participant_id == pid and s.study_id in values for s in self.submissions.values()):
                return f"participant {pid} took part in a blocklisted study"
            if fid == "previous_studies_allowlist" and not any(
                    s.participant_id == pid and s.study_id in values for s in self.submissions.values()):
                return f"participant {pid} took part in none of the allowlisted studies"
        return ""

    def activate(self, submission_id: str) -> Submission:
        with self.lock:
            sub = self.submission(submission_id)
            if sub.status != "RESERVED":
                raise Refused(f"submission {submission_id} is {sub.status}, not RESERVED")
            self._set_status(sub, "ACTIVE")
            return sub

    def _study_code(self, study_id: str, code: Any) -> dict[str, Any] | None:
        for item in self.studies[study_id].get("completion_codes") or []:
            if isinstance(item, dict) and item.get("code") == code:
                return item
        return None

    def completion_code(self, study_id: str, code_type: str = "COMPLETED") -> str:
        with self.lock:
            for item in self.study(study_id).get("completion_codes") or []:
                if item.get("code_type") == code_type:
                    return str(item["code"])
        raise KeyError(f"study {study_id} has no {code_type} code")

    def complete(self, submission_id: str, code: str | None = None) -> Submission:
        """The participant enters a completion code (default: the study's COMPLETED code) on Prolific: the
        submission awaits review and the code's actions run (e.g. ADD_TO_PARTICIPANT_GROUP). An unknown code
        is kept as entered_code and runs nothing (the researcher sees it while reviewing)."""
        with self.lock:
            sub = self.submission(submission_id)
            if sub.status != "ACTIVE":
                raise Refused(f"submission {submission_id} is {sub.status}, not ACTIVE")
            entered = code if code is not None else self.completion_code(sub.study_id)
            self._complete(sub, entered)
            return sub

    def _complete(self, sub: Submission, code: str) -> None:
        sub.entered_code = code
        sub.completed_at = utcnow()
        self._set_status(sub, "AWAITING REVIEW")
        item = self._study_code(sub.study_id, code)
        for action in (item or {}).get("actions") or []:
            name = action.get("action")
            group = self.groups.get(str(action.get("participant_group")))
            if name == "ADD_TO_PARTICIPANT_GROUP" and group is not None:
                group.members.setdefault(sub.participant_id, utcnow())
            elif name == "REMOVE_FROM_PARTICIPANT_GROUP" and group is not None:
                group.members.pop(sub.participant_id, None)
            elif name == "AUTOMATICALLY_APPROVE":
                self._set_status(sub, "APPROVED")

    def return_submission(self, submission_id: str) -> Submission:
        """The participant returns the study: the place frees up."""
        with self.lock:
            sub = self.submission(submission_id)
            if sub.status not in ("RESERVED", "ACTIVE", "AWAITING REVIEW"):
                raise Refused(f"submission {submission_id} is {sub.status}: it cannot be returned")
            self._set_status(sub, "RETURNED")
            return sub

    def time_out(self, submission_id: str) -> Submission:
        """The participant was inactive past the maximum allowed time: the place frees up."""
        with self.lock:
            sub = self.submission(submission_id)
            if sub.status not in ("RESERVED", "ACTIVE"):
                raise Refused(f"submission {submission_id} is {sub.status}: it cannot time out")
            self._set_status(sub, "TIMED-OUT")
            return sub

    def set_submission_status(self, submission_id: str, status: str) -> Submission:
        """Any status, as Prolific's own processes might set it (e.g. auto-approval after 21 days)."""
        if status not in SUBMISSION_STATUSES:
            raise ValueError(f"unknown submission status {status!r}")
        with self.lock:
            sub = self.submission(submission_id)
            self._set_status(sub, status)
            return sub
