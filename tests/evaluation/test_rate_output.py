"""rate_output through the crowd core: items checked, options checked, payloads, the task page, answers and the
judgements an approval makes."""
from __future__ import annotations

import pytest
from django.urls import reverse

from evaluation.models import EvaluatedSystem, HumanJudgement
from mturk.models import Assignment, Campaign
from mturk.services.campaigns import CampaignError, create_campaign
from mturk.services.review import approve_assignment
from mturk.task_kinds import get_task_kind
from tests.queries import queries_for
from tests.worker_flow import start_task, submit

from .kinds_data import campaign, evaluation, item_id, options_of, outputs, rating_items

pytestmark = pytest.mark.django_db

KIND = get_task_kind("rate_output")


def refused(items, options) -> str:
    with pytest.raises(CampaignError) as caught:
        create_campaign(name="bad", task_kind="rate_output", items=items, options=options)
    assert Campaign.objects.count() == 0
    return str(caught.value)


def test_items_naming_unknown_or_foreign_ids_are_refused_with_the_item_named():
    ev = evaluation()
    other = evaluation(name="other", items=1)
    good = rating_items(ev)
    options = options_of(ev)
    assert refused([good[0], {"item": 555, "outputs": good[0]["outputs"]}], options) == \
        "item 1: unknown evaluation item id 555"
    assert refused([{"item": good[0]["item"], "outputs": [*good[0]["outputs"], 556]}], options) == \
        "item 0: unknown output id 556"
    foreign = outputs(ev, 1)[0]
    assert refused([{"item": good[0]["item"], "outputs": [foreign]}], options).startswith(
        f"item 0: output {foreign} is an output of another evaluation item")
    assert refused([good[0], rating_items(other)[0]], options).startswith(
        f"item 1: its evaluation item belongs to evaluation {other.pk}, but item 0's belongs to evaluation {ev.pk}")
    assert refused([{"item": good[0]["item"], "outputs": []}], options) == \
        "item 0: expected at least one output to rate"
    twice = good[0]["outputs"][0]
    assert refused([{"item": good[0]["item"], "outputs": [twice, twice]}], options).startswith(
        "item 0: an output is listed twice")
    assert refused([{"image": 1}], options).startswith('item 0: expected {"item": <evaluation item id>')


@pytest.mark.parametrize("change, message", [
    ({"evaluation": None}, "evaluation: expected the id of a human evaluation, got None"),
    ({"evaluation": 4321}, "evaluation: no human evaluation has id 4321"),
    ({"output_kind": "story"}, "output_kind: evaluation 'eval' judges captions, got 'story'"),
    ({"aspects": []}, "aspects: expected a list of at least one aspect name, got []"),
    ({"aspects": ["focused"]}, "aspects: aspect 'focused' is not a question for captions"),
    ({"aspects": ["coco"]}, "aspects: expected aspect names, each once (a preset expands to correct, detailed"),
])
def test_bad_options_are_refused(change, message):
    ev = evaluation()
    assert refused(rating_items(ev), {**options_of(ev), **change}).startswith(message)


def test_payloads_are_images_and_texts_in_a_constant_number_of_queries(django_assert_num_queries):
    ev = evaluation(items=6)
    small = campaign(ev, "rate_output", rating_items(ev)[:1], name="small")
    large = campaign(ev, "rate_output", rating_items(ev), name="large")
    for made in (small, large):
        hits = list(made.hits.all())
        with django_assert_num_queries(3):
            payloads = KIND.build_payloads(made, hits)
    hit = large.hits.get(items__item=item_id(ev, 2))
    image = ev.items.get(position=2).images[0]
    from annotation.models import Image
    picture = Image.objects.get(pk=image)
    assert payloads[hit.pk] == {
        "images": [{"url": picture.display_url, "small": picture.small_url, "width": 320, "height": 240}],
        "outputs": [{"text": "Output of 2 by neur ."}, {"text": "Output of 2 by show ."},
                    {"text": "Person text 2 ."}],
    }


def test_task_page_queries_do_not_grow_with_hits_or_outputs(client):
    counts = []
    for size, name in ((1, "one"), (12, "many")):
        ev = evaluation(items=size, name=name, aspects=("correct", "detailed", "human_caption"))
        made = campaign(ev, "rate_output", rating_items(ev), name=name)
        token = start_task(client, made)
        counts.append(queries_for(client, reverse("task-page") + f"?t={token}"))
    assert counts[0] == counts[1]


def test_the_page_asks_every_question_of_every_output(client):
    ev = evaluation(aspects=("correct", "human_caption"))
    made = campaign(ev, "rate_output", rating_items(ev)[:1])
    page = client.get(reverse("task-page") + f"?t={start_task(client, made)}").content.decode()
    for label in ("Caption A", "Caption B", "Caption C"):
        assert f'<span class="sr-only">{label}: </span>How correct is this caption?</legend>' in page
        assert f'<span class="sr-only">{label}: </span>This caption could have been written by a person.' in page
    assert page.count('type="radio"') == 3 * (5 + 5)
    assert 'id="r-2-human_caption-5"' in page


def answer_with(client, made, answer):
    return submit(client, {"token": start_task(client, made), "answer": answer})


@pytest.mark.parametrize("answer, message", [
    ({"ratings": [{"describes": 4}, {"describes": 2}]}, "Rate each of the 3 outputs."),
    ({"ratings": [{"describes": 4}, {"describes": 5}, {"describes": 1}]},
     'Caption B: rate "Does this caption describe the image?" from 1 to 4.'),
    ({"ratings": [{"describes": 4}, {}, {"describes": 1}]},
     'Caption B: rate "Does this caption describe the image?" from 1 to 4.'),
    ({"ratings": [{"describes": 4}, {"describes": 2, "fun": 3}, {"describes": 1}]},
     "Caption B: unknown question(s) fun."),
    ({"ratings": [{"describes": 4}, {"describes": True}, {"describes": 1}]},
     'Caption B: rate "Does this caption describe the image?" from 1 to 4.'),
])
def test_bad_answers_are_refused_with_the_output_named(client, answer, message):
    ev = evaluation()
    made = campaign(ev, "rate_output", rating_items(ev)[:1])
    response = answer_with(client, made, answer)
    assert response.status_code == 400
    assert message in str(response.json()["fields"]["ratings"])
    assert not Assignment.objects.exclude(answer=None).exists()


def test_an_approved_answer_gives_one_judgement_per_output_and_aspect_once(client):
    ev = evaluation(aspects=("correct", "detailed"))
    shown = outputs(ev, 0)
    attention = outputs(ev, 0, EvaluatedSystem.Role.ATTENTION)[0]
    items = [{"item": item_id(ev, 0), "outputs": [shown[2], attention, shown[0]]}]  # attention in a real HIT
    made = campaign(ev, "rate_output", items)
    ratings = [{"correct": 5, "detailed": 4}, {"correct": 1, "detailed": 1}, {"correct": 3, "detailed": 2}]
    response = answer_with(client, made, {"ratings": ratings})
    assert response.status_code == 201, response.json()
    assignment = Assignment.objects.get(pk=response.json()["assignment"])
    assert KIND.summary(assignment.answer) == "correct: 5 1 3"
    assert not HumanJudgement.objects.exists()  # on approval only
    approve_assignment(assignment)
    KIND.on_approved(assignment)  # a second time: nothing more
    rows = set(HumanJudgement.objects.values_list("evaluation_id", "item_id", "output_id", "aspect", "value",
                                                  "position", "worker_id", "other_id", "preferred_id"))
    item, worker = item_id(ev, 0), assignment.worker_id
    assert rows == {
        (ev.pk, item, shown[2], "correct", 5, 0, worker, None, None),
        (ev.pk, item, shown[2], "detailed", 4, 0, worker, None, None),
        (ev.pk, item, shown[0], "correct", 3, 2, worker, None, None),
        (ev.pk, item, shown[0], "detailed", 2, 2, worker, None, None),
    }
