"""The page shell every HTML report uses (content selection, stories, compositional): one self-contained file,
the shared inline CSS, the title, then the sections; `esc` for every string that comes from the data."""
from __future__ import annotations

import html
import re
from collections.abc import Sequence

CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto; max-width: 70rem;
       padding: 0 1rem; color: #222; line-height: 1.45; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.25rem; margin-top: 2rem; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: 0.5rem 0; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #ccc; padding: 0.2rem 0.6rem; text-align: left; }
th { background: #f3f3f3; } td.num { text-align: right; }
tr.first td { border-top: 2px solid #888; }
figure { margin: 1rem 0; } figcaption { font-size: 0.9rem; color: #444; }
svg { max-width: 100%; height: auto; } .scroll { overflow-x: auto; max-width: 100%; }
svg text { font-family: system-ui, sans-serif; font-size: 12px; fill: #222; }
code, .formula { font-family: ui-monospace, monospace; }
"""


def esc(value: object) -> str:
    return html.escape(str(value), quote=True)


def html_page(title: str, sections: Sequence[str]) -> str:
    """A self-contained report page: the shared CSS, the title, then the sections (already HTML)."""
    return "\n".join([
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{esc(title)}</title><style>{CSS}</style></head><body>",
        f"<h1>{esc(title)}</h1>",
        *sections,
        "</body></html>",
    ])


BACK_STYLE = "margin: 0 0 1rem; font-size: .95rem;"


def with_back_link(page: str, href: str, label: str) -> str:
    """A report as the console serves it: a link back to the page it was opened from, first in its body (the
    stored report stays as it was written). `target="_top"`: from a framed copy the sandbox blocks it."""
    link = (f'<nav aria-label="Back" style="{BACK_STYLE}"><a href="{esc(href)}" target="_top">'
            f"\u2190 {esc(label)}</a></nav>")
    body = re.search(r"<body[^>]*>", page, re.IGNORECASE)
    at = body.end() if body else 0
    return page[:at] + link + page[at:]
