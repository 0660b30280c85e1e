"""The campaign page's charts: submissions over time (per hour or per day), time on task with its median, the
effective hourly pay next to the reward (the dataset card's figures), empty states, constant queries."""
from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from mturk.console.selectors import campaign_submissions
from mturk.console.views.campaign_charts import campaign_section, submissions_plot
from mturk.models import Assignment, Campaign
from mturk.selectors.campaigns import crowd_statistics
from tests.factories import make_campaign, submitted

pytestmark = pytest.mark.django_db

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def _answers(campaign: Campaign, times: list[tuple[timedelta, int]]) -> None:
    """One submission per (offset from START, seconds on task)."""
    for offset, seconds in times:
        assignment = submitted(campaign)
        Assignment.objects.filter(pk=assignment.pk).update(submitted_at=START + offset,
                                                           time_on_task=timedelta(seconds=seconds))


def test_a_short_campaign_is_counted_per_hour():
    campaign = make_campaign(images=4, assignments=1)
    _answers(campaign, [(timedelta(minutes=5), 60), (timedelta(minutes=50), 60), (timedelta(hours=3), 60)])
    series = campaign_submissions(campaign)
    assert series.unit == "hour"
    assert [(hour.hour, count) for hour, count in series.counts] == [(9, 2), (10, 0), (11, 0), (12, 1)]
    plot = submissions_plot(series, "c")
    assert plot is not None and plot.summary == "3 submission(s) over 4 hours; the busiest hour: 02 Mar 09:00 with 2."
    assert plot.table == [("02 Mar 09:00", 2), ("02 Mar 12:00", 1)]  # the table lists the hours with submissions


def test_a_long_campaign_is_counted_per_day_in_the_project_time_zone(settings):
    settings.TIME_ZONE = "America/New_York"  # UTC-5 in March
    campaign = make_campaign(images=4, assignments=1)
    _answers(campaign, [(timedelta(hours=-7), 60), (timedelta(0), 60), (timedelta(days=3), 60)])
    series = campaign_submissions(campaign)  # 02:00 UTC on 2 March is 21:00 on 1 March in New York
    assert series.unit == "day"
    assert series.counts == [(date(2026, 3, 1), 1), (date(2026, 3, 2), 1), (date(2026, 3, 3), 0),
                             (date(2026, 3, 4), 0), (date(2026, 3, 5), 1)]


def test_time_on_task_median_and_hourly_pay_are_those_of_the_dataset_card(researcher_client):
    campaign = make_campaign(images=5, assignments=1, reward=Decimal("0.10"))
    seconds = [30, 60, 90, 120, 300]
    _answers(campaign, [(timedelta(minutes=n), s) for n, s in enumerate(seconds)])
    charts = campaign_section(campaign)["charts"]
    card = crowd_statistics([campaign])[0]
    hourly = round(0.10 * len(seconds) / (sum(seconds) / 3600), 2)
    assert charts["median_seconds"] == card.median_seconds_on_task == 90
    assert charts["hourly_pay"] == card.effective_hourly_pay == pytest.approx(hourly)
    figure = str(charts["time_on_task"].figure)
    # bins of 50 s up to 500 s (the next round number above 300)
    counts = [int(n) for n in re.findall(r"\): (\d+)</title></rect>", figure)]
    assert counts == [1, 2, 1, 0, 0, 0, 1, 0, 0, 0]
    assert "median 90.0 s" in figure and "<title>Time on task of 5 submission(s)" in figure
    page = researcher_client.get(reverse("campaign-page", args=[campaign.pk])).content.decode()
    pay = re.search(r'id="hourly-pay">(.*?)</dd>', page, re.S)
    assert pay is not None and f"${hourly:.2f} per hour" in pay.group(1) and "median time on task 90 s" in pay.group(1)
    assert "$0.10 per assignment" in page and page.count('role="img"') == 2


def test_long_tasks_are_shown_in_minutes():
    campaign = make_campaign(images=2, assignments=1)
    _answers(campaign, [(timedelta(0), 600), (timedelta(minutes=1), 1200)])
    figure = str(campaign_section(campaign)["charts"]["time_on_task"].figure)
    assert "time on task (min)" in figure and "median 15.0 min" in figure


def test_instant_answers_get_an_axis_of_whole_seconds():
    campaign = make_campaign(images=2, assignments=1)
    _answers(campaign, [(timedelta(0), 0), (timedelta(minutes=1), 0)])
    figure = str(campaign_section(campaign)["charts"]["time_on_task"].figure)
    x_ticks = [text for text in re.findall(r'text-anchor="middle">([^<]*)</text>', figure) if text[:1].isdigit()]
    assert x_ticks == ["0", "2", "4", "6", "8", "10"]


def test_simulated_campaigns_have_no_hourly_pay(researcher_client):
    campaign = make_campaign(images=1, assignments=1)
    _answers(campaign, [(timedelta(0), 60)])
    Campaign.objects.filter(pk=campaign.pk).update(is_simulated=True)
    page = researcher_client.get(reverse("campaign-page", args=[campaign.pk])).content.decode()
    assert "not computed: the results were generated" in page and "per hour" not in page
    assert page.count('role="img"') == 1 and "No time-on-task plot" in page  # only the submissions over time


def test_no_submission_yet(researcher_client):
    campaign = make_campaign(images=1, name="<b>Empty</b>")
    page = researcher_client.get(reverse("campaign-page", args=[campaign.pk])).content.decode()
    assert "No submission yet" in page and "<svg" not in page and "not known yet" in page


def test_names_are_escaped_in_the_plots():
    campaign = make_campaign(images=1, name="<script>x</script>")
    _answers(campaign, [(timedelta(0), 60)])
    figure = str(campaign_section(campaign)["charts"]["submissions"].figure)
    assert "&lt;script&gt;" in figure and "<script>" not in figure


def _section_queries(campaign: Campaign) -> int:
    with CaptureQueriesContext(connection) as queries:
        campaign_section(campaign)
    return len(queries.captured_queries)


def test_queries_do_not_grow_with_assignments():
    campaign = make_campaign(images=20, assignments=1)
    _answers(campaign, [(timedelta(hours=n), 30 + n) for n in range(2)])
    few = _section_queries(campaign)
    _answers(campaign, [(timedelta(hours=5 * n), 30 + n) for n in range(18)])
    many = _section_queries(campaign)
    assert Assignment.objects.filter(hit__campaign=campaign).count() == 20 and few == many == 2
