"""A self-contained HTML page for a content-selection report (`metrics.baselines.content_selection_report`).

One file, no external assets and no JavaScript: inline CSS and inline SVG line plots, so the page can be mailed,
archived or served as is. Figures follow Wang & Gaizauskas (2015): F against k for every baseline (its Figure 3), and P
(solid) and R (dashed) against k, one plot for the text priors and one for the visual cues (its Figure 4). Every
string that comes from the data (title, image keys, concepts, system names) goes through `html.escape`.
"""
from __future__ import annotations

from collections.abc import Sequence

from metrics.baselines import TEXT_SYSTEMS, VISUAL_SYSTEMS
from metrics.html.page import esc, html_page
from metrics.html.plots import LegendEntry, Series, line_plot

COLOURS = {
    "human upper bound": "#000000",
    "random": "#7f7f7f",
    "bbox_size": "#1f77b4",
    "bbox_position": "#2ca02c",
    "unigram": "#d62728",
    "bigram": "#9467bd",
    "unigram+position": "#ff7f0e",
    "bigram+position": "#8c564b",
}
SPARE_COLOURS = ("#17becf", "#bcbd22", "#e377c2", "#393b79", "#637939")


def colour_of(name: str, names: Sequence[str]) -> str:
    """The system's fixed colour, or a spare one chosen by its position among `names`."""
    if name in COLOURS:
        return COLOURS[name]
    return SPARE_COLOURS[list(names).index(name) % len(SPARE_COLOURS)] if name in names else SPARE_COLOURS[0]


def _points(rows: list[dict], field: str) -> list[tuple[float, float]]:
    return [(row["k"], row[field]) for row in rows]


def f_figure(report: dict) -> str:
    """Figure 3 of Wang & Gaizauskas (2015): F against k for every baseline, the human upper bound as a dashed line."""
    baselines, k_max = report["baselines"], report["k_max"]
    names = list(baselines)
    series = [Series(name, colour_of(name, names), _points(rows, "f_mean")) for name, rows in baselines.items()]
    legend = [LegendEntry(name, colour_of(name, names)) for name in names]
    upper = report.get("upper_bound") or {}
    if upper.get("images"):
        series.append(Series("human upper bound", COLOURS["human upper bound"],
                             [(1, upper["f_mean"]), (k_max, upper["f_mean"])], dashed=True))
        legend.append(LegendEntry("human upper bound", COLOURS["human upper bound"], dashed=True))
    return line_plot(series, legend, k_max, "F (mean over images)", "F against k for every baseline (Figure 3).")


def precision_recall_figure(report: dict, systems: Sequence[str], caption: str) -> str:
    """Figure 4 of Wang & Gaizauskas (2015): P (solid) and R (dashed) against k for a group of baselines."""
    baselines, k_max = report["baselines"], report["k_max"]
    names = list(baselines)
    present = [name for name in systems if name in baselines]
    series, legend = [], []
    for name in present:
        colour = colour_of(name, names)
        series.append(Series(f"{name} P", colour, _points(baselines[name], "p_mean")))
        series.append(Series(f"{name} R", colour, _points(baselines[name], "r_mean"), dashed=True))
        legend.append(LegendEntry(name, colour))
    legend += [LegendEntry("P (solid)", "#444"), LegendEntry("R (dashed)", "#444", dashed=True)]
    return line_plot(series, legend, k_max, "P and R (mean over images)", caption)


def _statistics_section(statistics: dict) -> str:
    per_image = statistics.get("descriptions_per_image", {})
    rows = [
        ("images", statistics.get("images")),
        ("gold descriptions", statistics.get("descriptions")),
        ("descriptions per image: mean / median / min / max",
         f'{per_image.get("mean", 0):.2f} / {per_image.get("median", 0):g} / {per_image.get("min", 0)} / '
         f'{per_image.get("max", 0)}'),
        ("gold descriptions without any linked box", statistics.get("descriptions_without_box")),
        ("unique boxes per description (all descriptions, zero-box ones included)",
         f'{statistics.get("mean_unique_boxes_per_description", 0):.2f}'),
        ("unique boxes per description (descriptions linking ≥ 1 box)",
         f'{statistics.get("mean_unique_boxes_per_linked_description", 0):.2f}'),
        ("boxes per image (mean)", f'{statistics.get("boxes_per_image_mean", 0):.2f}'),
        ("distinct concepts", statistics.get("concepts")),
    ]
    body = "".join(f"<tr><th>{esc(label)}</th><td class=num>{esc(value)}</td></tr>" for label, value in rows)
    top = statistics.get("top_concepts") or []
    concepts = ""
    if top:
        concept_rows = "".join(f'<tr><td>{esc(c["concept"])}</td><td class=num>{esc(c["boxes"])}</td>'
                               f'<td class=num>{esc(c["references"])}</td></tr>' for c in top)
        concepts = ("<h3>Most referenced concepts</h3><table><tr><th>concept</th><th>boxes</th>"
                    f"<th>references (description, unique box)</th></tr>{concept_rows}</table>")
    return f"<h2>Dataset statistics</h2><table>{body}</table>{concepts}"


def _upper_bound_section(upper: dict) -> str:
    if not upper.get("images"):
        return "<h2>Human upper bound</h2><p>No image has two gold descriptions that reference a box.</p>"
    return ("<h2>Human upper bound</h2><p>Each gold description scored against the image's other gold descriptions "
            f'({esc(upper["images"])} images): '
            f'P = {upper["p_mean"]:.2f} ± {upper["p_std"]:.2f}, R = {upper["r_mean"]:.2f} ± {upper["r_std"]:.2f}, '
            f'F = {upper["f_mean"]:.2f} ± {upper["f_std"]:.2f}.</p>')


def _table_section(table: list[dict]) -> str:
    if not table:
        return ("<h2>Table 1: content selection</h2><p>No figure: no image has a description with word-to-box "
                "links, so neither the systems nor the human upper bound can be scored.</p>")
    rows, previous = [], None
    for row in table:
        css = ' class="first"' if row["name"] != previous else ""
        previous = row["name"]
        k = "—" if row.get("k") is None else row["k"]
        rows.append(f'<tr{css}><td>{esc(row["name"])}</td><td class=num>{esc(k)}</td><td class=num>{esc(row["p"])}'
                    f'</td><td class=num>{esc(row["r"])}</td><td class=num>{esc(row["f"])}</td></tr>')
    return ("<h2>Table 1: content selection, mean ± standard deviation over images</h2>"
            "<table><tr><th>system</th><th>k</th><th>P</th><th>R</th><th>F</th></tr>" + "".join(rows) + "</table>")


def _images_section(report: dict) -> str:
    skipped = report.get("skipped") or []
    per_image = report.get("per_image") or []
    skipped_rows = "".join(f'<tr><td>{esc(s["key"])}</td><td>{esc(s["reason"])}</td></tr>' for s in skipped)
    score_rows = "".join(f'<tr><td>{esc(s["key"])}</td><td class=num>{s["p"]:.2f}</td><td class=num>{s["r"]:.2f}'
                         f'</td><td class=num>{s["f"]:.2f}</td></tr>' for s in per_image)
    return (f"<h2>Images</h2><details><summary>{len(skipped)} skipped images</summary>"
            f"<table><tr><th>image</th><th>reason</th></tr>{skipped_rows}</table></details>"
            f"<details><summary>Human upper bound per image ({len(per_image)} images)</summary>"
            f"<table><tr><th>image</th><th>P</th><th>R</th><th>F</th></tr>{score_rows}</table></details>")


def render_html(report: dict, title: str) -> str:
    """The whole report as one HTML page."""
    metric = report.get("metric", {})
    edge_cases = "".join(f"<li>{esc(case)}</li>" for case in metric.get("edge_cases", []))
    priors = f'<p>Text priors: {esc(report["priors"])}.</p>' if report.get("priors") else ""
    return html_page(title, [
        f'<h2>Metric: {esc(metric.get("name", "content selection"))}</h2>',
        f'<p class="formula">{esc(metric.get("definition", ""))}</p>',
        f"<h3>Edge cases</h3><ul>{edge_cases}</ul>",
        _statistics_section(report.get("statistics", {})),
        _upper_bound_section(report.get("upper_bound", {})),
        *(["<h2>Figures</h2>", priors, f_figure(report),
           precision_recall_figure(report, TEXT_SYSTEMS,
                                   "P (solid) and R (dashed) against k, text priors (Figure 4a)."),
           precision_recall_figure(report, VISUAL_SYSTEMS,
                                   "P (solid) and R (dashed) against k, visual cues (Figure 4b).")]
          if any(report.get("baselines", {}).values()) else []),
        _table_section(report.get("table", [])),
        _images_section(report),
    ])
