"""A returning browser is the same local worker: reopening the link in the same browser (the cookie), and inside
another site's iframe where our cookie is not kept (the identity the task page keeps in the page's storage)."""
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from playwright.sync_api import expect

from mturk.models import Assignment, Worker
from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS
from tests.browser.worker_start import only_identity_cookie
from tests.factories import make_campaign
from tests.worker_flow import campaign_link

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TEXT = "A woman in a red dress walks her brown dog along the beach at sunset."


@pytest.fixture
def study_site(live_server):
    """Another site (127.0.0.1 on its own port: not the live server's localhost) whose study page shows the
    campaign link in an iframe; a real server on the loopback, so Chromium's local network checks allow the frame.
    Yields a function: campaign link path -> (the site's origin, the study page's URL)."""
    frames: dict[str, str] = {}

    class Study(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (http.server's name)
            body = (f'<!doctype html><title>Study</title><h1>Study</h1><iframe title="task" src="{frames["src"]}" '
                    'width="1000" height="800"></iframe>').encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Study)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    origin = f"http://127.0.0.1:{server.server_address[1]}"

    def study(link_path: str) -> tuple[str, str]:
        frames["src"] = live_server.url + link_path
        return origin, origin + "/study.html"

    yield study
    server.shutdown()
    server.server_close()


def do_task(target) -> None:
    """On the start page (a page or a frame): start, describe, submit."""
    target.get_by_role("button", name="Start task").or_(target.get_by_role("button", name="Start next task")).click()
    target.get_by_label("Your description").fill(TEXT)
    target.get_by_role("button", name="Submit").click()
    expect(target.get_by_role("heading", name="Thank you!")).to_be_visible()


def test_reopening_the_link_in_the_same_browser_is_the_same_worker(live_server, page):
    campaign = make_campaign(images=3, max_assignments_per_worker=2)
    link = live_server.url + campaign_link(campaign)
    page.goto(link)
    do_task(page)
    page.goto(link)  # the link opened again, in a new visit
    expect(page.get_by_role("button", name="Start next task")).to_be_visible()
    do_task(page)
    page.goto(link)
    page.get_by_role("button", name="Start next task").click()
    expect(page.locator("body")).to_contain_text("You have done the maximum of 2 tasks")
    assert Worker.objects.count() == 1 and Assignment.objects.count() == 2
    assert only_identity_cookie(page.context)




def test_in_another_sites_iframe_with_third_party_cookies_blocked_the_partitioned_cookie_keeps_the_worker(
        study_site, browser, settings):
    """Chromium started with third-party cookies blocked; the site behind HTTPS (a proxy's X-Forwarded-Proto), so
    the identity cookie is `SameSite=None; Secure; Partitioned` (Chromium takes Secure cookies from localhost).
    Chromium denies such a frame its storage too: the partitioned cookie is what keeps the worker."""
    campaign = make_campaign(images=3, max_assignments_per_worker=2)
    origin, study = study_site(campaign_link(campaign))
    settings.TASK_FRAME_ANCESTORS = ["'self'", origin]
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    instance = browser.browser_type.launch(executable_path=CHROMIUM, headless=True,
                                           args=[*CHROMIUM_ARGS, "--test-third-party-cookie-phaseout"])
    context = instance.new_context(viewport={"width": 1366, "height": 900},
                                   extra_http_headers={"X-Forwarded-Proto": "https"})
    try:
        page = context.new_page()
        page.goto(study)
        frame = page.frame_locator("iframe[title=task]")
        do_task(frame)
        page.reload()  # the study page opened again: the iframe starts over from the link
        do_task(frame)
        page.reload()
        frame.get_by_role("button", name="Start next task").click()
        expect(frame.locator("body")).to_contain_text("You have done the maximum of 2 tasks")
        assert Worker.objects.count() == 1 and Assignment.objects.count() == 2
        cookies = context.cookies()
        assert [(c["name"], c["sameSite"], c["secure"]) for c in cookies] == [("local_worker", "None", True)]
        assert cookies[0].get("partitionKey")  # kept for the study site only
    finally:
        context.close()
        instance.close()


def test_without_the_cookie_the_page_storage_keeps_the_worker(live_server, page):
    """Browsers that keep no cookie for the frame but give it (partitioned) storage, e.g. Safari: the task page keeps
    the identity in the page's storage and the start page sends it back. (This Chromium denies a third-party frame
    its storage when it blocks its cookies, so the path is driven here in a page whose cookie is cleared.)"""
    campaign = make_campaign(images=3, max_assignments_per_worker=2)
    link = live_server.url + campaign_link(campaign)
    page.goto(link)
    do_task(page)
    page.context.clear_cookies()
    page.goto(link)
    expect(page.get_by_role("button", name="Start task")).to_be_visible()  # the server does not know the browser
    do_task(page)
    page.context.clear_cookies()
    page.goto(link)
    page.get_by_role("button", name="Start task").click()
    expect(page.locator("body")).to_contain_text("You have done the maximum of 2 tasks")
    assert Worker.objects.count() == 1 and Assignment.objects.count() == 2
