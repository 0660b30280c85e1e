"""compare_outputs through the crowd core: pairs checked, the page, answers, and the judgements an approval makes."""
from __future__ import annotations

import pytest
from django.urls import reverse

from evaluation.models import EvaluatedSystem, HumanJudgement
from mturk.models import Assignment
from mturk.services.campaigns import CampaignError, create_campaign
from mturk.services.review import approve_assignment
from mturk.task_kinds import get_task_kind
from tests.queries import queries_for
from tests.worker_flow import start_task, submit

from .kinds_data import campaign, evaluation, item_id, options_of, outputs, pair_items

pytestmark = pytest.mark.django_db

KIND = get_task_kind("compare_outputs")


def test_a_pair_is_two_outputs_of_the_item():
    ev = evaluation(design="pairwise")
    shown = outputs(ev, 0)
    with pytest.raises(CampaignError) as caught:
        create_campaign(name="bad", task_kind="compare_outputs", options=options_of(ev),
                        items=[{"item": item_id(ev, 0), "outputs": shown}])
    assert str(caught.value) == "item 0: expected exactly 2 outputs to compare, got 3"
    with pytest.raises(CampaignError) as caught:
        create_campaign(name="bad", task_kind="compare_outputs", options=options_of(ev),
                        items=[{"item": item_id(ev, 1), "outputs": shown[:2]}])
    assert str(caught.value).startswith(f"item 0: output {shown[0]} is an output of another evaluation item")


def test_the_page_shows_both_outputs_and_one_question_per_aspect(client):
    ev = evaluation(output_kind="story", design="pairwise", aspects=("focused", "grounded"))
    made = campaign(ev, "compare_outputs", pair_items(ev)[:1])
    page = client.get(reverse("task-page") + f"?t={start_task(client, made)}").content.decode()
    assert page.index("Output of 0 by neur .") < page.index("Output of 0 by show .")
    assert '<h2 class="he-output-title" id="he-0-title">Story 1</h2>' in page
    assert '<h2 class="he-output-title" id="he-1-title">Story 2</h2>' in page
    assert "<legend>Which story is more focused?</legend>" in page
    assert "<legend>Which story is more directly related to the photos?</legend>" in page
    assert page.count('type="radio"') == 2 * 3 and page.count("> About the same</label>") == 2
    assert page.count('alt="Photo ') == 3  # the photo strip


def test_task_page_queries_do_not_grow_with_hits(client):
    counts = []
    for size, name in ((1, "one"), (10, "many")):
        ev = evaluation(items=size, name=name, design="pairwise")
        made = campaign(ev, "compare_outputs", pair_items(ev), name=name)
        counts.append(queries_for(client, reverse("task-page") + f"?t={start_task(client, made)}"))
    assert counts[0] == counts[1]


@pytest.mark.parametrize("preferences, message", [
    ({"describes": 2}, '"Which caption describes the image better?": choose the first, the second, or about'),
    ({"describes": "same"}, "choose the first, the second, or about the same"),
    ({"describes": False}, "choose the first, the second, or about the same"),
    ({}, "choose the first, the second, or about the same"),
    ({"describes": 0, "fun": 1}, "Unknown question 'fun'."),
])
def test_bad_answers_are_refused(client, preferences, message):
    ev = evaluation(design="pairwise")
    made = campaign(ev, "compare_outputs", pair_items(ev)[:1])
    response = submit(client, {"token": start_task(client, made), "answer": {"preferences": preferences}})
    assert response.status_code == 400
    assert message in str(response.json()["fields"]["preferences"])


def test_an_approved_answer_gives_one_judgement_per_aspect_once(client):
    ev = evaluation(design="pairwise", aspects=("correct", "detailed", "human_caption"))
    a, b, _ = outputs(ev, 0)
    made = campaign(ev, "compare_outputs", [{"item": item_id(ev, 0), "outputs": [b, a]}])
    answer = {"correct": 1, "detailed": "tie", "human_caption": 0}
    response = submit(client, {"token": start_task(client, made), "answer": {"preferences": answer}})
    assert response.status_code == 201, response.json()
    assignment = Assignment.objects.get(pk=response.json()["assignment"])
    assert KIND.summary(assignment.answer) == "correct: second, detailed: tie, human_caption: first"
    approve_assignment(assignment)
    KIND.on_approved(assignment)
    rows = set(HumanJudgement.objects.values_list("aspect", "output_id", "other_id", "preferred_id", "position",
                                                  "value"))
    assert rows == {("correct", b, a, a, 0, None), ("detailed", b, a, None, 0, None),
                    ("human_caption", b, a, b, 0, None)}


def test_no_judgement_compares_an_attention_output(client):
    ev = evaluation(design="pairwise")
    reference = outputs(ev, 0, EvaluatedSystem.Role.REFERENCE)[0]
    corrupted = outputs(ev, 0, EvaluatedSystem.Role.ATTENTION)[0]
    made = campaign(ev, "compare_outputs", [{"item": item_id(ev, 0), "outputs": [corrupted, reference]}])
    response = submit(client, {"token": start_task(client, made), "answer": {"preferences": {"describes": 1}}})
    approve_assignment(Assignment.objects.get(pk=response.json()["assignment"]))
    assert not HumanJudgement.objects.exists()
