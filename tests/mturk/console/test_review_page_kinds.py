"""The review page of every registered task kind: a campaign of the kind with answered work opens (200) and each
answer's card shows what the worker answered, drawn by the kind's review template."""
from __future__ import annotations

from collections.abc import Callable

import pytest
from django.urls import reverse
from django.utils.html import escape

from annotation.models import Description
from mturk.models import Assignment, Campaign
from mturk.states import AssignmentStatus
from mturk.task_kinds import get_task_kind, task_kind_names
from storyboard.services.workflow import create_story_workflow
from storyboard.simulation import run_story_workflow
from tests.evaluation import kinds_data
from tests.factories import make_album, make_campaign, make_image, submitted
from tests.mturk.review_builders import answer, boxes_campaign, card_html, links_campaign, published, stories_campaign

pytestmark = pytest.mark.django_db

ANSWERED = (AssignmentStatus.SUBMITTED, AssignmentStatus.APPROVED)


def story_stage(stage: str) -> Callable[[], Campaign]:
    """A stage of a simulated story workflow on one album, every stage before it worked and approved."""
    def build() -> Campaign:
        campaigns = create_story_workflow(f"Stories {stage}", [make_album(6)], ratings=True, publish=True,
                                          is_simulated=True)
        run_story_workflow(campaigns, seed=3)
        return campaigns[stage]
    return build


def judge_caption() -> Campaign:
    image = make_image("judged.png")
    caption = Description.objects.create(image=image, text="A small square of one colour .")
    campaign = published("judge", "judge_caption", [{"pairs": [{"image": image.pk, "description": caption.pk}]}])
    answer(campaign, {"judgements": [{"relevant": False}]})
    return campaign


def rate_output() -> Campaign:
    evaluation = kinds_data.evaluation(items=1)
    campaign = kinds_data.campaign(evaluation, "rate_output", kinds_data.rating_items(evaluation), assignments=1)
    answer(campaign, {"ratings": [{"describes": 4}, {"describes": 1}, {"describes": 3}]})
    return campaign


def compare_outputs() -> Campaign:
    evaluation = kinds_data.evaluation(items=1, design="pairwise")
    campaign = kinds_data.campaign(evaluation, "compare_outputs", kinds_data.pair_items(evaluation)[:1],
                                   assignments=1)
    answer(campaign, {"preferences": {"describes": 1}})
    return campaign


def describe_image() -> Campaign:
    campaign = make_campaign(images=1, assignments=1)
    submitted(campaign)
    return campaign


# Per task kind: a campaign with answered work (built with the services), and the fragments of a card's HTML that
# show an assignment's stored answer.
BUILDERS: dict[str, Callable[[], Campaign]] = {
    "describe_image": describe_image,
    "draw_boxes": lambda: boxes_campaign(images=1, workers=1),
    "link_words": lambda: links_campaign(1),
    "judge_caption": judge_caption,
    "tell_story": lambda: stories_campaign(1),
    "retell_story": story_stage("retell"),
    "describe_sequence": story_stage("dis"),
    "rate_story": story_stage("rate"),
    "rate_output": rate_output,
    "compare_outputs": compare_outputs,
}


def _rating(value: int, points: int = 5) -> str:
    return f"<strong>{value}</strong> / {points}"


SHOWN: dict[str, Callable[[Assignment], list[str]]] = {
    "describe_image": lambda a: [escape(a.answer["text"])],
    "draw_boxes": lambda a: [f"This assignment: {len(a.answer['boxes'])} boxes"],
    "link_words": lambda a: [f"<sup>{box + 1}</sup>" for box in a.answer["links"].values()]  # boxes read from 1
    + [f"{len(a.answer['links'])} words linked"],
    "judge_caption": lambda a: ["<strong>Answer:</strong> " + ("Yes" if j["relevant"] else "No")
                                for j in a.answer["judgements"]],
    "tell_story": lambda a: [escape(card["text"]) for card in a.answer["cards"]],
    "retell_story": lambda a: [escape(text) for text in a.answer["texts"]],
    "describe_sequence": lambda a: [escape(text) for text in a.answer["texts"]],
    "rate_story": lambda a: [_rating(a.answer["rating"])],
    "rate_output": lambda a: [_rating(r["describes"], points=4) for r in a.answer["ratings"]],
    "compare_outputs": lambda a: [f"<strong>{('Caption A', 'Caption B')[a.answer['preferences']['describes']]}"
                                  "</strong>"],
}


def test_every_registered_kind_has_a_campaign_here():
    assert sorted(BUILDERS) == sorted(SHOWN) == task_kind_names()


@pytest.mark.parametrize("kind", task_kind_names())
def test_the_review_page_of_every_kind_shows_its_answers(researcher_client, kind):
    campaign = BUILDERS[kind]()
    assert campaign.task_kind == kind
    answered = list(Assignment.objects.filter(hit__campaign=campaign, status__in=ANSWERED))
    assert answered, kind
    response = researcher_client.get(reverse("campaign-review", args=[campaign.pk]) + "?per_page=100")
    assert response.status_code == 200, kind
    page = response.content.decode()
    rendered = [template.name for template in response.templates]
    assert rendered.count(get_task_kind(kind).review_template) == len(answered)
    for assignment in answered:
        card = card_html(page, assignment.pk)
        missing = [fragment for fragment in SHOWN[kind](assignment) if fragment not in card]
        assert not missing, (kind, assignment.answer, missing)
