"""Prolific bonuses are paid exactly once: the ledger (planned -> set_up -> pay_requested -> paid) is stored
before each call, and a crash at any point, then a re-run, never sends `pay` twice for one bonus.

Prolific is played by `responses` callbacks speaking the documented payloads: `POST
/submissions/bonus-payments/` ({study_id, csv_bonuses} -> {id, study, amount, fees, vat, total_amount}, in
minor units), `POST /bulk-bonus-payments/{id}/pay/` (not idempotent: every processed request pays again), and
the study's submission list (limit/offset pages; items carry `bonus_payments`)."""
from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from decimal import Decimal
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
import responses
from django.db import connection, transaction
from django.utils import timezone

from mturk.models import HIT, Assignment, Bonus, BonusState, Campaign, Worker
from mturk.providers.base import ProviderError
from mturk.providers.prolific import bonuses as prolific_bonuses
from mturk.providers.prolific.bonuses import pay_prolific_bonus, reconcile_bonuses
from mturk.providers.prolific.client import reset_client
from mturk.providers.prolific.models import ProlificStudy
from mturk.providers.prolific.provider import ProlificProvider
from mturk.services.review import ReviewError, grant_bonus, pay_bonus, pay_pending_bonuses
from mturk.states import AssignmentStatus, CampaignStatus, HITStatus
from tests.factories import GOOD_TEXT, make_campaign

API = "https://api.prolific.test/api/v1/"
STUDY = "60f0c0ffee0000000000study"
PAGE = 2  # the fake serves at most this many submissions per page, whatever `limit` asks for


class Crash(BaseException):
    """The process dies here (not an Exception: nothing on the way may handle it)."""


# ---- a Prolific that keeps books ------------------------------------------------------------------
@dataclass
class Prolific:
    """What Prolific holds: set-ups, processed payments, and each submission's bonus_payments."""

    submissions: list[str]
    set_ups: dict[str, dict[str, Any]] = field(default_factory=dict)  # bulk id -> {study_id, rows, amount}
    paid: list[str] = field(default_factory=list)  # bulk ids whose pay request was processed (each pays)
    pay_requests: int = 0  # every pay request that reached Prolific, processed or not
    list_requests: list[dict[str, list[str]]] = field(default_factory=list)
    records: dict[str, list[Any]] = field(default_factory=dict)  # submission id -> bonus_payments
    set_up_modes: list[str] = field(default_factory=list)  # next set-up requests: see set_up()
    pay_modes: list[str] = field(default_factory=list)  # next pay requests: see pay()
    visible: bool = True  # processed payments show in the submission list (Prolific pays asynchronously)
    shape: str = "int"  # bonus_payments entries: "int" (minor units) or "object" ({"amount": minor units})
    amount_offset: int = 0  # the set-up answer reports this much more than was set up
    http: responses.RequestsMock | None = None  # every request sent (`http.calls`)

    def set_up(self, request: requests.PreparedRequest) -> tuple[int, dict, str]:
        mode = self.set_up_modes.pop(0) if self.set_up_modes else "ok"
        if mode == "crash_before":
            raise Crash("killed while sending the set-up")
        body = json.loads(request.body or b"{}")
        if mode == "400":
            return 400, {}, json.dumps({"error": {
                "status": 400, "title": "Invalid request", "error_code": 140100,
                "detail": {"csv_bonuses": ["Participant sub-x has not taken part in this study."]}}})
        rows = [line.split(",") for line in body["csv_bonuses"].split("\n")]
        amount = sum(int(Decimal(value) * 100) for _, value in rows)
        bulk_id = f"bulk{len(self.set_ups) + 1:020d}"
        self.set_ups[bulk_id] = {"study_id": body["study_id"], "rows": rows, "amount": amount}
        if mode == "crash_after":
            raise Crash("killed before the set-up's answer arrived")
        if mode == "reset_after":
            raise requests.exceptions.ConnectionError("Connection reset by peer")
        fees = amount // 3
        answer = {"id": bulk_id, "study": body["study_id"], "amount": amount + self.amount_offset, "fees": fees,
                  "vat": fees // 5, "total_amount": amount + fees + fees // 5}
        return 201, {}, json.dumps(answer)

    def pay(self, request: requests.PreparedRequest) -> tuple[int, dict, str]:
        self.pay_requests += 1
        mode = self.pay_modes.pop(0) if self.pay_modes else "ok"
        if mode == "429":
            return 429, {"Retry-After": "0"}, json.dumps({"message": "Too many requests", "detail": "wallet busy"})
        if mode == "500":
            return 500, {}, json.dumps({"message": "Internal server error"})
        if mode in ("400", "404"):
            return int(mode), {}, json.dumps({"error": {"status": int(mode), "title": "Refused",
                                                        "detail": "Insufficient balance" if mode == "400"
                                                        else "Not found."}})
        bulk_id = urlsplit(request.url or "").path.rstrip("/").split("/")[-2]
        if bulk_id not in self.set_ups:
            return 404, {}, json.dumps({"error": {"status": 404, "title": "Not found", "detail": "Not found."}})
        self.paid.append(bulk_id)
        if self.visible:
            self.show(bulk_id)
        if mode == "reset_after":
            raise requests.exceptions.ConnectionError("Connection reset by peer")
        return 202, {}, json.dumps({})

    def show(self, bulk_id: str) -> None:
        """The payment of `bulk_id` appears in the submissions' bonus_payments."""
        for who, value in self.set_ups[bulk_id]["rows"]:
            minor = int(Decimal(value) * 100)
            self.records.setdefault(who, []).append(minor if self.shape == "int" else
                                                    {"id": f"bp-{bulk_id}", "amount": minor})

    def listing(self, request: requests.PreparedRequest) -> tuple[int, dict, str]:
        query = parse_qs(urlsplit(request.url or "").query)
        self.list_requests.append(query)
        offset = int(query.get("offset", ["0"])[0])
        limit = min(int(query.get("limit", ["20"])[0]), PAGE)
        page = self.submissions[offset:offset + limit]
        items = [{
            "id": sid, "participant_id": f"pid-{sid}", "started_at": "2026-11-20T10:00:00Z",
            "completed_at": "2026-11-20T10:09:00Z", "is_complete": True, "time_taken": 540, "reward": 150,
            "status": "APPROVED", "strata": {}, "study_code": "C0FFEE", "entered_code": "C0FFEE", "ip": "192.0.2.1",
            "return_requested": None, "has_siblings": False, "star_awarded": False,
            "bonus_payments": list(self.records.get(sid, [])),
        } for sid in page]
        after = offset + len(page)
        base = f"{API}studies/{STUDY}/submissions/"
        links = {"self": {"href": request.url, "title": "Current"},
                 "next": {"href": f"{base}?limit={limit}&offset={after}" if after < len(self.submissions)
                          else None, "title": "Next"},
                 "previous": {"href": None, "title": "Previous"},
                 "last": {"href": None, "title": "Last"}}
        return 200, {}, json.dumps({"results": items, "_links": links, "meta": {"count": len(self.submissions)}})

    def paid_to(self, submission_id: str) -> list[str]:
        """The amounts Prolific paid to a submission (one entry per processed pay of a set-up naming it)."""
        return [value for bulk_id in self.paid for who, value in self.set_ups[bulk_id]["rows"]
                if who == submission_id]


@pytest.fixture(autouse=True)
def prolific_settings(settings) -> Iterator[None]:
    settings.PROLIFIC_API_URL = API
    settings.PROLIFIC_TOKEN = "test-token"
    settings.PROLIFIC_WORKSPACE_ID = "6000000000000000000000ws"
    settings.PROLIFIC_RETRY_BASE_SECONDS = 0
    settings.PROLIFIC_MAX_ATTEMPTS = 3
    reset_client()
    yield
    reset_client()


SUBMISSION = "6100000000000000000000s1"


@pytest.fixture
def prolific() -> Iterator[Prolific]:
    fake = Prolific(submissions=["6100000000000000000000s0", "6100000000000000000000s2",
                                 "6100000000000000000000s3", SUBMISSION])
    with responses.RequestsMock(assert_all_requests_are_fired=False) as rsps:
        fake.http = rsps
        # Looked up at each request, so a test can replace one of them.
        rsps.add_callback(responses.POST, f"{API}submissions/bonus-payments/", callback=lambda r: fake.set_up(r))
        rsps.add_callback(responses.POST, re.compile(re.escape(API) + r"bulk-bonus-payments/[^/]+/pay/$"),
                          callback=lambda r: fake.pay(r))
        rsps.add_callback(responses.GET, re.compile(re.escape(f"{API}studies/{STUDY}/submissions/") + r"(\?.*)?$"),
                          callback=lambda r: fake.listing(r))
        yield fake


# ---- our records ---------------------------------------------------------------------------------
def prolific_assignment(submission_id: str = SUBMISSION, campaign: Campaign | None = None) -> Assignment:
    """A confirmed, approved task of a Prolific submission, in an active campaign whose study is on Prolific."""
    if campaign is None:
        campaign = make_campaign(images=1, publish=False, assignments=1, provider="prolific")
        Campaign.objects.filter(pk=campaign.pk).update(status=CampaignStatus.ACTIVE, published_at=timezone.now())
        HIT.objects.filter(campaign=campaign).update(status=HITStatus.PUBLISHED, published_at=timezone.now())
        ProlificStudy.objects.create(campaign=campaign, external_id=STUDY, status="ACTIVE", places=1)
        campaign.refresh_from_db()
    worker, _ = Worker.objects.get_or_create(provider="prolific", external_id=f"pid-{submission_id}")
    now = timezone.now()
    hit = campaign.hits.get()
    return Assignment.objects.create(
        hit=hit, worker=worker, external_id=submission_id, status=AssignmentStatus.APPROVED, confirmed=True,
        answer={"text": GOOD_TEXT}, accepted_at=now - timedelta(minutes=9), submitted_at=now - timedelta(minutes=1),
        decided_at=now, deadline=now + timedelta(minutes=30), marketplace_status="APPROVED")


def stored_bonus(assignment: Assignment, amount: str = "1.50") -> Bonus:
    """A bonus as grant_bonus stores it before paying (planned)."""
    count = Bonus.objects.filter(assignment=assignment).count()
    return Bonus.objects.create(assignment=assignment, amount=Decimal(amount), reason="Thorough descriptions",
                                unique_token=f"bonus-{assignment.pk}-{count + 1}")


def fresh(bonus: Bonus) -> Bonus:
    return Bonus.objects.get(pk=bonus.pk)


def crash_once(monkeypatch: pytest.MonkeyPatch, name: str, *, after: bool = False) -> None:
    """Make prolific_bonuses.<name> kill the process (once): before it runs, or right after it returned."""
    original: Callable[..., Any] = getattr(prolific_bonuses, name)
    fired: list[bool] = []

    def step(*args: Any, **kwargs: Any) -> Any:
        if fired:
            return original(*args, **kwargs)
        fired.append(True)
        if after:
            original(*args, **kwargs)
        raise Crash(f"killed at {name}")

    monkeypatch.setattr(prolific_bonuses, name, step)


# ---- the happy path -------------------------------------------------------------------------------
def test_a_granted_bonus_is_set_up_in_major_units_then_paid_once(db, prolific, monkeypatch):
    rows_sent: list[list[tuple[str, Any]]] = []
    set_up_bonuses = ProlificProvider.set_up_bonuses

    def spy(self: ProlificProvider, study_id: str, rows: list[tuple[str, Any]]) -> dict[str, Any]:
        rows_sent.append(list(rows))
        return set_up_bonuses(self, study_id, rows)

    monkeypatch.setattr(ProlificProvider, "set_up_bonuses", spy)
    assignment = prolific_assignment()
    bonus = grant_bonus(assignment, Decimal("1.50"), "Thorough descriptions")

    assert bonus.paid
    calls = [(c.request.method, c.request.url) for c in prolific.http.calls]
    assert calls == [("POST", f"{API}submissions/bonus-payments/"),
                     ("POST", f"{API}bulk-bonus-payments/{'bulk' + '1'.zfill(20)}/pay/")]
    assert json.loads(prolific.http.calls[0].request.body) == {
        "study_id": STUDY, "csv_bonuses": f"{SUBMISSION},1.50"}
    stored = fresh(bonus)
    assert (stored.state, stored.paid, stored.external_id, stored.problem) == (
        BonusState.PAID, True, "bulk" + "1".zfill(20), "")
    assert prolific.paid_to(SUBMISSION) == ["1.50"]
    assert rows_sent == [[(SUBMISSION, Decimal("1.50"))]]
    assert type(rows_sent[0][0][1]) is Decimal  # never a float

    assert pay_pending_bonuses(assignment.hit.campaign) == 0  # nothing left to pay: no call
    pay_prolific_bonus(stored)
    assert len(prolific.http.calls) == 2
    assert prolific.paid_to(SUBMISSION) == ["1.50"]


@pytest.mark.parametrize(("amount", "csv", "minor"), [("0.30", "0.30", 30), ("12.05", "12.05", 1205),
                                                       ("30", "30.00", 3000)])
def test_amounts_are_decimals_in_major_units_in_the_csv(db, prolific, amount, csv, minor):
    bonus = stored_bonus(prolific_assignment(), amount)
    pay_bonus(bonus)
    (set_up,) = prolific.set_ups.values()
    assert set_up["rows"] == [[SUBMISSION, csv]]
    assert set_up["amount"] == minor
    assert fresh(bonus).state == BonusState.PAID


def test_a_set_up_answer_for_another_amount_is_never_paid(db, prolific):
    prolific.amount_offset = 100  # Prolific reports 2.50 set up for a bonus of 1.50
    bonus = stored_bonus(prolific_assignment())
    with pytest.raises(ReviewError, match="instead of 150"):
        pay_bonus(bonus)
    stored = fresh(bonus)
    assert (stored.state, stored.paid) == (BonusState.PLANNED, False)
    assert "not paid" in stored.problem
    assert prolific.pay_requests == 0


def test_a_refused_set_up_stores_the_problem_and_changes_nothing_else(db, prolific):
    prolific.set_up_modes = ["400"]
    bonus = stored_bonus(prolific_assignment())
    with pytest.raises(ReviewError, match="has not taken part in this study"):
        pay_bonus(bonus)
    stored = fresh(bonus)
    assert (stored.state, stored.paid, stored.external_id) == (BonusState.PLANNED, False, "")
    assert "has not taken part in this study" in stored.problem
    assert prolific.pay_requests == 0 and not prolific.set_ups

    assert pay_pending_bonuses(bonus.assignment.hit.campaign) == 1  # the cause is fixed: paid, once
    stored = fresh(bonus)
    assert (stored.state, stored.paid, stored.problem) == (BonusState.PAID, True, "")
    assert prolific.paid_to(SUBMISSION) == ["1.50"]


def test_a_bonus_without_a_study_on_prolific_is_refused_with_a_problem(db, prolific):
    assignment = prolific_assignment()
    ProlificStudy.objects.filter(campaign=assignment.hit.campaign).update(external_id="")
    bonus = stored_bonus(assignment)
    with pytest.raises(ReviewError, match="no Prolific study"):
        pay_bonus(bonus)
    assert fresh(bonus).state == BonusState.PLANNED
    assert "no Prolific study" in fresh(bonus).problem
    assert not prolific.http.calls


def test_the_walk_refuses_to_run_inside_another_transaction(db, prolific):
    """A rollback of the caller's transaction could forget that `pay` was sent: each step commits itself."""
    bonus = stored_bonus(prolific_assignment())
    with pytest.raises(RuntimeError, match="durable"), transaction.atomic():
        pay_prolific_bonus(bonus)
    assert not prolific.http.calls


# ---- a crash at every point, then a re-run --------------------------------------------------------
def test_crash_while_sending_the_set_up(db, prolific):
    prolific.set_up_modes = ["crash_before"]
    bonus = stored_bonus(prolific_assignment())
    with pytest.raises(Crash):
        pay_bonus(bonus)
    assert fresh(bonus).state == BonusState.PLANNED and not prolific.set_ups

    assert pay_pending_bonuses(bonus.assignment.hit.campaign) == 1
    assert fresh(bonus).state == BonusState.PAID
    assert prolific.paid_to(SUBMISSION) == ["1.50"] and prolific.pay_requests == 1


@pytest.mark.parametrize("mode", ["crash_after", "reset_after"])
def test_crash_or_lost_answer_after_prolific_set_it_up(db, prolific, mode):
    """Prolific made the set-up but we never learnt its id: the re-run sets up again; the orphan is never paid."""
    prolific.set_up_modes = [mode]
    bonus = stored_bonus(prolific_assignment())
    with pytest.raises(Crash if mode == "crash_after" else ReviewError):
        pay_bonus(bonus)
    stored = fresh(bonus)
    assert (stored.state, stored.external_id) == (BonusState.PLANNED, "")
    assert len(prolific.set_ups) == 1

    assert pay_pending_bonuses(bonus.assignment.hit.campaign) == 1
    stored = fresh(bonus)
    orphan, used = sorted(prolific.set_ups)
    assert (stored.state, stored.paid, stored.external_id) == (BonusState.PAID, True, used)
    assert prolific.paid == [used]
    assert prolific.paid_to(SUBMISSION) == ["1.50"]


def test_crash_after_the_set_up_answer_before_storing_it(db, prolific, monkeypatch):
    crash_once(monkeypatch, "_store_set_up")
    bonus = stored_bonus(prolific_assignment())
    with pytest.raises(Crash):
        pay_bonus(bonus)
    stored = fresh(bonus)
    assert (stored.state, stored.external_id) == (BonusState.PLANNED, "")  # the transaction was rolled back
    assert len(prolific.set_ups) == 1 and prolific.pay_requests == 0

    assert pay_pending_bonuses(bonus.assignment.hit.campaign) == 1
    assert fresh(bonus).state == BonusState.PAID
    assert len(prolific.set_ups) == 2 and len(prolific.paid) == 1
    assert prolific.paid_to(SUBMISSION) == ["1.50"]


def test_crash_after_storing_set_up_before_asking_to_pay(db, prolific, monkeypatch):
    crash_once(monkeypatch, "_request_pay")
    bonus = stored_bonus(prolific_assignment())
    with pytest.raises(Crash):
        pay_bonus(bonus)
    assert fresh(bonus).state == BonusState.SET_UP

    assert pay_pending_bonuses(bonus.assignment.hit.campaign) == 1  # the stored set-up is paid: no second one
    assert fresh(bonus).state == BonusState.PAID
    assert len(prolific.set_ups) == 1 and prolific.paid_to(SUBMISSION) == ["1.50"]


def test_crash_after_storing_pay_requested_before_pay_was_sent(db, prolific, monkeypatch):
    """Nobody can know whether `pay` left: it is never sent again, and Prolific's records decide."""
    crash_once(monkeypatch, "_pay")
    bonus = stored_bonus(prolific_assignment())
    campaign = bonus.assignment.hit.campaign
    with pytest.raises(Crash):
        pay_bonus(bonus)
    assert fresh(bonus).state == BonusState.PAY_REQUESTED

    assert pay_pending_bonuses(campaign) == 0
    assert reconcile_bonuses(campaign) == 0
    with pytest.raises(ReviewError, match="not yet in Prolific's records"):
        pay_bonus(fresh(bonus))
    stored = fresh(bonus)
    assert (stored.state, stored.paid) == (BonusState.PAY_REQUESTED, False)
    assert "not yet in Prolific's records" in stored.problem
    assert "before paying by hand" in stored.problem
    assert prolific.pay_requests == 0 and prolific.paid_to(SUBMISSION) == []


def test_connection_reset_after_prolific_processed_the_pay(db, prolific):
    prolific.pay_modes = ["reset_after"]
    bonus = stored_bonus(prolific_assignment())
    with pytest.raises(ReviewError, match="may or may not have paid"):
        pay_bonus(bonus)
    stored = fresh(bonus)
    assert (stored.state, stored.paid) == (BonusState.PAY_REQUESTED, False)
    assert "Do not pay it by hand" in stored.problem

    assert pay_pending_bonuses(bonus.assignment.hit.campaign) == 0  # a requested payment is never paid again
    assert reconcile_bonuses(bonus.assignment.hit.campaign) == 1  # confirmed from Prolific's records
    stored = fresh(bonus)
    assert (stored.state, stored.paid, stored.problem) == (BonusState.PAID, True, "")
    assert prolific.pay_requests == 1 and prolific.paid_to(SUBMISSION) == ["1.50"]


@pytest.mark.parametrize("shape", ["int", "object"])
def test_crash_after_pay_before_storing_paid_is_confirmed_by_the_sync(db, prolific, monkeypatch, shape):
    prolific.shape = shape
    crash_once(monkeypatch, "_store_paid")
    bonus = stored_bonus(prolific_assignment())
    with pytest.raises(Crash):
        pay_bonus(bonus)
    assert fresh(bonus).state == BonusState.PAY_REQUESTED  # paid on Prolific, not stored here

    assert reconcile_bonuses(bonus.assignment.hit.campaign) == 1
    stored = fresh(bonus)
    assert (stored.state, stored.paid, stored.problem) == (BonusState.PAID, True, "")
    assert pay_pending_bonuses(bonus.assignment.hit.campaign) == 0
    assert prolific.pay_requests == 1 and prolific.paid_to(SUBMISSION) == ["1.50"]
    assert len(prolific.list_requests) == 2  # one paged listing: 4 submissions, 2 per page


def test_a_payment_not_yet_in_prolifics_records_waits_for_them(db, prolific, monkeypatch):
    """Prolific pays asynchronously: until the payment shows, the bonus waits (with a problem), unpaid again."""
    prolific.visible = False
    crash_once(monkeypatch, "_store_paid")
    bonus = stored_bonus(prolific_assignment())
    campaign = bonus.assignment.hit.campaign
    with pytest.raises(Crash):
        pay_bonus(bonus)

    assert reconcile_bonuses(campaign) == 0
    assert pay_pending_bonuses(campaign) == 0
    stored = fresh(bonus)
    assert stored.state == BonusState.PAY_REQUESTED and "before paying by hand" in stored.problem

    prolific.show(prolific.paid[0])
    assert reconcile_bonuses(campaign) == 1
    stored = fresh(bonus)
    assert (stored.state, stored.paid, stored.problem) == (BonusState.PAID, True, "")
    assert prolific.pay_requests == 1


# ---- answers to `pay` --------------------------------------------------------------------------------
def test_429_on_pay_then_success_pays_once(db, prolific):
    prolific.pay_modes = ["429"]
    bonus = stored_bonus(prolific_assignment())
    pay_bonus(bonus)
    assert fresh(bonus).state == BonusState.PAID
    assert prolific.pay_requests == 2  # the 429 was not processed; the retry was
    assert prolific.paid_to(SUBMISSION) == ["1.50"]


def test_500_on_pay_is_not_retried_and_never_sent_again(db, prolific):
    prolific.pay_modes = ["500"]
    bonus = stored_bonus(prolific_assignment())
    campaign = bonus.assignment.hit.campaign
    with pytest.raises(ReviewError, match="may or may not have paid"):
        pay_bonus(bonus)
    assert prolific.pay_requests == 1
    assert fresh(bonus).state == BonusState.PAY_REQUESTED

    assert pay_pending_bonuses(campaign) == 0
    assert reconcile_bonuses(campaign) == 0
    stored = fresh(bonus)
    assert (stored.state, stored.paid) == (BonusState.PAY_REQUESTED, False)
    assert "not yet in Prolific's records" in stored.problem
    assert prolific.pay_requests == 1


def test_429_past_every_retry_processed_nothing_and_is_asked_again_later(db, prolific, settings):
    prolific.pay_modes = ["429"] * settings.PROLIFIC_MAX_ATTEMPTS
    bonus = stored_bonus(prolific_assignment())
    with pytest.raises(ReviewError, match="nothing was paid"):
        pay_bonus(bonus)
    stored = fresh(bonus)
    assert (stored.state, stored.external_id) == (BonusState.SET_UP, "bulk" + "1".zfill(20))
    assert prolific.pay_requests == settings.PROLIFIC_MAX_ATTEMPTS and not prolific.paid

    assert pay_pending_bonuses(bonus.assignment.hit.campaign) == 1
    assert fresh(bonus).state == BonusState.PAID
    assert len(prolific.set_ups) == 1 and prolific.paid_to(SUBMISSION) == ["1.50"]


def test_a_refused_pay_is_asked_again_and_an_unknown_bulk_id_set_up_again(db, prolific):
    prolific.pay_modes = ["400", "404"]
    bonus = stored_bonus(prolific_assignment())
    campaign = bonus.assignment.hit.campaign
    with pytest.raises(ReviewError, match="Insufficient balance"):
        pay_bonus(bonus)
    assert fresh(bonus).state == BonusState.SET_UP
    assert pay_pending_bonuses(campaign) == 0  # 404: Prolific no longer knows the set-up
    stored = fresh(bonus)
    assert (stored.state, stored.external_id) == (BonusState.PLANNED, "")
    assert "sets the bonus up again" in stored.problem
    assert pay_pending_bonuses(campaign) == 1
    assert len(prolific.set_ups) == 2 and prolific.paid_to(SUBMISSION) == ["1.50"]


def test_only_the_job_that_requested_the_payment_sends_it(db, prolific):
    """Two jobs both found the bonus set up (the second read it before the first went on): the first stores
    pay_requested and pays; its pay fails (500: maybe paid). The second must not pay: it was not the one that
    stored pay_requested."""
    prolific.pay_modes = ["500"]
    bonus = stored_bonus(prolific_assignment())
    provider = ProlificProvider()
    assert prolific_bonuses._set_up(provider, bonus.pk) == BonusState.SET_UP  # first job
    assert prolific_bonuses._set_up(provider, bonus.pk) == BonusState.SET_UP  # second job, same point
    bulk_id = prolific_bonuses._request_pay(bonus.pk)  # first job
    assert bulk_id == fresh(bonus).external_id
    with pytest.raises(ProviderError, match="may or may not have paid"):
        prolific_bonuses._pay(provider, bonus.pk, bulk_id)
    assert prolific_bonuses._request_pay(bonus.pk) is None  # second job: someone else asked; it does not pay
    with pytest.raises(ProviderError, match="not yet in Prolific's records"):
        pay_prolific_bonus(bonus)
    assert prolific.pay_requests == 1 and fresh(bonus).state == BonusState.PAY_REQUESTED


# ---- reconciling several bonuses of one submission --------------------------------------------------
def requested(assignment: Assignment, amount: str, bulk: str) -> Bonus:
    bonus = stored_bonus(assignment, amount)
    Bonus.objects.filter(pk=bonus.pk).update(state=BonusState.PAY_REQUESTED, external_id=bulk)
    return fresh(bonus)


def test_records_are_compared_as_a_multiset(db, prolific):
    assignment = prolific_assignment()
    campaign = assignment.hit.campaign
    first, second = requested(assignment, "1.00", "bulk-a"), requested(assignment, "1.00", "bulk-b")
    other = requested(assignment, "0.50", "bulk-c")
    prolific.records[SUBMISSION] = [100, 25]  # one payment of 1.00; 0.25 is none of ours

    assert reconcile_bonuses(campaign) == 1
    assert fresh(first).state == BonusState.PAID
    assert fresh(second).state == fresh(other).state == BonusState.PAY_REQUESTED
    assert "bulk-b" in fresh(second).problem and "bulk-c" in fresh(other).problem

    prolific.records[SUBMISSION] = [100, 25, {"amount": 100}, {"amount": "50"}]
    assert reconcile_bonuses(campaign) == 2
    assert fresh(second).state == fresh(other).state == BonusState.PAID
    assert prolific.pay_requests == 0


def test_a_payment_already_matched_to_a_paid_bonus_confirms_no_other(db, prolific):
    """A bundle's tasks share the submission id: two bonuses of 1.00, one known paid, show as one payment."""
    assignment = prolific_assignment()
    campaign = assignment.hit.campaign
    hit = campaign.hits.get()
    HIT.objects.filter(pk=hit.pk).update(max_assignments=2)
    sibling = Assignment.objects.create(
        hit=hit, worker=Worker.objects.create(provider="prolific", external_id="pid-sibling"),
        external_id=SUBMISSION, status=AssignmentStatus.APPROVED, confirmed=True, answer={"text": GOOD_TEXT},
        deadline=timezone.now() + timedelta(minutes=30))
    paid = requested(assignment, "1.00", "bulk-a")
    Bonus.objects.filter(pk=paid.pk).update(state=BonusState.PAID, paid=True)
    waiting = requested(sibling, "1.00", "bulk-b")
    prolific.records[SUBMISSION] = [100]

    assert reconcile_bonuses(campaign) == 0
    assert fresh(waiting).state == BonusState.PAY_REQUESTED

    prolific.records[SUBMISSION] = [100, 100]
    assert reconcile_bonuses(campaign) == 1
    assert fresh(waiting).state == BonusState.PAID


def test_unreadable_or_missing_records_confirm_nothing(db, prolific):
    assignment = prolific_assignment()
    bonus = requested(assignment, "1.50", "bulk-a")
    prolific.records[SUBMISSION] = [1.5, "1.50", None, {"value": 150}]  # not whole minor units / no amount
    assert reconcile_bonuses(assignment.hit.campaign) == 0
    assert "4 of its bonus payments could not be read" in fresh(bonus).problem

    lost = requested(prolific_assignment("6100000000000000000000zz", assignment.hit.campaign), "1.50", "bulk-b")
    assert reconcile_bonuses(assignment.hit.campaign) == 0
    assert "is not in the study's submission list" in fresh(lost).problem


def test_reconcile_reads_one_listing_per_study_and_only_when_needed(db, prolific):
    assignment = prolific_assignment()
    campaign = assignment.hit.campaign
    assert reconcile_bonuses(campaign) == 0
    assert not prolific.http.calls  # no bonus waits for confirmation: no call

    bonuses = [requested(assignment, amount, f"bulk-{n}") for n, amount in enumerate(["1.00", "2.00", "3.00"])]
    prolific.records[SUBMISSION] = [300, 100, 200]
    assert reconcile_bonuses(campaign) == 3
    assert all(fresh(b).state == BonusState.PAID and fresh(b).paid for b in bonuses)
    assert [q.get("offset") for q in prolific.list_requests] == [["0"], ["2"]]  # every page, once


def test_a_listing_the_sync_already_read_is_reused(db, prolific):
    assignment = prolific_assignment()
    bonus = requested(assignment, "1.50", "bulk-a")
    listing = [{"id": SUBMISSION, "participant_id": "p", "status": "APPROVED", "bonus_payments": [150]}]
    assert reconcile_bonuses(assignment.hit.campaign, listing) == 1
    assert fresh(bonus).state == BonusState.PAID
    assert not prolific.http.calls


def test_a_pay_requested_bonus_is_confirmed_not_paid_by_the_walk(db, prolific):
    assignment = prolific_assignment()
    bonus = requested(assignment, "1.50", "bulk-a")
    prolific.records[SUBMISSION] = [150]
    assert pay_bonus(bonus).paid
    assert fresh(bonus).state == BonusState.PAID
    assert prolific.pay_requests == 0 and not prolific.set_ups


# ---- two jobs on one bonus (PostgreSQL: row locks) ----------------------------------------------------
@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks need PostgreSQL")
@pytest.mark.django_db(transaction=True)
def test_two_jobs_walking_one_bonus_set_up_and_pay_it_once(prolific):
    bonus = stored_bonus(prolific_assignment())
    entered, release = threading.Event(), threading.Event()
    answer_set_up = prolific.set_up

    def slow_set_up(request: requests.PreparedRequest) -> tuple[int, dict, str]:
        entered.set()
        assert release.wait(30)
        return answer_set_up(request)

    prolific.set_up = slow_set_up  # type: ignore[method-assign]
    outcomes: dict[str, str] = {}

    def job(name: str) -> None:
        try:
            pay_prolific_bonus(Bonus.objects.get(pk=bonus.pk))
            outcomes[name] = "paid"
        except ProviderError as exc:
            outcomes[name] = f"error: {exc}"
        finally:
            connection.close()

    first = threading.Thread(target=job, args=("first",))
    first.start()
    assert entered.wait(30)  # the first job holds the bonus row while Prolific sets it up
    second = threading.Thread(target=job, args=("second",))
    second.start()
    _wait_for_lock_wait()
    release.set()
    first.join(30)
    second.join(30)

    stored = fresh(bonus)
    assert (stored.state, stored.paid) == (BonusState.PAID, True)
    assert len(prolific.set_ups) == 1 and prolific.pay_requests == 1
    assert prolific.paid_to(SUBMISSION) == ["1.50"]
    assert "paid" in outcomes.values()


def _wait_for_lock_wait() -> None:
    """Until another session waits for a row lock (the second job, on the bonus row)."""
    for _ in range(600):
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                           "AND datname = current_database()")
            if cursor.fetchone()[0]:
                return
        threading.Event().wait(0.05)
    raise AssertionError("the second job never waited for the bonus row")
