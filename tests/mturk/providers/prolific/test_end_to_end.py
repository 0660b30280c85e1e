"""The visual-stories chain on Prolific, end to end, against the fake Prolific over HTTP.

Albums imported, the chain created with provider "prolific" and every stage published (one study per stage
that has work: later stages get HITs, and their study, as earlier work is approved). Participants start a study
on Prolific, open its link, press Start task, answer through POST /task/submit/, follow the continue link and
land on the completion redirect, then enter the code on Prolific (which adds them to the stage's group).
Prolific's webhook events are delivered duplicated and out of order and handled; the periodic sync runs in
between. The researcher approves (bulk), rejects (category and message) and pays bonuses, with a process killed
between setting a bonus up and paying it and a pay request whose answer is lost. At the end: each study was
created once, each bonus paid once, each decision reached Prolific, nobody worked on two stages of an album (nor
could a participant of one stage start another stage's study), and each delivered event was stored once."""
from __future__ import annotations

import logging
import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from types import ModuleType
from typing import Any

import pytest
from django.test import Client

from mturk.models import (
    HIT,
    Assignment,
    Bonus,
    BonusState,
    Campaign,
    MarketplaceEvent,
)
from mturk.providers.prolific import bonuses as prolific_bonuses
from mturk.providers.prolific.events import handle_pending_events, queue_handling
from mturk.providers.prolific.groups import stage_group
from mturk.providers.prolific.models import ProlificStudy, ProlificSubmission
from mturk.providers.prolific.studies import provider as prolific_provider
from mturk.providers.prolific.terms import cents
from mturk.services.campaigns import publish_campaign
from mturk.services.review import ReviewError, approve_submitted, grant_bonus, reject_assignment
from mturk.states import AssignmentStatus
from mturk.work.services.marketplace_sync import SyncReport, sync_all
from storyboard.models import ChosenSequence, SequenceDescription, Setting, Story
from storyboard.services.workflow import create_story_workflow
from tests.factories import make_album
from tests.prolific_fake.state import Event, FakeProlific, Refused

from .participant_flow import Answer, Visit, take_part
from .study_helpers import study_of, tasks_of

pytestmark = pytest.mark.django_db

# Rewards per task, bundles and estimates that pass Prolific's pay floor (6.00 per hour).
STAGES = {
    "tell": {"reward": Decimal("1.00"), "tasks_per_submission": 2, "qualifications": {"estimated_minutes": 8}},
    "retell": {"reward": Decimal("0.80"), "tasks_per_submission": 2, "qualifications": {"estimated_minutes": 6}},
    "dii": {"reward": Decimal("0.20"), "tasks_per_submission": 3, "qualifications": {"estimated_minutes": 1}},
    "dis": {"reward": Decimal("0.50"), "tasks_per_submission": 1, "qualifications": {"estimated_minutes": 3}},
}
STORY = ["We arrived early at the lake with the whole family.", "The old boat was waiting for us at the pier.",
         "Grandpa caught a huge fish before lunch.", "We cooked it over the fire on the beach.",
         "Everyone slept very well that night in the tents.", "In the morning the mist covered the water.",
         "We packed everything and drove back home."]
REJECTION = ("The sentences of this story do not describe the photos you chose: the same words could be written "
             "about any album. Please write one sentence about what each photo shows.")
PHOTO_ORDERS = ((0, 1, 2, 3, 4), (7, 6, 5, 4, 3), (0, 2, 4, 6, 7))  # storytellers choose different sequences


class Killed(BaseException):
    """The process dies here (not an Exception: nothing on the way handles it)."""


def tell_answer(variant: int) -> Answer:
    def answer(payload: dict[str, Any], done: int) -> dict[str, Any]:
        photos = sorted(payload["photos"], key=lambda p: p["datetaken"])
        order = PHOTO_ORDERS[variant % len(PHOTO_ORDERS)]
        return {"cards": [{"photo": photos[i]["id"], "text": STORY[(n + done) % len(STORY)]}
                          for n, i in enumerate(order)]}
    return answer


def retell_answer(payload: dict[str, Any], done: int) -> dict[str, Any]:
    sequence = payload["sequences"][0]  # every re-teller picks the first: a majority for DII and DIS
    return {"sequence": sequence["id"], "texts": STORY[:len(sequence["photos"])]}


def describe_photo(payload: dict[str, Any], done: int) -> dict[str, Any]:
    return {"text": f"In this photo a few friends stand together near the water, moment {done + 1}."}


def describe_sequence(payload: dict[str, Any], done: int) -> dict[str, Any]:
    return {"texts": [f"A photo of the lake where the family spent the day, number {n + 1}."
                      for n in range(len(payload["sequence"]["photos"]))]}


def crash_once(monkeypatch: pytest.MonkeyPatch, module: ModuleType, name: str) -> None:
    """The next call of `module.name` kills the process (later calls are the real function again)."""
    real = getattr(module, name)

    def dying(*args: Any, **kwargs: Any) -> Any:
        monkeypatch.setattr(module, name, real)
        raise Killed(f"killed in {name}")

    monkeypatch.setattr(module, name, dying)


@dataclass
class Webhooks:
    """Prolific's webhook calls, delivered to our /hooks/prolific/ (signed by the fake with the workspace secret);
    the handling job runs as the receiver queues it once each new event is committed."""

    client: Client
    fake: FakeProlific
    capture: Any
    received: set[str] = field(default_factory=set)
    calls: int = 0
    upto: int = 0

    def new_events(self) -> list[Event]:
        events = self.fake.events_of()
        new, self.upto = events[self.upto:], len(events)
        assert new, "Prolific reported nothing new"
        return new

    def send(self, events: Iterable[Event], *, duplicate: bool = False, reverse: bool = False,
             queued: bool = True) -> None:
        """Deliver `events` (twice each, newest first, as asked). `queued=False`: the handling jobs the receiver
        queued are lost, and the job runs afterwards (as the periodic sync runs it)."""
        chosen = list(events)
        order = list(reversed(chosen)) if reverse else chosen
        expected = [event for event in order for _ in range(2 if duplicate else 1)]
        new = {event.id for event in chosen} - self.received
        with self.capture(execute=queued) as jobs:
            answers = self.fake.deliver(self.client, events=chosen, duplicate=duplicate, reverse=reverse)
        assert len(answers) == len(expected)
        assert sum(1 for job in jobs if job is queue_handling) == len(new)  # one job queued per event stored
        for event, answer in zip(expected, answers, strict=True):
            assert answer.status_code == 200, answer.content
            assert answer.json()["duplicate"] is (event.id in self.received), (event, answer.json())
            self.received.add(event.id)
        self.calls += len(answers)
        assert handle_pending_events().handled == (0 if queued else len(new))
        assert not MarketplaceEvent.objects.filter(provider="prolific", handled_at__isnull=True).exists()


def sync(capture: Any, caplog: pytest.LogCaptureFixture) -> SyncReport:
    """The periodic sync; it logs (rather than raises) what fails, so its errors fail the test here."""
    caplog.clear()
    with capture(execute=True):
        report = sync_all()
    errors = [record.getMessage() for record in caplog.records if record.levelno >= logging.ERROR]
    assert not errors, errors
    return report


def submission(visit: Visit) -> ProlificSubmission:
    return ProlificSubmission.objects.select_related("worker", "study").get(submission_id=visit.submission_id)


def albums_of(visit: Visit) -> set[int]:
    return {task.hit.items["album"] for task in tasks_of(submission(visit))}


def participant(number: int) -> Client:
    """Each participant's own browser, from their own address (arrivals are rate-limited per address)."""
    return Client(REMOTE_ADDR=f"10.0.{number // 250}.{number % 250 + 1}")


def test_the_story_chain_runs_on_prolific_from_publishing_to_bonuses(prolific_fake, settings, monkeypatch, caplog,
                                                                      django_capture_on_commit_callbacks):
    fake, capture = prolific_fake, django_capture_on_commit_callbacks
    settings.PUBLIC_BASE_URL = "https://crowd.example.org"
    settings.PROLIFIC_WEBHOOK_SECRET = fake.secret_value()
    caplog.set_level(logging.INFO)
    hooks = Webhooks(Client(), fake, capture)

    # ---- 1. the chain, published: only the storytelling stage has work, so only it gets a study -------------
    albums = [make_album(8) for _ in range(3)]
    campaigns = create_story_workflow("Stories", albums, provider="prolific", settings=STAGES)
    assert list(campaigns) == ["tell", "retell", "dii", "dis"]
    for campaign in campaigns.values():
        with capture(execute=True):
            publish_campaign(campaign)
    tell, retell, dii, dis = (Campaign.objects.get(pk=campaigns[s].pk) for s in campaigns)
    tell_study = study_of(tell)
    assert list(fake.studies) == [tell_study.external_id]
    assert not ProlificStudy.objects.exclude(campaign=tell).exclude(external_id="").exists()
    remote_tell = fake.studies[tell_study.external_id]
    assert remote_tell["status"] == "ACTIVE" and remote_tell["reward"] == 200  # a bundle of 2 tasks of 1.00
    assert remote_tell["total_available_places"] == tell_study.places == 3  # 3 albums x 2 storytellers / 2
    crowd = prolific_provider()
    groups = {name: stage_group(crowd, campaign) for name, campaign in
              (("tell", tell), ("retell", retell), ("dii", dii), ("dis", dis))}
    [code] = remote_tell["completion_codes"]
    assert {"action": "ADD_TO_PARTICIPANT_GROUP", "participant_group": groups["tell"]} in code["actions"]
    assert {groups["retell"], groups["dii"], groups["dis"]} <= set(remote_tell["filters"][-1]["selected_values"])

    # ---- 2. three storytellers, each a bundle of two albums, over HTTP ---------------------------------------
    tellers = [take_part(participant(n), fake, tell_study.external_id, tell_answer(n)) for n in range(3)]
    for visit in tellers:
        assert visit.answered == 2
        assert visit.code == tell_study.completion_code == fake.completion_code(tell_study.external_id)
        assert visit.completion_url.startswith(settings.PROLIFIC_COMPLETE_URL + "?cc=")
        assert {p["album"]["id"] for p in visit.payloads} == albums_of(visit) and len(albums_of(visit)) == 2
        fake.complete(visit.submission_id, visit.code)
    assert {v.participant_id for v in tellers} == fake.members(groups["tell"])
    with pytest.raises(Refused, match="AWAITING REVIEW, not ACTIVE"):  # the bundles took every place
        fake.start(tell_study.external_id)

    # ---- 3. webhooks: every event so far, each delivered twice, newest first; the handling job; the sync -----
    hooks.send(hooks.new_events(), duplicate=True, reverse=True, queued=False)
    for visit in tellers:
        assert submission(visit).status == "AWAITING REVIEW"
    sync(capture, caplog)
    assert ProlificSubmission.objects.filter(study=tell_study).count() == 3

    # ---- 4. review: one storyteller rejected, the others approved in one bulk call; retelling opens --------
    rejected, approved = tellers[2], tellers[:2]
    for task in tasks_of(submission(rejected)):
        with capture(execute=True):
            reject_assignment(task, REJECTION, category="low_effort")
    with capture(execute=True):
        review = approve_submitted(tell)
    assert (review.approved, review.failed) == (4, {})
    [shared] = albums_of(approved[0]) & albums_of(approved[1])  # the one album whose both stories are approved
    [retell_hit] = HIT.objects.filter(campaign=retell)
    assert retell_hit.items == {"album": shared} and retell_hit.group == f"album:{shared}"
    retell_study = study_of(retell)
    assert retell_study.external_id in fake.studies and retell_study.status == "ACTIVE"
    assert retell_study.places == math.ceil(3 / 2)  # 3 re-tellers of the album, bundles of 2

    # ---- 5. bonuses: killed after the set-up was stored; killed before it was; a pay answer lost ---------------
    first, second = (tasks_of(submission(visit)) for visit in approved)
    crash_once(monkeypatch, prolific_bonuses, "_request_pay")  # set up on Prolific and stored; pay never sent
    with pytest.raises(Killed):
        grant_bonus(first[0], Decimal("0.75"), "A story that follows the photos closely.")
    crash_once(monkeypatch, prolific_bonuses, "_store_set_up")  # set up on Prolific; nothing stored here
    with pytest.raises(Killed):
        grant_bonus(first[1], Decimal("0.40"), "A second good story.")
    fake.fail("bulk-bonus-payments/{id}/pay/", "reset", method="POST")  # paid; the answer never arrives
    with pytest.raises(ReviewError, match="not paid yet"):
        grant_bonus(second[0], Decimal("0.60"), "A vivid story.")
    bonuses = {bonus.assignment_id: bonus for bonus in Bonus.objects.all()}
    assert [bonuses[t.pk].state for t in (first[0], first[1], second[0])] == [
        BonusState.SET_UP, BonusState.PLANNED, BonusState.PAY_REQUESTED]
    assert len(fake.bonus_setups) == 3 and fake.pay_calls() == 1
    sync(capture, caplog)  # pays what was never requested, confirms the lost answer from Prolific's records
    sync(capture, caplog)  # and again: nothing more
    for bonus in Bonus.objects.all():
        assert (bonus.state, bonus.paid, bonus.problem) == (BonusState.PAID, True, ""), bonus.problem
        assert fake.pay_calls(bonus.external_id) == 1
    assert fake.pay_calls() == 3 and len(fake.bonus_setups) == 4  # the unstored set-up was made again, never paid
    assert sorted(fake.paid_bonuses(approved[0].submission_id)) == [40, 75]
    assert fake.paid_bonuses(approved[1].submission_id) == [60]
    assert fake.paid_bonuses(rejected.submission_id) == []

    # ---- 6. retelling: storytellers are kept out by Prolific; two re-tellers fill the places -----------------
    for visit in tellers:
        with pytest.raises(Refused, match="blocklisted participant group"):
            fake.start(retell_study.external_id, visit.participant_id)
    retellers = [take_part(participant(10 + n), fake, retell_study.external_id, retell_answer) for n in range(2)]
    for visit in retellers:
        assert visit.answered == 1  # one album to retell: sent back after one task of a bundle of two
        assert visit.code == retell_study.completion_code != tell_study.completion_code
        assert len(visit.payloads[0]["sequences"]) == 2  # both approved stories of the album
        fake.complete(visit.submission_id, visit.code)
    with pytest.raises(Refused, match="AWAITING REVIEW, not ACTIVE"):  # a slot is left, but no place
        fake.start(retell_study.external_id)
    # Webhooks: the new events newest first, then some of them again. The study's status change makes us add
    # the place the last slot needs.
    news = hooks.new_events()
    hooks.send(news, reverse=True)
    hooks.send(news[::2])
    retell_study.refresh_from_db()
    assert retell_study.places == 3 == fake.studies[retell_study.external_id]["total_available_places"]
    retellers.append(take_part(participant(12), fake, retell_study.external_id, retell_answer))
    fake.complete(retellers[-1].submission_id, retellers[-1].code)
    hooks.send(hooks.new_events(), duplicate=True, reverse=True)
    with capture(execute=True):
        review = approve_submitted(retell)
    assert (review.approved, review.failed) == (3, {})
    chosen = ChosenSequence.objects.get(campaign=retell)
    assert chosen.album_id == shared and chosen.votes == 3
    assert HIT.objects.filter(campaign=dii).count() == 5 and HIT.objects.filter(campaign=dis).count() == 1
    # Each stage's study is created exactly once (DII and DIS now that re-telling is approved).
    studies = {name: study_of(campaign) for name, campaign in
               (("tell", tell), ("retell", retell), ("dii", dii), ("dis", dis))}
    assert len(fake.received("POST", "studies/")) == 4 == len(fake.studies)
    assert {s.external_id for s in studies.values()} == set(fake.studies)
    assert studies["dii"].places == math.ceil(5 * 3 / 3) and studies["dis"].places == 3
    hooks.send(hooks.new_events(), duplicate=True)
    sync(capture, caplog)

    # ---- 7. describing: storytellers and re-tellers are kept out; photos in bundles of three, the sequence alone
    for visit in tellers + retellers:
        for name in ("dii", "dis"):
            with pytest.raises(Refused, match="blocklisted participant group"):
                fake.start(studies[name].external_id, visit.participant_id)
    describers = [take_part(participant(20 + n), fake, studies["dii"].external_id, describe_photo)
                  for n in range(5)]
    sequencers = [take_part(participant(30 + n), fake, studies["dis"].external_id, describe_sequence)
                  for n in range(3)]
    for visits, name, tasks in ((describers, "dii", 3), (sequencers, "dis", 1)):
        for visit in visits:
            assert visit.answered == tasks and visit.code == studies[name].completion_code
            fake.complete(visit.submission_id, visit.code)
    hooks.send(hooks.new_events(), duplicate=True, reverse=True)
    for campaign, count in ((dii, 15), (dis, 3)):
        with capture(execute=True):
            review = approve_submitted(campaign)
        assert (review.approved, review.failed) == (count, {})
    assert SequenceDescription.objects.count() == 3 * 5
    hooks.send(hooks.new_events(), reverse=True)
    sync(capture, caplog)
    sync(capture, caplog)

    # ---- 8. what Prolific saw, and what we stored --------------------------------------------------------------
    # Every study created once, whatever ran again since; each keeps the chain's other stages out.
    assert len(fake.received("POST", "studies/")) == 4 == len(fake.studies)
    everyone = tellers + retellers + describers + sequencers
    finished = {"tell": tellers, "retell": retellers, "dii": describers, "dis": sequencers}
    for name, study in studies.items():
        study.refresh_from_db()
        remote = fake.studies[study.external_id]
        assert remote["internal_name"] == study.internal_name and remote["status"] != "UNPUBLISHED", name
        assert (study.status, study.places, study.places_taken) == (
            remote["status"], remote["total_available_places"], fake.places_taken(study.external_id)), name
        others = {groups[other] for other in groups if other != name}
        assert others <= set(remote["filters"][-1]["selected_values"]), name
        assert fake.members(groups[name]) == {visit.participant_id for visit in finished[name]}, name
        assert fake.eligible(study.external_id, fake.new_participant_id()), name
        outsiders = [visit for visit in everyone if visit not in finished[name]]
        assert not any(fake.eligible(study.external_id, visit.participant_id) for visit in outsiders), name

    # Decisions: approvals in one bulk call per review, the rejection with its category and message.
    assert [sorted(ids) for ids in fake.bulk_approvals] == [
        sorted(v.submission_id for v in visits) for visits in (approved, retellers, describers, sequencers)]
    transitions = fake.received("POST", "submissions/{id}/transition/", served=True)
    assert [(call.path, call.body["action"]) for call in transitions] == [
        (f"submissions/{rejected.submission_id}/transition", "REJECT")]
    remote_rejected = fake.submission(rejected.submission_id)
    assert (remote_rejected.status, remote_rejected.rejection_category, remote_rejected.message) == (
        "REJECTED", "LOW_EFFORT", REJECTION)
    for visit in everyone:
        assert fake.submission(visit.submission_id).status == ("REJECTED" if visit is rejected else "APPROVED")
    for visit in everyone:
        ours = submission(visit)
        assert ours.status == fake.submission(visit.submission_id).status and ours.decision_sent, visit
    assert {t.status for t in tasks_of(submission(rejected))} == {AssignmentStatus.REJECTED}
    assert Story.objects.filter(setting=Setting.TELL).count() == 4  # approved stories only
    assert Story.objects.filter(setting=Setting.RETELL).count() == 3

    # Nobody worked on two stages of one album (nor, on Prolific, on two stages at all).
    chain = [tell.pk, retell.pk, dii.pk, dis.pk]
    stages_of: dict[tuple[int, str], set[int]] = defaultdict(set)
    campaigns_of: dict[int, set[int]] = defaultdict(set)
    rows = Assignment.objects.filter(hit__campaign__in=chain).values_list("worker_id", "hit__group", "hit__campaign")
    for worker, group, campaign_id in rows:
        stages_of[(worker, group)].add(campaign_id)
        campaigns_of[worker].add(campaign_id)
    assert len(campaigns_of) == len(everyone) and all(len(c) == 1 for c in campaigns_of.values())
    assert all(group.startswith("album:") and len(c) == 1 for (_, group), c in stages_of.items())
    assert Assignment.objects.filter(hit__campaign__in=chain, confirmed=True).count() == 6 + 3 + 15 + 3

    # The webhook deliveries: duplicated ones stored once, every one handled.
    events = MarketplaceEvent.objects.filter(provider="prolific")
    assert events.count() == len(hooks.received) < hooks.calls
    assert set(events.values_list("event_doc_id", flat=True)) == hooks.received
    assert not events.filter(handled_at__isnull=True).exists()
    # Amounts: a bonus's set-up carried its amount in major units, Prolific reports minor units.
    for bonus in Bonus.objects.all():
        assert fake.bonus_setups[bonus.external_id].amount == cents(bonus.amount)
