"""The judge_caption task kind (does a caption describe an image?) through the real task page and submission
endpoint, and the HIT items judging_items makes (pairs chunked per HIT, gold mixed in)."""
from __future__ import annotations

import json
import re

import pytest
from django.test import Client
from django.urls import reverse

from annotation.models import Description, Image
from annotation.ranking.judge_caption import gold_passed
from annotation.ranking.models import CaptionJudgement
from annotation.ranking.services.judging_items import judging_items
from mturk.models import Assignment, Campaign
from mturk.services.campaigns import CampaignError, create_campaign, publish_campaign
from mturk.services.review import approve_assignment, reject_assignment
from mturk.task_kinds import get_task_kind
from tests.factories import make_image
from tests.queries import queries_for
from tests.worker_flow import start_task, submit

pytestmark = pytest.mark.django_db

KIND = get_task_kind("judge_caption")


def described(count: int) -> list[tuple[Image, Description]]:
    """`count` images, each with one caption."""
    result = []
    for number in range(count):
        image = make_image(f"img{number}.png")
        result.append((image, Description.objects.create(image=image, text=f"Caption number {number} .")))
    return result


def judging_campaign(items: list[dict], name: str = "judge", **options) -> Campaign:
    campaign = create_campaign(name=name, task_kind="judge_caption", assignments_per_hit=2, items=items,
                               options=options or None)
    publish_campaign(campaign)
    campaign.refresh_from_db()
    return campaign


def pair(image: Image, description: Description, **gold) -> dict:
    return {"image": image.pk, "description": description.pk, **({"gold": gold} if gold else {})}


def page_of(client, token: str) -> str:
    return client.get(reverse("task-page") + f"?t={token}").content.decode()


def answer(client, campaign: Campaign, judgements: list) -> Assignment:
    response = submit(client, {"token": start_task(client, campaign), "answer": {"judgements": judgements}})
    assert response.status_code == 201, response.json()
    return Assignment.objects.get(pk=response.json()["assignment"])


@pytest.fixture
def three() -> list[tuple[Image, Description]]:
    return described(3)


@pytest.fixture
def with_gold(three) -> Campaign:
    """Pair 0 to judge, pair 1 gold relevant (its own caption), pair 2 gold unrelated (another image's caption)."""
    (a, da), (b, db), (c, dc) = three
    return judging_campaign([{"pairs": [pair(a, da), pair(b, db, relevant=True), pair(c, da, relevant=False)]}])


# --- defaults and items ------------------------------------------------------------------------------


def test_defaults_follow_the_seed():
    assert str(KIND.defaults.reward) == "0.09" and KIND.defaults.assignments_per_hit == 3
    assert KIND.defaults.options["pairs_per_hit"] == 10
    assert KIND.defaults.options["question"] == "Does this caption describe the image?"
    assert KIND.defaults.options["graded"] is False
    # the wording of grades 1 to 4, the released scale: 1 unrelated ... 4 describes the image
    assert KIND.defaults.options["grades"] == ("Is unrelated to the image | Is somewhat related to the image | "
                                               "Describes the image with minor errors | Describes the image without "
                                               "any errors")


def test_unknown_image_and_description_are_named_and_nothing_stored(three):
    (a, da), (b, db), _ = three
    with pytest.raises(CampaignError) as caught:
        create_campaign(name="bad", task_kind="judge_caption", items=[
            {"pairs": [pair(a, da)]}, {"pairs": [pair(b, db), {"image": 987654, "description": db.pk}]}])
    assert str(caught.value) == "item 1, pair 1: unknown image id 987654"
    with pytest.raises(CampaignError) as caught:
        create_campaign(name="bad", task_kind="judge_caption", items=[
            {"pairs": [{"image": a.pk, "description": 987650}, {"image": a.pk, "description": 987651}]}])
    assert str(caught.value) == "item 0, pair 0: unknown description id 987650 (and 1 more)"
    assert Campaign.objects.count() == 0


@pytest.mark.parametrize("item, message", [
    ({"image": 1}, 'item 0: expected {"pairs": [<pair>, ...]} with at least one pair'),
    ({"pairs": []}, 'item 0: expected {"pairs": [<pair>, ...]} with at least one pair'),
    ({"pairs": [{"image": 1}]}, "item 0, pair 0: expected {"),
    ({"pairs": [{"image": "1", "description": 2}]}, "item 0, pair 0: image and description must be ids"),
    ({"pairs": [{"image": 1, "description": 2, "gold": {"relevant": "yes"}}]}, "item 0, pair 0: gold must be"),
    ({"pairs": [{"image": 1, "description": 2, "gold": {"grade": 5}}]}, "item 0, pair 0: gold must be"),
])
def test_badly_shaped_items_are_refused(item, message):
    with pytest.raises(CampaignError) as caught:
        create_campaign(name="bad", task_kind="judge_caption", items=[item])
    assert str(caught.value).startswith(message)
    assert Campaign.objects.count() == 0


@pytest.mark.parametrize("options, message", [
    ({"pairs_per_hit": 0}, "pairs_per_hit: expected a whole number from 1 to 50, got 0"),
    ({"graded": "yes"}, "graded: expected true or false, got 'yes'"),
    ({"grades": ["good", "bad"]}, "grades: expected the wording of the 4 grades"),
    ({"grades": "good | bad | | worse"}, "grades: expected the wording of the 4 grades"),
    ({"question": " "}, "question: expected a non-empty text"),
])
def test_bad_options_are_refused(three, options, message):
    (a, da), _, _ = three
    with pytest.raises(CampaignError) as caught:
        create_campaign(name="bad", task_kind="judge_caption", items=[{"pairs": [pair(a, da)]}], options=options)
    assert str(caught.value).startswith(message)


# --- task page ---------------------------------------------------------------------------------------


def test_the_page_shows_every_pair_and_never_the_gold(client, with_gold, three):
    page = page_of(client, start_task(client, with_gold))
    assert 'data-kind="judge_caption"' in page
    assert page.count('class="jc-pair"') == 3
    assert "Pair 1 of 3: Does this caption describe the image?" in page
    assert re.findall(r"“(Caption number \d \.)”", page) == [
        "Caption number 0 .", "Caption number 1 .", "Caption number 0 ."]
    for image, _ in three:
        assert image.small_url in page and image.display_url in page
    assert "gold" not in page.lower()
    assert "relevant" not in page
    assert 'id="pair-2-yes"' in page and 'id="pair-2-no"' in page
    payload = KIND.build_payloads(with_gold, list(with_gold.hits.all()))
    assert "gold" not in json.dumps(payload)


def test_payloads_take_a_constant_number_of_queries(django_assert_num_queries):
    pairs = described(12)
    small = judging_campaign([{"pairs": [pair(*pairs[0])]}], name="small")
    large = judging_campaign([{"pairs": [pair(*p) for p in pairs[:6]]}, {"pairs": [pair(*p) for p in pairs[6:]]}],
                             name="large")
    for campaign in (small, large):
        hits = list(campaign.hits.all())
        with django_assert_num_queries(2):
            KIND.build_payloads(campaign, hits)


def test_task_page_query_count_does_not_grow_with_the_pairs(client):
    pairs = described(10)
    counts = []
    for size in (1, 10):
        campaign = judging_campaign([{"pairs": [pair(*p) for p in pairs[:size]]}], name=f"c{size}")
        token = start_task(client, campaign)
        assert page_of(client, token).count('class="jc-pair"') == size
        counts.append(queries_for(client, reverse("task-page") + f"?t={token}"))
    assert counts[0] == counts[1]


def test_graded_page_shows_the_configured_scale(client, three):
    (a, da), _, _ = three
    grades = ["Unrelated", "Related", "Nearly", "Perfect"]  # grades 1 to 4
    campaign = judging_campaign([{"pairs": [pair(a, da)]}], graded=True, grades="Unrelated|Related | Nearly|Perfect",
                                question="Is it right?")
    assert KIND.options(campaign)["grades"] == grades
    page = page_of(client, start_task(client, campaign))
    assert "Pair 1 of 1: Is it right?" in page
    # best first: grade 4 (its key 4) at the top, grade 1 at the bottom
    positions = [page.index(f'id="pair-0-{number}"') for number in (4, 3, 2, 1)]
    assert positions == sorted(positions)
    for number, text in enumerate(grades, start=1):
        assert f'<span class="jc-key">{number}</span> {text}</label>' in page
    assert 'id="pair-0-yes"' not in page


# --- answers -----------------------------------------------------------------------------------------


def test_a_valid_answer_is_stored_and_passes_the_gold(client, with_gold):
    assignment = answer(client, with_gold, [{"relevant": False}, {"relevant": True}, {"relevant": False}])
    assert assignment.answer == {"judgements": [{"relevant": False}, {"relevant": True}, {"relevant": False}]}
    assert assignment.check_flags == []
    assert KIND.summary(assignment.answer) == "1 yes, 2 no"
    assert CaptionJudgement.objects.count() == 0  # made on approval only


@pytest.mark.parametrize("gold_answers, score, flags", [
    ((False, True), 0.0, ["gold_failed"]),  # both gold pairs wrong
    ((False, False), 0.5, []), ((True, True), 0.5, []),  # one of two right: at the pass mark (GOLD_PASS_MARK)
])
def test_gold_pairs_are_scored_and_a_score_below_the_pass_mark_is_flagged(client, with_gold, gold_answers, score,
                                                                           flags):
    assignment = answer(client, with_gold, [{"relevant": True}] + [{"relevant": g} for g in gold_answers])
    assert assignment.gold_score == score
    assert assignment.check_flags == flags


@pytest.mark.parametrize("judgements, errors", [
    ([{"relevant": True}], ["Answer each of the 3 pairs."]),
    ("yes", ["Answer each of the 3 pairs."]),
    ([{"relevant": True}, {"relevant": "yes"}, {"grade": 1}],
     ["Pair 2: answer yes or no.", "Pair 3: answer yes or no."]),
    ([{"relevant": True}, None, {"relevant": True, "note": 1}],
     ["Pair 2: answer yes or no.", "Pair 3: answer yes or no."]),
])
def test_bad_answers_are_refused_with_the_pair_named(client, with_gold, judgements, errors):
    response = submit(client, {"token": start_task(client, with_gold), "answer": {"judgements": judgements}})
    assert response.status_code == 400
    assert response.json()["fields"]["judgements"] == errors
    assert not Assignment.objects.exclude(answer=None).exists()


def test_unknown_answer_fields_are_refused(client, with_gold):
    response = submit(client, {"token": start_task(client, with_gold),
                               "answer": {"judgements": [{"relevant": True}] * 3, "gold": []}})
    assert response.status_code == 400
    assert response.json()["fields"]["gold"] == ["Unknown field."]


# --- graded mode -------------------------------------------------------------------------------------


@pytest.mark.parametrize("gold, given, passed", [
    ({"grade": 4}, {"grade": 4}, True), ({"grade": 4}, {"grade": 3}, True), ({"grade": 3}, {"grade": 2}, False),
    ({"grade": 4}, {"grade": 2}, False), ({"grade": 1}, {"grade": 2}, True), ({"grade": 1}, {"grade": 4}, False),
    ({"relevant": True}, {"grade": 3}, True), ({"relevant": True}, {"grade": 2}, False),
    ({"relevant": False}, {"grade": 1}, True), ({"grade": 3}, {"relevant": True}, True),
    ({"grade": 2}, {"relevant": True}, False), ({"relevant": False}, {"relevant": True}, False),
])
def test_gold_agreement_rule(gold, given, passed):
    assert gold_passed(gold, given) is passed


def test_graded_answers_are_checked_flagged_and_recorded(client, three):
    (a, da), (b, db), (c, dc) = three
    campaign = judging_campaign([{"pairs": [pair(a, db), pair(b, db, grade=4), pair(c, dc)]}], graded=True)
    token = start_task(client, campaign)
    refused = submit(client, {"token": token,
                              "answer": {"judgements": [{"grade": 0}, {"relevant": True}, {"grade": True}]}})
    assert refused.status_code == 400
    assert refused.json()["fields"]["judgements"] == [f"Pair {n}: choose a grade from 1 to 4." for n in (1, 2, 3)]
    response = submit(client, {"token": token, "answer": {"judgements": [{"grade": 2}, {"grade": 3}, {"grade": 4}]}})
    assert response.status_code == 201, response.json()
    good = Assignment.objects.get(pk=response.json()["assignment"])
    assert good.check_flags == [] and KIND.summary(good.answer) == "grades 2 3 4"
    bad = answer(Client(), campaign, [{"grade": 1}, {"grade": 2}, {"grade": 3}])
    assert bad.check_flags == ["gold_failed"]
    approve_assignment(good)
    assert sorted(CaptionJudgement.objects.values_list("image_id", "description_id", "relevant", "grade")) == [
        (a.pk, db.pk, None, 2), (c.pk, dc.pk, None, 4)]


# --- approval ----------------------------------------------------------------------------------------


def test_approval_records_one_crowd_judgement_per_pair_but_not_gold_once(client, with_gold, three):
    (a, da), _, _ = three
    assignment = answer(client, with_gold, [{"relevant": True}, {"relevant": True}, {"relevant": False}])
    approve_assignment(assignment)
    KIND.on_approved(assignment)  # again: nothing more
    judgement = CaptionJudgement.objects.get()
    assert (judgement.image_id, judgement.description_id, judgement.source, judgement.relevant, judgement.grade,
            judgement.assignment_id) == (a.pk, da.pk, "crowd", True, None, assignment.pk)
    second = answer(Client(), with_gold, [{"relevant": False}, {"relevant": True}, {"relevant": False}])
    approve_assignment(second)
    assert list(CaptionJudgement.objects.order_by("pk").values_list("relevant", flat=True)) == [True, False]


def test_rejection_records_nothing(client, with_gold):
    reject_assignment(answer(client, with_gold, [{"relevant": True}] * 3), "Pair 3 shows another picture.")
    assert CaptionJudgement.objects.count() == 0


def test_review_context_draws_every_pair_with_gold_marked(client, with_gold, three):
    assignment = answer(client, with_gold, [{"relevant": True}, {"relevant": False}, {"relevant": False}])
    assignment = Assignment.objects.select_related("hit").get(pk=assignment.pk)
    rows = KIND.review_context(with_gold, [assignment], {})[assignment.pk]["pairs"]
    assert [(r["number"], r["caption"], r["answer"], r["gold"], r["gold_passed"]) for r in rows] == [
        (1, "Caption number 0 .", "Yes", None, None),
        (2, "Caption number 1 .", "No", "Yes", False),
        (3, "Caption number 0 .", "No", "No", True),
    ]
    assert [r["image"]["id"] for r in rows] == [image.pk for image, _ in three]


# --- judging_items -----------------------------------------------------------------------------------


def test_judging_items_chunks_pairs_without_gold():
    items = judging_items([(1, 10), (2, 20), (3, 30), (4, 40), (5, 50)], [], pairs_per_hit=2, gold_per_hit=0)
    assert items == [
        {"pairs": [{"image": 1, "description": 10}, {"image": 2, "description": 20}]},
        {"pairs": [{"image": 3, "description": 30}, {"image": 4, "description": 40}]},
        {"pairs": [{"image": 5, "description": 50}]},
    ]


def test_judging_items_mixes_gold_in_turn_keeping_the_pairs_order():
    pairs = [(i, 100 + i) for i in range(7)]
    gold = [(90, 190, True), (91, 191, False), (92, 192, 4)]
    items = judging_items(pairs, gold, pairs_per_hit=5, gold_per_hit=2)
    assert [len(item["pairs"]) for item in items] == [5, 5, 3]  # 3 + 2 gold, 3 + 2 gold, the last 1 + 2 gold
    judged = [[(p["image"], p["description"]) for p in item["pairs"] if "gold" not in p] for item in items]
    assert judged == [pairs[0:3], pairs[3:6], pairs[6:7]]
    golds = [[(p["image"], p["gold"]) for p in item["pairs"] if "gold" in p] for item in items]
    assert [sorted(g, key=lambda x: x[0]) for g in golds] == [  # in turn: 90 91 | 92 90 | 91 92
        [(90, {"relevant": True}), (91, {"relevant": False})],
        [(90, {"relevant": True}), (92, {"grade": 4})],
        [(91, {"relevant": False}), (92, {"grade": 4})],
    ]
    assert judging_items(pairs, gold, pairs_per_hit=5, gold_per_hit=2) == items  # reproducible places


def test_judging_items_never_repeats_a_gold_pair_in_a_hit():
    items = judging_items([(1, 10), (2, 20)], [(9, 90, True)], pairs_per_hit=4, gold_per_hit=2)
    assert items == [{"pairs": items[0]["pairs"]}]
    assert sorted(p["image"] for p in items[0]["pairs"]) == [1, 2, 9]


@pytest.mark.parametrize("pairs_per_hit, gold_per_hit, gold, message", [
    (0, 0, [], "pairs_per_hit must be at least 1, got 0"),
    (3, 3, [(9, 90, True)], "gold_per_hit must be from 0 to pairs_per_hit - 1 (2), got 3"),
    (3, 1, [], "gold_per_hit is set but there are no gold pairs"),
    (3, 1, [(9, 90, True), (8, 80, 7)], "gold pair 1: expected True, False or a grade 1-4, got 7"),
    (3, 1, [(9, 90)], "gold pair 0: "),
])
def test_judging_items_refuses_bad_sizes_and_gold(pairs_per_hit, gold_per_hit, gold, message):
    with pytest.raises(ValueError) as caught:
        judging_items([(1, 10)], gold, pairs_per_hit=pairs_per_hit, gold_per_hit=gold_per_hit)
    assert str(caught.value).startswith(message)


def test_judging_items_make_valid_campaign_items(three):
    (a, da), (b, db), (c, dc) = three
    items = judging_items([(a.pk, da.pk), (b.pk, db.pk)], [(c.pk, dc.pk, True)], pairs_per_hit=10, gold_per_hit=1)
    campaign = judging_campaign(items)
    assert [len(hit.items["pairs"]) for hit in campaign.hits.all()] == [3]


# --- review page -------------------------------------------------------------------------------------


def review_page(client, campaign: Campaign, query: str = "") -> str:
    response = client.get(reverse("campaign-review", args=[campaign.pk]) + query)
    assert response.status_code == 200
    return response.content.decode()


def test_review_page_draws_the_pairs_filters_gold_failures_and_approves_passing(researcher_client, with_gold):
    passing = answer(Client(), with_gold, [{"relevant": True}, {"relevant": True}, {"relevant": False}])
    failing = answer(Client(), with_gold, [{"relevant": True}, {"relevant": False}, {"relevant": True}])
    page = review_page(researcher_client, with_gold)
    assert page.count('class="jc-review-pair') == 6
    assert page.count('<span class="flag">Gold: ') == 4
    assert page.count("— <strong>missed</strong>") == 2
    assert '<option value="gold_failed">gold_failed</option>' in page
    flagged = review_page(researcher_client, with_gold, "?flag=gold_failed")
    assert set(map(int, re.findall(r'data-assignment="(\d+)"', flagged))) == {failing.pk}
    response = researcher_client.post(reverse("campaign-approve-all", args=[with_gold.pk]), {"passing": "1"})
    assert response.status_code == 302
    passing.refresh_from_db()
    failing.refresh_from_db()
    assert (passing.status, failing.status) == ("approved", "submitted")
    assert CaptionJudgement.objects.get().assignment_id == passing.pk


def test_review_page_query_count_does_not_grow_with_pairs_or_assignments(researcher_client):
    pairs = described(6)
    counts = []
    for size in (1, 6):
        campaign = judging_campaign([{"pairs": [pair(*p) for p in pairs[:size]]}], name=f"r{size}")
        for _ in range(min(size, 2)):
            answer(Client(), campaign, [{"relevant": True}] * size)
        counts.append(queries_for(researcher_client, reverse("campaign-review", args=[campaign.pk])))
    assert counts[0] == counts[1]


def test_a_caption_is_shown_as_text_never_as_html(client):
    image = make_image("x.png")
    caption = Description.objects.create(image=image, text='<b>Boat</b> <img src=x onerror="alert(1)">')
    campaign = judging_campaign([{"pairs": [pair(image, caption)]}])
    page = page_of(client, start_task(client, campaign))
    assert "“&lt;b&gt;Boat&lt;/b&gt; &lt;img src=x onerror=&quot;alert(1)&quot;&gt;”" in page
    assert "<b>Boat</b>" not in page
