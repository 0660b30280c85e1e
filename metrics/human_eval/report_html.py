"""A self-contained HTML page for a human evaluation's analysis (`metrics.human_eval.analyse`), to put beside a
paper: one file, no external assets, no JavaScript (metrics.html.page and inline SVG from metrics.html.plots).

Per aspect and design: each system's mean rating (or Bradley-Terry score) with its interval as a dot-and-whisker
plot and a table of the same figures; for preferences the win rates and the pairwise win matrix (cells coloured
by rate, with their number of judgements); the paired tests of every pair; Krippendorff's alpha; each automatic
metric against the human score at system level (a scatter plot and the correlations). Every string from the data
goes through `esc`."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from metrics.correlation import describe_methods
from metrics.html.page import esc, html_page
from metrics.html.plots import Estimate, interval_plot, scatter

METRIC_LABELS = {"bleu4": "BLEU-4", "cider": "CIDEr", "meteor": "METEOR", "rouge_l": "ROUGE-L",
                 "compositional_recall": "Compositional Recall@K"}
DESCRIPTION_LABELS = (("test_set", "Test set"), ("output_kind", "Outputs"), ("design", "Design"),
                      ("judges", "Judges per output or pair"), ("judgements", "Judgements analysed"),
                      ("analysed_at", "Analysed"), ("simulated", "Simulated"))
STYLE = """<style>
td.num { white-space: nowrap; } td.rate { text-align: center; } td.rate small { display: block; color: #444; }
td.diagonal { background: #f3f3f3; } p.note { color: #444; font-size: 0.95rem; }
</style>"""


def _number(value: Any, digits: int = 3) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return esc(value)


def _p(value: float | None) -> str:
    if value is None:
        return "—"
    if value == 0:  # only an approximation's p-value underflows; the exact and resampled ones are never 0
        return "< 1e-300"
    return f"{value:.3f}" if value >= 0.001 else f"{value:.1e}"


def _permutation_p(row: Mapping[str, Any]) -> str:
    """The permutation test's p-value with how it was computed: "exact", or ± its Monte-Carlo standard error."""
    if row.get("p_permutation") is None:
        return "—"
    if row.get("permutation_exact"):
        return f"{_p(row['p_permutation'])} <small>exact</small>"
    se = row.get("p_permutation_se")
    return _p(row["p_permutation"]) + (f" <small>± {se:.1e}</small>" if se is not None else "")


def _interval(low: float | None, high: float | None, digits: int = 2) -> str:
    if low is None or high is None:
        return "—"
    return f"[{low:.{digits}f}, {high:.{digits}f}]"


def metric_label(metric: str) -> str:
    return METRIC_LABELS.get(metric, metric)


def rate_colour(rate: float) -> str:
    """A light background for a win rate: white at 0.5, blue towards 1 (the row's system wins), red towards 0;
    light enough for dark text at either end."""
    lightness = 97 - abs(rate - 0.5) * 2 * 35
    hue = 210 if rate >= 0.5 else 0
    return f"hsl({hue}, 70%, {lightness:.0f}%)"


def _range(values: list[float], given: tuple[float, float] | None = None) -> tuple[float, float]:
    if given is not None:
        return given
    if not values:
        return (0.0, 1.0)
    low, high = min(values), max(values)
    pad = (high - low) * 0.1 or 0.5
    return (low - pad, high + pad)


def _description(settings: Mapping[str, Any], description: Mapping[str, Any]) -> str:
    rows = [(label, description.get(key)) for key, label in DESCRIPTION_LABELS if description.get(key) is not None]
    resampling = settings.get("rating_resampling", "items")
    over = "items" if resampling == "items" else f"{resampling} (ratings), items (preferences)"
    rows += [("Intervals", f"{settings.get('confidence', 0.95):.0%} {settings.get('interval', 'percentile')} "
                           f"bootstrap over {over}, {settings.get('resamples')} resamples")]
    if settings.get("permutation_resamples") is not None:
        rows.append(("Permutation tests", f"exact (every sign pattern) for a pair judged on up to "
                                          f"{settings.get('permutation_exact_items', 20)} items; above, "
                                          f"{settings['permutation_resamples']:,} random sign patterns"))
    rows += [
             ("Seed", description.get("seed", settings.get("seed"))), ("Ties", settings.get("ties"))]
    body = "".join(f'<tr><th scope="row">{esc(label)}</th><td>{esc(value)}</td></tr>' for label, value in rows
                   if value is not None)
    return f"<section><h2>The evaluation</h2><table>{body}</table></section>"


def _wilcoxon_p(row: Mapping[str, Any]) -> str:
    if row.get("p_wilcoxon") is None:
        return "—"
    exact = row.get("wilcoxon_exact")
    tag = " <small>exact</small>" if exact else " <small>normal approx.</small>" if exact is False else ""
    return _p(row["p_wilcoxon"]) + tag


def _comparison_notes(rows: list[dict[str, Any]], settings: Mapping[str, Any]) -> str:
    """What the p-values of the paired tests mean and how far they can be trusted, in plain sentences."""
    pairs = len(rows)
    notes = [f"Two-sided p-values, not corrected for multiple comparisons: with {pairs} pair"
             f"{'s' if pairs != 1 else ''} tested, about {pairs} × 0.05 = {pairs * 0.05:.2f} would fall below 0.05 by "
             "chance alone when no system differs; multiply a p-value by the number of pairs (Bonferroni) before "
             "claiming that a pair differs among all of them."]
    resamples = settings.get("resamples")
    if resamples:
        notes.append(f"p (bootstrap) counts the {resamples:,} bootstrap resamples whose mean difference falls on "
                     f"the other side of 0, so it cannot be smaller than 2 / ({resamples:,} + 1) = "
                     f"{_p(2 / (resamples + 1))}: at that value it means “at most about {_p(2 / (resamples + 1))}”.")
    exact = [row for row in rows if row.get("permutation_exact")]
    sampled = [row for row in rows if row.get("permutation_exact") is False]
    if exact:
        notes.append("p (permutation), marked exact: under the null hypothesis that the two systems are "
                     "interchangeable on each item, every one of the 2<sup>n</sup> ways of swapping or keeping the "
                     "two systems' results on the pair's n items was counted.")
    if sampled:
        count = sampled[0]["permutation_patterns"]
        notes.append(f"p (permutation) with ±: the pair was judged on more than "
                     f"{settings.get('permutation_exact_items', 20)} items, too many to count every way of swapping "
                     f"the systems' results, so {count:,} random swaps were drawn (Monte Carlo); ± is the standard "
                     f"error of the p-value due to that sampling, and no p-value can be below 2 / ({count:,} + 1) "
                     f"= {_p(2 / (count + 1))}.")
    if any("p_wilcoxon" in row for row in rows):
        notes.append("p (Wilcoxon): the signed-rank test on the items where the two systems' mean ratings differ; "
                     "exact where marked (every way of giving the ranks of the differences a sign counted), else "
                     "the normal approximation (more than 50 such items, or more than 20 with tied differences).")
    return "".join(f'<p class="note">{note}</p>' for note in notes)


def _comparisons(rows: list[dict[str, Any]], rating: bool, settings: Mapping[str, Any]) -> str:
    if not rows:
        return ""
    wilcoxon = '<th scope="col">p (Wilcoxon)</th>' if rating else ""
    difference = "mean rating difference (a − b)" if rating else "mean preference for a (wins − losses)"
    body = []
    for row in rows:
        cells = (f'<td>{esc(row["a"])}</td><td>{esc(row["b"])}</td><td class="num">{_number(row["items"])}</td>'
                 f'<td class="num">{_number(row["mean_difference"])}</td>'
                 f'<td class="num">{_interval(row["low"], row["high"], 3)}</td>'
                 f'<td class="num">{_p(row["p_bootstrap"])}</td><td class="num">{_permutation_p(row)}</td>')
        if rating:
            cells += f'<td class="num">{_wilcoxon_p(row)}</td>'
        body.append(f"<tr>{cells}</tr>")
    return ("<h4>Is a better than b? Paired tests on items</h4>"
            f'<div class="scroll"><table><thead><tr><th scope="col">a</th><th scope="col">b</th>'
            f'<th scope="col">items</th><th scope="col">{difference}</th><th scope="col">interval</th>'
            f'<th scope="col">p (bootstrap)</th><th scope="col">p (permutation)</th>{wilcoxon}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table></div>{_comparison_notes(rows, settings)}')


def _correlations(correlation: Mapping[str, Any] | None, human: Mapping[str, float],
                  automatic: Mapping[str, Mapping[str, float | None]], human_label: str,
                  human_range: tuple[float, float] | None) -> str:
    if not correlation:
        return ""
    parts = ["<h4>Automatic metrics against the human judgements</h4>"]
    levels = [(level, correlation[level]) for level in ("system", "segment") if correlation.get(level)]
    header = "".join(f'<th scope="col">{esc(label)}</th>' for label in
                     ("metric", "level", "points", "Pearson r (p)", "Spearman ρ (p)", "Kendall τ (p)", "note"))
    body = []
    for level, table in levels:
        for metric, values in table.items():
            body.append(f'<tr><th scope="row">{esc(metric_label(metric))}</th><td>{esc(level)}</td>'
                        f'<td class="num">{_number(values.get("n"))}</td>'
                        f'<td class="num">{_number(values.get("pearson_r"))} ({_p(values.get("pearson_p"))})</td>'
                        f'<td class="num">{_number(values.get("spearman_rho"))} ({_p(values.get("spearman_p"))})</td>'
                        f'<td class="num">{_number(values.get("kendall_tau"))} ({_p(values.get("kendall_p"))})</td>'
                        f'<td>{esc(values.get("note") or "")}</td></tr>')
    parts.append(f'<div class="scroll"><table><thead><tr>{header}</tr></thead><tbody>{"".join(body)}</tbody>'
                 "</table></div>")
    methods = [f"{level} level, {esc(describe_methods(table.values()))}" for level, table in levels
               if describe_methods(table.values())]
    if methods:
        parts.append(f'<p class="note">Two-sided p-values in parentheses, computed as follows: {"; ".join(methods)}.'
                     " “Exact” counts every way of pairing the metric's scores with the human scores, so with n "
                     "points no exact p-value is below 2 / n! (1/3 for 3 systems in the same order).</p>")
    for metric in (correlation.get("system") or {}):
        points = [(name, automatic.get(name, {}).get(metric), score) for name, score in human.items()]
        present = [(name, float(x), float(y)) for name, x, y in points if x is not None]
        if not present:
            continue
        label = metric_label(metric)
        figure = scatter([(x, y) for _, x, y in present], _range([x for _, x, _ in present]),
                         _range([y for _, _, y in present], human_range), f"{label} (system score)", human_label,
                         f"{label} against {human_label}, one dot per system.")
        rows = "".join(f'<tr><th scope="row">{esc(name)}</th><td class="num">{x:.3f}</td>'
                       f'<td class="num">{y:.3f}</td></tr>' for name, x, y in present)
        parts.append(f'{figure}<div class="scroll"><table aria-label="{esc(label)} against {esc(human_label)}">'
                     f'<thead><tr><th scope="col">system</th><th scope="col">{esc(label)}</th>'
                     f'<th scope="col">{esc(human_label)}</th></tr></thead><tbody>{rows}</tbody></table></div>')
    return "".join(parts)


def _rating_section(aspect: str, figures: Mapping[str, Any], question: str, scale: int | None,
                    automatic: Mapping[str, Mapping[str, float | None]], settings: Mapping[str, Any]) -> str:
    systems = figures["systems"]
    rows = [Estimate(name, row["mean"], row["low"], row["high"]) for name, row in systems.items()]
    values = [value for row in rows for value in (row.value, row.low, row.high) if value is not None]
    span = (1.0, float(scale)) if scale else (min([1.0, *values]), max([5.0, *values]))
    plot = interval_plot(rows, span, "mean rating", f"Mean rating on {aspect}, with its interval.",
                         value_header="mean rating")
    counts = "".join(f'<tr><th scope="row">{esc(name)}</th><td class="num">{_number(row["ratings"])}</td>'
                     f'<td class="num">{_number(row["items"])}</td></tr>' for name, row in systems.items())
    alpha = figures.get("alpha_ordinal")
    correlations = _correlations(figures.get("correlation"), {n: r["mean"] for n, r in systems.items()}, automatic,
                                 "mean rating", span)
    return (f'<section><h3>Ratings: {esc(aspect)}</h3>{f"<p>{esc(question)}</p>" if question else ""}'
            f'<p>{_number(figures["ratings"])} ratings of {_number(figures["items"])} items by '
            f'{_number(figures["judges"])} judges.</p>{plot}'
            f'<div class="scroll"><table aria-label="Ratings per system on {esc(aspect)}"><thead><tr>'
            '<th scope="col">system</th><th scope="col">ratings</th><th scope="col">items</th></tr></thead>'
            f"<tbody>{counts}</tbody></table></div>"
            f"{_comparisons(figures.get('comparisons') or [], rating=True, settings=settings)}"
            f"<h4>Agreement</h4><p>Krippendorff's alpha (ordinal): "
            f"{_number(alpha) if alpha is not None else '— (undefined: no output rated twice, or one value only)'}"
            "</p>"
            f"{correlations}</section>")


def _win_matrix(figures: Mapping[str, Any]) -> str:
    matrix = figures["win_matrix"]
    names, rates = matrix["systems"], matrix["rates"]
    judged = {}
    for pair in figures.get("pairs") or []:
        judged[(pair["a"], pair["b"])] = judged[(pair["b"], pair["a"])] = pair["judgements"]
    header = "".join(f'<th scope="col">{esc(name)}</th>' for name in names)
    body = []
    for i, name in enumerate(names):
        cells = []
        for j, other in enumerate(names):
            rate = rates[i][j]
            if i == j:
                cells.append('<td class="diagonal"></td>')
            elif rate is None:
                cells.append('<td class="rate">—</td>')
            else:
                cells.append(f'<td class="rate" style="background: {rate_colour(rate)}">{rate:.2f}'
                             f'<small>n={esc(judged.get((name, other), 0))}</small></td>')
        body.append(f'<tr><th scope="row">{esc(name)}</th>{"".join(cells)}</tr>')
    return ("<h4>Win matrix</h4><p>The share of the judgements between the row's system and the column's that the "
            "row's system won (ties as half a win), and the number of judgements n; blue: the row wins more "
            "often, red: less often.</p>"
            f'<div class="scroll"><table class="win-matrix"><thead><tr><th scope="col">row beats column</th>'
            f'{header}</tr></thead><tbody>{"".join(body)}</tbody></table></div>')


def _regularisation_notes(figures: Mapping[str, Any], settings: Mapping[str, Any]) -> list[str]:
    """Why a Bradley-Terry fit was regularised and what that does to the scores and their intervals."""
    notes = []
    if figures.get("regularised"):
        notes.append("Some system, or group of systems, never won a judgement against the others, so the "
                     "Bradley-Terry scores that best fit the judgements do not exist (the gap to that system would "
                     "be infinite). The scores were fitted with a small regularisation instead (choix's alpha = "
                     "0.01, a pseudo-count between every pair of systems): their order holds, but the size of the "
                     "gap to such a system reflects that choice, not the judgements.")
    count = figures.get("regularised_resamples")
    resamples = settings.get("resamples")
    if count and resamples:
        tail = (1 - float(settings.get("confidence", 0.95))) / 2
        share = count / resamples
        effect = ("more than the share of resamples left outside each end of the interval "
                  f"({tail:.1%}), so the intervals' outer ends come from these regularised fits, not from the "
                  "judgements alone: read them as open-ended") if share > tail else (
                  f"no more than the share of resamples left outside each end of the interval ({tail:.1%}): "
                  "such extreme fits fall in the tails that the interval leaves out, and its ends come from "
                  "ordinary fits")
        notes.append(f"In {count:,} of the {resamples:,} bootstrap resamples ({share:.0%}), the resampled items "
                     "left some system without a win against the others, so its score had no finite best fit; "
                     f"those resamples were fitted with the same regularisation. That is {effect}.")
    elif count:
        notes.append(f"{count:,} bootstrap resamples left some system without a win against the others and were "
                     "fitted with the same regularisation.")
    return notes


def _preference_section(aspect: str, figures: Mapping[str, Any], question: str,
                        automatic: Mapping[str, Mapping[str, float | None]], settings: Mapping[str, Any]) -> str:
    systems = figures["bradley_terry"]
    rows = [Estimate(name, row["score"], row["low"], row["high"]) for name, row in systems.items()]
    values = [value for row in rows for value in (row.value, row.low, row.high) if value is not None]
    plot = interval_plot(rows, _range(values), "Bradley-Terry score (log strength, centred at 0)",
                         f"Bradley-Terry score on {aspect}, with its interval.", value_header="score")
    win_rows = [Estimate(name, row["win_rate"], row.get("win_low"), row.get("win_high"))
                for name, row in systems.items() if row.get("win_rate") is not None]
    wins = interval_plot(win_rows, (0.0, 1.0), "win rate (ties as half a win)",
                         f"Win rate on {aspect} against every other system, with its interval.",
                         value_header="win rate") if win_rows else ""
    notes = [esc(note) for note in _regularisation_notes(figures, settings)]
    pairs = "".join(
        f'<tr><td>{esc(p["a"])}</td><td>{esc(p["b"])}</td><td class="num">{esc(p["judgements"])}</td>'
        f'<td class="num">{esc(p["wins_a"])}</td><td class="num">{esc(p["wins_b"])}</td>'
        f'<td class="num">{esc(p["ties"])}</td><td class="num">{_number(p["win_rate_a"])}</td></tr>'
        for p in figures.get("pairs") or [])
    alpha = figures.get("alpha_nominal")
    correlations = _correlations(figures.get("correlation"), {n: r["score"] for n, r in systems.items()}, automatic,
                                 "Bradley-Terry score", None)
    return (f'<section><h3>Preferences: {esc(aspect)}</h3>{f"<p>{esc(question)}</p>" if question else ""}'
            f'<p>{_number(figures["judgements"])} judgements on {_number(figures["items"])} items by '
            f'{_number(figures["judges"])} judges. P(a preferred to b) = 1 / (1 + e<sup>s<sub>b</sub> − '
            "s<sub>a</sub></sup>).</p>"
            f'{"".join(f"<p class=note>{note}</p>" for note in notes)}{plot}{wins}{_win_matrix(figures)}'
            '<h4>Pairs</h4><div class="scroll"><table><thead><tr><th scope="col">a</th><th scope="col">b</th>'
            '<th scope="col">judgements</th><th scope="col">a wins</th><th scope="col">b wins</th>'
            '<th scope="col">ties</th><th scope="col">a\'s win rate</th></tr></thead>'
            f"<tbody>{pairs}</tbody></table></div>"
            f"{_comparisons(figures.get('comparisons') or [], rating=False, settings=settings)}"
            f"<h4>Agreement</h4><p>Krippendorff's alpha (nominal): "
            f"{_number(alpha) if alpha is not None else '— (undefined: no pair judged twice, or one value only)'}"
            "</p>"
            f"{correlations}</section>")


def human_eval_report_html(analysis: Mapping[str, Any], *, title: str = "Human evaluation",
                           description: Mapping[str, Any] | None = None,
                           automatic: Mapping[str, Mapping[str, float | None]] | None = None,
                           questions: Mapping[str, str] | None = None,
                           scales: Mapping[str, int] | None = None) -> str:
    """The whole report as one HTML page. `automatic`: {system: {metric: system score}} (the scatter plots'
    x); `questions`: {aspect: the question asked}; `scales`: {aspect: number of points} (the rating plots' x)."""
    automatic = automatic or {}
    questions = questions or {}
    scales = scales or {}
    settings = analysis.get("settings") or {}
    sections = [STYLE, _description(settings, description or {})]
    ratings = analysis.get("ratings") or {}
    preferences = analysis.get("preferences") or {}
    if not ratings and not preferences:
        sections.append("<p>No judgement has been analysed yet.</p>")
    for aspect, figures in ratings.items():
        sections.append(_rating_section(aspect, figures, questions.get(aspect, ""), scales.get(aspect),
                                        automatic, settings))
    for aspect, figures in preferences.items():
        sections.append(_preference_section(aspect, figures, questions.get(aspect, ""), automatic, settings))
    return html_page(title, sections)
