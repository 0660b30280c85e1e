"""Starting a task from the local campaign link in the browser, as a worker does: open, press "Start task"."""
from __future__ import annotations

import re

from playwright.sync_api import BrowserContext, Page

START = re.compile(r"^Start (next )?task$")  # "Start next task" for a browser that has worked before


def start_task_in_browser(page: Page, link: str) -> None:
    """Open the campaign link (the start page takes nothing) and press its start button; a browser that already
    holds an open task of the campaign is taken straight back to it."""
    page.goto(link)
    if "/task/?t=" not in page.url:
        page.get_by_role("button", name=START).click()
    page.wait_for_url("**/task/?t=*")


def only_identity_cookie(context: BrowserContext) -> bool:
    """The local worker side sets one cookie: the HttpOnly browser identity (mturk.work.views.identity); the pages
    need no cookie to work (no session, no CSRF cookie)."""
    cookies = context.cookies()
    return [cookie["name"] for cookie in cookies] == ["local_worker"] and all(c["httpOnly"] for c in cookies)
