"""The researcher opens a pool's leaderboard from the dashboard, uploads a bad then a good score matrix, and reads
the systems' metrics, on a laptop and a phone."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from annotation.ranking.services.submissions import submit_ranking
from tests.annotation.ranking.pool import SCORES, build_pool, npy
from tests.browser.console import LAPTOP, PHONE, console_page, fits_width, shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_upload_and_read_the_leaderboard(browser, live_server, tmp_path, viewport):
    pool, _, _ = build_pool("Flickr test")
    submit_ranking(pool, "baseline", npy(SCORES), "s.npy")
    bad, good = tmp_path / "bad.npy", tmp_path / "good.npy"
    bad.write_bytes(npy(SCORES[:2]))
    good.write_bytes(npy(SCORES[::-1].copy()))
    page = console_page(browser, live_server.url, viewport)
    name = "laptop" if viewport is LAPTOP else "phone"

    page.get_by_role("link", name="Test pools and leaderboards").click()
    page.get_by_role("link", name="Flickr test").click()
    expect(page.get_by_role("heading", name="Leaderboard: Flickr test")).to_be_visible()
    expect(page.get_by_role("rowheader", name="baseline")).to_be_visible()
    page.get_by_role("textbox", name="System").fill("reversed")
    page.get_by_label("File:", exact=True).set_input_files(str(bad))
    page.get_by_role("button", name="Submit and evaluate").click()
    expect(page.get_by_role("alert")).to_contain_text("bad.npy: the array has shape (2, 6), expected (3, 6)")
    assert fits_width(page)
    shot(page, tmp_path, f"leaderboard-error-{name}")
    page.get_by_label("File:", exact=True).set_input_files(str(good))
    page.get_by_role("button", name="Submit and evaluate").click()
    expect(page.get_by_text("reversed submitted and evaluated; its leaderboard figures follow the current "
                            "judgements.")).to_be_visible()
    expect(page.get_by_role("rowheader", name="reversed")).to_be_visible()
    assert fits_width(page)
    shot(page, tmp_path, f"leaderboard-{name}")
