"""The campaign quality page: the campaign-wide figures, workers (sorted, paged, low values marked), the items
with the least agreement, the review rule (form errors, preview, apply through its confirmation) and the audit;
researcher login, CSRF and constant queries. Figures are worked out by hand from the test-only exact-text
measure (tests/mturk/quality/quality_fakes.py)."""
from __future__ import annotations

import html
import re
from decimal import Decimal

import pytest
from django.test import Client
from django.urls import reverse

from mturk.models import Assignment, CampaignQuality, QualityDecision, QualityRule
from mturk.quality.services.computation import compute_quality
from mturk.states import AssignmentStatus
from tests.mturk.quality.quality_fakes import (  # noqa: F401 (text_quality is a fixture)
    answer,
    gold_hit,
    quality_campaign,
    real_hits,
    text_quality,
    worker,
)
from tests.queries import queries_for

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("text_quality")]
APPROVED, REJECTED = AssignmentStatus.APPROVED, AssignmentStatus.REJECTED


def url(campaign, name: str = "campaign-quality-page", query: str = "") -> str:
    return reverse(name, args=[campaign.pk]) + query


def page_of(client, campaign, query: str = "") -> str:
    response = client.get(url(campaign, query=query))
    assert response.status_code == 200
    return response.content.decode()


def text(fragment: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def section(page: str, section_id: str) -> str:
    found = re.search(rf'<section[^>]* id="{section_id}"[^>]*>(.*?)</section>', page, re.S)
    assert found, f"no section {section_id}"
    return found.group(1)


def rows(page: str, section_id: str) -> list[list[str]]:
    """The cells' text of each body row of the section's table."""
    body = re.search(r"<tbody>(.*?)</tbody>", section(page, section_id), re.S)
    if body is None:
        return []
    return [[text(cell) for cell in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)]
            for row in re.findall(r"<tr>(.*?)</tr>", body.group(1), re.S)]


@pytest.fixture
def crowd():
    """HIT 1: a "cat", b "cat", c "dog"; HIT 2: a "sun", b "sun"; a gold HIT scored a 1, b 0.5, c 0.
    a has one approved answer, c one rejected. Seconds: a 30, 60, 90; b 10, 20, 40; c 100, 200."""
    campaign = quality_campaign(images=3, reward=Decimal("0.10"), name="Street scenes")
    first, second, _ = real_hits(campaign)
    gold = gold_hit(campaign)
    a, b, c = worker("wa"), worker("wb"), worker("wc")
    answer(first, a, "cat", status=APPROVED, seconds=30)
    answer(second, a, "sun", seconds=60)
    answer(gold, a, "known", seconds=90, gold_score=1.0)
    answer(first, b, "cat", seconds=10)
    answer(second, b, "sun", seconds=20)
    answer(gold, b, "known?", seconds=40, gold_score=0.5)
    answer(first, c, "dog", status=REJECTED, seconds=100)
    answer(gold, c, "wrong", seconds=200, gold_score=0.0)
    return campaign, (first, second), (a, b, c)


def test_the_page_needs_a_staff_login_and_a_known_campaign(researcher_client, django_user_model):
    campaign = quality_campaign(images=1)
    client = Client()
    response = client.get(url(campaign))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert client.post(url(campaign, "campaign-quality-recompute")).status_code == 302
    other = Client()
    other.force_login(django_user_model.objects.create_user("bob", password="pw-123456"))  # not staff
    assert other.get(url(campaign)).status_code == 302
    assert researcher_client.get(reverse("campaign-quality-page", args=[campaign.pk + 1000])).status_code == 404
    assert researcher_client.post(reverse("campaign-quality-recompute", args=[campaign.pk + 1000])).status_code == 404


def test_before_any_computation_the_page_says_so_and_offers_to_compute(researcher_client):
    campaign = quality_campaign(images=1)
    page = page_of(researcher_client, campaign)
    summary = text(section(page, "summary"))
    assert "Computed never: the figures below appear once quality is computed" in summary
    assert ">Compute quality</button>" in page
    assert "No worker measured yet: compute quality above." in text(section(page, "workers"))
    assert "Save a rule to preview and apply it." in page and 'id="apply-rule"' not in page


@pytest.mark.django_db(transaction=True)  # real commits: without a broker the job runs as its request commits
def test_compute_then_the_figures_workers_and_items(researcher_client, crowd):
    campaign, (first, second), (a, b, c) = crowd
    response = researcher_client.post(url(campaign, "campaign-quality-recompute"), follow=True)
    assert response.redirect_chain[-1][0] == url(campaign)
    page = response.content.decode()
    # 8 answers of 3 workers on 2 real HITs (the gold HIT's answers count for gold only), both aggregated
    assert "Quality computed: 8 answer(s) of 3 worker(s) on 2 item(s), 2 item(s) aggregated (exact text match)." \
        in text(page)
    header = text(section(page, "summary"))
    assert "Measure exact text match" in header
    # pairs: HIT 1 cat/cat agree, cat/dog twice not; HIT 2 sun/sun: 2 of 4
    assert "Pair agreement 0.500" in header
    assert "Gold 1 gold HIT(s), 0 onboarding HIT(s), 3 gold answer(s) scored" in header
    assert ">Recompute quality</button>" in page
    # best gold accuracy first; c's 0.00 is below the gold pass mark (0.5) and marked in words, b's 0.50 is not
    assert rows(page, "workers") == [
        ["wa", "2", "2", "1", "1.00", "0.75", "1.00", "60 s", "1", "0", "$0.10"],
        ["wb", "2", "2", "1", "0.50", "0.75", "1.00", "20 s", "0", "0", "$0.00"],
        ["wc", "1", "1", "1", "0.00 low", "0.00", "0.00", "150 s", "0", "1", "$0.00"],
    ]
    assert f'href="{reverse("worker-page", args=[a.pk])}"' in section(page, "workers")
    assert f'href="{reverse("campaign-review", args=[campaign.pk])}?hit={first.pk}"' in section(page, "items")
    # the adjudication queue (equal agreement: by position); c's rejected "dog" has no say in HIT 1's aggregate
    assert rows(page, "items") == [
        [f"#{first.position}", "2", "1.00", "cat", "most common text", f"Review the answers of HIT #{first.position}"],
        [f"#{second.position}", "2", "1.00", "sun", "most common text",
         f"Review the answers of HIT #{second.position}"],
    ]


def test_workers_sort_by_a_query_parameter_and_page(researcher_client, crowd, monkeypatch):
    campaign, _, _ = crowd
    compute_quality(campaign)

    def names(query: str) -> list[str]:
        return [row[0] for row in rows(page_of(researcher_client, campaign, query), "workers")]

    assert names("?sort=agreement&order=asc") == ["wc", "wa", "wb"]  # ties by worker, then the lowest first
    assert names("?sort=agreement") == ["wa", "wb", "wc"]
    assert names("?sort=items&order=asc") == ["wc", "wa", "wb"]
    assert names("?sort=gold_accuracy&order=asc") == ["wc", "wb", "wa"]
    assert names("?sort=nonsense&order=sideways") == ["wa", "wb", "wc"]  # unknown values: the default
    page = page_of(researcher_client, campaign, "?sort=agreement&order=asc")
    assert 'aria-sort="ascending"' in page
    monkeypatch.setattr("mturk.quality.views.page.WORKERS_PER_PAGE", 2)
    assert names("?sort=gold_accuracy&order=asc&workers=2") == ["wa"]
    first = section(page_of(researcher_client, campaign, "?sort=gold_accuracy&order=asc"), "workers")
    assert f'href="{url(campaign)}?order=asc&amp;workers=2#workers" rel="next"' in first
    assert names("?workers=99") == ["wc"]  # past the end: the last page


def test_campaign_and_review_pages_link_to_it(researcher_client, crowd):
    campaign, _, _ = crowd
    here = f'href="{url(campaign)}"'
    assert here in researcher_client.get(reverse("campaign-page", args=[campaign.pk])).content.decode()
    assert here in researcher_client.get(reverse("campaign-review", args=[campaign.pk])).content.decode()


def test_posts_need_the_csrf_token(researcher):
    campaign = quality_campaign(images=1)
    client = Client(enforce_csrf_checks=True)
    client.force_login(researcher)
    assert client.post(url(campaign, "campaign-quality-recompute")).status_code == 403
    assert client.post(url(campaign, "campaign-quality-rule"), {"min_gold_items": "1"}).status_code == 403
    assert client.post(url(campaign, "campaign-quality-apply")).status_code == 403
    assert not QualityRule.objects.exists() and not QualityDecision.objects.exists()


# ----- constant queries ------------------------------------------------------------------------------------------

def measured_campaign(size: int, researcher):
    """`size` workers on `size` HITs, each HIT answered by two workers (i and i+1), each worker with a gold
    answer, all computed; a rule and `size` audited decisions by the researcher."""
    campaign = quality_campaign(images=size, assignments=2)
    hits = real_hits(campaign)
    gold = gold_hit(campaign)
    crowd = [worker(f"w{size}-{i:02}") for i in range(size)]
    for i, hit in enumerate(hits):
        answer(hit, crowd[i], "same")
        answer(hit, crowd[(i + 1) % size], "same" if i % 2 else f"other {i}")
    for i, member in enumerate(crowd):
        answer(gold, member, "known", gold_score=(i % 3) / 2)
    compute_quality(campaign)
    QualityRule.objects.create(campaign=campaign, approve_min_gold=0.9, reject_below_gold=0.4,
                               reject_message="Too many known answers were wrong.", updated_by=researcher)
    for i, member in enumerate(crowd):
        QualityDecision.objects.create(key=f"approve:test:{campaign.pk}:{i}", campaign=campaign, worker=member,
                                       assignment=member.assignments.first(), action="approve", state="done",
                                       evidence={"gold_accuracy": 1.0}, source="console", decided_by=researcher)
    return campaign


def test_the_page_makes_the_same_queries_for_2_and_20_workers_and_items(researcher_client, researcher):
    small, large = measured_campaign(2, researcher), measured_campaign(20, researcher)
    assert len(rows(page_of(researcher_client, large), "workers")) == 20
    assert len(rows(page_of(researcher_client, large), "items")) == 20
    assert len(rows(page_of(researcher_client, large), "audit")) == 20
    counts = [queries_for(researcher_client, url(campaign)) for campaign in (small, large)]
    assert counts[0] == counts[1], counts
    page = page_of(researcher_client, large, "?preview=1")
    # every answer (2 real, 1 gold per worker) is submitted: decided or left to a person, 50 per page
    assert len(rows(page, "preview")) == 50 and "page 1 of 2" in section(page, "preview")
    counts = [queries_for(researcher_client, url(campaign, query="?preview=1")) for campaign in (small, large)]
    assert counts[0] == counts[1], counts


# ----- the rule: form errors, save, preview, apply through the confirmation --------------------------------------

REJECTION = "Most of the known answers in this task were wrong."
RULE = {"approve_min_gold": "0.9", "approve_min_agreement": "", "reject_below_gold": "0.4",
        "reject_below_agreement": "", "reject_message": REJECTION, "bonus_top_share": "", "bonus_amount": "",
        "bonus_reason": "", "min_gold_items": "1", "min_items": "1"}


def field_error(page: str, name: str) -> str:
    found = re.search(rf'<p class="field-error" id="id_{name}_error">(.*?)</p>', page, re.S)
    return text(found.group(1)) if found else ""


def save(client, campaign, **changes):
    return client.post(url(campaign, "campaign-quality-rule"), {**RULE, **changes})


@pytest.mark.parametrize(("changes", "field", "error"), [
    ({"approve_min_gold": "1.5"}, "approve_min_gold", "Ensure this value is less than or equal to 1.0."),
    ({"reject_below_agreement": "-2"}, "reject_below_agreement", "Ensure this value is greater than or equal to -1.0."),
    ({"min_items": "0"}, "min_items", "Ensure this value is greater than or equal to 1."),
    ({"bonus_amount": "abc"}, "bonus_amount", "Enter a number."),
    # refused by save_rule, shown at the field it names
    ({"reject_message": ""}, "reject_message", "a rule that rejects needs the message the worker is sent."),
    ({"reject_below_gold": "0.95"}, "reject_below_gold", "is above approve_min_gold (0.95 > 0.9): a worker could "
                                                         "be approved and rejected at once."),
    ({"bonus_top_share": "0.1"}, "bonus_amount", "a bonus needs an amount."),
])
def test_a_bad_rule_is_shown_at_its_field_and_nothing_is_saved(researcher_client, changes, field, error):
    campaign = quality_campaign(images=1)
    response = save(researcher_client, campaign, **changes)
    assert response.status_code == 400
    page = response.content.decode()
    assert field_error(page, field) == error
    assert "The rule was not saved: see the fields marked below." in text(page)
    assert f'name="{field}"' in page and 'aria-invalid="true"' in page
    assert not QualityRule.objects.exists()


def test_a_refused_rule_is_shown_on_a_page_whose_links_lead_back_to_the_page(researcher_client, crowd):
    campaign, _, _ = crowd
    compute_quality(campaign)
    assert save(researcher_client, campaign).status_code == 302
    response = save(researcher_client, campaign, approve_min_gold="2")
    assert response.status_code == 400 and QualityRule.objects.get().approve_min_gold == 0.9
    page = response.content.decode()  # at rule/, a POST-only address
    assert f'<form method="get" action="{url(campaign)}#workers"' in page
    assert f'<form method="get" action="{url(campaign)}#preview">' in page
    assert f'href="{url(campaign)}?sort=items#workers"' in page
    assert 'href="?' not in page and 'action="#' not in page


def test_a_rule_is_saved_and_shown_again(researcher_client, researcher):
    campaign = quality_campaign(images=1)
    response = save(researcher_client, campaign, enabled="on", bonus_top_share="0.1", bonus_amount="0.50",
                    bonus_reason="Among the most careful workers.")
    assert response.status_code == 302 and response["Location"] == url(campaign) + "#rule"
    rule = QualityRule.objects.get(campaign=campaign)
    assert (rule.enabled, rule.approve_min_gold, rule.approve_min_agreement, rule.reject_below_gold) == (
        True, 0.9, None, 0.4)
    assert (rule.reject_message, rule.bonus_top_share, rule.bonus_amount, rule.updated_by) == (
        REJECTION, 0.1, Decimal("0.50"), researcher)
    page = page_of(researcher_client, campaign)
    assert "Review rule saved. Preview it to see what it would do." in text(page)
    assert 'name="approve_min_gold" value="0.9"' in page and 'name="bonus_amount" value="0.50"' in page
    assert 'name="enabled" aria-describedby="id_enabled_helptext" id="id_enabled" checked' in page
    assert 'id="preview-rule"' in page and 'id="apply-rule"' in page
    assert 'name="reject_category"' not in page  # the local crowd has no rejection categories


def test_on_prolific_the_rule_asks_for_a_category_and_a_long_message(researcher_client):
    campaign = quality_campaign(images=1)
    type(campaign).objects.filter(pk=campaign.pk).update(provider="prolific")
    page = page_of(researcher_client, campaign)
    assert '<select name="reject_category"' in page and '<option value="LOW_EFFORT">Low effort</option>' in page
    assert "Prolific needs at least 100 characters and a category." in text(page)
    response = save(researcher_client, campaign, reject_category="LOW_EFFORT")
    assert response.status_code == 400
    assert "at least 100 characters" in field_error(response.content.decode(), "reject_message")
    assert not QualityRule.objects.exists()
    response = save(researcher_client, campaign, reject_category="LOW_EFFORT", reject_message=REJECTION * 3)
    assert response.status_code == 302
    assert QualityRule.objects.get(campaign=campaign).reject_category == "LOW_EFFORT"


def test_preview_apply_through_the_confirmation_and_the_audit(researcher_client, crowd):
    """a (gold 1.0) is approved: their 2 submitted answers; c (gold 0.0) rejected: the gold answer still submitted
    (their real one is rejected already); b (0.5) is between the bounds: 3 answers left to a person."""
    campaign, (first, second), (a, b, c) = crowd
    compute_quality(campaign)
    assert save(researcher_client, campaign).status_code == 302
    page = page_of(researcher_client, campaign, "?preview=1")
    preview = text(section(page, "preview"))
    assert "A dry run: nothing has been changed." in preview
    assert "Approve 2 assignment(s) Reject 1 assignment(s) Bonus 0 worker(s) Left to you 3 submitted " \
           "assignment(s) Cost with fees $0.20" in preview
    planned = rows(page, "preview")
    assert [(row[0], row[1]) for row in planned] == [
        ("wa", "Approve"), ("wa", "Approve"), ("wc", "Reject"),
        ("wb", "Left to you"), ("wb", "Left to you"), ("wb", "Left to you")]
    assert planned[2][3] == REJECTION
    assert planned[2][4].startswith("gold accuracy 0.00 < 0.4 gold accuracy 0.00 · gold items 1 · agreement 0.00")
    assert planned[3][4].startswith("gold accuracy 0.50 < 0.9 gold accuracy 0.50")
    assert Assignment.objects.filter(hit__campaign=campaign, status=AssignmentStatus.SUBMITTED).count() == 6

    # the confirmation step (the dialog's content, or the page itself without JavaScript)
    step = researcher_client.get(url(campaign, "campaign-quality-apply"))
    assert step.status_code == 200
    confirmation = step.content.decode()
    assert '<section class="card confirm-action" id="confirm-action"' in confirmation
    assert "Approve 2 assignment(s), reject 1, pay 0 bonus(es); 3 submitted assignment(s) are left to you." \
        in text(confirmation)
    assert "It pays out $0.20 with fees." in text(confirmation)
    assert f'<form method="post" action="{url(campaign, "campaign-quality-apply")}">' in confirmation
    assert "Apply: approve 2, reject 1, bonus 0 for $0.20</button>" in confirmation
    assert f'href="{url(campaign)}" data-confirm-cancel>Cancel</a>' in confirmation
    assert not QualityDecision.objects.exists()  # looking changes nothing

    response = researcher_client.post(url(campaign, "campaign-quality-apply"))
    assert response.status_code == 302 and response["Location"] == url(campaign) + "#audit"
    statuses = {(x.worker.external_id, x.hit_id): x.status for x in Assignment.objects.filter(hit__campaign=campaign)}
    assert statuses[("wa", second.pk)] == statuses[("wa", first.pk)] == APPROVED
    assert [s for (w, _), s in statuses.items() if w == "wc"] == [REJECTED, REJECTED]
    assert {s for (w, _), s in statuses.items() if w == "wb"} == {AssignmentStatus.SUBMITTED}
    page = page_of(researcher_client, campaign)
    assert "Review rule applied: 3 decision(s) made." in text(page)
    audit = rows(page, "audit")
    assert sorted((row[1], row[2], row[4], row[7], row[8]) for row in audit) == [
        ("Approve", "wa", "Done", "console", "alice"), ("Approve", "wa", "Done", "console", "alice"),
        ("Reject", "wc", "Done", "console", "alice")]
    rejected = QualityDecision.objects.get(action="reject")
    assert f'href="{reverse("campaign-review", args=[campaign.pk])}?assignment={rejected.assignment_id}' \
           f'#assignment-{rejected.assignment_id}"' in page

    # applied again: nothing left to decide, the confirmation says so and offers no button
    again = researcher_client.get(url(campaign, "campaign-quality-apply")).content.decode()
    assert "Not possible now: the rule decides nothing now." in text(again) and "data-confirm-submit" not in again


def test_apply_needs_a_rule_and_computed_figures(researcher_client):
    campaign = quality_campaign(images=1)
    response = researcher_client.post(url(campaign, "campaign-quality-apply"), follow=True)
    assert "Save a review rule first." in text(response.content.decode())
    assert save(researcher_client, campaign).status_code == 302
    step = researcher_client.get(url(campaign, "campaign-quality-apply")).content.decode()
    assert "Not possible now: quality has never been computed: compute it first, to see what the rule would do." \
        in text(step)
    assert "data-confirm-submit" not in step and not QualityDecision.objects.exists()


@pytest.mark.parametrize(("alpha", "reading"), [
    (0.85, "0.850 : reliable (≥ 0.8)"),
    (0.7, "0.700 : tentative conclusions only (≥ 0.667, < 0.8)"),
    (0.5, "0.500 : not reliable (< 0.667)"),
    (None, "– : not computed (too few answers compared)"),
])
def test_krippendorffs_alpha_is_read_in_one_line_and_counts_are_whole(researcher_client, alpha, reading):
    campaign = quality_campaign(images=1)
    CampaignQuality.objects.create(campaign=campaign, measure="ratings, ordinal", answers=12,
                                   overall={"krippendorff_alpha": alpha, "judged_pairs": 12.0, "mean_f1": 1.0})
    summary = text(section(page_of(researcher_client, campaign), "summary"))
    assert f"Krippendorff alpha {reading}" in summary
    assert "Judged pairs 12 " in summary and "Mean f1 1.000 " in summary and "Answers measured 12" in summary


def test_the_result_of_applying_names_what_failed_and_why_and_what_was_skipped(researcher_client, monkeypatch):
    from mturk.quality.services.review_rules.applying import RuleResult

    campaign = quality_campaign(images=1)
    assert save(researcher_client, campaign).status_code == 302
    calls = []

    def applied(campaign_arg, *, source, user=None):
        calls.append((campaign_arg.pk, source, user.get_username()))
        return RuleResult(done=1, failed={"reject:7": "the marketplace refused: HIT expired"}, skipped=2)

    monkeypatch.setattr("mturk.quality.views.page.apply_rule", applied)
    page = text(researcher_client.post(url(campaign, "campaign-quality-apply"), follow=True).content.decode())
    assert calls == [(campaign.pk, "console", "alice")]
    assert "Review rule applied: 1 decision(s) made, 2 skipped (decided already)." in page
    assert "Failed, reject:7: the marketplace refused: HIT expired" in page

    def refused(campaign_arg, *, source, user=None):
        raise ValueError("This campaign has no review rule.")

    monkeypatch.setattr("mturk.quality.views.page.apply_rule", refused)
    page = text(researcher_client.post(url(campaign, "campaign-quality-apply"), follow=True).content.decode())
    assert "The rule was not applied: This campaign has no review rule." in page


def test_without_javascript_the_confirmation_is_a_page_of_its_own(researcher_client, crowd):
    campaign, _, _ = crowd
    compute_quality(campaign)
    assert save(researcher_client, campaign).status_code == 302
    page = researcher_client.get(url(campaign, "campaign-quality-apply")).content.decode()
    assert "<title>Apply the review rule of campaign Street scenes</title>" in page
    assert '<header class="site">' in page and 'name="csrfmiddlewaretoken"' in page


def test_a_computation_runs_in_the_background_and_the_page_follows_it(researcher_client, crowd,
                                                                      django_capture_on_commit_callbacks):
    from mturk.models import QualityJob
    from mturk.quality.services.jobs import run_quality_job

    campaign, _, _ = crowd
    status = reverse("campaign-quality-status", args=[campaign.pk])
    assert researcher_client.get(status).json() == {"status": None, "finished": True, "error": ""}
    with django_capture_on_commit_callbacks(execute=False) as queued:  # a broker: the job waits for a worker
        response = researcher_client.post(url(campaign, "campaign-quality-recompute"), follow=True)
        researcher_client.post(url(campaign, "campaign-quality-recompute"))  # asked again meanwhile
    assert len(queued) == 1 and QualityJob.objects.filter(campaign=campaign).count() == 1  # one job
    page = response.content.decode()
    assert "Quality is being computed in the background" in text(page)
    summary = section(page, "summary")
    assert "Computing quality since" in text(summary) and f'data-status="{status}"' in summary
    assert re.search(r'<button class="button" type="submit" id="recompute" disabled>Computing…</button>', summary)
    assert researcher_client.get(status).json()["finished"] is False
    job = run_quality_job(QualityJob.objects.get(campaign=campaign))  # what the worker does
    assert job.status == "done" and job.result["answers"] == 8
    assert researcher_client.get(status).json()["finished"] is True
    summary = text(section(researcher_client.get(url(campaign)).content.decode(), "summary"))
    assert "Measure exact text match" in summary and "Computing" not in summary


def test_a_failed_computation_is_shown_with_why(researcher_client, crowd, monkeypatch,
                                                django_capture_on_commit_callbacks):
    from mturk.quality.services import jobs as quality_jobs

    def broken(campaign):
        raise RuntimeError("the measure broke")

    monkeypatch.setattr(quality_jobs, "compute_quality", broken)
    campaign, _, _ = crowd
    with pytest.raises(RuntimeError), django_capture_on_commit_callbacks(execute=True):
        researcher_client.post(url(campaign, "campaign-quality-recompute"))
    page = researcher_client.get(url(campaign)).content.decode()
    assert "The last computation failed: RuntimeError: the measure broke" in text(section(page, "summary"))
    assert researcher_client.get(reverse("campaign-quality-status", args=[campaign.pk])).json()["error"] == \
        "RuntimeError: the measure broke"
