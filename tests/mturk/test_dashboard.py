"""The dashboard: totals, submissions per day (project time zone, window), empty state, constant queries."""
from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import timezone

from mturk.models import Assignment, Campaign
from mturk.selectors import campaigns_with_progress, progress_of
from mturk.selectors_charts import dashboard_totals, submissions_per_day
from mturk.services.assignments import assign_next_hit, new_local_worker, submit_answer
from mturk.services.review import reject_assignment
from tests.factories import GOOD_TEXT, make_campaign, submitted
from tests.queries import queries_for

pytestmark = pytest.mark.django_db


def _submit_as(worker, campaign: Campaign) -> Assignment:
    assignment = assign_next_hit(campaign, worker)
    return submit_answer(assignment_id=assignment.pk, worker_external_id=worker.external_id,
                         answer={"text": GOOD_TEXT}).assignment


def _at(assignment: Assignment, when: datetime) -> None:
    Assignment.objects.filter(pk=assignment.pk).update(submitted_at=when)


def _totals():
    return dashboard_totals([(c, progress_of(c)) for c in campaigns_with_progress()])


def test_totals_add_up_every_campaign():
    beach = make_campaign(images=2, assignments=2, reward=Decimal("0.10"))   # 4 assignments at most
    street = make_campaign(images=1, assignments=3, reward=Decimal("0.25"))  # 3 at most
    make_campaign(images=1, publish=False)                                   # a draft: 2 at 0.10
    both = new_local_worker()
    _submit_as(both, beach)
    _submit_as(both, street)  # one worker in two campaigns counts once
    rejected = submitted(beach)
    reject_assignment(rejected, "Not about the image")
    submitted(street)
    totals = _totals()
    assert totals.campaigns == 3 and totals.by_status == [("Draft", 1), ("Active", 2)]
    assert totals.submissions == 4 and totals.to_review == 3 and totals.workers == 3
    # rejected work is not paid; the draft costs nothing yet but commits its assignments
    assert totals.spent == Decimal("0.10") + 2 * Decimal("0.25")
    assert totals.committed == 4 * Decimal("0.10") + 3 * Decimal("0.25") + 2 * Decimal("0.10")
    assert totals.fees_known and totals.simulated == 0


def test_simulated_campaigns_cost_nothing_and_have_no_workers():
    real = make_campaign(images=1, assignments=1, reward=Decimal("0.10"))
    generated = make_campaign(images=2, assignments=1, reward=Decimal("0.50"))
    submitted(real)
    simulated = submitted(generated)
    Campaign.objects.filter(pk=generated.pk).update(is_simulated=True)
    Assignment.objects.filter(pk=simulated.pk).update(is_simulated=True)
    totals = _totals()
    assert totals.spent == totals.committed == Decimal("0.10") and totals.simulated == 1
    assert totals.workers == 1 and totals.submissions == 2


def test_the_page_shows_the_totals_and_the_plot(researcher_client):
    campaign = make_campaign(images=2, assignments=2, reward=Decimal("0.20"), name="Beach photos")
    first, second = submitted(campaign), submitted(campaign)
    today = timezone.localtime().replace(hour=12, minute=0, second=0, microsecond=0)
    _at(first, today - timedelta(days=3))
    _at(second, today)
    page = researcher_client.get(reverse("dashboard")).content.decode()
    assert "$0.40" in page and "at most $0.80 committed" in page  # 2 × 0.20 so far, 4 × 0.20 at most
    assert "1 active" in page and "2 to review" in page
    svg = re.search(r"<svg [^>]*role=\"img\"[^>]*>(.*?)</svg>", page, re.S)
    assert svg is not None and "<title>Submissions per day" in svg.group(1)
    bars = re.findall(r"<title>(\d\d \w{3}): (\d+)</title>", svg.group(1))
    days = [(today - timedelta(days=n)).strftime("%d %b") for n in (3, 2, 1, 0)]  # from the first submission to today
    assert bars == list(zip(days, ["1", "0", "0", "1"], strict=True))
    assert "<details>" in page and today.strftime("%a %d %b %Y") in page  # the same figures as a table


def test_days_are_those_of_the_project_time_zone(settings):
    settings.TIME_ZONE = "Pacific/Auckland"  # UTC+13 in January
    campaign = make_campaign(images=2, assignments=1)
    late = datetime(2026, 1, 10, 20, 0, tzinfo=UTC)  # 11 January, 09:00 in Auckland
    _at(submitted(campaign), late)
    _at(submitted(campaign), late - timedelta(hours=10))  # 10 January, 23:00 in Auckland
    series = submissions_per_day()
    assert series.counts == [(date(2026, 1, 10), 1), (date(2026, 1, 11), 1)]


def test_the_window_is_the_last_days_with_submissions():
    campaign = make_campaign(images=3, assignments=1)
    last = datetime(2025, 6, 30, 12, 0, tzinfo=UTC)
    for when in (last - timedelta(days=40), last - timedelta(days=29), last):
        _at(submitted(campaign), when)
    series = submissions_per_day(days=30)  # long ago: the 30 days up to the last submission
    assert series.counts[0] == (date(2025, 6, 1), 1) and series.counts[-1] == (date(2025, 6, 30), 1)
    assert len(series.counts) == 30 and series.total == 2  # the one 40 days before is outside
    recent = timezone.localtime() - timedelta(days=5)
    _at(Assignment.objects.order_by("pk").first(), recent)
    series = submissions_per_day(days=30)  # a recent one: the window ends today
    assert series.counts[-1][0] == timezone.localdate() and series.busiest == (recent.date(), 1)


def test_no_campaign_points_to_the_wizard_and_the_imports(researcher_client):
    page = researcher_client.get(reverse("dashboard")).content.decode()
    assert f'href="{reverse("campaign-wizard")}"' in page and f'href="{reverse("imports")}"' in page
    assert "manage.py" not in page and "<svg" not in page


def test_campaigns_without_submissions_have_no_plot(researcher_client):
    make_campaign(images=1)
    page = researcher_client.get(reverse("dashboard")).content.decode()
    assert "No submission yet." in page and "<svg" not in page


def _campaigns_with_submissions(count: int) -> None:
    for index in range(count):
        campaign = make_campaign(images=1, assignments=2)
        _at(submitted(campaign), timezone.now() - timedelta(days=index % 9))


def test_queries_do_not_grow_with_campaigns_and_submissions(researcher_client):
    _campaigns_with_submissions(2)
    few = queries_for(researcher_client, reverse("dashboard"))
    _campaigns_with_submissions(18)
    many = queries_for(researcher_client, reverse("dashboard"))
    assert Campaign.objects.count() == 20 and few == many
