"""A self-contained HTML page for a compositional evaluation (the result a stored CompositionalEvaluation holds).

One file, no external assets, no JavaScript: the page of `metrics.html.page` and inline SVG bar charts in the
layout of `metrics.html.plots` on a fixed 0-100 axis (Recall@K of each pair, one chart per category, and the
average recall by reference agreement), scaled down to a phone's width. Recall is shown in percent, as the seed
reports it. A figure whose denominator is empty shows as "—" with its 0 images, never as 0. Every string that comes
from the data (system, pair and category names, captions, notes) goes through `html.escape`.

The result it reads (as the evaluation service stores it): system, k, parser, split {mode, seed, eval_images, heldout},
recall (`RecallReport.to_json()`), examples, caption_metrics (`caption_metrics`), uploaded {images, captions,
short_images, long_images, ignored_images}, notes, definitions.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from metrics.html.page import esc, html_page
from metrics.html.plots import BAR, BOTTOM, HEIGHT, LEFT, PLOT_H, PLOT_W, TOP, WIDTH

KIND_LABELS = {"adjective_noun": "adjective–noun", "noun_verb": "noun–verb"}
SCROLL = '<div style="overflow-x:auto">{}</div>'


def recall_chart(bars: list[tuple[str, float]], y_label: str, caption: str, x_label: str) -> str:
    """Bars of recall in percent on a fixed 0-100 axis (so that plots of different categories compare), each bar
    labelled with its value, long labels in two rows; the plot scales down to the page's width (a phone's)."""
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{WIDTH}" height="{HEIGHT}" '
             f'viewBox="0 0 {WIDTH} {HEIGHT}" style="max-width:100%;height:auto" aria-label="{esc(caption)}">'
             f"<title>{esc(caption)}</title>"]
    for tick in range(0, 101, 20):
        y = TOP + PLOT_H - tick / 100 * PLOT_H
        parts.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{LEFT + PLOT_W}" y2="{y:.1f}" stroke="#eee"/>'
                     f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{tick}</text>')
    parts.append(f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{TOP + PLOT_H}" stroke="#222"/>'
                 f'<line x1="{LEFT}" y1="{TOP + PLOT_H}" x2="{LEFT + PLOT_W}" y2="{TOP + PLOT_H}" stroke="#222"/>')
    middle = TOP + PLOT_H / 2
    parts.append(f'<text x="14" y="{middle:.1f}" text-anchor="middle" transform="rotate(-90 14 {middle:.1f})">'
                 f"{esc(y_label)}</text>")
    slot = PLOT_W / max(len(bars), 1)
    bar_w = min(slot * 0.6, 60.0)
    stagger = slot < 7.5 * max((len(label) for label, _ in bars), default=0)  # long labels: two rows
    for index, (label, value) in enumerate(bars):
        label_y = TOP + PLOT_H + 17 + (13 if stagger and index % 2 else 0)
        height = min(max(value, 0.0), 100.0) / 100 * PLOT_H
        centre = LEFT + (index + 0.5) * slot
        y = TOP + PLOT_H - height
        parts.append(f'<rect x="{centre - bar_w / 2:.1f}" y="{y:.1f}" width="{bar_w:.1f}" height="{height:.1f}" '
                     f'fill="{BAR}"><title>{esc(label)}: {value:.1f}</title></rect>'
                     f'<text x="{centre:.1f}" y="{y - 4:.1f}" text-anchor="middle">{value:.1f}</text>'
                     f'<text x="{centre:.1f}" y="{label_y}" text-anchor="middle">{esc(label)}</text>')
    if x_label:
        parts.append(f'<text x="{LEFT + PLOT_W / 2:.1f}" y="{HEIGHT - BOTTOM + 42}" text-anchor="middle">'
                     f"{esc(x_label)}</text>")
    parts.append("</svg>")
    return f'<figure>{"".join(parts)}<figcaption>{esc(caption)}</figcaption></figure>'


def percent(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}"


def _number(value: float | None, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def _figure_cell(figure: Mapping[str, Any]) -> str:
    return (f'<td class=num>{percent(figure["recall"])} <small>({esc(figure["images"])} '
            f'image{"" if figure["images"] == 1 else "s"})</small></td>')


def _summary_section(result: Mapping[str, Any]) -> str:
    recall, k = result["recall"], result["k"]
    rows = [f'<tr><th scope=row>average over pairs</th><td class=num>{percent(recall["average"]["recall"])}</td>'
            f'<td class=num>{esc(recall["average"]["pairs"])}</td><td class=num>{esc(recall["average"]["images"])}'
            "</td></tr>"]
    rows += [f'<tr><td>{esc(row["category"])}</td><td class=num>{percent(row["recall"])}</td>'
             f'<td class=num>{esc(row["pairs"])}</td><td class=num>{esc(row["images"])}</td></tr>'
             for row in recall["categories"]]
    split = result.get("split", {})
    uploaded = result.get("uploaded", {})
    facts = [
        f"System <strong>{esc(result['system'])}</strong>, K = {esc(k)}, captions parsed by "
        f"<code>{esc(result.get('parser', ''))}</code>.",
        f"{esc(split.get('eval_images', 0))} evaluation images (split mode {esc(split.get('mode', ''))}, seed "
        f"<code>{esc(split.get('seed', ''))}</code>"
        + (f", eval share {esc(split.get('eval_share'))}" if split.get("mode") == "seeded" else "")
        + "; corpus: " + (f"the approved captions of campaigns {esc(', '.join(map(str, split['campaigns'])))}"
                          if split.get("campaigns") else "every description")
        + f"); {esc(uploaded.get('images', 0))} images and {esc(uploaded.get('captions', 0))} captions uploaded.",
    ]
    notes = "".join(f"<li>{esc(note)}</li>" for note in result.get("notes", []))
    table = (f"<table><caption>Recall@{esc(k)} (%) per category and on average</caption>"
             "<tr><th scope=col>category</th><th scope=col>Recall@K (%)</th><th scope=col>pairs averaged</th>"
             f"<th scope=col>evaluation images</th></tr>{''.join(rows)}</table>")
    return (f"<h2>Recall@{esc(k)}</h2><p>{' '.join(facts)}</p>" + SCROLL.format(table)
            + (f"<h3>Notes</h3><ul>{notes}</ul>" if notes else ""))


def _pairs_section(result: Mapping[str, Any]) -> str:
    recall = result["recall"]
    levels = len(recall["by_agreement"])
    header = "".join(f"<th scope=col>≥ {n} refs</th>" for n in range(1, levels + 1))
    rows = []
    for row in recall["pairs"]:
        cells = "".join(_figure_cell(figure) for figure in row["by_agreement"])
        rows.append(f'<tr><th scope=row>{esc(row["name"])}</th><td>{esc(KIND_LABELS.get(row["kind"], row["kind"]))}'
                    f'</td><td>{esc(row["category"])}</td><td>{esc(row["heldout_group"])}</td>'
                    f'<td class=num>{esc(row["images"])}</td><td class=num>{esc(row["hits"])}</td>'
                    f'<td class=num>{percent(row["recall"])}</td>{cells}</tr>')
    averages = "".join(_figure_cell({"recall": mean["recall"], "images": mean["images"]})
                       for mean in recall["by_agreement"])
    rows.append(f'<tr class=first><th scope=row colspan=6>average over pairs</th>'
                f'<td class=num>{percent(recall["average"]["recall"])}</td>{averages}</tr>')
    table = ("<table><caption>Recall@K (%) per pair, and restricted to the images where at least n reference "
             "captions contain the pair</caption><tr><th scope=col>pair</th><th scope=col>kind</th>"
             "<th scope=col>category</th><th scope=col>held-out group</th><th scope=col>images</th>"
             f"<th scope=col>recalled</th><th scope=col>Recall@K</th>{header}</tr>{''.join(rows)}</table>")
    return "<h2>Per pair</h2>" + SCROLL.format(table) + _examples_section(result)


def _examples_section(result: Mapping[str, Any]) -> str:
    examples = result.get("examples") or {}
    rows = "".join(f"<tr><th scope=row>{esc(name)}</th><td>{esc(row['image'])}</td><td class=num>{esc(row['rank'])}"
                   f"</td><td>{esc(row['caption'])}</td></tr>"
                   for name, found in examples.items() for row in found)
    if not rows:
        return ""
    return ("<details><summary>Recalled images: the first few per pair, with the generated caption that holds the "
            "pair</summary>" + SCROLL.format("<table><tr><th scope=col>pair</th><th scope=col>image</th>"
                                             f"<th scope=col>rank</th><th scope=col>caption</th></tr>{rows}</table>")
            + "</details>")


def _plots_section(result: Mapping[str, Any]) -> str:
    recall, k = result["recall"], result["k"]
    figures = []
    for category in recall["categories"]:
        name = category["category"]
        pairs = [row for row in recall["pairs"] if (row["category"] or "uncategorised") == name]
        bars = [(row["name"], 100 * row["recall"]) for row in pairs if row["recall"] is not None]
        empty = [row["name"] for row in pairs if row["recall"] is None]
        caption = f"Recall@{k} (%) of the {name} pairs"
        if empty:
            caption += f" (no evaluation image, not drawn: {', '.join(empty)})"
        figures.append(recall_chart(bars, f"Recall@{k} (%)", caption, "") if bars
                       else f"<p>{esc(caption)}.</p>")
    agreement = [(f"≥ {n}", 100 * mean["recall"]) for n, mean in enumerate(recall["by_agreement"], 1)
                 if mean["recall"] is not None]
    if agreement:
        figures.append(recall_chart(agreement, f"Recall@{k} (%)", f"Average Recall@{k} (%) over the images where at "
                                    "least n reference captions contain the pair", "n"))
    return "<h2>Figures</h2>" + "".join(figures)


def _caption_metrics_section(result: Mapping[str, Any]) -> str:
    metrics = result.get("caption_metrics") or {}
    if not metrics:
        return ""
    definitions = metrics.get("definitions", {})
    meteor_note = (f'<p>No METEOR: {esc(metrics["meteor_error"])}</p>' if metrics.get("meteor_error") else "")
    rows = "".join(f"<tr><th scope=row>{label}</th><td class=num>{_number(metrics.get(key))}</td>"
                   f"<td>{esc(definitions.get(key, ''))}</td></tr>"
                   for label, key in (("BLEU-4", "bleu4"), ("METEOR", "meteor"), ("CIDEr", "cider")))
    return ("<h2>Caption metrics</h2><p>Each evaluation image's first generated caption against its "
            f"reference captions ({esc(metrics.get('images', 0))} images; "
            f"{esc(definitions.get('tokens', ''))}).</p>"
            + SCROLL.format("<table><tr><th scope=col>metric</th><th scope=col>score</th><th scope=col>definition"
                            f"</th></tr>{rows}</table>") + meteor_note)


def _definitions_section(result: Mapping[str, Any]) -> str:
    items = "".join(f"<dt>{esc(name)}</dt><dd>{esc(text)}</dd>"
                    for name, text in result.get("definitions", {}).items())
    return f"<h2>Definitions</h2><p>K = {esc(result['k'])}.</p><dl>{items}</dl>"


def compositional_report_html(result: Mapping[str, Any], title: str = "") -> str:
    """The whole evaluation as one HTML page."""
    title = title or f"Compositional generalization: {result['system']} (Recall@{result['k']})"
    return html_page(title, [_summary_section(result), _plots_section(result), _pairs_section(result),
                             _caption_metrics_section(result), _definitions_section(result)])
