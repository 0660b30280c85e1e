"""Publishing on MTurk: publish_campaign stores the intent, the background job creates the HITs.

Every request is stubbed with its exact parameters; botocore's Stubber also checks them against the
MTurk service model."""
from __future__ import annotations

from collections import Counter
from datetime import timedelta
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from mturk.models import HIT, Campaign, MarketplaceHITType, MarketplaceQualification
from mturk.providers.mturk.limits import LimitError
from mturk.providers.mturk.provider import MTurkProvider
from mturk.providers.mturk.publish import create_pending_hits
from mturk.providers.mturk.tasks import create_marketplace_hits
from mturk.providers.registry import get_provider
from mturk.services.campaigns import CampaignError, add_hits, create_campaign, publish_campaign
from mturk.states import CampaignStatus, HITStatus
from mturk.work.services.marketplace_sync import sync_all
from tests.factories import make_campaign, make_image

from . import builders
from .builders import hits_of
from .helpers import (
    EXPIRATION,
    LIFETIME,
    MASTERS_PRODUCTION,
    MASTERS_SANDBOX,
    PREFIX,
    add_already_exists,
    add_request_error,
    add_throttling,
    annotation,
    does_not_exist,
    hit_id,
    hit_request,
    hit_response,
    hit_type_request,
    operations,
    params_of,
    participation_request,
    participation_response,
    qual_id,
    record_calls,
    stub_hit_list,
    stub_publication,
    stub_reviewable,
    token,
    type_id,
)

pytestmark = pytest.mark.django_db

QUALIFICATIONS = {"approval_rate_min": 95, "locales": ["US", "GB-SCT"]}
REQUIREMENTS = [
    {"QualificationTypeId": "000000000000000000L0", "Comparator": "GreaterThanOrEqualTo", "IntegerValues": [95],
     "ActionsGuarded": "Accept"},
    {"QualificationTypeId": "00000000000000000071", "Comparator": "In",
     "LocaleValues": [{"Country": "US"}, {"Country": "GB", "Subdivision": "SCT"}], "ActionsGuarded": "Accept"},
]
KEYWORDS = "image, description, caption"


class WorkerKilled(BaseException):
    """The job's process dies (not an error our code handles)."""


def mturk_campaign(images: int = 3, **fields) -> Campaign:
    """builders.mturk_campaign with 3 assignments per HIT and, unless overridden, KEYWORDS and QUALIFICATIONS."""
    fields.setdefault("keywords", KEYWORDS)
    fields.setdefault("qualifications", QUALIFICATIONS)
    return builders.mturk_campaign(images=images, assignments=3, **fields)


def full_type_request(**overrides) -> dict:
    """create_hit_type for mturk_campaign(): its keywords and requirements unless overridden."""
    return hit_type_request(**{"keywords": KEYWORDS, "requirements": REQUIREMENTS, **overrides})


def mark_published(campaign: Campaign, django_capture_on_commit_callbacks) -> None:
    """publish_campaign without running the job it queues (the tests run the job themselves)."""
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        publish_campaign(campaign)
    assert len(callbacks) == 1


def die_after_creating(victim: HIT, monkeypatch) -> None:
    """The job's process dies right after MTurk created `victim`, before our database records it."""
    mturk = get_provider("mturk")
    original = mturk.create_hit

    def create_then_die(hit, params):
        created = original(hit, params)
        if hit.pk == victim.pk:
            raise WorkerKilled
        return created

    monkeypatch.setattr(mturk, "create_hit", create_then_die)


def created_records(campaign: Campaign) -> list[tuple[str, str, str]]:
    return [(h.status, h.external_id, h.hit_type_id) for h in hits_of(campaign)]


# ---- the normal path -------------------------------------------------------------------------

def test_a_full_publish_creates_every_hit_once_and_records_it(stub, django_capture_on_commit_callbacks):
    campaign = mturk_campaign(images=3)
    hits = hits_of(campaign)
    calls = record_calls(stub)
    stub.add_response("create_hit_type", {"HITTypeId": type_id(1)}, full_type_request())
    expirations = [EXPIRATION + timedelta(hours=n) for n in range(3)]
    for n, hit in enumerate(hits):
        stub.add_response("create_hit_with_hit_type", hit_response(hit_id(n), type_id(1), expiration=expirations[n]),
                          hit_request(hit, type_id(1)))

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        result = publish_campaign(campaign)

    assert len(callbacks) == 1
    assert (result.published, result.left_in_draft, result.queued, result.worker_link) == (3, 0, False, None)
    recorded = hits_of(campaign)
    assert [(h.status, h.external_id, h.hit_type_id, h.expires_at) for h in recorded] == [
        (HITStatus.PUBLISHED, hit_id(n), type_id(1), expirations[n]) for n in range(3)]
    assert all(h.published_at is not None for h in recorded)
    campaign.refresh_from_db()
    assert (campaign.status, campaign.sandbox, campaign.external_id, campaign.marketplace_error) == (
        CampaignStatus.ACTIVE, False, type_id(1), "")
    assert list(MarketplaceHITType.objects.filter(campaign=campaign).values_list("external_id", flat=True)) == [
        type_id(1)]
    creates = params_of(calls, "create_hit_with_hit_type")
    assert Counter(c["UniqueRequestToken"] for c in creates) == {f"{PREFIX}-hit-{h.pk}": 1 for h in hits}


def test_a_campaign_without_keywords_or_requirements_sends_neither(stub, django_capture_on_commit_callbacks):
    campaign = mturk_campaign(images=1, keywords="", qualifications=None)
    (hit,) = hits_of(campaign)
    stub.add_response("create_hit_type", {"HITTypeId": type_id(1)}, hit_type_request())
    stub.add_response("create_hit_with_hit_type", hit_response(hit_id(1), type_id(1)), hit_request(hit, type_id(1)))
    with django_capture_on_commit_callbacks(execute=True):
        publish_campaign(campaign)
    assert created_records(campaign) == [(HITStatus.PUBLISHED, hit_id(1), type_id(1))]


def test_the_hit_type_is_created_once_for_many_hits_and_remembered(stub, django_capture_on_commit_callbacks):
    campaign = mturk_campaign(images=5)
    stub.add_response("create_hit_type", {"HITTypeId": type_id(1)}, full_type_request())
    for n, hit in enumerate(hits_of(campaign)):
        stub.add_response("create_hit_with_hit_type", hit_response(hit_id(n), type_id(1)), hit_request(hit, type_id(1)))
    with django_capture_on_commit_callbacks(execute=True):
        publish_campaign(campaign)
    stub.assert_no_pending_responses()

    # Two more HITs published later: the job reuses the stored HIT type, no create_hit_type call.
    add_hits(campaign, [{"image": make_image("late-1.png").pk}, {"image": make_image("late-2.png").pk}])
    late = hits_of(campaign)[5:]
    for n, hit in enumerate(late, start=5):
        stub.add_response("create_hit_with_hit_type", hit_response(hit_id(n), type_id(1)), hit_request(hit, type_id(1)))
    with django_capture_on_commit_callbacks(execute=True):
        result = publish_campaign(campaign)

    assert result.published == 2
    assert [h.external_id for h in hits_of(campaign)] == [hit_id(n) for n in range(7)]
    assert MarketplaceHITType.objects.filter(campaign=campaign).count() == 1


def test_throttling_then_success_retries_with_the_same_token(stub, sleeps, django_capture_on_commit_callbacks):
    campaign = mturk_campaign(images=2)
    first, second = hits_of(campaign)
    calls = record_calls(stub)
    stub.add_response("create_hit_type", {"HITTypeId": type_id(1)}, full_type_request())
    add_throttling(stub, "create_hit_with_hit_type")
    add_throttling(stub, "create_hit_with_hit_type")
    stub.add_response("create_hit_with_hit_type", hit_response(hit_id(1), type_id(1)), hit_request(first, type_id(1)))
    stub.add_response("create_hit_with_hit_type", hit_response(hit_id(2), type_id(1)), hit_request(second, type_id(1)))

    with django_capture_on_commit_callbacks(execute=True):
        publish_campaign(campaign)

    assert [h.external_id for h in hits_of(campaign)] == [hit_id(1), hit_id(2)]
    creates = params_of(calls, "create_hit_with_hit_type")
    assert [c["UniqueRequestToken"] for c in creates] == [token(first)] * 3 + [token(second)]
    assert len(sleeps) == 2 and 0.5 <= sleeps[0] <= 0.75 and 1.0 <= sleeps[1] <= 1.5


# ---- idempotency: HITs MTurk already has -----------------------------------------------------

def test_hit_already_exists_is_recovered_with_the_hit_id_from_the_message(stub, django_capture_on_commit_callbacks):
    campaign = mturk_campaign(images=2)
    first, second = hits_of(campaign)
    stub.add_response("create_hit_type", {"HITTypeId": type_id(1)}, full_type_request())
    add_already_exists(stub, first, type_id(1),
                       f'There is already a HIT with ID "{hit_id(41)}" for the UniqueRequestToken {token(first)}.')
    stub.add_response("create_hit_with_hit_type", hit_response(hit_id(42), type_id(1)), hit_request(second, type_id(1)))

    before = timezone.now()
    with django_capture_on_commit_callbacks(execute=True):
        publish_campaign(campaign)

    recovered, created = hits_of(campaign)
    assert (recovered.external_id, recovered.hit_type_id, created.external_id) == (hit_id(41), type_id(1), hit_id(42))
    # MTurk's message has no expiration: the job assumes the campaign's lifetime from now.
    assert before + timedelta(seconds=LIFETIME) <= recovered.expires_at <= timezone.now() + timedelta(seconds=LIFETIME)
    campaign.refresh_from_db()
    assert campaign.marketplace_error == ""


def test_hit_already_exists_without_an_id_is_found_by_its_annotation_in_list_hits(
        stub, django_capture_on_commit_callbacks):
    campaign = mturk_campaign(images=1)
    (hit,) = hits_of(campaign)
    found_expiration = EXPIRATION + timedelta(days=2)
    stub.add_response("create_hit_type", {"HITTypeId": type_id(1)}, full_type_request())
    add_already_exists(stub, hit, type_id(1), "The request token has already been used.")
    other = f"{PREFIX}:campaign:{campaign.pk}:hit:{hit.pk + 1000}"
    stub.add_response("list_hits", {"HITs": [
        hit_response(hit_id(90), type_id(1), annotation_text=other)["HIT"],
        hit_response(hit_id(91), type_id(1))["HIT"],  # no annotation at all
    ], "NextToken": "page-2", "NumResults": 2}, {"MaxResults": 100})
    stub.add_response("list_hits", {"HITs": [
        hit_response(hit_id(92), type_id(1), annotation_text=f"x{annotation(hit)}")["HIT"],
        hit_response(hit_id(93), type_id(1), annotation_text=annotation(hit), expiration=found_expiration)["HIT"],
    ], "NumResults": 2}, {"MaxResults": 100, "NextToken": "page-2"})

    with django_capture_on_commit_callbacks(execute=True):
        publish_campaign(campaign)

    (recorded,) = hits_of(campaign)
    assert (recorded.external_id, recorded.expires_at) == (hit_id(93), found_expiration)


def test_hit_already_exists_but_not_listed_is_an_error_and_the_hit_stays_pending(
        stub, django_capture_on_commit_callbacks):
    campaign = mturk_campaign(images=1)
    (hit,) = hits_of(campaign)
    stub.add_response("create_hit_type", {"HITTypeId": type_id(1)}, full_type_request())
    add_already_exists(stub, hit, type_id(1), "The request token has already been used.")
    stub.add_response("list_hits", {"HITs": [], "NumResults": 0}, {"MaxResults": 100})

    with django_capture_on_commit_callbacks(execute=True):  # the job's failure is recorded, not raised at the caller
        publish_campaign(campaign)

    assert created_records(campaign) == [(HITStatus.PUBLISHED, "", "")]
    campaign.refresh_from_db()
    assert "already exists but it is not in the requester's HIT list" in campaign.marketplace_error


def test_a_job_killed_mid_batch_and_run_again_creates_no_duplicate(
        stub, monkeypatch, django_capture_on_commit_callbacks):
    campaign = mturk_campaign(images=4)
    hits = hits_of(campaign)
    mark_published(campaign, django_capture_on_commit_callbacks)
    calls = record_calls(stub)
    die_after_creating(hits[2], monkeypatch)  # MTurk created HIT 3; the process dies before our database records it
    stub.add_response("create_hit_type", {"HITTypeId": type_id(1)}, full_type_request())
    for n in range(3):
        stub.add_response("create_hit_with_hit_type", hit_response(hit_id(n), type_id(1)),
                          hit_request(hits[n], type_id(1)))
    with pytest.raises(WorkerKilled):
        create_marketplace_hits(campaign.pk)
    stub.assert_no_pending_responses()
    assert [h.external_id for h in hits_of(campaign)] == [hit_id(0), hit_id(1), "", ""]

    # The job is redelivered: same token for HIT 3, MTurk answers HitAlreadyExists; no new HIT type.
    monkeypatch.undo()
    add_already_exists(stub, hits[2], type_id(1), f"HIT {hit_id(2)} already exists for this request token.")
    stub.add_response("create_hit_with_hit_type", hit_response(hit_id(3), type_id(1)),
                      hit_request(hits[3], type_id(1)))
    assert create_marketplace_hits.delay(campaign.pk).get() == 2

    assert [h.external_id for h in hits_of(campaign)] == [hit_id(n) for n in range(4)]
    creates = params_of(calls, "create_hit_with_hit_type")
    assert Counter(c["UniqueRequestToken"] for c in creates) == {
        token(hits[0]): 1, token(hits[1]): 1, token(hits[2]): 2, token(hits[3]): 1}
    assert MarketplaceHITType.objects.filter(campaign=campaign).count() == 1


def killed_mid_batch(campaign: Campaign, stub, monkeypatch, on_commit) -> list:
    """Publish, then the whole worker dies after MTurk created HIT 2 and before our database recorded it:
    the job is gone (the broker keeps it until its visibility timeout). Returns the campaign's HITs."""
    hits = hits_of(campaign)
    die_after_creating(hits[1], monkeypatch)
    stub.add_response("create_hit_type", {"HITTypeId": type_id(1)}, full_type_request())
    for n in range(2):
        stub.add_response("create_hit_with_hit_type", hit_response(hit_id(n), type_id(1)),
                          hit_request(hits[n], type_id(1)))
    with pytest.raises(WorkerKilled), on_commit(execute=True):
        call_command("publish_campaign", campaign.name, stdout=StringIO())  # in-process: the job runs and dies in it
    monkeypatch.undo()
    assert [h.external_id for h in hits_of(campaign)] == [hit_id(0), "", ""]
    return hits


def stub_the_rest(stub, hits) -> None:
    """What finishing the creation asks MTurk: HIT 2 again (same token: HitAlreadyExists), then HIT 3."""
    add_already_exists(stub, hits[1], type_id(1), f"HIT {hit_id(1)} already exists for this request token.")
    stub.add_response("create_hit_with_hit_type", hit_response(hit_id(2), type_id(1)),
                      hit_request(hits[2], type_id(1)))


def test_publish_run_again_after_the_worker_was_killed_resumes_the_creation(
        stub, monkeypatch, django_capture_on_commit_callbacks):
    campaign = mturk_campaign(images=3)
    hits = killed_mid_batch(campaign, stub, monkeypatch, django_capture_on_commit_callbacks)
    calls = record_calls(stub)
    stub_the_rest(stub, hits)
    out = StringIO()

    with django_capture_on_commit_callbacks(execute=True):
        call_command("publish_campaign", campaign.name, stdout=out)

    assert "Published 0 HIT(s)" in out.getvalue()
    assert "2 published HIT(s) were not on mturk yet (an earlier job did not finish): handed to the job again" \
        in out.getvalue()
    assert [h.external_id for h in hits_of(campaign)] == [hit_id(n) for n in range(3)]
    assert operations(calls) == ["create_hit_with_hit_type", "create_hit_with_hit_type"]  # no new HIT type
    assert MarketplaceHITType.objects.filter(campaign=campaign).count() == 1


def test_the_periodic_sync_creates_what_a_killed_job_left_without_a_duplicate(stub, monkeypatch,
                                                                              django_capture_on_commit_callbacks):
    campaign = mturk_campaign(images=3)
    hits = killed_mid_batch(campaign, stub, monkeypatch, django_capture_on_commit_callbacks)
    calls = record_calls(stub)
    stub_hit_list(stub)  # the account's HITs, listed once by sync_all; nothing answered yet
    stub_the_rest(stub, hits)  # the campaign's sync creates what is pending, then checks its HITs
    stub_reviewable(stub, [])
    for n in range(3):
        stub.add_response("list_assignments_for_hit", {"NumResults": 0, "Assignments": []},
                          {"HITId": hit_id(n), "AssignmentStatuses": ["Submitted", "Approved", "Rejected"],
                           "MaxResults": 100})

    report = sync_all()

    assert report.created_hits == 2
    assert [h.external_id for h in hits_of(campaign)] == [hit_id(n) for n in range(3)]
    creates = params_of(calls, "create_hit_with_hit_type")
    assert [c["UniqueRequestToken"] for c in creates] == [token(hits[1]), token(hits[2])]


def test_a_job_limited_to_two_hits_then_run_again_creates_each_hit_once(
        stub, django_capture_on_commit_callbacks):
    campaign = mturk_campaign(images=3)
    hits = hits_of(campaign)
    mark_published(campaign, django_capture_on_commit_callbacks)
    calls = record_calls(stub)
    stub.add_response("create_hit_type", {"HITTypeId": type_id(1)}, full_type_request())
    for n in range(2):
        stub.add_response("create_hit_with_hit_type", hit_response(hit_id(n), type_id(1)),
                          hit_request(hits[n], type_id(1)))
    report = create_pending_hits(campaign, limit=2)
    assert (report.created, report.pending, report.error) == (2, 1, "")

    stub.add_response("create_hit_with_hit_type", hit_response(hit_id(2), type_id(1)),
                      hit_request(hits[2], type_id(1)))
    report = create_pending_hits(Campaign.objects.get(pk=campaign.pk))
    assert (report.created, report.pending) == (1, 0)
    assert create_pending_hits(Campaign.objects.get(pk=campaign.pk)).created == 0  # nothing left: no call
    creates = params_of(calls, "create_hit_with_hit_type")
    assert [c["UniqueRequestToken"] for c in creates] == [token(h) for h in hits]


# ---- refusals --------------------------------------------------------------------------------

def test_a_refusal_is_stored_on_the_campaign_and_the_hit_stays_pending(stub, django_capture_on_commit_callbacks):
    campaign = mturk_campaign(images=3)
    first, second, third = hits_of(campaign)
    stub.add_response("create_hit_type", {"HITTypeId": type_id(1)}, full_type_request())
    stub.add_response("create_hit_with_hit_type", hit_response(hit_id(1), type_id(1)), hit_request(first, type_id(1)))
    add_request_error(stub, "create_hit_with_hit_type", "You do not have enough funds to create this HIT.",
                      "AWS.MechanicalTurk.InsufficientFunds", expected_params=hit_request(second, type_id(1)))

    with django_capture_on_commit_callbacks(execute=True):
        publish_campaign(campaign)

    assert created_records(campaign) == [
        (HITStatus.PUBLISHED, hit_id(1), type_id(1)), (HITStatus.PUBLISHED, "", ""), (HITStatus.PUBLISHED, "", "")]
    campaign.refresh_from_db()
    assert campaign.marketplace_error.startswith(
        "Creating the published HITs on MTurk failed: MTurk refused create_hit_with_hit_type: You do not have enough "
        "funds to create this HIT.; the marketplace sync does it")  # a refusal: no worker would retry it either

    # Once the account is funded, running the job again creates the rest and clears the error.
    stub.add_response("create_hit_with_hit_type", hit_response(hit_id(2), type_id(1)),
                      hit_request(second, type_id(1)))
    stub.add_response("create_hit_with_hit_type", hit_response(hit_id(3), type_id(1)), hit_request(third, type_id(1)))
    assert create_marketplace_hits(campaign.pk) == 2
    campaign.refresh_from_db()
    assert campaign.marketplace_error == ""
    assert [h.external_id for h in hits_of(campaign)] == [hit_id(1), hit_id(2), hit_id(3)]


def test_a_refused_hit_type_creates_no_hit(stub, django_capture_on_commit_callbacks):
    campaign = mturk_campaign(images=2)
    add_request_error(stub, "create_hit_type", "Reward is below the minimum.", "AWS.MechanicalTurk.InvalidParameter",
                      expected_params=full_type_request())
    with django_capture_on_commit_callbacks(execute=True):
        publish_campaign(campaign)
    assert created_records(campaign) == [(HITStatus.PUBLISHED, "", "")] * 2
    assert not MarketplaceHITType.objects.filter(campaign=campaign).exists()
    campaign.refresh_from_db()
    assert "failed: MTurk refused create_hit_type: Reward is below the minimum.;" in campaign.marketplace_error


@pytest.mark.parametrize(("change", "message"), [
    ({"description": ""}, "mturk: description is required by MTurk"),
    ({"title": "   "}, "mturk: title is required by MTurk"),
    ({"description": "d" * 2001}, "mturk: description is 2001 characters; MTurk allows at most 2000"),
    ({"lifetime_seconds": 366 * 24 * 3600}, "mturk: lifetime is 31622400 s; MTurk allows 30 s to 31536000 s"),
    ({"time_limit_seconds": 366 * 24 * 3600}, "mturk: assignment duration is 31622400 s"),
    ({"auto_approval_delay_seconds": 31 * 24 * 3600}, "mturk: auto-approval delay is 2678400 s"),
    ({"reward": Decimal("-0.01")}, "mturk: '-0.01' is not a positive USD amount"),
])
def test_local_validation_refuses_before_any_call(stub, django_capture_on_commit_callbacks, change, message):
    campaign = mturk_campaign(images=2)
    Campaign.objects.filter(pk=campaign.pk).update(**change)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        with pytest.raises(CampaignError) as raised:
            publish_campaign(campaign)
    assert str(raised.value).startswith(message)
    assert callbacks == []  # nothing queued, so no MTurk call (the stub has no response to give)
    assert [h.status for h in hits_of(campaign)] == [HITStatus.DRAFT, HITStatus.DRAFT]
    campaign.refresh_from_db()
    assert campaign.status == CampaignStatus.DRAFT


def test_an_http_public_base_url_is_refused_before_any_call(stub, settings, django_capture_on_commit_callbacks):
    campaign = mturk_campaign(images=1)
    settings.PUBLIC_BASE_URL = "http://crowd.example.org"
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        with pytest.raises(CampaignError, match="mturk: MTurk needs an HTTPS task URL.*PUBLIC_BASE_URL"):
            publish_campaign(campaign)
    assert callbacks == []
    assert [h.status for h in hits_of(campaign)] == [HITStatus.DRAFT]


def test_a_title_over_128_characters_is_refused():
    # The model keeps a campaign's title within MTurk's limit...
    with pytest.raises(CampaignError, match="title: Ensure this value has at most 128 characters"):
        create_campaign(name="long-title", task_kind="describe_image", provider="mturk", title="T" * 129)
    # ...and the provider refuses one anyway (e.g. a campaign built in memory).
    campaign = Campaign(title="T" * 129, description="d", reward=Decimal("0.10"), assignments_per_hit=3)
    with pytest.raises(LimitError, match="title is 129 characters; MTurk allows at most 128"):
        MTurkProvider().check_campaign(campaign)


def test_eleven_qualification_requirements_are_refused():
    full = {"approval_rate_min": 95, "approved_min": 100, "locales": ["US"], "masters": True, "adult": True}
    campaign = Campaign(title="t", description="d", reward=Decimal("0.10"), assignments_per_hit=3,
                        qualifications=full)
    mturk = MTurkProvider()
    ten = mturk.hit_type_params(campaign, [does_not_exist(qual_id(n)) for n in range(5)])
    assert len(ten["QualificationRequirements"]) == 10
    with pytest.raises(LimitError, match="11 qualification requirements; MTurk allows at most 10"):
        mturk.hit_type_params(campaign, [does_not_exist(qual_id(n)) for n in range(6)])


# ---- the sandbox -----------------------------------------------------------------------------

def test_publishing_to_the_sandbox_uses_the_sandbox_client_and_masters_id(
        stub, sandbox_stub, django_capture_on_commit_callbacks):
    campaign = mturk_campaign(images=1, qualifications={"masters": True})
    (hit,) = hits_of(campaign)
    masters = [{"QualificationTypeId": MASTERS_SANDBOX, "Comparator": "Exists", "ActionsGuarded": "Accept"}]
    stub_publication(sandbox_stub, hit, 1, keywords=KEYWORDS, requirements=masters)
    # `stub` (production) has no response queued: any production call would fail the job.

    with django_capture_on_commit_callbacks(execute=True):
        publish_campaign(campaign, "mturk", sandbox=True)

    campaign.refresh_from_db()
    assert campaign.sandbox is True
    assert created_records(campaign) == [(HITStatus.PUBLISHED, hit_id(1), type_id(1))]
    # The environment is fixed at the first publish.
    with pytest.raises(CampaignError, match="already published in the sandbox"):
        publish_campaign(campaign, "mturk", sandbox=False)


def test_the_publish_command_with_sandbox(stub, sandbox_stub, django_capture_on_commit_callbacks):
    campaign = mturk_campaign(images=1, qualifications={"masters": True})
    (hit,) = hits_of(campaign)
    masters = [{"QualificationTypeId": MASTERS_SANDBOX, "Comparator": "Exists", "ActionsGuarded": "Accept"}]
    stub_publication(sandbox_stub, hit, 1, keywords=KEYWORDS, requirements=masters)
    out = StringIO()
    with django_capture_on_commit_callbacks(execute=True):
        call_command("publish_campaign", campaign.name, "--sandbox", stdout=out)
    assert "on mturk (sandbox)" in out.getvalue()
    campaign.refresh_from_db()
    assert campaign.sandbox is True
    assert created_records(campaign) == [(HITStatus.PUBLISHED, hit_id(1), type_id(1))]


def test_production_uses_the_production_masters_id(stub, django_capture_on_commit_callbacks):
    campaign = mturk_campaign(images=1, qualifications={"masters": True})
    (hit,) = hits_of(campaign)
    masters = [{"QualificationTypeId": MASTERS_PRODUCTION, "Comparator": "Exists", "ActionsGuarded": "Accept"}]
    stub_publication(stub, hit, 1, keywords=KEYWORDS, requirements=masters)
    with django_capture_on_commit_callbacks(execute=True):
        publish_campaign(campaign, "mturk", sandbox=False)
    assert created_records(campaign) == [(HITStatus.PUBLISHED, hit_id(1), type_id(1))]


# ---- participation qualifications ------------------------------------------------------------

def chained_stage(groups: dict[str, int], **fields) -> Campaign:
    """A describe_image stage fed by another campaign, with `count` HITs in each group."""
    source = make_campaign(images=0, publish=False, provider="local", name=f"source-{len(groups)}")
    stage = create_campaign(name="stage", task_kind="describe_image", provider="mturk", source_stage=source,
                            reward=Decimal("0.10"), assignments_per_hit=3, **fields)
    for group, count in groups.items():
        add_hits(stage, [{"image": make_image(f"{group}-{n}.png").pk} for n in range(count)], group=group)
    return stage


def test_a_chained_stage_gets_one_private_qualification_and_hit_type_per_group(
        stub, django_capture_on_commit_callbacks):
    stage = chained_stage({"album:1": 2, "album:2": 1})
    first, second, third = hits_of(stage)
    assert [h.group for h in (first, second, third)] == ["album:1", "album:1", "album:2"]
    stub.add_response("create_qualification_type", participation_response(qual_id(1), "album:1"),
                      participation_request("album:1"))
    stub.add_response("create_hit_type", {"HITTypeId": type_id(1)},
                      hit_type_request(requirements=[does_not_exist(qual_id(1))]))
    stub.add_response("create_hit_with_hit_type", hit_response(hit_id(1), type_id(1)), hit_request(first, type_id(1)))
    stub.add_response("create_hit_with_hit_type", hit_response(hit_id(2), type_id(1)), hit_request(second, type_id(1)))
    stub.add_response("create_qualification_type", participation_response(qual_id(2), "album:2"),
                      participation_request("album:2"))
    stub.add_response("create_hit_type", {"HITTypeId": type_id(2)},
                      hit_type_request(requirements=[does_not_exist(qual_id(2))]))
    stub.add_response("create_hit_with_hit_type", hit_response(hit_id(3), type_id(2)), hit_request(third, type_id(2)))

    with django_capture_on_commit_callbacks(execute=True):
        publish_campaign(stage)

    assert created_records(stage) == [(HITStatus.PUBLISHED, hit_id(1), type_id(1)),
                                      (HITStatus.PUBLISHED, hit_id(2), type_id(1)),
                                      (HITStatus.PUBLISHED, hit_id(3), type_id(2))]
    assert sorted(MarketplaceQualification.objects.values_list("provider", "sandbox", "scope", "external_id")) == [
        ("mturk", False, "album:1", qual_id(1)), ("mturk", False, "album:2", qual_id(2))]
    assert sorted(stage.hit_types.values_list("external_id", flat=True)) == [type_id(1), type_id(2)]


def test_a_group_qualification_is_shared_with_the_next_stage(stub, django_capture_on_commit_callbacks):
    """A worker who did album:1 in one stage cannot take album:1 in another: the same qualification."""
    MarketplaceQualification.objects.create(provider="mturk", sandbox=False, scope="album:1",
                                            external_id=qual_id(7))
    stage = chained_stage({"album:1": 1}, qualifications={"approval_rate_min": 95})
    (hit,) = hits_of(stage)
    stub.add_response("create_hit_type", {"HITTypeId": type_id(1)},
                      hit_type_request(requirements=[REQUIREMENTS[0], does_not_exist(qual_id(7))]))
    stub.add_response("create_hit_with_hit_type", hit_response(hit_id(1), type_id(1)), hit_request(hit, type_id(1)))
    with django_capture_on_commit_callbacks(execute=True):
        publish_campaign(stage)
    assert created_records(stage) == [(HITStatus.PUBLISHED, hit_id(1), type_id(1))]


def test_one_task_per_worker_adds_a_campaign_qualification(stub, django_capture_on_commit_callbacks):
    campaign = mturk_campaign(images=2, max_assignments_per_worker=1)
    first, second = hits_of(campaign)
    scope = f"campaign:{campaign.pk}"
    stub.add_response("create_qualification_type", participation_response(qual_id(1), scope),
                      participation_request(scope))
    stub.add_response("create_hit_type", {"HITTypeId": type_id(1)},
                      full_type_request(requirements=REQUIREMENTS + [does_not_exist(qual_id(1))]))
    stub.add_response("create_hit_with_hit_type", hit_response(hit_id(1), type_id(1)), hit_request(first, type_id(1)))
    stub.add_response("create_hit_with_hit_type", hit_response(hit_id(2), type_id(1)), hit_request(second, type_id(1)))
    with django_capture_on_commit_callbacks(execute=True):
        publish_campaign(campaign)
    assert [h.external_id for h in hits_of(campaign)] == [hit_id(1), hit_id(2)]


def test_a_crash_after_creating_the_qualification_is_recovered_from_list_qualification_types(
        stub, monkeypatch, django_capture_on_commit_callbacks):
    stage = chained_stage({"album:1": 1})
    (hit,) = hits_of(stage)
    mark_published(stage, django_capture_on_commit_callbacks)
    mturk = get_provider("mturk")
    original = mturk.create_participation_qualification

    def create_then_die(scope, label, sandbox):
        original(scope, label, sandbox)
        raise WorkerKilled  # MTurk has the qualification type; our database never got its id

    monkeypatch.setattr(mturk, "create_participation_qualification", create_then_die)
    stub.add_response("create_qualification_type", participation_response(qual_id(1), "album:1"),
                      participation_request("album:1"))
    with pytest.raises(WorkerKilled):
        create_marketplace_hits(stage.pk)
    assert list(MarketplaceQualification.objects.values_list("scope", "external_id")) == [("album:1", "")]

    monkeypatch.undo()
    name = f"{PREFIX} took part: album:1"
    add_request_error(stub, "create_qualification_type",
                      "You have already created a QualificationType with this name.",
                      "AWS.MechanicalTurk.QualificationTypeAlreadyExists",
                      expected_params=participation_request("album:1"))
    stub.add_response("list_qualification_types", {"QualificationTypes": [
        {"QualificationTypeId": qual_id(10), "Name": f"{name}0"},  # "album:10" also matches the query
        {"QualificationTypeId": qual_id(1), "Name": name},
    ], "NumResults": 2}, {"Query": name, "MustBeRequestable": False, "MustBeOwnedByCaller": True, "MaxResults": 100})
    stub.add_response("create_hit_type", {"HITTypeId": type_id(1)},
                      hit_type_request(requirements=[does_not_exist(qual_id(1))]))
    stub.add_response("create_hit_with_hit_type", hit_response(hit_id(1), type_id(1)), hit_request(hit, type_id(1)))

    assert create_marketplace_hits(stage.pk) == 1

    assert list(MarketplaceQualification.objects.values_list("scope", "external_id")) == [("album:1", qual_id(1))]
    assert created_records(stage) == [(HITStatus.PUBLISHED, hit_id(1), type_id(1))]
