"""A worker describes images and a researcher reviews them, in a real browser."""
import re

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from mturk.models import Assignment
from mturk.states import AssignmentStatus
from tests.browser.worker_start import only_identity_cookie, start_task_in_browser
from tests.factories import make_campaign
from tests.worker_flow import campaign_link

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TEXTS = [
    "A small red house stands next to a tall green tree under a sunny sky.",
    "Two children play with a blue ball on the grass in front of a white car.",
]


def test_worker_describes_then_researcher_reviews(live_server, page):
    campaign = make_campaign(images=2, assignments=1, name="Demo descriptions")
    get_user_model().objects.create_user("researcher", password="review-pass-1", is_staff=True)

    # --- the worker ---
    start_task_in_browser(page, live_server.url + campaign_link(campaign))
    expect(page.get_by_role("heading", name="Instructions")).to_be_visible()
    expect(page.locator(".instructions")).to_contain_text("Describe all the important parts of the scene")
    image = page.locator(".task-image img")
    expect(image).to_be_visible()
    assert "/media/images/1024/" in image.get_attribute("src")
    assert page.evaluate("document.querySelector('.task-image img').naturalWidth") > 0

    box = page.get_by_label("Your description")
    box.fill("A dog.")
    page.get_by_role("button", name="Submit").click()
    expect(page.locator("#answer-text-error")).to_have_text(
        "Please describe the image in at least 8 words (you wrote 2).")
    expect(box).to_be_focused()

    # The server refuses it too (a page with its checks bypassed).
    token = page.locator("#task-form").get_attribute("data-token")
    refused = page.evaluate(
        """async (token) => {
            const r = await fetch('/task/submit/', {method: 'POST', headers: {'Content-Type': 'application/json'},
                                  body: JSON.stringify({token, answer: {text: 'A dog.'}})});
            return {status: r.status, body: await r.json()};
        }""",
        token,
    )
    assert refused["status"] == 400
    assert refused["body"]["fields"]["text"] == ["Please describe the image in at least 8 words (you wrote 2)."]
    assert not Assignment.objects.exclude(answer=None).exists()

    for number, text in enumerate(TEXTS):
        box = page.get_by_label("Your description")
        box.fill(text)
        box.press("Tab")  # keyboard only: focus the button, press Enter
        expect(page.get_by_role("button", name="Submit")).to_be_focused()
        page.keyboard.press("Enter")
        expect(page.get_by_role("heading", name="Thank you!")).to_be_visible()
        expect(page.locator("#task-done-message")).to_have_text("Thank you! Your answer has been saved.")
        expect(page.get_by_role("button", name="Return this task")).to_be_hidden()  # answered: no return
        page.get_by_role("button", name="Next task").click()  # takes the next task at once (a POST)
        if number == 0:
            expect(page.get_by_label("Your description")).to_have_value("")
    expect(page.get_by_role("heading", name="No task left")).to_be_visible()
    expect(page.locator("body")).to_contain_text("There is no task left for you in this campaign")
    stored = list(Assignment.objects.order_by("pk").values_list("answer", flat=True))
    assert stored == [{"text": t} for t in TEXTS]
    assert only_identity_cookie(page.context)  # the worker side needs no cookie

    # --- the researcher ---
    page.goto(live_server.url + "/")
    page.get_by_label("Username").fill("researcher")
    page.get_by_label("Password").fill("review-pass-1")
    page.get_by_role("button", name="Log in").click()
    row = page.locator("tr", has_text="Demo descriptions")
    expect(row).to_contain_text("2 / 2")
    expect(row).to_contain_text("$0.20")
    expect(row.get_by_role("progressbar")).to_have_attribute("aria-valuenow", "2")
    row.get_by_role("link", name="Demo descriptions").click()

    first, second = Assignment.objects.order_by("pk")
    page.get_by_role("link", name="Review submitted work").click()
    first_card = page.locator(f"#assignment-{first.pk}")
    expect(first_card).to_contain_text(TEXTS[0])
    expect(first_card).to_contain_text(first.worker.external_id)
    expect(first_card).to_contain_text(re.compile(r"\d+ s"))
    expect(first_card).to_contain_text("Submitted")
    native: list[str] = []
    page.on("dialog", lambda dialog: (native.append(dialog.message), dialog.dismiss()))  # none: asked in the page

    first_card.get_by_role("checkbox", name=f"Assignment {first.pk}").check()
    page.get_by_role("button", name="Reject selected").click()
    expect(page.get_by_role("alert")).to_contain_text("Rejecting needs feedback")  # checked before sending
    page.get_by_label(re.compile("Feedback to the workers")).fill("Please describe the whole scene.")
    page.get_by_role("button", name="Reject selected").click()
    page.get_by_role("dialog", name="Reject 1 assignment(s)?").get_by_role("button", name="Reject 1").click()
    expect(page.locator(".messages")).to_contain_text(f"1 assignment(s) rejected: {first.pk}.")
    expect(page.locator(f"#assignment-{first.pk}")).to_have_count(0)  # the page shows submitted work only
    page.get_by_role("checkbox", name=f"Assignment {second.pk}").check()
    page.get_by_role("button", name="Approve selected").click()
    page.get_by_role("dialog", name="Approve 1 assignment(s)?").get_by_role("button", name="Approve").click()
    expect(page.locator(".messages")).to_contain_text(f"1 assignment(s) approved: {second.pk}.")
    page.goto(live_server.url + f"/campaigns/{first.hit.campaign_id}/review/")
    expect(page.locator(f"#assignment-{first.pk}")).to_contain_text("Rejected")
    expect(page.locator(f"#assignment-{second.pk}")).to_contain_text("Approved")

    assert native == []
    statuses = dict(Assignment.objects.values_list("pk", "status"))
    assert statuses == {first.pk: AssignmentStatus.REJECTED, second.pk: AssignmentStatus.APPROVED}
    assert Assignment.objects.get(pk=first.pk).feedback == "Please describe the whole scene."


def test_task_works_inside_an_iframe_without_cookies(live_server, browser):
    campaign = make_campaign(images=1, assignments=1)
    context = browser.new_context()
    page = context.new_page()
    host = live_server.url + "/frame-host.html"  # same origin, as allowed by frame-ancestors 'self'
    page.route(host, lambda route: route.fulfill(
        content_type="text/html",
        body=f'<h1>Host</h1><iframe title="task" src="{campaign_link(campaign)}" width="1000" height="800"></iframe>',
    ))
    page.goto(host)
    frame = page.frame_locator("iframe[title=task]")
    frame.get_by_role("button", name="Start task").click()
    frame.get_by_label("Your description").fill(TEXTS[0])
    frame.get_by_role("button", name="Submit").click()
    expect(frame.get_by_role("heading", name="Thank you!")).to_be_visible()
    assert Assignment.objects.get().answer == {"text": TEXTS[0]}
    assert only_identity_cookie(context)
    context.close()
