"""The researcher sees the whole picture: the dashboard's totals and submissions per day, and on a campaign's page
its submissions over time, the time on task and the effective hourly pay, on a laptop and on a phone."""
from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from mturk.models import Assignment, Campaign
from tests.browser.console import LAPTOP, PHONE, console_page, fits_width, shot
from tests.factories import make_campaign, submitted

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


SECONDS = [40 + 9 * index for index in range(14)]


def _campaign_with_a_week_of_work() -> Campaign:
    campaign = make_campaign(images=12, assignments=2, reward=Decimal("0.15"), name="Street scenes")
    now = timezone.now()
    for index, seconds in enumerate(SECONDS):
        assignment = submitted(campaign)
        Assignment.objects.filter(pk=assignment.pk).update(
            submitted_at=now - timedelta(days=index % 7, hours=index), time_on_task=timedelta(seconds=seconds))
    return campaign


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_dashboard_and_campaign_plots(browser, live_server, tmp_path, viewport):
    campaign = _campaign_with_a_week_of_work()
    make_campaign(images=1, publish=False, name="Draft campaign")
    page = console_page(browser, live_server.url, viewport)
    name = "laptop" if viewport is LAPTOP else "phone"

    page.goto("/")
    totals = page.get_by_label("Totals")
    expect(totals).to_contain_text("14 to review")
    expect(totals).to_contain_text("1 draft, 1 active")
    plot = page.get_by_role("img", name="Submissions per day")
    expect(plot).to_be_visible()
    assert plot.locator("title").first.text_content().startswith("Submissions per day")
    page.get_by_text("Submissions per day as a table").click()
    expect(page.get_by_role("table").first).to_contain_text(timezone.localdate().strftime("%a %d %b %Y"))
    assert fits_width(page)
    shot(page, tmp_path, f"dashboard-{name}")

    page.get_by_role("link", name="Street scenes").click()
    expect(page.get_by_role("img", name="Submissions to Street scenes over time")).to_be_visible()
    expect(page.get_by_role("img", name=f"Time on task of {len(SECONDS)} submission(s), in seconds")).to_be_visible()
    hourly = float(campaign.reward) * len(SECONDS) / (sum(SECONDS) / 3600)
    expect(page.locator("#hourly-pay")).to_contain_text(f"${hourly:.2f} per hour")
    expect(page.get_by_role("heading", name="Submissions and pay")).to_be_visible()
    assert fits_width(page)
    page.get_by_role("heading", name="Submissions and pay").scroll_into_view_if_needed()
    shot(page, tmp_path, f"campaign-{name}")
    page.context.close()


def test_an_empty_dashboard_points_to_the_wizard(browser, live_server, tmp_path):
    page = console_page(browser, live_server.url, PHONE)
    page.goto("/")
    page.get_by_role("main").get_by_role("link", name="New campaign").click()
    page.wait_for_url(lambda url: url.rstrip("/").endswith("/campaigns/new"))
    page.goto("/")
    expect(page.get_by_role("main").get_by_role("link", name="Import images")).to_be_visible()
    assert fits_width(page)
    shot(page, tmp_path, "dashboard-empty-phone")
    page.context.close()
