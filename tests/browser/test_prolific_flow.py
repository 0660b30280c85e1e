"""A Prolific participant in a real browser: arrives with PROLIFIC_PID, STUDY_ID and SESSION_ID, does a bundle of
two tasks with the keyboard, and lands on Prolific's completion URL with the study's code.

Nothing outside can be reached: Prolific's API (the server's GET /submissions/{id}/) is answered by `responses`
in its documented shape, and the browser's navigation to app.prolific.com is intercepted by Playwright."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
import responses
from django.conf import settings
from playwright.sync_api import Page, Route, expect

from mturk.models import Assignment, Worker
from mturk.providers.prolific.arrivals import continue_url
from mturk.providers.prolific.client import reset_client
from mturk.providers.prolific.models import ProlificSubmission
from mturk.states import AssignmentStatus
from tests.mturk.providers.prolific.arrival_helpers import (
    PID,
    SESSION,
    prolific_campaign,
    remote_submission,
    study_link,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

API = "https://api.prolific.test/api/v1/"
PROLIFIC_SITE = "https://app.prolific.com/**"
TEXTS = [
    "A small red house stands next to a tall green tree under a sunny sky.",
    "Two children play with a blue ball on the grass in front of a white car.",
]


@pytest.fixture
def prolific_api(settings):
    settings.PROLIFIC_API_URL = API
    settings.PROLIFIC_TOKEN = "test-token"
    settings.PROLIFIC_MAX_ATTEMPTS = 1
    reset_client()
    with responses.RequestsMock(assert_all_requests_are_fired=True) as mock:
        mock.add(responses.GET, f"{API}submissions/{SESSION}/", json=remote_submission())
        yield mock
    reset_client()


def shot(page: Page, folder: Path, name: str) -> None:
    page.screenshot(path=str(folder / f"{name}.png"), full_page=True)


def fits_width(page: Page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def tab_to(page: Page, locator) -> None:
    """Keyboard only: Tab until the control has the focus."""
    for _ in range(30):
        if locator.evaluate("element => element === document.activeElement"):
            return
        page.keyboard.press("Tab")
    raise AssertionError("the control cannot be reached with Tab")


@pytest.mark.parametrize("viewport", [(390, 844), (1366, 768)], ids=["phone", "desktop"])
def test_participant_does_a_bundle_of_two_and_lands_on_the_completion_url(live_server, browser, tmp_path,
                                                                           prolific_api, viewport):
    folder = Path(os.environ.get("SCREENSHOT_DIR") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    size = f"{viewport[0]}x{viewport[1]}"
    campaign = prolific_campaign(images=3, tasks=2, title="Describe street scenes",
                                 description="Write one sentence about each photo.")
    code = campaign.prolific_study.completion_code
    expected = f"{settings.PROLIFIC_COMPLETE_URL}?cc={code}"
    context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
    page = context.new_page()
    arrived_at_prolific: list[str] = []

    def prolific_site(route: Route) -> None:
        arrived_at_prolific.append(route.request.url)
        route.fulfill(content_type="text/html", body="<title>Prolific</title><h1>Submission complete</h1>")

    page.route(PROLIFIC_SITE, prolific_site)

    # --- arrival: the start page takes nothing and asks Prolific nothing ---
    page.goto(live_server.url + study_link(campaign))
    expect(page.get_by_role("heading", name="Describe street scenes")).to_be_visible()
    expect(page.locator(".terms")).to_contain_text("Tasks to do2")
    assert fits_width(page)
    shot(page, folder, f"prolific-start-{size}")
    assert not Worker.objects.exists() and not ProlificSubmission.objects.exists()
    assert len(prolific_api.calls) == 0

    start = page.get_by_role("button", name="Start task")
    tab_to(page, start)
    page.keyboard.press("Enter")
    page.wait_for_url("**/task/?t=*")
    assert len(prolific_api.calls) == 1  # the session confirmed with Prolific on "Start task"
    expect(page.get_by_role("button", name="Return this task")).to_have_count(0)  # returned on Prolific

    # --- two tasks, keyboard only ---
    for number, text in enumerate(TEXTS, 1):
        box = page.get_by_label("Your description")
        box.fill(text)
        box.press("Tab")
        expect(page.get_by_role("button", name="Submit")).to_be_focused()
        page.keyboard.press("Enter")
        if number == 1:
            next_task = page.get_by_role("button", name="Next task (2 of 2)")
            expect(next_task).to_be_visible()  # the page went on by itself to the session's continue page
            assert Assignment.objects.filter(status=AssignmentStatus.SUBMITTED).count() == 1
            assert fits_width(page)
            shot(page, folder, f"prolific-continue-{size}")
            tab_to(page, next_task)
            page.keyboard.press("Enter")
            page.wait_for_url("**/task/?t=*")
            expect(page.get_by_label("Your description")).to_have_value("")

    # --- back to Prolific with the study's code, only after both answers are stored ---
    page.wait_for_url(expected)
    expect(page.get_by_role("heading", name="Submission complete")).to_be_visible()
    assert arrived_at_prolific == [expected]
    stored = list(Assignment.objects.order_by("pk").values_list("answer", "external_id", "status"))
    assert stored == [({"text": t}, SESSION, AssignmentStatus.SUBMITTED) for t in TEXTS]
    assert ProlificSubmission.objects.get().finished_at is not None
    assert context.cookies() == []  # the participant's side needs no cookie

    # --- the completion page when the redirect fails: the code and a "Return to Prolific" link (the retry) ---
    page.unroute(PROLIFIC_SITE)
    page.route(PROLIFIC_SITE, lambda route: route.fulfill(status=204))  # a navigation that goes nowhere
    done_url = live_server.url + continue_url(SESSION, PID)
    page.goto(done_url)
    expect(page.get_by_role("heading", name="All done. Thank you!")).to_be_visible()
    expect(page.locator("#completion-code")).to_have_text(code)
    back = page.get_by_role("link", name="Return to Prolific")
    expect(back).to_have_attribute("href", expected)
    assert page.url == done_url  # the failed redirect left the page in place
    assert fits_width(page)
    shot(page, folder, f"prolific-complete-{size}")
    page.unroute(PROLIFIC_SITE)
    page.route(PROLIFIC_SITE, prolific_site)
    tab_to(page, back)
    page.keyboard.press("Enter")
    page.wait_for_url(expected)
    assert Assignment.objects.count() == 2  # nothing more was handed out
    context.close()
