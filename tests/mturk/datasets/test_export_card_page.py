"""The dataset card shown as a console page: Markdown rendered as HTML (markdown-it-py), sanitised (nh3), with the
console's layout, a way back to the exports and the campaigns, and a policy that lets no script run."""
from __future__ import annotations

import pytest
from django.urls import reverse

from mturk.datasets.card_html import card_html
from mturk.datasets.services.exports import build_export, request_export
from mturk.models import Campaign, DatasetExport
from tests.factories import make_campaign

pytestmark = pytest.mark.django_db

SCRIPT = "<script>alert(1)</script>"


@pytest.fixture
def card_export(researcher) -> tuple[DatasetExport, Campaign]:
    campaign = make_campaign(images=1, name=f"street {SCRIPT}")
    Campaign.objects.filter(pk=campaign.pk).update(
        instructions=f'Describe the photo. <img src=x onerror="alert(2)"> [click](javascript:alert(3))\n{SCRIPT}')
    campaign.refresh_from_db()
    export = build_export(request_export("imageclef", [campaign], researcher))
    assert export.status == DatasetExport.Status.DONE
    return export, campaign


def test_the_card_is_rendered_as_html_in_the_console_layout_with_a_way_back(researcher_client, card_export):
    export, campaign = card_export
    response = researcher_client.get(reverse("export-report", args=[export.pk, "README.md"]))
    assert response.status_code == 200
    page = response.content.decode()
    assert '<nav class="console" aria-label="Console">' in page  # the console's layout
    assert '<a href="/exports/">← Exports</a>' in page
    assert f'<a href="/campaigns/{campaign.pk}/">street &lt;script&gt;alert(1)&lt;/script&gt;</a>' in page
    assert "<h1>Dataset: imageclef export</h1>" in page and "<h2>How it was collected</h2>" in page
    assert "<table>" in page and "<th>campaign</th>" in page  # the Markdown table as a table
    assert "<pre>" not in page and "# Dataset:" not in page  # not raw Markdown any more


def test_markup_in_the_card_is_shown_as_text_and_no_script_can_run(researcher_client, card_export):
    export, _ = card_export
    response = researcher_client.get(reverse("export-report", args=[export.pk, "README.md"]))
    page = response.content.decode()
    card = page[page.index('<article class="card dataset-card"'): page.index("</article>")]
    assert "<script" not in card and "<img" not in card and "javascript:" not in card.replace(
        "[click](javascript:alert(3))", "")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in card
    policy = response["Content-Security-Policy"]
    assert "default-src 'none'" in policy and "script-src" not in policy  # no script from anywhere
    assert response["X-Content-Type-Options"] == "nosniff"


@pytest.mark.parametrize("markdown, html", [
    ("<script>alert(1)</script>", "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>"),
    ("[x](javascript:alert(1))", "<p>[x](javascript:alert(1))</p>"),
    ('<a href="https://e.org" onclick="x()">a</a>',
     '<p>&lt;a href="https://e.org" onclick="x()"&gt;a&lt;/a&gt;</p>'),
    ("[docs](https://example.org)", '<p><a href="https://example.org" rel="noopener noreferrer">docs</a></p>'),
    ("| a |\n|---|\n| **b** |", "<table>\n<thead>\n<tr>\n<th>a</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n"
                                "<td><strong>b</strong></td>\n</tr>\n</tbody>\n</table>"),
])
def test_card_html_renders_markdown_and_keeps_no_markup_of_its_own(markdown, html):
    assert card_html(markdown).strip() == html
