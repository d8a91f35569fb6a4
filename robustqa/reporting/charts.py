"""The one chart module: the headline chart (report folder, `robustqa report`, notebook) and breakdown bars.

matplotlib loads only when a chart is drawn, and figures are drawn on their own Agg canvas, never through
pyplot's global state, so the library never changes a caller's backend (the notebook displays the figures
it gets, or passes its own axes).
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from robustqa.reporting.tables import short_model_name as short_model

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from robustqa.reporting.headline import HeadlineRow
    from robustqa.reporting.tables import ModelRow

CLEAN_COLOR = "#4c72b0"
PERTURBED_COLOR = "#dd8452"


def _figure(width: float, height: float) -> Figure:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def error_bars(rows: Sequence[Mapping[str, Any]], value_key: str, interval_key: str) -> list[list[float]] | None:
    """Asymmetric error bars (below, above) of `value_key` from its interval; rows without one get none."""
    lower, upper = [], []
    for row in rows:
        value, interval = row.get(value_key), row.get(interval_key)
        if value is None or interval is None:
            lower.append(0.0)
            upper.append(0.0)
            continue
        lower.append(max(0.0, float(value) - float(interval[0])))
        upper.append(max(0.0, float(interval[1]) - float(value)))
    return [lower, upper] if any(lower) or any(upper) else None


def _bar_errors(numbers: Sequence[Mapping[str, Any]], key: str) -> list[list[float]] | None:
    """Error bars of the shifted bars: the interval of the difference where the row compares (placed around
    the shifted score), else the score's own interval (a clean-only set with nothing to compare with)."""
    chosen = []
    for n in numbers:
        if n.get(f"drop_{key}") is not None and n.get(f"drop_{key}_ci"):
            chosen.append({"value": n[f"drop_{key}"], "interval": n[f"drop_{key}_ci"]})
        elif n.get(f"perturbed_{key}") is not None and n.get(f"perturbed_{key}_ci"):
            chosen.append({"value": n[f"perturbed_{key}"], "interval": n[f"perturbed_{key}_ci"]})
        else:
            chosen.append({"value": None, "interval": None})
    return error_bars(chosen, "value", "interval")


def row_label(row: ModelRow, *, with_shift: bool) -> str:
    """A chart label: run, model (short: the signature names it in full) and, when the chart shows several
    shifts or comparisons, which."""
    from robustqa.reporting.tables import SHORT_COMPARISON

    parts = [row.run_label] if row.run_label else []
    parts.append(short_model(str(row.entry["model"])))
    if with_shift:
        parts.append(f"{row.recipe}, {SHORT_COMPARISON.get(row.comparison, row.comparison)}")
    return "\n".join(parts) if with_shift else " ".join(parts)


def _span(lows: Sequence[float], highs: Sequence[float]) -> tuple[float, float]:
    """Axis limits that hold every interval and zero, with a margin: a half-point drop stays visible."""
    low, high = min([0.0, *lows]), max([0.0, *highs])
    pad = max(0.5, 0.12 * (high - low))
    return low - pad, high + pad


def headline_figure(rows: Sequence[ModelRow]) -> Figure:
    """The difference each row measures (shifted minus clean or reference; EM and F1), one horizontal bar per
    row with its 95% interval from report.json (or the unpaired comparison), zero marked, the axis scaled
    to the data. Rows with nothing to compare (a clean run, a set alone) are named under the chart."""
    from robustqa.reporting.tables import plain

    several = not plain(rows)
    numbers = [row.numbers() for row in rows]
    shown = [(row, n) for row, n in zip(rows, numbers) if n["drop_f1"] is not None or n["drop_em"] is not None]
    left_out = [row.label for row, n in zip(rows, numbers) if (row, n) not in shown]
    labels = [row_label(row, with_shift=several) for row, _ in shown]
    lines = max((label.count("\n") + 1 for label in labels), default=1)
    figure = _figure(9.0, max(2.4, 0.32 * lines * len(shown) + 1.8))
    axes = figure.subplots(1, 2, sharey=True)
    positions = list(range(len(shown)))
    for ax, key, title in zip(axes, ("em", "f1"), ("ΔEM (points)", "ΔF1 (points)")):
        values = [float("nan") if n[f"drop_{key}"] is None else float(n[f"drop_{key}"]) for _, n in shown]
        intervals = [n[f"drop_{key}_ci"] for _, n in shown]
        lows = [ci[0] if ci else v for v, ci in zip(values, intervals) if v == v]
        highs = [ci[1] if ci else v for v, ci in zip(values, intervals) if v == v]
        errors = error_bars([{"v": v, "ci": ci} for v, ci in zip(values, intervals)], "v", "ci")
        ax.barh(
            positions,
            values,
            xerr=errors,
            color=[PERTURBED_COLOR if v < 0 else CLEAN_COLOR for v in values],
            capsize=4,
            height=0.6,
        )
        ax.axvline(0.0, color="black", linewidth=0.9)
        ax.set_xlim(*_span(lows, highs))
        ax.set_title(title, fontsize=9)
        ax.grid(axis="x", alpha=0.3)
    axes[0].set_yticks(positions, labels, fontsize=8)
    axes[0].invert_yaxis()
    caption = "Perturbed minus clean" if not several else "Shifted minus clean (or reference)"
    figure.suptitle(
        f"{caption}; black line at zero; error bars: 95% interval (a narrow one may hide under its cap)", fontsize=9
    )
    if left_out:
        figure.supxlabel("nothing to compare, not drawn: " + ", ".join(left_out), fontsize=7)
    return figure


# The charts plot F1 points *lost* (minus the tables' ΔF1), so that the first chart never reads as a gain where
# there is none; every axis of points lost says so, and where a group gained (left of 0), so that a reader does not
# meet a gain as "negative points lost" next to a table of ΔF1.
LOST_NOTE = "= −ΔF1 of the tables; right: worse, left of 0: gained"
ANSWER_PANELS = (
    ("points_lost", f"F1 points lost, changed answerable\nquestions, worst of K\n({LOST_NOTE})"),
    ("flip_rate", "flip rate, % of changed answerable\nquestions right on clean"),
    (
        "abstention_shift",
        "abstention change on changed\nunanswerable questions (points;\nright: less sure of the variant)",
    ),
)


def _negated(interval: Any) -> list[float] | None:
    return None if not interval else [-float(interval[1]), -float(interval[0])]


def answers_chart_data(rows: Sequence[HeadlineRow]) -> list[dict[str, Any]]:
    """What the first chart plots, per model: F1 points *lost* (minus the worst-of-K ΔF1, so a loss is
    positive and nothing reads as a gain), the flip rate and the abstention change, each with its interval."""
    data = []
    for row in rows:
        n = row.numbers()
        lost = None if n["drop_f1_worst"] is None else -float(n["drop_f1_worst"])
        data.append(
            {
                "label": row.label,
                "points_lost": lost,
                "points_lost_ci": _negated(n["drop_f1_worst_ci"]),
                "flip_rate": n["flip_rate"],
                "flip_rate_ci": n["flip_rate_ci"],
                "abstention_shift": n["abstention_shift"],
                "abstention_shift_ci": n["abstention_shift_ci"],
            }
        )
    return data


def answers_figure(rows: Sequence[HeadlineRow]) -> Figure:
    """The first chart: one panel per answer, one dot per model with its 95% interval as a line (no bars:
    a bar's length reads as an amount gained or lost, and the abstention change is neither)."""
    data = answers_chart_data(rows)
    figure = _figure(10.0, max(2.4, 0.45 * len(data) + 1.9))
    axes = figure.subplots(1, len(ANSWER_PANELS), sharey=True)
    positions = list(range(len(data)))
    for ax, (key, title) in zip(axes, ANSWER_PANELS):
        for y, item in zip(positions, data):
            value, interval = item[key], item[f"{key}_ci"]
            if value is None:
                continue
            if interval:
                ax.plot(interval, [y, y], color=PERTURBED_COLOR, linewidth=2.5, solid_capstyle="butt")
            ax.plot([value], [y], "o", color="black", markersize=5)
        ax.axvline(0.0, color="black", linewidth=0.9)
        values = [v for item in data for v in [item[key], *(item[f"{key}_ci"] or [])] if v is not None]
        ax.set_xlim(*_span(values, values))
        ax.set_title(title, fontsize=8)
        ax.grid(axis="x", alpha=0.3)
    axes[0].set_yticks(positions, [item["label"] for item in data], fontsize=8)
    axes[0].set_ylim(len(data) - 0.5, -0.5)
    figure.suptitle(
        f"Does the model still find the answer?{_kinds_note(rows)} Dot: estimate; line: 95% interval", fontsize=9
    )
    return figure


def _kinds_note(rows: Sequence[HeadlineRow]) -> str:
    """Which edit kinds the headline counts, for the chart's title ("" where every variant counts)."""
    from robustqa.estimands import kinds_text

    kinds = {row.kinds for row in rows}
    if kinds == {None}:
        return ""
    if len(kinds) > 1:
        return " (each model: the edit kinds its headline counts)"
    return f" ({kinds_text(next(iter(kinds)))} only)"


def first_figure(runs: Sequence[Any]) -> Figure:
    """The chart a report opens with: the three answers where any run compares a perturbed set, else (clean or
    clean-only runs) the official scores' differences."""
    from robustqa.reporting.headline import headline_rows
    from robustqa.reporting.tables import model_rows

    rows = headline_rows(runs)
    return answers_figure(rows) if rows else headline_figure(model_rows(runs))


def edits_figure(rows: Sequence[Mapping[str, Any]], title: str = "") -> Figure:
    """Which edits break it: F1 points lost on the changed answerable questions of each group
    (`robustqa.reporting.breakdowns.answerable_rows`), a dot and its 95% interval; a group of fewer than
    MIN_PLOTTED questions is named, not drawn."""
    from robustqa.estimands import MIN_PLOTTED

    figure = _figure(7.0, 0.32 * len(rows) + 1.2)
    ax = figure.subplots()
    values: list[float] = []
    for y, row in enumerate(rows):
        if not row["plotted"]:
            continue
        lost, interval = -float(row["drop_f1"]), _negated(row["drop_f1_ci"])
        if interval:
            ax.plot(interval, [y, y], color=PERTURBED_COLOR, linewidth=2.5, solid_capstyle="butt")
            values += interval
        ax.plot([lost], [y], "o", color="black", markersize=4)
        values.append(lost)
    labels = [
        f"{r['group']} (n={r['questions']}{'' if r['plotted'] else f', under {MIN_PLOTTED}: not drawn'})" for r in rows
    ]
    ax.set_yticks(range(len(rows)), labels, fontsize=7)
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.axvline(0.0, color="black", linewidth=0.8)
    ax.set_xlim(*_span(values, values))
    ax.set_xlabel(f"F1 points lost, changed answerable questions, worst of K ({LOST_NOTE})", fontsize=8)
    ax.set_title(title, fontsize=9)
    ax.grid(axis="x", alpha=0.3)
    return figure


def model_costs(rows: Sequence[ModelRow]) -> dict[tuple[str, ...], float]:
    """ms/question per model and hardware (model id, fingerprint, device, precision), pooled over the runs
    shown: their prediction seconds over their predicted questions, so every shift of one model sits at one
    cost. Runs that timed nothing (all from the cache) add nothing."""
    seconds: dict[tuple[str, ...], float] = {}
    questions: dict[tuple[str, ...], int] = {}
    seen: set[tuple[str, str]] = set()
    for row in rows:
        cost = row.entry.get("cost") or {}
        key = cost_key(row)
        if key is None or (row.run_dir, str(row.entry.get("slug"))) in seen or not cost.get("questions"):
            continue
        seen.add((row.run_dir, str(row.entry.get("slug"))))
        seconds[key] = seconds.get(key, 0.0) + float(cost["predict_seconds"])
        questions[key] = questions.get(key, 0) + int(cost["questions"])
    return {key: 1000.0 * seconds[key] / questions[key] for key in seconds}


def cost_key(row: ModelRow) -> tuple[str, ...] | None:
    cost = row.entry.get("cost")
    if not cost:
        return None
    return (
        str(row.entry.get("model_id")),
        str(row.entry.get("fingerprint")),
        str(cost.get("device_name")),
        str(cost.get("precision")),
    )


def cost_figure(rows: Sequence[ModelRow]) -> Figure:
    """F1 under each shift against what a question costs the model to predict: one column of points per model
    (and device, precision) at its ms/question pooled over the runs shown (`model_costs`), one point per row,
    coloured by shift, with the interval of the headline chart; a hollow marker gives the clean (or reference)
    F1 of the same row, so each drop shows as a vertical line. Models never timed are named under the chart."""
    from matplotlib import transforms
    from matplotlib.ticker import ScalarFormatter

    figure = _figure(7.0, 4.6)
    ax = figure.subplots()
    costs = model_costs(rows)
    palette = ["#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3", "#8c8c8c", "#ccb974", "#64b5cd"]
    placed = [(row, row.numbers(), cost_key(row)) for row in rows]
    timed = [(row, n, key) for row, n, key in placed if key in costs]
    untimed = list(dict.fromkeys(row.label for row, _, key in placed if key not in costs))
    series = list(dict.fromkeys(f"{row.recipe} ({row.comparison})" for row, _, _ in timed))
    colours = {name: palette[i % len(palette)] for i, name in enumerate(series)}
    columns: dict[tuple[str, ...], list[tuple[ModelRow, dict[str, Any]]]] = {}
    for row, n, key in timed:
        columns.setdefault(key, []).append((row, n))
    spread = max(costs.values()) / min(costs.values()) if costs else 1.0
    for key, members in columns.items():
        for i, (row, n) in enumerate(members):
            # one model, one cost: its rows share the x of its pooled ms/question, a few points apart on screen only
            x = costs[key]
            shift = transforms.offset_copy(
                ax.transData, fig=figure, x=6.0 * (i - (len(members) - 1) / 2), y=0.0, units="points"
            )
            shifted, clean = n.get("perturbed_f1"), n.get("clean_f1")
            if shifted is None:  # a clean SQuAD run: its clean F1 is what it shows
                if clean is not None:
                    ax.scatter(
                        [x],
                        [clean],
                        marker="o",
                        facecolors="none",
                        edgecolors=CLEAN_COLOR,
                        label="clean SQuAD",
                        transform=shift,
                    )
                continue
            name = f"{row.recipe} ({row.comparison})"
            errors = _bar_errors([n], "f1")
            yerr = [[errors[0][0]], [errors[1][0]]] if errors else None
            ax.errorbar([x], [shifted], yerr=yerr, fmt="o", color=colours[name], capsize=3, label=name, transform=shift)
            if clean is not None:
                ax.scatter([x], [clean], marker="o", facecolors="none", edgecolors=colours[name], transform=shift)
                ax.plot([x, x], [clean, shifted], color=colours[name], linewidth=0.8, alpha=0.5, transform=shift)
        top = max(max(v for v in (n.get("perturbed_f1"), n.get("clean_f1")) if v is not None) for _, n in members)
        ax.annotate(
            short_model(str(members[0][0].entry["model"])),
            (costs[key], top),
            textcoords="offset points",
            xytext=(0, 8),
            ha="center",
            fontsize=7,
        )
    if spread > 5:
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(ScalarFormatter())
    elif costs:
        low, high = min(costs.values()), max(costs.values())
        margin = max(0.3 * (high - low), 0.2 * high)
        ax.set_xlim(max(0.0, low - margin), high + margin)
    ax.set_xlabel("ms per question (pooled over the runs shown of each model)")
    ax.set_ylabel("F1 (points)")
    ax.set_ylim(0, 100)
    ax.grid(alpha=0.3, which="both")
    handles, names = ax.get_legend_handles_labels()
    unique = dict(zip(names, handles))
    if unique:
        ax.legend(unique.values(), unique.keys(), fontsize=7, loc="lower right")
    ax.set_title("F1 under shift against cost (hollow: clean or reference F1; bars: 95% interval)", fontsize=9)
    if untimed:
        figure.supxlabel(
            "not timed, not drawn (every prediction from a cache, or no cost recorded): " + ", ".join(untimed),
            fontsize=7,
        )
    return figure


MIN_GROUP = 10  # a breakdown group of fewer questions gets no bar: one question's flip is not a rate


def breakdown_figure(rows: Sequence[Mapping[str, Any]], title: str = "", metric: str = "f1", ax: Any = None) -> Figure:
    """Horizontal bars of the drop per group (`robustqa.reporting.analysis.breakdown` rows), with its interval and size;
    a group of fewer than MIN_GROUP questions is named but not drawn, so it never shows as the largest bar."""
    if ax is None:
        ax = _figure(6.0, 0.45 * len(rows) + 1.2).subplots()
    labels = [f"{r['group']} (n={r['n']}{', too few to draw' if int(r['n']) < MIN_GROUP else ''})" for r in rows]
    values = [float(r[f"drop_{metric}"]) if int(r["n"]) >= MIN_GROUP else 0.0 for r in rows]
    drawn = [
        {**r, f"drop_{metric}": v} if int(r["n"]) >= MIN_GROUP else {**r, f"drop_{metric}": 0.0, "drop_f1_ci": None}
        for r, v in zip(rows, values)
    ]
    errors = error_bars(drawn, "drop_f1", "drop_f1_ci") if metric == "f1" else None
    ax.barh(range(len(rows)), values, xerr=errors, color=["#e6550d" if v < 0 else "#31a354" for v in values], capsize=3)
    ax.set_yticks(range(len(rows)), labels, fontsize=8)
    ax.invert_yaxis()
    ax.axvline(0.0, color="black", linewidth=0.8)
    ax.set_xlabel(f"{metric.upper()} drop (points, perturbed minus clean)", fontsize=8)
    ax.set_title(title, fontsize=9)
    if ax.figure.get_layout_engine() is None:  # a caller's figure (the notebook's subplots)
        ax.figure.tight_layout()
    return ax.figure


def breakdowns_figure(panels: Sequence[tuple[Sequence[Mapping[str, Any]], str]]) -> Figure:
    """Several breakdowns (rows, title) stacked in one column, each panel as tall as its groups: labels of one
    panel never run into another's bars."""
    heights = [max(1.0, 0.32 * len(rows) + 0.9) for rows, _ in panels]
    figure = _figure(8.0, sum(heights) + 0.3)
    axes = figure.subplots(len(panels), 1, gridspec_kw={"height_ratios": heights}, squeeze=False)[:, 0]
    for ax, (rows, title) in zip(axes, panels):
        breakdown_figure(rows, title, ax=ax)
    return figure


def budget_figure(
    curves: Sequence[Mapping[str, Any]], ax: Any = None, references: Sequence[Mapping[str, Any]] = ()
) -> Figure:
    """Attack success against the query budget: one step line per attack (`label`, `attempted` and `curve`,
    a list of {"budget", "succeeded"} as attack.json records it), with the final rate's 95% Wilson interval
    as a bar at the right end; `references` ({"label", "rate"} in percent, e.g. the static recipe's flips
    on the same questions, and optionally "curve", the index of the curve whose colour it takes) are dashed
    horizontal lines. The rate axis stops a little above the highest
    interval, so that small rates stay readable."""
    from robustqa.stats import wilson_interval

    if ax is None:
        ax = _figure(6.0, 4.0).subplots()
    top = max((float(r["rate"]) for r in references), default=0.0)
    colors = []
    for curve in curves:
        points = curve["curve"]
        attempted = int(curve["attempted"])
        budgets = [int(p["budget"]) for p in points]
        rates = [100.0 * int(p["succeeded"]) / attempted if attempted else 0.0 for p in points]
        line = ax.step(
            budgets,
            rates,
            where="post",
            label=f"{curve['label']} ({points[-1]['succeeded'] if points else 0}/{attempted})",
        )
        colors.append(line[0].get_color())
        if points and attempted:
            low, high = wilson_interval(int(points[-1]["succeeded"]), attempted)
            ax.errorbar(
                [budgets[-1]],
                [rates[-1]],
                yerr=[[max(0.0, rates[-1] - 100 * low)], [max(0.0, 100 * high - rates[-1])]],
                color=line[0].get_color(),
                capsize=3,
            )
            top = max(top, 100 * high)
    for reference in references:
        index = reference.get("curve")
        color = colors[int(index)] if index is not None and 0 <= int(index) < len(colors) else "gray"
        ax.axhline(float(reference["rate"]), linestyle="--", linewidth=1, color=color, label=str(reference["label"]))
    ax.set_xlabel("query budget per question (variants scored)")
    ax.set_ylabel("questions flipped (% of those right on clean)")
    ax.set_ylim(0, min(100.0, max(10.0, 1.15 * top)))
    ax.set_xlim(left=0)
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", fontsize=8)
    ax.set_title("Attack success within a query budget (bar: 95% Wilson interval)", fontsize=9)
    if ax.figure.get_layout_engine() is None:
        ax.figure.tight_layout()
    return ax.figure


def png_bytes(figure: Figure) -> bytes:
    """The figure as PNG, ready for an atomic write or a data URI."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=120)
    return buffer.getvalue()
