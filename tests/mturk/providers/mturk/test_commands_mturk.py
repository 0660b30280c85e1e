"""The MTurk side of the CLI: publish (dry run, sandbox, queued creation), sync_assignments, review, expire,
and create_campaign's marketplace options. Every MTurk request is stubbed with its exact parameters."""
from __future__ import annotations

import json
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from mturk.models import Assignment, Campaign

from .builders import hits_of, json_answer, mturk_campaign, published_mturk_campaign, remote, reported, state
from .helpers import (
    ANSWERED,
    EXPIRE_NOW,
    MASTERS_SANDBOX,
    add_request_error,
    hit_id,
    hit_request,
    hit_response,
    hit_type_request,
    record_calls,
    stub_hit_list,
    stub_publication,
    stub_sync_listings,
    type_id,
)

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=out)
    return out.getvalue()


def run_failing(*args: str) -> tuple[str, str]:
    """(output printed before the failure, the CommandError's message)."""
    out = StringIO()
    with pytest.raises(CommandError) as failure:
        call_command(*args, stdout=out, stderr=out)
    return out.getvalue(), str(failure.value)


# ---- publish --dry-run ---------------------------------------------------------------------------

def test_dry_run_prints_the_hits_cost_and_requirements_and_changes_nothing(stub):
    campaign = mturk_campaign(images=3, assignments=2, budget_cap=Decimal("0.50"),
                              qualifications={"approval_rate_min": 95, "locales": ["US", "CA-QC"]})
    first, second, third = hits_of(campaign)
    before = state(campaign)
    calls = record_calls(stub)
    with CaptureQueriesContext(connection) as queries:
        out = run("publish_campaign", campaign.name, "--dry-run")
    assert calls == []  # no MTurk request at all (the stub has nothing queued either)
    assert [q["sql"] for q in queries.captured_queries if not q["sql"].lstrip().upper().startswith("SELECT")] == []
    assert state(campaign) == before
    assert f"Dry run for '{campaign.name}' on mturk (production)" in out
    assert "3 draft HIT(s); 2 would be published:" in out
    assert f'HIT {first.pk} position 1: items {{"image": {first.items["image"]}}}, max assignments 2' in out
    assert f'HIT {second.pk} position 2: items {{"image": {second.items["image"]}}}, max assignments 2' in out
    assert f"HIT {third.pk} " not in out
    assert "Cost: 4 assignment(s): rewards $0.40 + fees $0.08 = $0.48" in out
    assert ("Fee per assignment: $0.02 (MTurk charges 20% of the reward (40% on HITs with 10 or more assignments), "
            "+5% with Masters, at least $0.01 per assignment)") in out
    assert ("Budget cap: $0.50, already committed $0.00: stops publication (1 HIT(s) would stay in draft; "
            "all drafts would cost $0.72)") in out
    requirements = [
        {"QualificationTypeId": "000000000000000000L0", "Comparator": "GreaterThanOrEqualTo",
         "IntegerValues": [95], "ActionsGuarded": "Accept"},
        {"QualificationTypeId": "00000000000000000071", "Comparator": "In",
         "LocaleValues": [{"Country": "US"}, {"Country": "CA", "Subdivision": "QC"}], "ActionsGuarded": "Accept"},
    ]
    assert "QualificationRequirements:\n" + json.dumps(requirements, indent=2, sort_keys=True) in out
    assert "Per HIT:" not in out  # not in a stage chain, no one-task-per-worker limit
    assert out.rstrip().endswith("Checks: OK")


def test_dry_run_names_the_private_participation_requirement(stub):
    campaign = mturk_campaign(images=1, max_assignments_per_worker=1)
    out = run("publish_campaign", campaign.name, "--dry-run")
    assert ("Per HIT: workers who did one HIT of this campaign are excluded (DoesNotExist on a private "
            "qualification of the campaign)") in out


def test_dry_run_in_the_sandbox_uses_the_sandbox_masters_id_and_fee(sandbox_stub):
    campaign = mturk_campaign(images=1, assignments=1, qualifications={"masters": True})
    before = state(campaign)
    calls = record_calls(sandbox_stub)
    out = run("publish_campaign", campaign.name, "--dry-run", "--sandbox")
    assert calls == [] and state(campaign) == before
    assert "on mturk (sandbox)" in out
    assert "Cost: 1 assignment(s): rewards $0.10 + fees $0.03 = $0.13" in out  # 25% with Masters, half up
    assert "Budget cap: none" in out
    assert json.dumps([{"ActionsGuarded": "Accept", "Comparator": "Exists",
                        "QualificationTypeId": MASTERS_SANDBOX}], indent=2, sort_keys=True) in out


def test_dry_run_reports_what_mturk_would_refuse(stub):
    campaign = mturk_campaign(images=1, auto_approval_delay_seconds=31 * 24 * 3600)
    before = state(campaign)
    calls = record_calls(stub)
    out, error = run_failing("publish_campaign", campaign.name, "--dry-run")
    assert calls == [] and state(campaign) == before
    assert "1 draft HIT(s); 1 would be published:" in out  # the plan is still shown
    assert "QualificationRequirements: not built" in out and "Checks: OK" not in out
    assert error == (f"publishing '{campaign.name}' would be refused: mturk: auto-approval delay is 2678400 s; "
                     "MTurk allows 0 s to 2592000 s")


def test_dry_run_of_a_campaign_already_published_elsewhere(stub):
    campaign = published_mturk_campaign(images=1)
    _, error = run_failing("publish_campaign", campaign.name, "--dry-run", "--provider", "local")
    assert "already published on 'mturk'" in error
    _, error = run_failing("publish_campaign", campaign.name, "--dry-run", "--provider", "nowhere")
    assert "unknown provider 'nowhere'" in error


# ---- publish -------------------------------------------------------------------------------------

def test_publish_queues_the_creation_and_the_job_creates_the_hits(stub, django_capture_on_commit_callbacks):
    campaign = mturk_campaign(images=2, assignments=3, keywords="photo, caption")
    first, second = hits_of(campaign)
    stub.add_response("create_hit_type", {"HITTypeId": type_id(1)}, hit_type_request(keywords="photo, caption"))
    stub.add_response("create_hit_with_hit_type", hit_response(hit_id(1), type_id(1)), hit_request(first, type_id(1)))
    stub.add_response("create_hit_with_hit_type", hit_response(hit_id(2), type_id(1)),
                      hit_request(second, type_id(1)))
    with django_capture_on_commit_callbacks(execute=True):
        out = run("publish_campaign", campaign.name)
    assert "Published 2 HIT(s)" in out and "on mturk (production): up to 6 assignments, $0.72 with fees" in out
    assert "queued" not in out  # without a broker the job ran before the command ended
    assert "Worker link" not in out
    stored = dict(campaign.hits.values_list("pk", "external_id"))
    assert stored == {first.pk: hit_id(1), second.pk: hit_id(2)}
    campaign.refresh_from_db()
    assert (campaign.status, campaign.sandbox, campaign.external_id) == ("active", False, type_id(1))


def test_publish_to_the_sandbox(sandbox_stub, django_capture_on_commit_callbacks):
    campaign = mturk_campaign(images=1, assignments=2)
    (hit,) = hits_of(campaign)
    stub_publication(sandbox_stub, hit, 7, max_assignments=2)
    with django_capture_on_commit_callbacks(execute=True):
        out = run("publish_campaign", campaign.name, "--sandbox")
    assert "on mturk (sandbox)" in out and "queued" not in out
    campaign.refresh_from_db()
    assert campaign.sandbox and campaign.hits.get().external_id == hit_id(7)


def test_publish_refuses_what_mturk_would_refuse_before_any_call(stub):
    campaign = mturk_campaign(images=1, auto_approval_delay_seconds=31 * 24 * 3600)
    before = state(campaign)
    calls = record_calls(stub)
    _, error = run_failing("publish_campaign", campaign.name)
    assert error == "mturk: auto-approval delay is 2678400 s; MTurk allows 0 s to 2592000 s"
    assert calls == [] and state(campaign) == before


# ---- sync_assignments ----------------------------------------------------------------------------

def test_sync_assignments_pulls_work_and_prints_the_report(stub):
    first, second = hits_of(published_mturk_campaign(images=2, auto_approve_passing=True))
    mturk_campaign(images=1)  # a draft: not synced by the run over every open campaign
    stub_sync_listings(stub, [hit_id(2)])
    stub.add_response("list_assignments_for_hit", {"Assignments": [remote("ASG1", "W1", first, "Submitted")]},
                      {"HITId": hit_id(1), "MaxResults": 100, "AssignmentStatuses": ANSWERED})
    stub.add_response("list_assignments_for_hit", {"Assignments": [remote("ASG2", "W2", second, "Approved")]},
                      {"HITId": hit_id(2), "MaxResults": 100, "AssignmentStatuses": ANSWERED})
    stub.add_response("update_hit_review_status", {}, {"HITId": hit_id(2), "Revert": False})
    stub.add_response("approve_assignment", {}, {"AssignmentId": "ASG1"})  # the campaign's rule: passing work
    out = run("sync_assignments")
    assert "Synced every open campaign:" in out
    for line in ("HITs checked: 2", "HITs with nothing new (skipped): 0",
                 "New submissions: 2", "Approved on the marketplace (e.g. auto-approval): 1",
                 "Rejected on the marketplace: 0", "Returned by their worker: 0", "HITs expired: 0",
                 "Approved by the campaign's rules: 1", "Flagged by the checks (left for review): none"):
        assert f"  {line}\n" in out, line
    statuses = dict(Assignment.objects.values_list("external_id", "status"))
    assert statuses == {"ASG1": "approved", "ASG2": "approved"}


def test_sync_assignments_of_one_campaign_and_its_failure(stub):
    campaign = published_mturk_campaign(images=1)
    (hit,) = hits_of(campaign)
    stub_sync_listings(stub, [])
    stub.add_response("list_assignments_for_hit", {"Assignments": [
        remote("ASG1", "W1", hit, "Submitted", answer=json_answer("dog dog dog dog dog dog dog dog dog dog"))]},
        {"HITId": hit_id(1), "MaxResults": 100, "AssignmentStatuses": ANSWERED})
    out = run("sync_assignments", campaign.name)
    assert f"Synced '{campaign.name}':" in out and "New submissions: 1" in out
    stub_hit_list(stub)
    add_request_error(stub, "list_reviewable_hits", "This operation is not allowed.", "AWS.MechanicalTurk.Denied",
                      {"HITTypeId": type_id(1), "Status": "Reviewable", "MaxResults": 100})
    _, error = run_failing("sync_assignments", str(campaign.pk))
    assert error.startswith(f"sync of '{campaign.name}' stopped: MTurk refused list_reviewable_hits: "
                            "This operation is not allowed.")


# ---- review --------------------------------------------------------------------------------------

def test_review_without_option_prints_what_is_waiting(stub):
    campaign = published_mturk_campaign(images=2)
    first, second = hits_of(campaign)
    reported(first, "W1", "ASG1")
    reported(first, "W2", "ASG2", flags=("repeated_words",))
    reported(second, "W3", "ASG3", marketplace_status="")  # stored by our page, not reported by a sync yet
    calls = record_calls(stub)
    out = run("review_submissions", campaign.name)
    assert calls == []
    assert f"Waiting for review in '{campaign.name}': 2 submitted, 1 passing the checks, 1 flagged" in out
    assert "1 not reported by the marketplace yet" in out
    assert set(Assignment.objects.values_list("status", flat=True)) == {"submitted"}


def test_review_approves_passing_work_and_reports_flagged_and_failed(stub):
    campaign = published_mturk_campaign(images=2)
    first, second = hits_of(campaign)
    passing = reported(first, "W1", "ASG1")
    flagged = reported(first, "W2", "ASG2", flags=("repeated_words",))
    refused = reported(second, "W3", "ASG3")
    stub.add_response("approve_assignment", {}, {"AssignmentId": "ASG1"})
    add_request_error(stub, "approve_assignment", "This operation can be called with a status of: Submitted",
                      "AWS.MechanicalTurk.InvalidAssignmentState", {"AssignmentId": "ASG3"})
    stub.add_response("get_assignment", {"Assignment": {"AssignmentId": "ASG3", "AssignmentStatus": "Rejected"}},
                      {"AssignmentId": "ASG3"})
    out, error = run_failing("review_submissions", campaign.name, "--approve-passing")
    assert "Approved: 1\n" in out
    assert f"Flagged by the checks (left for review): 1 ({flagged.pk})" in out
    assert "Failed: 1\n" in out
    assert (f"  assignment {refused.pk}: MTurk refused approve_assignment: This operation can be called with a "
            "status of: Submitted") in out
    assert error == "1 approval(s) failed; run review_submissions again to retry them"
    statuses = dict(Assignment.objects.values_list("pk", "status"))
    assert statuses == {passing.pk: "approved", flagged.pk: "submitted", refused.pk: "submitted"}


# ---- expire --------------------------------------------------------------------------------------

def test_expire_then_delete_the_decided_hits(stub):
    campaign = published_mturk_campaign(images=2)
    first, second = hits_of(campaign)
    reported(second, "W1", "ASG1")  # undecided: its HIT stays on MTurk
    stub.add_response("update_expiration_for_hit", {}, {"HITId": hit_id(1), "ExpireAt": EXPIRE_NOW})
    stub.add_response("update_expiration_for_hit", {}, {"HITId": hit_id(2), "ExpireAt": EXPIRE_NOW})
    stub.add_response("delete_hit", {}, {"HITId": hit_id(1)})
    out = run("expire_hits", campaign.name, "--delete-decided")
    assert (f"Expired 2 HIT(s) of '{campaign.name}'. Workers who already accepted one may still submit until "
            "their deadline (up to 600 s after accepting).") in out
    assert "Deleted 1 HIT(s) whose work is all decided." in out
    assert f"  HIT {second.pk}: HIT {second.pk} still has 1 assignment(s) to decide or in progress." in out
    assert dict(campaign.hits.values_list("pk", "status")) == {first.pk: "disposed", second.pk: "expired"}


def test_expire_is_repeatable_and_reports_a_refusal(stub):
    campaign = published_mturk_campaign(images=2)
    first, second = hits_of(campaign)
    stub.add_response("update_expiration_for_hit", {}, {"HITId": hit_id(1), "ExpireAt": EXPIRE_NOW})
    add_request_error(stub, "update_expiration_for_hit", "Hit does not exist.", "AWS.MechanicalTurk.HITDoesNotExist",
                      {"HITId": hit_id(2), "ExpireAt": EXPIRE_NOW})
    _, error = run_failing("expire_hits", campaign.name)
    assert error == (f"expiring '{campaign.name}' stopped: MTurk refused update_expiration_for_hit: Hit does not "
                     "exist. (run expire_hits again to continue; HITs already expired are skipped)")
    assert dict(campaign.hits.values_list("pk", "status")) == {first.pk: "expired", second.pk: "published"}
    stub.add_response("update_expiration_for_hit", {}, {"HITId": hit_id(2), "ExpireAt": EXPIRE_NOW})
    assert "Expired 1 HIT(s)" in run("expire_hits", campaign.name)  # only the one left: no second call for hit 1
    assert set(campaign.hits.values_list("status", flat=True)) == {"expired"}


# ---- create_campaign -----------------------------------------------------------------------------

def test_create_campaign_with_marketplace_options():
    out = run("create_campaign", "--name", "turk", "--kind", "describe_image", "--provider", "mturk",
              "--keywords", "image, caption", "--lifetime", "86400", "--auto-approval-delay", "3600",
              "--qualifications", '{"approval_rate_min":95,"locales":["US"]}', "--auto-approve-passing")
    assert "Created campaign" in out and "Warning" not in out
    campaign = Campaign.objects.get(name="turk")
    assert (campaign.provider, campaign.keywords, campaign.lifetime_seconds, campaign.auto_approval_delay_seconds,
            campaign.qualifications, campaign.auto_approve_passing) == (
        "mturk", "image, caption", 86400, 3600, {"approval_rate_min": 95, "locales": ["US"]}, True)


def test_create_campaign_warns_about_values_mturk_would_refuse():
    out = run("create_campaign", "--name", "slow", "--kind", "describe_image", "--provider", "mturk",
              "--auto-approval-delay", str(31 * 24 * 3600))
    assert "Warning: mturk would refuse to publish it: auto-approval delay is 2678400 s" in out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--qualifications", "{"], "--qualifications is not valid JSON"),
        (["--qualifications", '{"approval_rate_min": 101}'], "approval_rate_min must be a whole number from 0 to 100"),
        (["--qualifications", '{"colour": "red"}'], r"unknown qualification\(s\): colour"),
        (["--qualifications", '["US"]'], "qualifications must be an object"),
        (["--lifetime", "10"], "lifetime_seconds"),
        (["--provider", "nowhere"], "unknown provider 'nowhere'"),
    ],
)
def test_create_campaign_refuses_bad_marketplace_options(extra, message):
    with pytest.raises(CommandError, match=message):
        call_command("create_campaign", "--name", "bad", "--kind", "describe_image", "--provider", "mturk", *extra)
    assert not Campaign.objects.exists()


@pytest.mark.parametrize("command", [["sync_assignments", "nope"], ["review_submissions", "nope"],
                                     ["expire_hits", "nope"], ["publish_campaign", "nope", "--dry-run"]])
def test_unknown_campaign_is_named(command):
    with pytest.raises(CommandError, match="no campaign named or numbered 'nope'"):
        call_command(*command)
