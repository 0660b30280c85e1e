"""An MTurk worker previews, accepts and submits a HIT inside a fake MTurk worker site's iframe.

The fake worker site is another origin (a tiny http.server on 127.0.0.1): it embeds our ExternalURL
as MTurk does and records what the task page posts to its /mturk/externalSubmit."""
from __future__ import annotations

import html
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode

import pytest
from playwright.sync_api import expect

from mturk.models import HIT, Assignment, Campaign
from mturk.providers.mturk.arrivals import completion_code
from mturk.providers.mturk.provider import task_url
from mturk.states import AssignmentStatus
from tests.factories import make_campaign

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TEXT = "A man in a yellow coat rides a bicycle past a row of small shops."


class FakeWorkerSite(ThreadingHTTPServer):
    """The MTurk worker site: one page that frames `iframe_src`, and the externalSubmit endpoint."""

    iframe_src = "about:blank"

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.posts: list[dict[str, list[str]]] = []

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(BaseHTTPRequestHandler):
    server: FakeWorkerSite

    def _reply(self, body: str, status: int = 200) -> None:
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        if self.path != "/projects/hit":
            self._reply("not found", 404)
            return
        self._reply(f'<!doctype html><title>Fake MTurk</title><h1>Fake worker site</h1>'
                    f'<iframe title="HIT" src="{html.escape(self.server.iframe_src)}" width="1100" height="900">'
                    f'</iframe>')

    def do_POST(self) -> None:  # noqa: N802
        if self.path != "/mturk/externalSubmit":
            self._reply("not found", 404)
            return
        length = int(self.headers.get("Content-Length") or 0)
        self.server.posts.append(parse_qs(self.rfile.read(length).decode(), keep_blank_values=True))
        self._reply("<!doctype html><title>Submitted</title><h1>HIT submitted to fake MTurk</h1>")

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 -- quiet
        return None


@pytest.fixture
def worker_site() -> Iterator[FakeWorkerSite]:
    site = FakeWorkerSite()
    thread = threading.Thread(target=site.serve_forever, daemon=True)
    thread.start()
    yield site
    site.shutdown()
    site.server_close()


def test_mturk_worker_previews_accepts_and_submits_in_an_iframe(live_server, browser, settings, worker_site):
    settings.PUBLIC_BASE_URL = live_server.url
    settings.MTURK_SUBMIT_HOSTS = [worker_site.origin]
    settings.TASK_FRAME_ANCESTORS = ["'self'", worker_site.origin]
    campaign = make_campaign(images=1, assignments=1, publish=False, provider="mturk",
                             description="Describe one photo in a sentence or two.")
    HIT.objects.filter(campaign=campaign).update(status="published", external_id="3FAKEHIT0001")
    Campaign.objects.filter(pk=campaign.pk).update(status="active")
    hit = HIT.objects.get(campaign=campaign)
    external_url = task_url(hit)
    assert external_url.startswith(live_server.url + "/mt/task/?c=")

    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    page = context.new_page()

    # --- preview: read-only ---
    worker_site.iframe_src = external_url + "&" + urlencode(
        {"assignmentId": "ASSIGNMENT_ID_NOT_AVAILABLE", "hitId": hit.external_id})
    page.goto(worker_site.origin + "/projects/hit")
    frame = page.frame_locator("iframe[title=HIT]")
    expect(frame.locator(".preview-banner")).to_be_visible()
    expect(frame.locator(".task-image img")).to_be_visible()
    expect(frame.get_by_role("button", name="Submit")).to_have_count(0)
    assert not Assignment.objects.exists()

    # --- accept: MTurk reloads the frame with the worker's ids ---
    accepted = external_url + "&" + urlencode({
        "assignmentId": "3FAKEASSIGN01", "hitId": hit.external_id, "workerId": "A1FAKEWORKER",
        "turkSubmitTo": worker_site.origin,
    })
    page.locator("iframe[title=HIT]").evaluate("(el, src) => { el.src = src; }", accepted)
    box = frame.get_by_label("Your description")
    expect(box).to_be_visible()
    expect(frame.locator(".preview-banner")).to_have_count(0)
    box.fill(TEXT)
    frame.get_by_role("button", name="Submit").click()

    # --- stored with us first, then handed off to the worker site ---
    expect(frame.get_by_role("heading", name="HIT submitted to fake MTurk")).to_be_visible()
    assignment = Assignment.objects.get()
    assert (assignment.status, assignment.answer) == (AssignmentStatus.SUBMITTED, {"text": TEXT})
    assert (assignment.worker.external_id, assignment.external_id) == ("A1FAKEWORKER", "3FAKEASSIGN01")
    assert len(worker_site.posts) == 1
    posted = worker_site.posts[0]
    assert set(posted) == {"assignmentId", "completion_code", "answer"}
    assert posted["assignmentId"] == ["3FAKEASSIGN01"]
    assert posted["completion_code"] == [completion_code(assignment)]
    assert json.loads(posted["answer"][0]) == {"text": TEXT}

    # --- MTurk did not register it: reloading the frame offers the hand-off again ---
    page.locator("iframe[title=HIT]").evaluate("(el, src) => { el.src = src; }", accepted)
    expect(frame.get_by_role("heading", name="Already submitted")).to_be_visible()
    expect(frame.locator("#completion-code")).to_have_text(completion_code(assignment))
    frame.get_by_role("button", name="Submit to MTurk").click()
    expect(frame.get_by_role("heading", name="HIT submitted to fake MTurk")).to_be_visible()
    assert len(worker_site.posts) == 2
    resent = worker_site.posts[1]
    assert (resent["assignmentId"], resent["completion_code"]) == (posted["assignmentId"], posted["completion_code"])
    assert json.loads(resent["answer"][0]) == {"text": TEXT}
    assert Assignment.objects.count() == 1
    assert context.cookies() == []
    context.close()


def test_task_page_refuses_to_be_framed_by_other_sites(live_server, browser, settings, worker_site):
    """Without the worker site in TASK_FRAME_ANCESTORS, the browser blocks the frame."""
    settings.PUBLIC_BASE_URL = live_server.url
    campaign = make_campaign(images=1, assignments=1, publish=False, provider="mturk",
                             description="Describe one photo in a sentence or two.")
    hit = HIT.objects.get(campaign=campaign)
    worker_site.iframe_src = task_url(hit)
    context = browser.new_context()
    page = context.new_page()
    page.goto(worker_site.origin + "/projects/hit")
    page.wait_for_load_state("load")  # the parent's load waits for its frame, blocked or not
    blocked = ["chrome-error://chromewebdata/"]
    for _ in range(200):  # on a busy machine the blocked frame may get its error page's address a moment later
        if [frame.url for frame in page.frames[1:]] == blocked:
            break
        page.wait_for_timeout(50)
    assert [frame.url for frame in page.frames[1:]] == blocked
    expect(page.frame_locator("iframe[title=HIT]").locator(".instructions")).to_have_count(0)
    context.close()
