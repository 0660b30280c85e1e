"""The thin review and HIT-lifecycle commands: bonus, block_worker, message_workers, extend_hits,
add_assignments and decide, on the local provider."""
import io
from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from mturk.models import HIT, Bonus
from mturk.states import AssignmentStatus, HITStatus
from tests.factories import make_campaign, submitted

pytestmark = pytest.mark.django_db


def run(*args):
    out = io.StringIO()
    call_command(*map(str, args), stdout=out)
    return out.getvalue()


def test_bonus_pays_and_prints():
    assignment = submitted(make_campaign(images=1))
    output = run("grant_bonus", assignment.pk, "0.25", "--reason", "Great detail")
    bonus = Bonus.objects.get(assignment=assignment)
    assert (bonus.amount, bonus.reason, bonus.paid) == (Decimal("0.25"), "Great detail", True)
    assert f"Bonus {bonus.pk}" in output and "$0.25" in output and "paid" in output


@pytest.mark.parametrize("amount", ["abc", "NaN"])
def test_bonus_refuses_a_bad_amount(amount):
    assignment = submitted(make_campaign(images=1))
    with pytest.raises(CommandError, match=f"'{amount}' is not an amount"):
        run("grant_bonus", assignment.pk, amount, "--reason", "Great detail")
    assert not Bonus.objects.exists()


def test_bonus_passes_on_the_service_refusal():
    assignment = submitted(make_campaign(images=1))
    with pytest.raises(CommandError, match="must be positive"):
        run("grant_bonus", assignment.pk, "0", "--reason", "Great detail")
    assert not Bonus.objects.exists()


def test_block_and_unblock_by_pk_and_by_provider_id():
    worker = submitted(make_campaign(images=1)).worker
    run("block_worker", worker.pk, "--reason", "Copied text")
    worker.refresh_from_db()
    assert (worker.blocked, worker.block_reason) == (True, "Copied text")
    run("block_worker", f"local:{worker.external_id}", "--unblock")
    worker.refresh_from_db()
    assert (worker.blocked, worker.block_reason) == (False, "")


@pytest.mark.parametrize("reference", ["mturk:NOBODY", "99999", "nobody"])
def test_block_refuses_an_unknown_worker(reference):
    with pytest.raises(CommandError, match="no worker"):
        run("block_worker", reference, "--reason", "Copied text")


def test_block_needs_a_reason():
    worker = submitted(make_campaign(images=1)).worker
    with pytest.raises(CommandError, match="needs a reason"):
        run("block_worker", worker.pk)
    worker.refresh_from_db()
    assert not worker.blocked


def test_message_workers_on_the_local_provider_is_refused():
    campaign = make_campaign(images=1)
    worker = submitted(campaign).worker
    with pytest.raises(CommandError, match="cannot message workers"):
        run("message_workers", campaign.pk, "--subject", "Thanks", "--text", "More work soon",
            "--worker", worker.external_id)


def test_message_workers_refuses_strangers():
    campaign = make_campaign(images=1)
    submitted(campaign)
    with pytest.raises(CommandError, match="Not workers of this campaign: STRANGER"):
        run("message_workers", campaign.pk, "--subject", "Thanks", "--text", "Hi", "--worker", "STRANGER")


def test_message_workers_prints_reached_and_missed(monkeypatch):
    campaign = make_campaign(images=1)
    first, second = submitted(campaign).worker, submitted(campaign).worker
    seen = {}

    def notify(self, campaign, worker_ids, subject, text):
        seen.update(ids=list(worker_ids), subject=subject, text=text)
        return [second.external_id]

    monkeypatch.setattr("mturk.providers.local.provider.LocalProvider.notify", notify, raising=False)
    output = run("message_workers", campaign.name, "--subject", "Thanks", "--text", "More work soon")
    assert seen == {"ids": sorted([first.external_id, second.external_id]), "subject": "Thanks",
                    "text": "More work soon"}
    assert "Reached 1 of 2 worker(s)" in output and f"Not reached: {second.external_id}" in output


def test_extend_hits_extends_published_and_reopens_expired():
    campaign = make_campaign(images=2)
    first, second = campaign.hits.order_by("pk")
    call_command("expire_hits", str(campaign.pk), stdout=io.StringIO())
    HIT.objects.filter(pk=second.pk).update(status=HITStatus.PUBLISHED)
    before = timezone.now()
    output = run("extend_hits", campaign.pk, "--seconds", 3600)
    for hit in (first, second):
        hit.refresh_from_db()
        assert hit.status == HITStatus.PUBLISHED
        assert hit.expires_at >= before + timedelta(seconds=3600)
        assert f"HIT {hit.pk} now expires at {hit.expires_at.isoformat()}" in output


def test_extend_hits_only_the_chosen_ones():
    campaign = make_campaign(images=2)
    first, second = campaign.hits.order_by("pk")
    old_expiry = second.expires_at
    output = run("extend_hits", campaign.pk, "--seconds", 600, "--hit", first.pk)
    first.refresh_from_db()
    second.refresh_from_db()
    assert first.expires_at >= timezone.now() + timedelta(seconds=590)
    assert second.expires_at == old_expiry
    assert f"HIT {second.pk}" not in output


def test_extend_hits_refuses_a_draft_hit():
    campaign = make_campaign(images=1, publish=False)
    hit = campaign.hits.get()
    with pytest.raises(CommandError, match=f"HIT {hit.pk} is draft"):
        run("extend_hits", campaign.pk, "--seconds", 600, "--hit", hit.pk)
    with pytest.raises(CommandError, match="no published or expired HITs"):
        run("extend_hits", campaign.pk, "--seconds", 600)
    hit.refresh_from_db()
    assert (hit.status, hit.expires_at) == (HITStatus.DRAFT, None)


def test_extend_hits_refuses_a_hit_of_another_campaign():
    campaign, other = make_campaign(images=1), make_campaign(images=1)
    with pytest.raises(CommandError, match="not HITs of"):
        run("extend_hits", campaign.pk, "--seconds", 600, "--hit", other.hits.get().pk)


def test_add_assignments_raises_the_maximum():
    hit = make_campaign(images=1, assignments=2).hits.get()
    output = run("add_assignments", hit.pk, 3)
    hit.refresh_from_db()
    assert hit.max_assignments == 5
    assert "now takes 5 assignment(s)" in output


def test_add_assignments_refuses_a_draft_hit_and_an_unknown_one():
    hit = make_campaign(images=1, publish=False).hits.get()
    with pytest.raises(CommandError, match="publish it before adding assignments"):
        run("add_assignments", hit.pk, 1)
    with pytest.raises(CommandError, match="no HIT numbered 99999"):
        run("add_assignments", 99999, 1)
    hit.refresh_from_db()
    assert hit.max_assignments == 2


def test_decide_approves_rejects_and_overrides():
    assignment = submitted(make_campaign(images=1))
    output = run("decide_assignment", assignment.pk, "--reject", "--feedback", "Describes another picture")
    assignment.refresh_from_db()
    assert (assignment.status, assignment.feedback) == (AssignmentStatus.REJECTED, "Describes another picture")
    assert "rejected" in output
    run("decide_assignment", assignment.pk, "--approve", "--feedback", "Sorry, our mistake")
    assignment.refresh_from_db()
    assert (assignment.status, assignment.feedback) == (AssignmentStatus.APPROVED, "Sorry, our mistake")


def test_decide_reject_without_feedback_is_refused():
    assignment = submitted(make_campaign(images=1))
    with pytest.raises(CommandError, match="feedback"):
        run("decide_assignment", assignment.pk, "--reject")
    assignment.refresh_from_db()
    assert assignment.status == AssignmentStatus.SUBMITTED


def test_decide_and_bonus_refuse_an_unknown_assignment():
    with pytest.raises(CommandError, match="no assignment numbered 99999"):
        run("decide_assignment", 99999, "--approve")
    with pytest.raises(CommandError, match="no assignment numbered 99999"):
        run("grant_bonus", 99999, "1.00", "--reason", "Thanks")


@pytest.mark.parametrize("command", ["grant_bonus", "block_worker", "message_workers", "extend_hits",
                                     "add_assignments", "decide_assignment"])
def test_every_command_has_help(command):
    from django.core.management import load_command_class

    assert load_command_class("mturk", command).help
