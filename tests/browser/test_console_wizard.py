"""The campaign wizard in Chromium, as a researcher does it: kind (with the live preview), a selection of
images, the local provider, the reward, the cost review, then create and publish after the confirmation; and
a Prolific campaign's cost step with the fees of Prolific's cost calculator (mocked with `responses`)."""
from __future__ import annotations

import re

import pytest
import responses
from playwright.sync_api import expect

from mturk.models import Campaign
from mturk.providers.prolific.client import reset_client
from mturk.providers.prolific.costs import forget_fee_ratio
from mturk.states import CampaignStatus, HITStatus
from tests.browser.console import LAPTOP, PHONE, console_page, fits_width, shot
from tests.factories import make_image

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_researcher_creates_and_publishes_a_campaign(browser, live_server, tmp_path):
    images = [make_image(f"street-{n}.png", size=(320, 240)) for n in range(3)]
    page = console_page(browser, live_server.url, LAPTOP)
    page.goto("/")
    page.get_by_role("navigation", name="Console").get_by_role("link", name="New campaign").click()
    expect(page.get_by_role("heading", name="New campaign")).to_be_visible()
    expect(page.get_by_role("radio", name=re.compile("^One campaign"))).to_be_checked()

    page.get_by_role("radio", name=re.compile("Describe an image")).check()
    preview = page.frame_locator("#wz-preview-frame")
    page.get_by_label("Instructions on the task page", exact=True).fill("Describe the street and what moves in it.")
    expect(preview.get_by_text("Describe the street and what moves in it.")).to_be_visible()
    expect(preview.get_by_role("heading", level=1)).to_have_text("Describe an image in one sentence")
    page.get_by_role("radio", name=re.compile("Draw and label boxes")).check()
    expect(preview.get_by_role("heading", level=1)).to_have_text("Draw boxes around the objects in an image")
    expect(preview.locator("body")).to_contain_text("Describe the street and what moves in it.")

    page.get_by_role("radio", name=re.compile("Images by collection")).check()
    page.get_by_role("checkbox", name="street-0.png").check()
    page.get_by_role("checkbox", name="street-2.png").check()
    page.get_by_role("radio", name="local").check()
    page.get_by_label("Campaign name", exact=True).fill("Street boxes")
    page.get_by_label("Reward per assignment ($)", exact=True).fill("0.15")
    page.get_by_label("Assignments per HIT (workers per item)", exact=True).fill("2")
    page.get_by_label("Title shown to workers", exact=True).fill("Boxes on a street")
    expect(preview.get_by_role("heading", level=1)).to_have_text("Boxes on a street")
    expect(preview.locator("body")).to_contain_text("$0.15")
    assert fits_width(page)

    page.get_by_role("button", name="Review the cost").click()
    expect(page.get_by_role("heading", name="Review before creating")).to_be_visible()
    expect(page.locator('[data-estimate="total"]')).to_have_text("$0.60")
    assert Campaign.objects.count() == 0
    shot(page, tmp_path, "wizard-review-laptop")

    natives: list[str] = []
    page.on("dialog", lambda dialog: (natives.append(dialog.message), dialog.dismiss()))  # none is expected
    decide = page.locator("#wz-decide")
    decide.get_by_role("button", name="Create and publish ($0.60)").click()
    asked = page.get_by_role("dialog", name=re.compile(r"Publishing spends money: up to \$0\.60"))
    expect(asked).to_be_visible()  # the in-page confirmation, as everywhere in the console
    asked.get_by_role("button", name="Cancel").click()
    expect(asked).to_be_hidden()
    assert Campaign.objects.count() == 0  # cancelled: nothing happened

    decide.get_by_role("button", name="Create and publish ($0.60)").click()
    asked.get_by_role("button", name="Create and publish ($0.60)").click()
    page.wait_for_url(re.compile(r"/campaigns/\d+/$"))
    campaign = Campaign.objects.get(name="Street boxes")
    assert natives == []  # no native confirm() on the way
    assert page.url.endswith(f"/campaigns/{campaign.pk}/")
    assert campaign.task_kind == "draw_boxes" and campaign.status == CampaignStatus.ACTIVE
    assert campaign.instructions == "Describe the street and what moves in it."
    assert sorted(h["image"] for h in campaign.hits.values_list("items", flat=True)) == [images[0].pk, images[2].pk]
    assert set(campaign.hits.values_list("status", flat=True)) == {HITStatus.PUBLISHED}

    # The whole-page screenshot resizes the window for a moment, which can make a click that follows it miss
    # its button in Chromium: the form is photographed last, chained from the campaign just created.
    page.goto("/campaigns/new/")
    page.get_by_role("radio", name=re.compile("Describe an image")).check()
    page.get_by_role("radio", name=re.compile("The output of another campaign")).check()
    page.get_by_label("Campaign that feeds this one", exact=True).select_option(label="Street boxes (draw_boxes)")
    expect(page.get_by_role("heading", name="Worker page preview")).to_be_visible()
    assert fits_width(page)
    shot(page, tmp_path, "wizard-form-laptop")


def test_bad_input_is_shown_next_to_the_field_on_a_phone(browser, live_server, tmp_path):
    make_image("one.png")
    page = console_page(browser, live_server.url, PHONE)
    page.goto("/campaigns/new/")
    assert fits_width(page)
    shot(page, tmp_path, "wizard-form-phone")
    page.get_by_role("radio", name=re.compile("Visual stories workflow")).check()
    expect(page.get_by_text("Stage retell: Re-tell a story")).to_be_visible()
    page.get_by_role("radio", name=re.compile("Grounded descriptions workflow")).check()
    page.get_by_text("Stage link: Link words to boxes").click()
    page.locator("#f-stage-link-reward").fill("-2")
    page.get_by_label("Campaign name", exact=True).fill("Grounded")
    page.get_by_role("button", name="Review the cost").click()
    expect(page.locator("#err-stage-link-reward")).to_be_visible()
    expect(page.get_by_text("Nothing was created.")).to_be_visible()
    assert fits_width(page)
    shot(page, tmp_path, "wizard-error-phone")
    assert Campaign.objects.count() == 0


@pytest.fixture
def prolific_calculator(settings):
    settings.PROLIFIC_TOKEN = "test-token"
    settings.PROLIFIC_WORKSPACE_ID = "workspace-1"
    settings.PROLIFIC_API_URL = "https://prolific.example.test/api/v1/"
    reset_client()
    forget_fee_ratio()
    with responses.RequestsMock(assert_all_requests_are_fired=True) as mocked:
        mocked.post("https://prolific.example.test/api/v1/study-cost-calculator/",
                    json={"total_cost": 13334})  # 100.00 of reward costs 133.34 with fees and VAT
        yield mocked
    reset_client()
    forget_fee_ratio()


def test_a_prolific_campaigns_cost_step(browser, live_server, tmp_path, prolific_calculator):
    for n in range(4):
        make_image(f"p{n}.png")
    page = console_page(browser, live_server.url, LAPTOP)
    page.goto("/campaigns/new/")
    page.get_by_role("radio", name=re.compile("Describe an image")).check()
    page.get_by_role("radio", name=re.compile("^All images")).check()
    page.get_by_role("radio", name="prolific").check()
    page.get_by_label("Estimated minutes per submission", exact=True).fill("2")
    page.get_by_role("checkbox", name="desktop").check()
    page.get_by_label("Campaign name", exact=True).fill("On Prolific")
    page.get_by_label("Reward per assignment ($)", exact=True).fill("0.50")
    page.get_by_label("Assignments per HIT (workers per item)", exact=True).fill("1")
    page.get_by_label("Budget cap, fees included ($)", exact=True).fill("1.50")
    page.get_by_role("button", name="Review the cost").click()
    expect(page.get_by_role("heading", name="Review before creating")).to_be_visible()
    # Prolific adds 33.34 % (the calculator's answer): 0.17 per assignment of 0.50, rounded to the cent
    expect(page.locator('[data-estimate="fees"]')).to_have_text("0.68 (0.17 per assignment)")
    expect(page.locator('[data-estimate="total"]')).to_have_text("2.68")
    expect(page.locator('[data-estimate="fee-rule"]')).to_contain_text("Prolific's fees and VAT")
    expect(page.locator('[data-estimate="budget"]')).to_contain_text("lets 2 HIT(s) through")
    expect(page.get_by_role("button", name=re.compile("Create and publish"))).to_contain_text("1.34")  # 2 HITs of 0.67
    assert len(prolific_calculator.calls) == 1
    assert Campaign.objects.count() == 0
    shot(page, tmp_path, "wizard-prolific-review-laptop")
    page.set_viewport_size(PHONE)
    assert fits_width(page)
    shot(page, tmp_path, "wizard-prolific-review-phone")
    page.get_by_role("button", name="Create as draft").click()
    page.wait_for_url(re.compile(r"/campaigns/\d+/$"))
    campaign = Campaign.objects.get(name="On Prolific")
    assert campaign.provider == "prolific" and campaign.status == CampaignStatus.DRAFT
    assert campaign.qualifications == {"devices": ["desktop"], "estimated_minutes": 2}
