"""Reading a dataset card (an export's README.md) back into numbers, for the tests that compare it with the files
beside it and with the database: its list of counts, its campaign table and its worker tables."""
from __future__ import annotations

import re
from decimal import Decimal

_COUNT = re.compile(r"^- ([^:`]+): (\d+)$")
_UPPER_BOUND = re.compile(r"human upper bound F = (\d+\.\d+) ± (\d+\.\d+) over (\d+) images")


def card_counts(card: str) -> dict[str, int]:
    """The card's list of counts ("- Records: 8", "- Boxes: 8", ...) as {"records": 8, "boxes": 8, ...}: the keys
    lower-case, as the writers name them (underscores shown as spaces on the card)."""
    counts: dict[str, int] = {}
    for line in card.split("\n## ", 1)[0].splitlines():
        match = _COUNT.match(line)
        if match:
            counts[match.group(1).lower()] = int(match.group(2))
    return counts


def _table(lines: list[str]) -> list[dict[str, str]]:
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    return [dict(zip(header, (cell.strip() for cell in line.strip("|").split("|")), strict=True))
            for line in lines[2:]]


def _table_after(card: str, heading: str) -> list[str]:
    """The lines of the first Markdown table after the line `heading`."""
    lines = card.splitlines()
    start = lines.index(heading)
    table: list[str] = []
    for line in lines[start + 1:]:
        if line.startswith("|"):
            table.append(line)
        elif table:
            break
    return table


def campaign_table(card: str) -> dict[str, dict[str, str]]:
    """The "How it was collected" table by campaign name ({} when the card has none)."""
    if "## How it was collected" not in card:
        return {}
    return {row["campaign"]: row for row in _table(_table_after(card, "## How it was collected"))}


def worker_table(card: str, campaign: str) -> list[dict[str, str]] | None:
    """The worker-quality table of one campaign (None when its quality was not computed)."""
    lines = card.splitlines()
    heading = next((line for line in lines if line.startswith(f"**{campaign}**: ")), None)
    if heading is None or heading.endswith("not computed."):
        return None
    table = _table_after(card, heading)
    return _table(table) if table else []


def worker_totals(rows: list[dict[str, str]]) -> tuple[int, int, Decimal]:
    """Approved, rejected and pay added up over a worker table."""
    return (sum(int(row["approved"]) for row in rows), sum(int(row["rejected"]) for row in rows),
            sum((Decimal(row["pay (USD)"]) for row in rows), Decimal("0")))


def upper_bound(card: str) -> tuple[float, float, int] | None:
    """The content-selection human upper bound the card states (F mean, F std, images), or None."""
    match = _UPPER_BOUND.search(card)
    return None if match is None else (float(match.group(1)), float(match.group(2)), int(match.group(3)))
