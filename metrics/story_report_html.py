"""A self-contained HTML page for a stories report (`metrics.story_report.story_report`).

One file, no external assets, no JavaScript: the page of `metrics.html.page` and inline SVG plots (vocabulary per
tier, the histogram of per-story METEOR, METEOR against the mean rating when ratings exist). Every string that comes
from the data (title, story ids, words, crowd keys and values) goes through `html.escape`; the crowd figures are
tables (one row per campaign), never Python values printed as they are.
"""
from __future__ import annotations

from typing import Any

from metrics.correlation import describe_methods
from metrics.html.page import esc, html_page
from metrics.html.plots import bar_chart, histogram, scatter
from metrics.story_stats import TIER_NAMES

TITLE = "Stories and descriptions: metric report"
METRIC_LABELS = {"meteor": "METEOR", "bleu4": "BLEU-4", "cider": "CIDEr"}


def _value(value: Any, digits: int = 3) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return esc(value)


def _p_value(value: float | None) -> str:
    if value is None:
        return "—"
    return "< 1e-300" if value == 0 else f"{value:.1e}"  # only an approximation's p-value underflows to 0


def _tiers_section(report: dict[str, Any]) -> str:
    rows = "".join(
        f'<tr><td>{esc(TIER_NAMES.get(row["tier"], row["tier"]))}</td><td class=num>{esc(row["pairs"])}</td>'
        f'<td class=num>{esc(row["vocabulary"])}</td><td class=num>{esc(row["vocabulary_all"])}</td>'
        f'<td class=num>{_value(row["mean_tokens"], 1)}</td></tr>' for row in report["tiers"])
    figure = bar_chart([(row["tier"].upper(), row["vocabulary"]) for row in report["tiers"]], "vocabulary size",
                       "Vocabulary per tier (words seen more than once).") if report["tiers"] else ""
    return ("<h2>Table 2: the tiers</h2><table><tr><th>tier</th><th>text-image pairs</th>"
            "<th>vocabulary (seen &gt; 1 time)</th><th>vocabulary (all)</th><th>mean tokens per text</th></tr>"
            f"{rows}</table>{figure}")


def _top_words_section(report: dict[str, Any]) -> str:
    top, settings = report["top_words"], report["npmi"]
    if not top:
        return ""
    depth = max((len(words) for words in top.values()), default=0)
    header = "".join(f"<th>{esc(TIER_NAMES.get(tier, tier))}</th>" for tier in top)
    rows = []
    for rank in range(depth):
        cells = []
        for words in top.values():
            if rank < len(words):
                word = words[rank]
                cells.append(f'<td>{esc(word["word"])} <small>({word["npmi"]:.3f}, {esc(word["count"])}×)</small>'
                             "</td>")
            else:
                cells.append("<td></td>")
        rows.append(f'<tr><td class=num>{rank + 1}</td>{"".join(cells)}</tr>')
    return (f"<h2>Table 3: top words by normalized PMI</h2><p>Top {esc(settings['k'])} words per tier among those "
            f"seen at least {esc(settings['min_count'])} times in the tier (npmi, count in the tier).</p>"
            f'<table><tr><th>rank</th>{header}</tr>{"".join(rows)}</table>')


def _stories_section(report: dict[str, Any]) -> str:
    summary = report["stories"]
    sizes = ", ".join(f"{esc(count)} with {esc(size)} {'story' if size == '1' else 'stories'}"
                      for size, count in summary["stories_per_sequence"].items())
    rows = [("stories", summary["stories"]), ("albums", summary["albums"]), ("photo sequences", summary["sequences"]),
            ("sequences by number of stories", sizes or "—"), ("mean tokens per story",
                                                                _value(summary["tokens_per_story"], 1)),
            ("rated stories", summary["rated_stories"]), ("mean rating", _value(summary["rating_mean"], 2))]
    body = "".join(f"<tr><th>{esc(label)}</th><td class=num>{value}</td></tr>" for label, value in rows)
    return f"<h2>Stories</h2><table>{body}</table>"


def _sample_note(report: dict[str, Any]) -> str:
    notes = []
    sample = report.get("sample")
    if sample and sample["stories"] < sample["of"]:
        notes.append(f"Measured on a sample of {esc(sample['stories'])} of the {esc(sample['of'])} stories (whole "
                     "photo sequences, picked by a hash of their ids); the tier statistics use every text.")
    if report.get("meteor_error"):
        notes.append(f"No METEOR scores: {esc(report['meteor_error'])}")
    return "".join(f"<p class=note>{note}</p>" for note in notes)


def _agreement_section(report: dict[str, Any]) -> str:
    agreement = report["agreement"]
    row = "".join(f"<td class=num>{_value(agreement[f'{metric}_mean'])} ± {_value(agreement[f'{metric}_std'])}</td>"
                  for metric in METRIC_LABELS)
    header = "".join(f"<th>{label}</th>" for label in METRIC_LABELS.values())
    meteor = [story["meteor"] for story in agreement["per_story"] if story["meteor"] is not None]
    figure = histogram(meteor, 20, 0.0, 1.0, "METEOR against the other stories of the sequence",
                       "Per-story METEOR (inter-worker agreement).") if meteor else ""
    return ("<h2>Inter-worker agreement</h2><p>Each story scored against the other stories of the same photo "
            f"sequence: {esc(agreement['stories_scored'])} stories on {esc(agreement['sequences_scored'])} sequences; "
            f"{esc(agreement['stories_skipped'])} stories skipped (their sequence has no other story). "
            "Mean ± standard deviation over stories.</p>"
            f"<p class=note>{esc(report.get('meteor_setting', ''))}</p>"
            f"{_sample_note(report)}<table><tr>{header}<th>BLEU-4 (corpus)</th></tr><tr>{row}"
            f"<td class=num>{_value(agreement['bleu4_corpus'])}</td></tr></table>{figure}")


def _methods(table: dict[str, Any]) -> str:
    methods = describe_methods(table.values())
    return f" ({esc(methods)})" if methods else ""


def _correlations_section(report: dict[str, Any]) -> str:
    correlations = report["correlations"]
    if not correlations:
        return "<h2>Table 4: correlation with human ratings</h2><p>No story has a rating.</p>"
    table = correlations["table"]
    header = "".join(f"<th>{METRIC_LABELS.get(metric, esc(metric))}</th>" for metric in table)
    rows = []
    for label, value_key, p_key in (("Pearson r", "pearson_r", "pearson_p"),
                                    ("Spearman ρ", "spearman_rho", "spearman_p"),
                                    ("Kendall τ", "kendall_tau", "kendall_p")):
        cells = "".join(f"<td class=num>{_value(values[value_key], 2)} ({_p_value(values[p_key])})</td>"
                        for values in table.values())
        rows.append(f"<tr><th>{label}</th>{cells}</tr>")
    notes = "".join(f"<li>{METRIC_LABELS.get(metric, esc(metric))}: {esc(values['note'])}</li>"
                    for metric, values in table.items() if values.get("note"))
    points = [(story["meteor"], story["rating"]) for story in report["agreement"]["per_story"]
              if story["rating"] is not None and story["meteor"] is not None]
    low = min((rating for _, rating in points), default=1.0)
    high = max((rating for _, rating in points), default=5.0)
    figure = scatter(points, (0.0, 1.0), (min(1.0, low), max(5.0, high)), "METEOR", "mean rating",
                     "METEOR against the mean human rating, one dot per story.") if points else ""
    n = next(iter(table.values()))["n"] if table else 0
    return ("<h2>Table 4: correlation with human ratings</h2>"
            f"<p>{esc(n)} stories with a rating and scores; two-sided p-values in parentheses{_methods(table)}.</p>"
            f'<table><tr><th></th>{header}</tr>{"".join(rows)}</table>'
            f'{f"<ul>{notes}</ul>" if notes else ""}{figure}')


def _label(key: Any) -> str:
    return esc(str(key).replace("_", " "))


def _cell(value: Any) -> str:
    """One crowd figure: numbers as numbers, booleans as yes / no, nested lists and objects as tables."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return _value(value, 2)
    if isinstance(value, dict):
        rows = "".join(f"<tr><th>{_label(key)}</th><td>{_cell(item)}</td></tr>" for key, item in value.items())
        return f"<table>{rows}</table>"
    if isinstance(value, list):
        if value and all(isinstance(item, dict) for item in value):
            columns = list(dict.fromkeys(key for item in value for key in item))
            header = "".join(f"<th>{_label(column)}</th>" for column in columns)
            rows = "".join("<tr>" + "".join(f"<td>{_cell(item.get(column))}</td>" for column in columns) + "</tr>"
                           for item in value)
            return f"<table><tr>{header}</tr>{rows}</table>"
        return ", ".join(_cell(item) for item in value) or "—"
    return _value(value)


def _crowd_section(report: dict[str, Any]) -> str:
    """The crowd figures: one table per list of records (a row per campaign), the other figures as label / value."""
    crowd = report.get("crowd")
    if not crowd:
        return ""
    parts, rows = [], []
    for key, value in crowd.items():
        if isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
            parts.append(f"<h3>{_label(key)}</h3>{_cell(value)}")
        else:
            rows.append(f"<tr><th>{_label(key)}</th><td>{_cell(value)}</td></tr>")
    table = f"<table>{''.join(rows)}</table>" if rows else ""
    return f"<h2>Crowd</h2>{table}{''.join(parts)}"


def _per_story_section(report: dict[str, Any]) -> str:
    agreement = report["agreement"]
    rows = "".join(
        f'<tr><td>{esc(story["story_id"])}</td><td>{esc(story["album_id"])}</td>'
        f'<td>{esc(" ".join(story["sequence"]))}</td><td class=num>{esc(story["references"])}</td>'
        f'<td class=num>{_value(story["meteor"])}</td><td class=num>{_value(story["bleu4"])}</td>'
        f'<td class=num>{_value(story["cider"])}</td><td class=num>{_value(story["rating"], 2)}</td></tr>'
        for story in agreement["per_story"])
    skipped = ", ".join(esc(story_id) for story_id in agreement["skipped_story_ids"])
    return (f"<h2>Per-story scores</h2><details><summary>{len(agreement['per_story'])} scored stories</summary>"
            "<table><tr><th>story</th><th>album</th><th>photo sequence</th><th>other stories</th><th>METEOR</th>"
            f"<th>BLEU-4</th><th>CIDEr</th><th>rating</th></tr>{rows}</table></details>"
            f"<details><summary>Skipped stories ({agreement['stories_skipped']})</summary><p>{skipped}</p></details>")


def story_report_html(report: dict[str, Any], title: str = TITLE) -> str:
    """The whole report as one HTML page."""
    definitions = "".join(f"<li><b>{esc(name)}</b>: {esc(text)}</li>"
                          for name, text in report.get("definitions", {}).items())
    return html_page(title, [
        f"<h2>Definitions</h2><ul>{definitions}</ul>",
        _tiers_section(report),
        _top_words_section(report),
        _stories_section(report),
        _agreement_section(report),
        _correlations_section(report),
        _crowd_section(report),
        _per_story_section(report),
    ])
