"""Playwright (sync API) driving Debian's Chromium against the live test server."""
import os
import shutil

import pytest

# Playwright's sync API runs an event loop in the test thread; the ORM calls made by the test
# itself are still synchronous and safe.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
]


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    if not os.path.exists(CHROMIUM):
        pytest.fail(f"Chromium not found at {CHROMIUM}: run `make system-deps` (apt-get install chromium)")
    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield instance
        instance.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    yield tab
    context.close()


@pytest.fixture(autouse=True)
def _database_connections_closed_after_each_request():
    """The live server serves each browser connection in its own thread for as long as the browser keeps it alive
    (a page's keep-alive beacon can outlive its context), and with PostgreSQL's persistent connections
    (CONN_MAX_AGE) each such thread would hold a database connection until the server ran out of them. Here every
    request gives its connection back when it ends."""
    from django.db import connections

    database = connections.settings["default"]
    kept = database.get("CONN_MAX_AGE", 0)
    database["CONN_MAX_AGE"] = 0
    yield
    database["CONN_MAX_AGE"] = kept
