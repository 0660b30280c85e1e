"""The fake Prolific (tests/prolific_fake) behaves as Prolific documents it, so that the end-to-end tests that
run against it prove something: token, draft-then-publish, what stays editable, both paginations, the two
submission shapes, idempotent transitions, asynchronous bulk approval, bonuses set up in major units and paid
again on every /pay/, completion-code actions and filters, hooks, signed deliveries and injected faults.
Calls go through the real client (and the provider's API calls where they exist)."""
from __future__ import annotations

import base64
import hashlib
import hmac
import json
import uuid
from decimal import Decimal

import pytest
import requests

from mturk.providers.prolific.client import (
    ProlificAuthError,
    ProlificClient,
    ProlificError,
    ProlificUnavailable,
    get_client,
)
from mturk.providers.registry import get_provider
from tests.prolific_fake import FakeProlific, Refused

CODE = "C0FFEE12"


@pytest.fixture
def provider(prolific_fake):
    return get_provider("prolific")


def payload(**changes) -> dict:
    """A study as the provider creates it (docs: POST /studies/)."""
    study = {
        "name": "Describe photographs", "internal_name": f"vl-{uuid.uuid4()}",
        "description": "Write one sentence about each of a few photographs.",
        "external_study_url": ("https://crowd.example.org/p/abc/?PROLIFIC_PID={{%PROLIFIC_PID%}}"
                               "&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}"),
        "prolific_id_option": "url_parameters",
        "completion_codes": [{"code": CODE, "code_type": "COMPLETED", "actor": "participant",
                              "actions": [{"action": "MANUALLY_REVIEW"}]}],
        "total_available_places": 3, "reward": 150, "estimated_completion_time": 5,
        "device_compatibility": ["desktop"],
    }
    study.update(changes)
    return study


def published(provider, **changes) -> str:
    study = provider.create_study(payload(**changes))
    provider.transition_study(study["id"], "PUBLISH")
    return study["id"]


def finished(fake: FakeProlific, study_id: str, count: int) -> list[str]:
    """`count` participants who took part and entered the completion code (AWAITING REVIEW)."""
    ids = []
    for _ in range(count):
        submission = fake.start(study_id)
        fake.complete(submission.id, CODE)
        ids.append(submission.id)
    return ids


# ---- authentication, errors ----------------------------------------------------------------------------

def test_a_wrong_or_missing_token_is_refused_with_the_error_shape(prolific_fake, settings):
    with pytest.raises(ProlificAuthError) as caught:
        ProlificClient(settings.PROLIFIC_API_URL, "not-the-token").get("studies/")
    assert caught.value.status == 401 and "Invalid token." in str(caught.value)

    answer = requests.get(settings.PROLIFIC_API_URL + "studies/", timeout=5)
    assert answer.status_code == 401
    assert answer.json()["error"]["status"] == 401 and answer.json()["error"]["detail"]
    assert prolific_fake.studies == {}


def test_study_creation_validates_the_documented_fields(provider, prolific_fake):
    bad = payload(reward=1.5, completion_codes=[], filters=[{"filter_id": "no_such_filter", "selected_values": ["1"]}])
    del bad["external_study_url"]

    with pytest.raises(ProlificError) as caught:
        provider.create_study(bad)

    assert caught.value.status == 400
    assert set(caught.value.detail) == {"reward", "completion_codes", "filters", "external_study_url"}
    assert "no_such_filter" in str(caught.value)
    assert prolific_fake.studies == {}


def test_a_study_is_a_draft_until_published_then_only_places_and_internal_name_change(provider, prolific_fake):
    study = provider.create_study(payload())
    assert study["status"] == "UNPUBLISHED" and study["reward"] == 150 and study["total_cost"] > 450
    assert provider.get_study(study["id"])["internal_name"] == study["internal_name"]

    assert provider.transition_study(study["id"], "PUBLISH")["status"] == "ACTIVE"
    with pytest.raises(ProlificError):  # publishing twice is refused (the services read the status first)
        provider.transition_study(study["id"], "PUBLISH")

    with pytest.raises(ProlificError, match="cannot be changed once the study is published"):
        get_client().patch(f"studies/{study['id']}/", {"reward": 300})
    with pytest.raises(ProlificError, match="can only be increased"):
        provider.set_places(study["id"], 2)
    assert provider.set_places(study["id"], 5)["total_available_places"] == 5
    assert provider.set_places(study["id"], 5)["total_available_places"] == 5  # an absolute value: repeatable
    assert get_client().patch(f"studies/{study['id']}/", {"internal_name": "renamed"})["internal_name"] == "renamed"
    assert prolific_fake.studies[study["id"]]["reward"] == 150


def test_study_status_follows_pause_start_stop_and_the_submissions(provider, prolific_fake):
    study_id = published(provider, total_available_places=1)
    assert provider.transition_study(study_id, "PAUSE")["status"] == "PAUSED"
    with pytest.raises(Refused, match="PAUSED"):
        prolific_fake.start(study_id)
    assert provider.transition_study(study_id, "START")["status"] == "ACTIVE"

    submission = prolific_fake.start(study_id)
    with pytest.raises(Refused, match="no place left"):
        prolific_fake.start(study_id)
    prolific_fake.complete(submission.id, CODE)
    assert provider.get_study(study_id)["status"] == "AWAITING REVIEW"
    provider.transition_submission(submission.id, "APPROVE")
    assert provider.get_study(study_id)["status"] == "COMPLETED"
    statuses = [e.payload["status"] for e in prolific_fake.events_of("study.status.change", study_id)]
    assert statuses == ["ACTIVE", "PAUSED", "ACTIVE", "AWAITING REVIEW", "COMPLETED"]


# ---- paging and shapes --------------------------------------------------------------------------------

def test_both_submission_lists_page_and_the_client_reads_every_page(provider, prolific_fake, settings):
    study_id = published(provider, total_available_places=45)
    ids = {prolific_fake.start(study_id).id for _ in range(45)}

    first = requests.get(settings.PROLIFIC_API_URL + f"studies/{study_id}/submissions/",
                         headers={"Authorization": f"Token {prolific_fake.token}"}, timeout=5).json()
    assert len(first["results"]) == 20 and first["meta"]["count"] == 45  # a reader of one page misses 25
    assert "offset=20" in first["_links"]["next"]["href"]

    assert {item["id"] for item in provider.list_submissions(study_id)} == ids
    assert len(prolific_fake.received("GET", "studies/{id}/submissions")) == 2  # limit 200: one more page

    prolific_fake.max_page_size = 10  # Prolific may answer fewer items than asked: the links still lead on
    assert {item["id"] for item in provider.list_submissions(study_id)} == ids

    paged = list(get_client().pages("submissions/", {"study": study_id, "page_size": 20}))
    assert {item["id"] for item in paged} == ids and all(item["study_id"] == study_id for item in paged)
    pages = [call.query["page"] for call in prolific_fake.received("GET", "submissions")]
    assert pages == ["1", "2", "3", "4", "5"]  # page_size 20 capped to 10 by the fake: 45 items, 5 pages


def test_single_and_list_submissions_have_their_documented_shapes(provider, prolific_fake):
    study_id = published(provider)
    submission = prolific_fake.start(study_id)

    single = provider.read_submission(submission.id)
    assert set(single) >= {"id", "participant", "study_id", "status", "started_at", "completed_at", "entered_code"}
    assert (single["participant"], single["study_id"], single["status"]) == (submission.participant_id, study_id,
                                                                             "ACTIVE")
    [item] = provider.list_submissions(study_id)
    assert set(item) >= {"id", "participant_id", "started_at", "completed_at", "is_complete", "time_taken",
                         "reward", "status", "entered_code", "return_requested", "bonus_payments"}
    assert "participant" not in item and item["participant_id"] == submission.participant_id
    assert provider.read_submission("0" * 24) is None


# ---- review ---------------------------------------------------------------------------------------------

def test_submission_transitions_validate_rejections_and_are_idempotent(provider, prolific_fake, settings):
    study_id = published(provider)
    first, second = finished(prolific_fake, study_id, 2)
    active = prolific_fake.start(study_id)

    answer = requests.post(settings.PROLIFIC_API_URL + f"submissions/{first}/transition/",
                           json={"action": "REJECT", "message": "Too short.", "rejection_category": "LOW_EFFORT"},
                           headers={"Authorization": f"Token {prolific_fake.token}"}, timeout=5)
    assert answer.status_code == 400 and set(answer.json()) == {"message", "detail"}  # the other error shape
    with pytest.raises(ProlificError, match="rejection_category"):
        provider.transition_submission(first, "REJECT", "x" * 100, "")
    with pytest.raises(ProlificError, match="rejection_category"):
        get_client().post(f"submissions/{first}/transition/",
                          {"action": "REJECT", "message": "x" * 100, "rejection_category": ["LOW_EFFORT"]})
    assert prolific_fake.submissions[first].status == "AWAITING REVIEW"

    assert provider.transition_submission(first, "REJECT", "x" * 100, "LOW_EFFORT")["status"] == "REJECTED"
    assert provider.transition_submission(first, "REJECT", "x" * 100, "LOW_EFFORT")["status"] == "REJECTED"
    assert provider.transition_submission(second, "APPROVE")["status"] == "APPROVED"
    assert provider.transition_submission(second, "APPROVE")["status"] == "APPROVED"  # ignored the second time
    with pytest.raises(ProlificError, match="cannot be approved"):
        provider.transition_submission(active.id, "APPROVE")
    with pytest.raises(ProlificError, match="cannot be approved"):
        provider.transition_submission(first, "APPROVE")  # a decision cannot be undone
    changes = [e.payload["status"] for e in prolific_fake.events_of("submission.status.change", second)]
    assert changes == ["ACTIVE", "AWAITING REVIEW", "APPROVED"]


def test_bulk_approve_answers_in_progress_and_approves_shortly_after(provider, prolific_fake):
    study_id = published(provider)
    waiting = finished(prolific_fake, study_id, 2)
    active = prolific_fake.start(study_id)

    assert get_client().post("submissions/bulk-approve/", {"submission_ids": [*waiting, active.id]}) == (
        "Bulk approve in progress")
    assert [prolific_fake.submissions[i].status for i in waiting] == ["AWAITING REVIEW"] * 2  # not yet

    assert [provider.read_submission(i)["status"] for i in waiting] == ["APPROVED", "APPROVED"]
    assert provider.read_submission(active.id)["status"] == "ACTIVE"  # only awaiting review ones are approved


# ---- bonuses --------------------------------------------------------------------------------------------

def test_bonuses_are_set_up_in_major_units_answered_in_cents_and_paid_on_every_pay(provider, prolific_fake):
    prolific_fake.fee_percentage, prolific_fake.vat_percentage = Decimal("30"), Decimal("20")
    study_id = published(provider)
    submission, other = finished(prolific_fake, study_id, 2)

    setup = provider.set_up_bonuses(study_id, [(submission, Decimal("1.50"))])
    assert setup == {"id": setup["id"], "study": study_id, "amount": 150, "fees": 45, "vat": 9, "total_amount": 204}
    assert prolific_fake.received("POST", "submissions/bonus-payments")[0].body["csv_bonuses"] == (
        f"{submission},1.50")
    assert prolific_fake.paid_bonuses(submission) == []  # setting up pays nothing

    provider.pay_bonuses(setup["id"])
    provider.pay_bonuses(setup["id"])  # documented as not idempotent: this pays again

    assert prolific_fake.pay_calls(setup["id"]) == 2
    items = {item["id"]: item for item in provider.list_submissions(study_id)}
    assert items[submission]["bonus_payments"] == [150, 150]
    assert items[other]["bonus_payments"] == []
    assert provider.read_submission(submission)["bonus_payments"] == [150, 150]


def test_a_bonus_for_someone_outside_the_study_is_refused_naming_them(provider, prolific_fake):
    study_id = published(provider)
    [submission] = finished(prolific_fake, study_id, 1)
    stranger = prolific_fake.new_participant_id()

    with pytest.raises(ProlificError) as caught:
        provider.set_up_bonuses(study_id, [(submission, Decimal("1.00")), (stranger, Decimal("2.00"))])

    assert caught.value.status == 400 and stranger in str(caught.value) and submission not in str(caught.value)
    assert prolific_fake.bonus_setups == {}


# ---- participants: code actions, filters, devices -----------------------------------------------------------

def test_the_completion_code_adds_finishers_to_the_stage_group_and_a_blocklist_keeps_them_out(provider,
                                                                                           prolific_fake):
    stage_group = provider.create_group("stage 1 finishers", "Participants who finished stage 1.")
    codes = [{"code": CODE, "code_type": "COMPLETED", "actor": "participant",
              "actions": [{"action": "MANUALLY_REVIEW"},
                          {"action": "ADD_TO_PARTICIPANT_GROUP", "participant_group": stage_group}]}]
    stage_one = published(provider, completion_codes=codes)
    stage_two = published(provider, filters=[{"filter_id": "participant_group_blocklist",
                                              "selected_values": [stage_group]}])

    finisher = prolific_fake.start(stage_one)
    quitter = prolific_fake.start(stage_one)
    prolific_fake.complete(finisher.id, CODE)
    prolific_fake.return_submission(quitter.id)

    assert prolific_fake.members(stage_group) == {finisher.participant_id}
    with pytest.raises(Refused, match="blocklisted"):
        prolific_fake.start(stage_two, finisher.participant_id)
    assert prolific_fake.start(stage_two, quitter.participant_id).status == "ACTIVE"
    assert provider.find_group("stage 1 finishers") == stage_group


def test_block_list_allow_list_and_device_filters_decide_who_may_start(provider, prolific_fake):
    block = provider.create_group("block list", "Blocked participants.")
    allow = provider.create_group("allow list", "Invited participants.")
    blocked, invited, other = (prolific_fake.new_participant_id() for _ in range(3))
    provider.add_to_group(block, [blocked])
    provider.add_to_group(allow, [invited, blocked])
    provider.add_to_group(allow, [invited])  # members already there are ignored
    study_id = published(provider, device_compatibility=["desktop", "tablet"], filters=[
        {"filter_id": "participant_group_blocklist", "selected_values": [block]},
        {"filter_id": "participant_group_allowlist", "selected_values": [allow]}])

    with pytest.raises(Refused, match="blocklisted"):
        prolific_fake.start(study_id, blocked)
    with pytest.raises(Refused, match="none of the allowlisted"):
        prolific_fake.start(study_id, other)
    with pytest.raises(Refused, match="device mobile"):
        prolific_fake.start(study_id, invited, device="mobile")
    assert prolific_fake.start(study_id, invited, device="tablet").status == "ACTIVE"

    provider.remove_from_group(block, [blocked])
    assert prolific_fake.eligible(study_id, blocked)
    members = get_client().get(f"participant-groups/{allow}/participants/")["results"]
    assert sorted(m["participant_id"] for m in members) == sorted([invited, blocked])


def test_returned_and_timed_out_submissions_free_their_place(provider, prolific_fake):
    study_id = published(provider, total_available_places=2)
    first, second = prolific_fake.start(study_id), prolific_fake.start(study_id)
    with pytest.raises(Refused, match="no place left"):
        prolific_fake.start(study_id)

    prolific_fake.return_submission(first.id)
    prolific_fake.time_out(second.id)

    assert provider.get_study(study_id)["places_taken"] == 0
    assert {prolific_fake.start(study_id).status for _ in range(2)} == {"ACTIVE"}


# ---- cost, balance, messages, filters ------------------------------------------------------------------------

def test_the_cost_calculator_adds_the_configured_fee_and_vat(provider, prolific_fake):
    prolific_fake.fee_percentage, prolific_fake.vat_percentage = Decimal("42.8"), Decimal("20")

    assert provider.study_cost(10_000, 1) == 10_000 + 4_280 + 856
    assert provider.study_cost(150, 10) == 1_500 + 642 + 128
    assert provider.balance() == Decimal(prolific_fake.balance) / 100


def test_bulk_messages_and_filters(provider, prolific_fake):
    study_id = published(provider)
    [submission] = finished(prolific_fake, study_id, 1)
    pid = prolific_fake.submissions[submission].participant_id

    get_client().post("messages/bulk/", {"ids": [pid], "study_id": study_id, "body": "Thank you!"})
    with pytest.raises(ProlificError, match="body"):
        get_client().post("messages/bulk/", {"ids": [pid], "study_id": study_id, "body": ""})

    assert prolific_fake.messages == [{"ids": [pid], "study_id": study_id, "body": "Thank you!"}]
    filter_ids = {f["filter_id"] for f in provider.list_filters()}
    assert {"participant_group_allowlist", "participant_group_blocklist", "approval_rate"} <= filter_ids


# ---- hooks and signed deliveries -------------------------------------------------------------------------

def test_a_subscription_is_enabled_only_when_confirmed_with_its_hook_secret(provider, prolific_fake):
    subscription, hook_secret = provider.create_hook_subscription("submission.status.change",
                                                                  "https://crowd.example.org/hooks/prolific/")
    assert subscription["is_enabled"] is False and hook_secret

    with pytest.raises(ProlificError):
        provider.confirm_hook_subscription(subscription["id"], "wrong-secret")
    assert provider.confirm_hook_subscription(subscription["id"], hook_secret)["is_enabled"] is True
    assert [s["id"] for s in provider.hook_subscriptions()] == [subscription["id"]]
    with pytest.raises(ProlificError, match="https"):
        provider.create_hook_subscription("study.status.change", "http://crowd.example.org/hooks/prolific/")

    provider.delete_hook_subscription(subscription["id"])
    assert provider.hook_subscriptions() == []


def test_deliveries_are_signed_with_the_workspace_secret_over_timestamp_and_raw_body(provider, prolific_fake):
    secret = provider.create_hook_secret()
    study_id = published(provider)
    [submission] = finished(prolific_fake, study_id, 1)

    events = prolific_fake.events_of("submission.status.change", submission)
    assert [e.payload for e in events] == [
        {"resource_id": submission, "event_type": "submission.status.change",
         "participant_id": prolific_fake.submissions[submission].participant_id, "status": status}
        for status in ("ACTIVE", "AWAITING REVIEW")]
    delivery = prolific_fake.delivery(events[-1])
    stamp = delivery.headers["X-Prolific-Request-Timestamp"]
    expected = base64.b64encode(hmac.new(secret.encode(), stamp.encode() + delivery.body,
                                         hashlib.sha256).digest()).decode()
    assert delivery.headers["X-Prolific-Request-Signature"] == expected
    assert json.loads(delivery.body) == events[-1].payload
    assert delivery.headers["X-Event-ID"] == events[-1].id

    again = prolific_fake.deliveries(events, duplicate=True, reverse=True)
    assert [d.headers["X-Event-ID"] for d in again] == [events[1].id, events[1].id, events[0].id, events[0].id]
    renewed = provider.create_hook_secret()  # a new secret invalidates the old: deliveries use the new one
    assert renewed != secret
    assert prolific_fake.delivery(events[-1], timestamp=stamp).headers["X-Prolific-Request-Signature"] != expected
    study_events = prolific_fake.events_of("study.status.change", study_id)
    assert study_events[-1].payload == {"resource_id": study_id, "event_type": "study.status.change",
                                        "metadata": {}, "status": "ACTIVE"}


# ---- injected faults -----------------------------------------------------------------------------------------

def test_a_lost_answer_to_a_creation_leaves_the_study_created_and_findable(provider, prolific_fake):
    prolific_fake.fail("studies/", "reset", method="POST")
    study = payload()

    with pytest.raises(ProlificUnavailable):
        provider.create_study(study)

    assert len(prolific_fake.received("POST", "studies")) == 1  # not repeated by the client
    [created] = prolific_fake.studies.values()
    assert provider.find_study(study["internal_name"])["id"] == created["id"]


@pytest.mark.parametrize("kind", ["500", "503", "reset_before"])
def test_a_failure_before_processing_an_unsafe_call_is_sent_once_and_changes_nothing(provider, prolific_fake,
                                                                                   kind):
    study_id = published(provider)
    [submission] = finished(prolific_fake, study_id, 1)
    setup = provider.set_up_bonuses(study_id, [(submission, Decimal("2.00"))])
    prolific_fake.fail("bulk-bonus-payments/{id}/pay/", kind)

    with pytest.raises(ProlificUnavailable):
        provider.pay_bonuses(setup["id"])

    assert len(prolific_fake.received("POST", "bulk-bonus-payments/{id}/pay")) == 1
    assert prolific_fake.pay_calls(setup["id"]) == 0


def test_a_lost_answer_to_a_payment_has_paid(provider, prolific_fake):
    study_id = published(provider)
    [submission] = finished(prolific_fake, study_id, 1)
    setup = provider.set_up_bonuses(study_id, [(submission, Decimal("2.00"))])
    prolific_fake.fail("bulk-bonus-payments/{id}/pay/", "reset")

    with pytest.raises(ProlificUnavailable):
        provider.pay_bonuses(setup["id"])

    assert prolific_fake.pay_calls(setup["id"]) == 1
    assert prolific_fake.paid_bonuses(submission) == [200]


def test_throttling_is_retried_and_the_call_processed_once(provider, prolific_fake):
    study_id = published(provider)
    [submission] = finished(prolific_fake, study_id, 1)
    setup = provider.set_up_bonuses(study_id, [(submission, Decimal("2.00"))])
    fault = prolific_fake.fail("bulk-bonus-payments/{id}/pay/", "429", times=2)

    provider.pay_bonuses(setup["id"])

    assert fault.hits == 2
    assert len(prolific_fake.received("POST", "bulk-bonus-payments/{id}/pay", served=True)) == 1
    assert prolific_fake.pay_calls(setup["id"]) == 1


def test_safe_calls_are_retried_after_server_errors_resets_and_timeouts(provider, prolific_fake):
    study_id = published(provider, total_available_places=1)
    [submission] = finished(prolific_fake, study_id, 1)
    prolific_fake.fail("submissions/{id}/transition", "reset")  # processed: the retry is ignored (idempotent)
    prolific_fake.fail("submissions/{id}", "500", method="GET")
    prolific_fake.fail("studies/{id}", "timeout", method="GET")

    assert provider.transition_submission(submission, "APPROVE")["status"] == "APPROVED"
    assert provider.read_submission(submission)["status"] == "APPROVED"
    assert provider.get_study(study_id)["status"] == "COMPLETED"

    assert [c.fault for c in prolific_fake.received("POST", "submissions/{id}/transition")] == ["reset", ""]
    assert [c.fault for c in prolific_fake.received("GET", "studies/{id}")] == ["timeout", ""]
    assert [e.payload["status"] for e in prolific_fake.events_of("submission.status.change", submission)] == [
        "ACTIVE", "AWAITING REVIEW", "APPROVED"]


def test_an_unsafe_call_answered_too_late_is_not_repeated_but_was_processed(provider, prolific_fake):
    prolific_fake.fail("participant-groups/", "timeout_after", method="POST")

    with pytest.raises(ProlificUnavailable, match="could not be reached"):
        provider.create_group("stage 2 finishers", "Participants who finished stage 2.")

    assert len(prolific_fake.received("POST", "participant-groups")) == 1
    [group] = prolific_fake.groups.values()
    assert provider.find_group("stage 2 finishers") == group.id  # found again instead of created twice
