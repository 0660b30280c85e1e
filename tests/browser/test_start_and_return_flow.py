"""A worker starts a task from the campaign link with the keyboard, returns it and gets the next one."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from mturk.models import Assignment, Worker
from mturk.states import AssignmentStatus
from tests.browser.worker_start import only_identity_cookie
from tests.factories import make_campaign
from tests.worker_flow import campaign_link

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def shot(page: Page, folder: Path, name: str) -> None:
    page.screenshot(path=str(folder / f"{name}.png"), full_page=True)


def fits_width(page: Page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


@pytest.mark.parametrize("viewport", [(390, 844), (1366, 768)], ids=["phone", "desktop"])
def test_keyboard_start_return_and_next(live_server, browser, tmp_path, viewport):
    folder = Path(os.environ.get("SCREENSHOT_DIR") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    size = f"{viewport[0]}x{viewport[1]}"
    campaign = make_campaign(images=2, assignments=1, title="Describe street scenes",
                             description="Write one sentence about each photo.")
    context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
    page = context.new_page()

    page.goto(live_server.url + campaign_link(campaign))
    expect(page.get_by_role("heading", name="Describe street scenes")).to_be_visible()
    expect(page.locator(".terms")).to_contain_text("$0.10 per task")
    assert fits_width(page)
    shot(page, folder, f"start-{size}")
    assert not Worker.objects.exists() and not Assignment.objects.exists()  # the page took nothing

    start = page.get_by_role("button", name="Start task")
    while not start.evaluate("button => button === document.activeElement"):
        page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    page.wait_for_url("**/task/?t=*")
    first = Assignment.objects.get()
    returning = page.get_by_role("button", name="Return this task")
    expect(returning).to_be_visible()
    assert fits_width(page)
    shot(page, folder, f"task-{size}")

    first_url = page.url
    page.get_by_label("Your description").focus()
    page.keyboard.press("Tab")
    expect(page.get_by_role("button", name="Submit")).to_be_focused()
    page.keyboard.press("Tab")
    expect(returning).to_be_focused()
    page.keyboard.press("Enter")
    page.wait_for_url(lambda url: "/task/?t=" in url and url != first_url)

    first.refresh_from_db()
    assert first.status == AssignmentStatus.RETURNED
    second = Assignment.objects.get(status=AssignmentStatus.ACCEPTED)
    assert second.worker_id == first.worker_id and second.hit_id != first.hit_id
    expect(page.get_by_label("Your description")).to_be_visible()

    # Returning the last one: nothing is left for this worker, and the returned HIT went back to the crowd.
    page.get_by_role("button", name="Return this task").click()
    expect(page.get_by_role("heading", name="Task returned")).to_be_visible()
    expect(page.locator("body")).to_contain_text("There is no task left for you")
    assert Assignment.objects.filter(status=AssignmentStatus.RETURNED).count() == 2
    assert only_identity_cookie(context)
    context.close()

