"""The dataset card (`README.md` of an export) as HTML for the console: CommonMark with tables (markdown-it-py,
raw HTML in the text shown as text), then sanitised by an allow-list (nh3), so that a campaign's name or
instructions can never bring markup or script into the page."""
from __future__ import annotations

import nh3
from markdown_it import MarkdownIt

_MARKDOWN = MarkdownIt("commonmark", {"html": False}).enable("table")

TAGS = {"h1", "h2", "h3", "h4", "h5", "h6", "p", "br", "hr", "blockquote", "ul", "ol", "li", "strong", "em",
        "code", "pre", "a", "table", "thead", "tbody", "tr", "th", "td"}
ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}}


def card_html(text: str) -> str:
    """The card's Markdown rendered and sanitised: only the tags and attributes above, links to http(s) and
    mailto only."""
    return nh3.clean(_MARKDOWN.render(text), tags=TAGS, attributes=ATTRIBUTES,
                     url_schemes={"http", "https", "mailto"})
