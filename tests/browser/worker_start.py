"""Starting a task from the local campaign link in the browser, as a worker does: open, press "Start task"."""
from __future__ import annotations

from playwright.sync_api import Page


def start_task_in_browser(page: Page, link: str) -> None:
    """Open the campaign link (the start page takes nothing) and press its "Start task" button."""
    page.goto(link)
    page.get_by_role("button", name="Start task").click()
    page.wait_for_url("**/task/?t=*")
