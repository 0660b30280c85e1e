"""The review page's cards of rate_output and compare_outputs: the item as the judge saw it, the outputs in the order
(or on the sides) shown with the systems that wrote them, the ratings or choices, an attention check's known answer
and result; a constant number of queries whatever the page's size."""
from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import reverse

from annotation.models import Image
from evaluation.models import EvaluatedSystem, SystemOutput
from mturk.models import Campaign
from mturk.services.gold import create_gold_item
from mturk.work.services.assignments import assign_next_hit, new_local_worker, submit_answer
from tests.mturk.review_builders import card_html
from tests.queries import queries_for

from .kinds_data import campaign, evaluation, item_id, options_of, outputs, pair_items, rating_items

pytestmark = pytest.mark.django_db
REFERENCE, ATTENTION, SYSTEM = (EvaluatedSystem.Role.REFERENCE, EvaluatedSystem.Role.ATTENTION,
                                EvaluatedSystem.Role.SYSTEM)


def judged(made: Campaign, answer_of: Any) -> dict[int, int]:
    """Every HIT of the campaign answered by a new judge (`answer_of(hit)` the answer); HIT id -> assignment id."""
    done = {}
    for _ in range(made.hits.count()):
        worker = new_local_worker()
        assignment = assign_next_hit(made, worker)
        done[assignment.hit_id] = submit_answer(assignment_id=assignment.pk, worker_external_id=worker.external_id,
                                                answer=answer_of(assignment.hit)).assignment.pk
    return done


def review_page(client, made: Campaign, query: str = "") -> str:
    response = client.get(reverse("campaign-review", args=[made.pk]) + query)
    assert response.status_code == 200
    return response.content.decode()


def shown_outputs(card: str) -> list[tuple[str, str, str]]:
    """(place, system, text) of each output of a card, in the page's order."""
    return [(place, system, " ".join(text.split())) for place, system, text in re.findall(
        r'<strong>([^<]+)</strong> · <span class="he-review-system">([^<]+)</span>.*?'
        r'<p class="answer-text he-review-text">(.*?)</p>', card, re.S)]


def system_of(pk: int) -> str:
    return SystemOutput.objects.select_related("system").get(pk=pk).system.name


def text_of(pk: int) -> str:
    return SystemOutput.objects.get(pk=pk).text


def test_a_rating_card_shows_the_picture_the_outputs_in_the_order_shown_and_their_ratings(researcher_client):
    ev = evaluation(items=1)
    first, second = outputs(ev, 0, SYSTEM)
    reference = outputs(ev, 0, REFERENCE)[0]
    shown = [reference, second, first]  # the order the HIT shows them in, not the systems' order
    made = campaign(ev, "rate_output", [{"item": item_id(ev, 0), "outputs": shown}], assignments=1)
    assignment = judged(made, lambda hit: {"ratings": [{"describes": 4}, {"describes": 1}, {"describes": 3}]})
    card = card_html(review_page(researcher_client, made), next(iter(assignment.values())))
    picture = Image.objects.get(pk=ev.items.get().images[0])
    assert f'src="{picture.display_url}"' in card and "Item eval-item-0" in card
    assert shown_outputs(card) == [(f"Caption {letter}", system_of(pk), text_of(pk))
                                   for letter, pk in zip("ABC", shown, strict=True)]
    assert '<span class="flag">Human reference</span>' in card
    assert re.findall(r"<strong>(\d)</strong> / 4", card) == ["4", "1", "3"]
    assert "Does this caption describe the image?" in card and "Attention check" not in card


def test_a_story_card_shows_the_photos_in_order(researcher_client):
    ev = evaluation(items=1, output_kind="story", aspects=("focused",))
    made = campaign(ev, "rate_output", rating_items(ev), assignments=1)
    assignment = judged(made, lambda hit: {"ratings": [{"focused": 2}] * len(hit.items["outputs"])})
    card = card_html(review_page(researcher_client, made), next(iter(assignment.values())))
    pictures = Image.objects.in_bulk(ev.items.get().images)
    smalls = re.findall(r'<img src="([^"]+)" alt="Photo (\d+)"', card)
    assert smalls == [(pictures[pk].small_url, str(n)) for n, pk in enumerate(ev.items.get().images, start=1)]
    assert [place for place, _, _ in shown_outputs(card)] == ["Story 1", "Story 2", "Story 3"]


def test_a_rating_attention_check_shows_the_known_outputs_and_its_result(researcher_client):
    ev = evaluation(items=1)
    reference, corrupted = outputs(ev, 0, REFERENCE)[0], outputs(ev, 0, ATTENTION)[0]
    system = outputs(ev, 0, SYSTEM)[0]
    items = {"item": item_id(ev, 0), "outputs": [corrupted, system, reference]}
    create_gold_item(task_kind="rate_output", items=items, answer={"low": [corrupted], "high": [reference]},
                     options=options_of(ev))
    made = campaign(ev, "rate_output", [{"item": item_id(ev, 0), "outputs": outputs(ev, 0)}], gold_rate=0.5,
                    assignments=1)
    gold_hit = made.hits.get(gold_item__isnull=False)
    done = judged(made, lambda hit: {"ratings": [{"describes": r} for r in ([4, 2, 1] if hit == gold_hit
                                                                              else [3, 3, 3])]})
    page = review_page(researcher_client, made)
    gold_card = card_html(page, done[gold_hit.pk])
    assert [system for _, system, _ in shown_outputs(gold_card)] == ["attention checks", system_of(system),
                                                                      "human reference"]
    assert '<span class="flag">Attention check (corrupted)</span>' in gold_card
    assert gold_card.index("known worse") < gold_card.index(text_of(system)) < gold_card.index("known better")
    assert re.search(r'<span class="flag">Attention check</span>\s*<strong>missed</strong>, score 0.00', gold_card)
    real_card = card_html(page, next(pk for hit, pk in done.items() if hit != gold_hit.pk))
    assert "Attention check</span>" not in real_card and "known better" not in real_card \
        and "known worse" not in real_card


def test_a_comparison_card_shows_the_sides_shown_the_choices_and_an_attention_checks_result(researcher_client):
    ev = evaluation(items=1, design="pairwise", aspects=("correct", "detailed"))
    reference, corrupted = outputs(ev, 0, REFERENCE)[0], outputs(ev, 0, ATTENTION)[0]
    pair = {"item": item_id(ev, 0), "outputs": [corrupted, reference]}  # the known better one on the right
    create_gold_item(task_kind="compare_outputs", items=pair, answer={"better": reference}, options=options_of(ev))
    made = campaign(ev, "compare_outputs", pair_items(ev)[:1], gold_rate=0.5, assignments=1)
    gold_hit = made.hits.get(gold_item__isnull=False)
    done = judged(made, lambda hit: {"preferences": {"correct": 1, "detailed": "tie"} if hit == gold_hit
                                     else {"correct": 0, "detailed": 1}})
    page = review_page(researcher_client, made)
    gold_card = card_html(page, done[gold_hit.pk])
    assert shown_outputs(gold_card) == [("Caption A", "attention checks", text_of(corrupted)),
                                        ("Caption B", "human reference", text_of(reference))]
    assert gold_card.index("Caption B") < gold_card.index("known better")
    assert re.findall(r"<dt>([^<]+)</dt><dd><strong>([^<]+)</strong>", gold_card) == [
        ("Which caption is more correct?", "Caption B"), ("Which caption gives more useful detail?", "About the same")]
    assert re.search(r'<span class="flag">Attention check</span>\s*passed, score 1.00', gold_card)
    real_hit = made.hits.get(gold_item__isnull=True)
    real_card = card_html(page, done[real_hit.pk])
    first, second = real_hit.items["outputs"]
    assert shown_outputs(real_card) == [("Caption A", system_of(first), text_of(first)),
                                        ("Caption B", system_of(second), text_of(second))]
    assert re.findall(r"<dd><strong>([^<]+)</strong>", real_card) == ["Caption A", "Caption B"]
    assert "Attention check</span>" not in real_card


def test_an_output_text_is_shown_as_text_never_as_html(researcher_client):
    ev = evaluation(items=1)
    shown = outputs(ev, 0)
    SystemOutput.objects.filter(pk=shown[0]).update(text='<b>Boat</b> <img src=x onerror="alert(1)">')
    made = campaign(ev, "rate_output", [{"item": item_id(ev, 0), "outputs": shown}], assignments=1)
    done = judged(made, lambda hit: {"ratings": [{"describes": 2}] * len(shown)})
    card = card_html(review_page(researcher_client, made), next(iter(done.values())))
    assert "&lt;b&gt;Boat&lt;/b&gt; &lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in card and "<b>Boat" not in card


@pytest.mark.parametrize("kind, items_of, answer", [
    ("rate_output", rating_items, lambda hit: {"ratings": [{"describes": 3}] * len(hit.items["outputs"])}),
    ("compare_outputs", pair_items, lambda hit: {"preferences": {"describes": 0}}),
])
def test_the_review_page_makes_as_many_queries_for_one_answer_as_for_many(researcher_client, kind, items_of, answer):
    counts = []
    for size in (1, 4):
        ev = evaluation(items=size, name=f"eval-{size}")
        made = campaign(ev, kind, items_of(ev)[:size], name=f"{kind}-{size}", assignments=2)
        for _ in range(2):
            judged(made, answer)
        counts.append(queries_for(researcher_client, reverse("campaign-review", args=[made.pk]) + "?per_page=50"))
        assert review_page(researcher_client, made, "?per_page=50").count('class="he-review-output"') == \
            2 * size * len(items_of(ev)[0]["outputs"])
    assert counts[0] == counts[1]
