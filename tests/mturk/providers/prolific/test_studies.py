"""A campaign's Prolific study: created exactly once whatever fails, published, sized, paused and stopped
with the campaign; stages of a chain keep each other's finishers out. Against the fake Prolific."""
from __future__ import annotations

import math
from decimal import Decimal

import pytest

from mturk.models import HIT, Campaign
from mturk.providers.base import ProviderError
from mturk.providers.prolific import studies as prolific_studies
from mturk.providers.prolific.client import ProlificUnavailable
from mturk.providers.prolific.models import ProlificStudy
from mturk.providers.prolific.studies import ensure_study
from mturk.services.campaigns import CampaignError, add_hits, publish_campaign, set_campaign_status
from mturk.states import CampaignStatus
from tests.factories import make_campaign, make_image

from .study_helpers import published_campaign, study_of, work

pytestmark = pytest.mark.django_db


def draft(**fields) -> Campaign:
    return make_campaign(images=fields.pop("images", 5), publish=False, assignments=fields.pop("assignments", 2),
                         provider="prolific", tasks_per_submission=fields.pop("tasks", 3),
                         reward=fields.pop("reward", Decimal("0.40")),
                         qualifications=fields.pop("qualifications", {"estimated_minutes": 3}), **fields)


def test_publishing_creates_and_publishes_one_study_shaped_as_documented(prolific_fake, settings,
                                                                            django_capture_on_commit_callbacks):
    settings.PUBLIC_BASE_URL = "https://crowd.example.org"
    campaign = draft(images=5, assignments=2, tasks=3, reward=Decimal("0.40"))
    with django_capture_on_commit_callbacks(execute=True):
        publish_campaign(campaign)
    study = study_of(campaign)
    assert len(prolific_fake.studies) == 1
    remote = prolific_fake.studies[study.external_id]
    assert remote["status"] == "ACTIVE" and study.status == "ACTIVE" and study.published_at is not None
    assert remote["internal_name"] == study.internal_name == f"vl-{study.intent_id}"
    assert remote["reward"] == 120  # 3 tasks of 0.40, in minor units
    assert remote["total_available_places"] == study.places == math.ceil(10 / 3)
    assert remote["external_study_url"].startswith("https://crowd.example.org/p/")
    assert remote["external_study_url"].endswith(
        "?PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}")
    assert remote["prolific_id_option"] == "url_parameters"
    [code] = remote["completion_codes"]
    assert code["code"] == study.completion_code and code["code_type"] == "COMPLETED"
    assert [a["action"] for a in code["actions"]] == ["MANUALLY_REVIEW"]  # not in a chain: no group action
    [blocklist] = remote["filters"]
    assert blocklist["filter_id"] == "participant_group_blocklist"
    [block_group] = blocklist["selected_values"]
    assert prolific_fake.groups[block_group].workspace_id == prolific_fake.workspace_id
    # the fees are the calculator's (33.33% + 20% VAT on the fees in the fake), remembered on the study
    assert study.fee_ratio is not None and study.fee_ratio > Decimal("0.3")


def test_a_creation_whose_answer_is_lost_is_found_by_its_name_not_repeated(prolific_fake):
    campaign = draft()
    ProlificStudy.objects.filter(campaign=campaign).delete()
    campaign.status = CampaignStatus.ACTIVE
    campaign.save()
    publish_without_job(campaign)
    prolific_fake.fail("studies/", "reset", method="POST")  # Prolific created it; the answer never arrived
    study = ensure_study(campaign)
    assert len(prolific_fake.studies) == 1
    assert len(prolific_fake.received("POST", "studies/")) == 1  # never sent twice
    assert study.external_id in prolific_fake.studies and study.status == "ACTIVE"


def test_a_refused_creation_is_not_retried_blindly_and_the_next_run_creates_it_once(prolific_fake):
    campaign = draft()
    publish_without_job(campaign)
    prolific_fake.fail("studies/", "500", method="POST")  # not processed
    with pytest.raises(ProlificUnavailable):
        ensure_study(campaign)
    assert len(prolific_fake.received("POST", "studies/")) == 1  # a 500 on a create is not repeated
    assert prolific_fake.studies == {}
    campaign.refresh_from_db()
    assert "Prolific" in campaign.marketplace_error
    study = ensure_study(campaign)
    assert len(prolific_fake.studies) == 1 and study.status == "ACTIVE"
    campaign.refresh_from_db()
    assert campaign.marketplace_error == ""


def test_a_crash_after_creating_before_storing_the_id_does_not_duplicate_the_study(prolific_fake, monkeypatch):
    campaign = draft()
    publish_without_job(campaign)
    real = prolific_studies._remember

    def crash(study, remote):
        raise RuntimeError("the worker died here")

    monkeypatch.setattr(prolific_studies, "_remember", crash)
    with pytest.raises(RuntimeError):
        ensure_study(campaign)
    assert len(prolific_fake.studies) == 1
    assert study_of(campaign).external_id == ""  # nothing of the creation was stored
    monkeypatch.setattr(prolific_studies, "_remember", real)
    study = ensure_study(campaign)
    assert len(prolific_fake.studies) == 1 and len(prolific_fake.received("POST", "studies/")) == 1
    assert study.external_id == next(iter(prolific_fake.studies))


def test_running_the_job_again_changes_nothing(prolific_fake, django_capture_on_commit_callbacks):
    campaign = published_campaign(prolific_fake, django_capture_on_commit_callbacks=django_capture_on_commit_callbacks)
    before = len(prolific_fake.received(method="POST")) + len(prolific_fake.received(method="PATCH"))
    ensure_study(campaign)
    ensure_study(campaign)
    after = len(prolific_fake.received(method="POST")) + len(prolific_fake.received(method="PATCH"))
    assert after == before and len(prolific_fake.studies) == 1


def test_places_follow_new_hits_and_are_never_lowered(prolific_fake, django_capture_on_commit_callbacks):
    campaign = published_campaign(prolific_fake, images=4, assignments=1, tasks=2,
                                  django_capture_on_commit_callbacks=django_capture_on_commit_callbacks)
    study = study_of(campaign)
    assert study.places == 2
    work(prolific_fake, campaign)  # one bundle of two tasks done: its place stays taken
    extra = [make_image(f"more-{i}.png") for i in range(4)]
    add_hits(campaign, [{"image": image.pk} for image in extra])
    with django_capture_on_commit_callbacks(execute=True):
        publish_campaign(campaign)
    study.refresh_from_db()
    assert study.places_taken == 1
    assert study.places == 1 + math.ceil(6 / 2) == prolific_fake.studies[study.external_id]["total_available_places"]


def test_the_budget_cap_limits_the_places(prolific_fake, django_capture_on_commit_callbacks):
    # 6 HITs x 1 assignment, bundles of 2 at 1.00 each: a place costs 2.00 plus ~40% fees and VAT
    campaign = published_campaign(prolific_fake, images=6, assignments=1, tasks=2, reward=Decimal("1.00"),
                                  budget_cap=Decimal("6.00"),
                                  django_capture_on_commit_callbacks=django_capture_on_commit_callbacks)
    study = study_of(campaign)
    per_place = Decimal("2.00") * (1 + study.fee_ratio)
    assert study.places == int(Decimal("6.00") // per_place) < 3
    assert HIT.objects.filter(campaign=campaign, status="published").count() < 6  # the cap also held HITs back


def test_pause_resume_and_close_move_the_study(prolific_fake, django_capture_on_commit_callbacks):
    campaign = published_campaign(prolific_fake, django_capture_on_commit_callbacks=django_capture_on_commit_callbacks)
    external = study_of(campaign).external_id
    with django_capture_on_commit_callbacks(execute=True):
        set_campaign_status(campaign, CampaignStatus.PAUSED)
    assert prolific_fake.studies[external]["status"] == "PAUSED"
    with django_capture_on_commit_callbacks(execute=True):
        publish_campaign(campaign)
    assert prolific_fake.studies[external]["status"] == "ACTIVE"
    with django_capture_on_commit_callbacks(execute=True):
        set_campaign_status(campaign, CampaignStatus.CLOSED)
    assert prolific_fake.studies[external]["status"] in ("AWAITING REVIEW", "COMPLETED")
    assert study_of(campaign).status == prolific_fake.studies[external]["status"]


def test_publishing_is_refused_below_prolifics_pay_floor_and_without_credentials(prolific_fake, settings):
    campaign = draft(reward=Decimal("0.05"), tasks=1, qualifications={"estimated_minutes": 5})
    with pytest.raises(CampaignError, match="per hour"):
        publish_campaign(campaign)
    settings.PROLIFIC_TOKEN = ""
    with pytest.raises(CampaignError, match="PROLIFIC_TOKEN"):
        publish_campaign(draft(name="second"))
    assert prolific_fake.studies == {}


def test_stages_of_a_chain_keep_each_others_finishers_out(prolific_fake, django_capture_on_commit_callbacks):
    first = draft(name="stage one", images=3, assignments=1, tasks=1)
    second = make_campaign(images=3, publish=False, assignments=1, provider="prolific", name="stage two",
                           tasks_per_submission=1, reward=Decimal("0.40"), source_stage=first,
                           qualifications={"estimated_minutes": 3})
    for campaign in (first, second):
        with django_capture_on_commit_callbacks(execute=True):
            publish_campaign(campaign)
    first.refresh_from_db()
    one, two = study_of(first), study_of(second)
    remote_one, remote_two = prolific_fake.studies[one.external_id], prolific_fake.studies[two.external_id]
    group_one = next(a["participant_group"] for a in remote_one["completion_codes"][0]["actions"]
                     if a["action"] == "ADD_TO_PARTICIPANT_GROUP")
    blocked_from_two = remote_two["filters"][-1]["selected_values"]
    assert group_one in blocked_from_two
    finisher = work(prolific_fake, first)  # completes stage one: Prolific adds them to stage one's group
    assert finisher.worker.external_id in prolific_fake.members(group_one)
    assert not prolific_fake.eligible(two.external_id, finisher.worker.external_id)
    assert prolific_fake.eligible(two.external_id, prolific_fake.new_participant_id())


def test_a_study_creation_prolific_cannot_be_reached_for_is_a_provider_error(prolific_fake):
    campaign = draft()
    publish_without_job(campaign)
    prolific_fake.fail("*", "503", times=50)
    with pytest.raises(ProviderError):
        ensure_study(campaign)
    assert prolific_fake.studies == {}


def publish_without_job(campaign: Campaign) -> None:
    """Publish with the study job left out (the test runs it itself)."""
    publish_campaign(campaign)  # on_commit callbacks are not run inside the test's transaction
    campaign.refresh_from_db()


def test_a_study_with_free_places_and_no_work_is_paused_until_there_is_work(prolific_fake,
                                                                             django_capture_on_commit_callbacks):
    from mturk.services.hits import add_assignments_everywhere
    from mturk.services.review import reject_assignment
    from mturk.work.services.marketplace_sync import sync_campaign

    from .study_helpers import tasks_of

    campaign = published_campaign(prolific_fake, images=2, assignments=1, tasks=1,
                                  django_capture_on_commit_callbacks=django_capture_on_commit_callbacks)
    external = study_of(campaign).external_id
    sessions = [work(prolific_fake, campaign) for _ in range(2)]  # every slot answered
    sync_campaign(campaign)
    [task] = tasks_of(sessions[0])
    with django_capture_on_commit_callbacks(execute=True):
        reject_assignment(task, "The description does not say what the photo shows: please describe the people, "
                                "objects and actions in one full sentence.", category="LOW_EFFORT")
    # Prolific freed the rejected submission's place; its task keeps its slot here: nothing to hand out
    sync_campaign(campaign)
    assert prolific_fake.studies[external]["status"] == "PAUSED"
    with django_capture_on_commit_callbacks(execute=True):
        add_assignments_everywhere(campaign, 1)  # work again: the study is started, with the places it needs
    assert prolific_fake.studies[external]["status"] == "ACTIVE"
    assert study_of(campaign).places == 2 + 1  # the two submissions kept, and one for the two new slots
