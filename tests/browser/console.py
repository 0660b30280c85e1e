"""Shared helpers of the researcher console's browser tests: log in, viewports, width and screenshots.

Screenshots go to $SCREENSHOT_DIR when it is set (to look at them), else to the test's tmp_path; never
into the repository."""
from __future__ import annotations

import os
from pathlib import Path

from django.contrib.auth import get_user_model
from playwright.sync_api import Browser, Page

LAPTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}
PASSWORD = "console-pass-1"


def make_researcher(username: str = "researcher"):
    user_model = get_user_model()
    user, _ = user_model.objects.get_or_create(username=username, defaults={"is_staff": True, "is_superuser": True})
    user.set_password(PASSWORD)
    user.save()
    return user


def console_page(browser: Browser, base_url: str, viewport: dict[str, int] = LAPTOP,
                 username: str = "researcher") -> Page:
    """A new browser context logged in as a researcher (through the login form, as a person would)."""
    make_researcher(username)
    context = browser.new_context(viewport=viewport, base_url=base_url)
    page = context.new_page()
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(lambda url: "/accounts/login/" not in url)
    return page


def fits_width(page: Page) -> bool:
    """Nothing wider than the window: no horizontal scrolling of the whole page."""
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def shot(page: Page, tmp_path: Path, name: str) -> Path:
    folder = Path(os.environ.get("SCREENSHOT_DIR") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
