"""Simulated workers for the visual-stories workflow (the demo data and the end-to-end tests).

They go through the real pipeline: take HITs with assign_next_hit, submit answers that the task
kinds validate, and are approved with approve_submitted, which chains the next stages. Every
assignment is marked simulated. Texts are built from the photos' titles, with people's and place
names so that the export's anonymization has something to do."""
from __future__ import annotations

import random
from typing import Any

from mturk.models import Campaign
from mturk.services.campaigns import publish_campaign
from mturk.services.review import approve_submitted
from mturk.task_kinds import get_task_kind
from mturk.work.services.simulated import close_simulated, work_simulated

from .models import Album
from .services.workflow import create_story_workflow

NAMES = ("John", "Mary", "Peter", "Susan", "David", "Emma")
PLACES = ("Paris", "London", "Boston", "Madrid")
OPENINGS = ("We started the day with", "Then we found", "After that there was", "Later we saw", "At the end we had",
            "Next came", "Everyone loved", "We will never forget")
FEELINGS = ("and everyone was happy", "which made us laugh", "on a lovely day", "before going home",
            "with the whole family", "and it was great fun")


def _lower_title(photo: dict[str, Any]) -> str:
    title = photo.get("title") or "a nice view"
    return title[0].lower() + title[1:]


def _sentences(photos: list[dict[str, Any]], rng: random.Random) -> list[str]:
    texts, used = [], set()
    for position, photo in enumerate(photos):
        while True:
            text = f"{rng.choice(OPENINGS)} {_lower_title(photo)} {rng.choice(FEELINGS)}."
            if position == 0:
                text = f"{rng.choice(NAMES)} and {rng.choice(NAMES)} took us to {rng.choice(PLACES)}. " + text
            if text not in used:
                break
        used.add(text)
        texts.append(text)
    return texts


def _description(photo: dict[str, Any], rng: random.Random) -> str:
    when = rng.choice(("in the morning", "at noon", "later that day", "in the afternoon", "before sunset", "early on"))
    return f"{rng.choice(('A photo of', 'A picture of', 'We see'))} {_lower_title(photo)} {when}."


def answer_for(kind: str, payload: dict[str, Any], options: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    if kind == "tell_story":
        count = rng.randint(int(options["min_cards"]), int(options["max_cards"]))
        photos = sorted(rng.sample(payload["photos"], count), key=lambda p: p["datetaken"])
        if rng.random() < 0.3:  # storytellers sometimes move a photo out of time order
            photos[0], photos[1] = photos[1], photos[0]
        return {"cards": [{"photo": p["id"], "text": t} for p, t in zip(photos, _sentences(photos, rng), strict=True)]}
    if kind == "retell_story":
        sequences = payload["sequences"]
        sequence = sequences[0] if rng.random() < 0.7 or len(sequences) == 1 else rng.choice(sequences[1:])
        return {"sequence": sequence["id"], "texts": _sentences(sequence["photos"], rng)}
    if kind == "describe_image":
        who = rng.choice(("people", "a few friends", "a family", "a group of people", "two children"))
        doing = rng.choice(("enjoying the day", "standing together", "having fun", "walking around", "smiling"))
        where = rng.choice(("outdoors", "in the sun", "near the water", "at the event", "on a sunny afternoon"))
        return {"text": f"In this photo we can see {who} {doing} {where}."}
    if kind == "describe_sequence":
        texts: list[str] = []
        for photo in payload["sequence"]["photos"]:
            text = _description(photo, rng)
            while text in texts:
                text = _description(photo, rng)
            texts.append(text)
        return {"texts": texts}
    if kind == "rate_story":
        cards = payload["story"]["cards"]
        rating = min(5, max(1, round(1 + sum(len(c["text"].split()) for c in cards) / 25 + rng.uniform(-1, 1))))
        answer: dict[str, Any] = {"rating": rating}
        if options.get("aspects"):
            answer["aspects"] = {a: min(5, max(1, rating + rng.choice((-1, 0, 0, 1)))) for a in
                                 ("focused", "coherent", "would_share", "human_like", "grounded", "detail")}
        return answer
    raise ValueError(f"no simulated answers for task kind {kind}")


def work_campaign(campaign: Campaign, workers: int, rng: random.Random) -> int:
    """Simulated workers take and answer every HIT they can; returns the number of answers."""
    campaign.refresh_from_db()
    publish_campaign(campaign)  # publish HITs the previous stage created (whether or not a task queue runs)
    campaign.refresh_from_db()
    options = get_task_kind(campaign.task_kind).options(campaign)
    return work_simulated(campaign, [f"SIMULATED-{campaign.pk}-{number}" for number in range(1, workers + 1)],
                          lambda number, payload: answer_for(campaign.task_kind, payload, options, rng))


def run_story_workflow(campaigns: dict[str, Campaign], seed: int = 4) -> dict[str, int]:
    """Work and approve every stage in order; returns the answers per stage."""
    rng = random.Random(seed)
    done = {}
    for stage, campaign in campaigns.items():
        done[stage] = work_campaign(campaign, campaign.assignments_per_hit, rng)
        approve_submitted(campaign)
    return done


DEMO_WORKFLOW = "Demo: visual stories"  # its stages are marked simulated by their flag, not their names


def seed_story_demo(albums: list[Album]) -> dict[str, Campaign]:
    """Create (once) a completed, simulated story workflow with ratings over the demo albums (its stages closed)."""
    earlier = "Demo: visual stories (simulated) · "  # a demo database seeded before the flag alone marked them
    for campaign in Campaign.objects.filter(name__startswith=earlier, is_simulated=True):
        Campaign.objects.filter(pk=campaign.pk).update(name=DEMO_WORKFLOW + " · " + campaign.name[len(earlier):])
    existing = {c.name.rsplit(" · ", 1)[1]: c for c in Campaign.objects.filter(name__startswith=DEMO_WORKFLOW + " · ")}
    if existing:
        close_simulated(existing.values())  # seeded before they were closed once done
        return existing
    campaigns = create_story_workflow(DEMO_WORKFLOW, albums, ratings=True, publish=True, is_simulated=True)
    run_story_workflow(campaigns)
    close_simulated(campaigns.values())
    return campaigns
