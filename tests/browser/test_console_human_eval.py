"""The researcher opens a human evaluation from the console's menu, has a bad upload refused, estimates the budget,
analyses the judgements, reads the leaderboard with its intervals and opens the report, on a laptop and a
phone."""
from __future__ import annotations

import pytest
from playwright.sync_api import expect

from evaluation.services.analysis import analyse_evaluation
from tests.browser.console import LAPTOP, PHONE, console_page, fits_width, shot
from tests.evaluation.report_data import build_evaluation

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_analyse_and_read_a_human_evaluation(browser, live_server, tmp_path, viewport):
    evaluation = build_evaluation("COCO captions, three systems")
    page = console_page(browser, live_server.url, viewport)
    name = "laptop" if viewport is LAPTOP else "phone"

    page.get_by_role("navigation", name="Console").get_by_role("link", name="Human evaluation").click()
    expect(page.get_by_role("heading", name="Human evaluations")).to_be_visible()
    assert fits_width(page)
    page.get_by_role("link", name="COCO captions, three systems").click()
    bad = tmp_path / "bad.json"
    bad.write_text('[{"image_id": 999, "caption": "a dog"}]')
    page.get_by_role("textbox", name="System").fill("new system")
    page.get_by_label("File:", exact=True).set_input_files(str(bad))
    page.get_by_role("button", name="Upload and score").click()
    expect(page.get_by_role("alert")).to_contain_text("image_id 999 is not in the test set")
    assert fits_width(page)
    shot(page, tmp_path, f"human-evaluation-upload-error-{name}")
    page.locator("#budget_reward").fill("0.10")
    page.get_by_role("button", name="Estimate").click()
    expect(page.get_by_label("Budget", exact=True)).to_contain_text("Assignments")
    assert fits_width(page)
    shot(page, tmp_path, f"human-evaluation-budget-{name}")
    expect(page.get_by_text("Not analysed yet: 36 judgements stored.")).to_be_visible()
    page.get_by_role("button", name="Analyse").click()
    expect(page.get_by_text("Analysed 36 judgements.")).to_be_visible()
    evaluation.refresh_from_db()
    means = evaluation.analysis["ratings"]["describes"]["systems"]
    board = page.locator("table.leaderboard")
    best_first = sorted(means, key=lambda name: (-means[name]["mean"], name))  # read back: keys' order may differ
    expect(board.locator("tbody th")).to_have_text(best_first)
    figures = means[best_first[0]]
    expect(board.locator("tbody tr").first).to_contain_text(
        f'{figures["mean"]:.2f} [{figures["low"]:.2f}, {figures["high"]:.2f}]')
    expect(page.get_by_role("columnheader", name="Human: describes")).to_be_visible()
    assert fits_width(page)
    shot(page, tmp_path, f"human-evaluation-{name}")

    page.get_by_role("link", name="Report", exact=True).click()
    expect(page.get_by_role("heading", name="Ratings: describes")).to_be_visible()
    expect(page.get_by_role("img", name="Mean rating on describes, with its interval.")).to_be_visible()
    assert fits_width(page)
    shot(page, tmp_path, f"human-evaluation-report-{name}")
    page.get_by_role("link", name=evaluation.name).click()
    expect(page.get_by_role("heading", name=f"Human evaluation: {evaluation.name}")).to_be_visible()


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_the_leaderboard_of_a_test_set(browser, live_server, tmp_path, viewport):
    rating = build_evaluation("COCO captions rated")
    pairwise = build_evaluation("COCO captions compared", design="pairwise")
    for evaluation in (rating, pairwise):
        analyse_evaluation(evaluation)
    page = console_page(browser, live_server.url, viewport)
    page.goto(f"/human-evaluations/{rating.pk}/")
    page.get_by_role("link", name="All evaluations of this test set").click()
    expect(page.get_by_role("heading", name="Human evaluations of COCO sample")).to_be_visible()
    board = page.locator("table.leaderboard")
    expect(board.get_by_role("columnheader", name="COCO captions compared")).to_be_visible()
    expect(board.get_by_role("columnheader", name="COCO captions rated")).to_be_visible()
    expect(board.locator("tbody th")).to_have_count(3)  # sys-a, sys-b, the reference; never the attention checks
    assert fits_width(page)
    shot(page, tmp_path, f"human-evaluation-test-set-{'laptop' if viewport is LAPTOP else 'phone'}")
