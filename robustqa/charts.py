"""The one chart module: the headline chart (report folder, `robustqa report`, notebook) and breakdown bars.

matplotlib loads only when a chart is drawn, and figures are drawn on their own Agg canvas, never through
pyplot's global state, so the library never changes a caller's backend (the notebook displays the figures
it gets, or passes its own axes).
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from robustqa.tables import ModelRow

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


def headline_figure(rows: Sequence[ModelRow]) -> Figure:
    """Clean vs perturbed EM and F1 per model (and run), bars side by side.

    Each perturbed bar carries the 95% bootstrap interval of the drop that report.json gives (the drop's
    interval placed around the perturbed score), and the drop written above it.
    """
    labels = [f"{row.run_label}\n{row.entry['model']}" if row.run_label else str(row.entry["model"]) for row in rows]
    numbers = [row.numbers() for row in rows]
    figure = _figure(max(6.0, 1.6 * len(rows) + 2.0), 4.0)
    axes = figure.subplots(1, 2, sharey=True)
    positions = list(range(len(rows)))
    for ax, key, title in zip(axes, ("em", "f1"), ("Exact match", "F1")):
        clean = [n[f"clean_{key}"] or 0.0 for n in numbers]
        perturbed = [float("nan") if n[f"perturbed_{key}"] is None else n[f"perturbed_{key}"] for n in numbers]
        errors = error_bars(numbers, f"drop_{key}", f"drop_{key}_ci")
        ax.bar([x - 0.2 for x in positions], clean, width=0.4, label="clean", color=CLEAN_COLOR)
        ax.bar([x + 0.2 for x in positions], perturbed, width=0.4, label="perturbed", color=PERTURBED_COLOR, yerr=errors, capsize=3)
        above = errors[1] if errors else [0.0] * len(rows)
        for x, before, after, up in zip(positions, clean, perturbed, above):
            if after == after:  # not NaN
                ax.annotate(f"{after - before:+.1f}", (x + 0.2, after + up), ha="center", va="bottom", fontsize=8)
        ax.set_xticks(positions, labels, fontsize=8)
        ax.set_title(title)
        ax.set_ylim(0, 100)
        ax.grid(axis="y", alpha=0.3)
    axes[0].set_ylabel("points")
    axes[0].legend(loc="upper right", fontsize=8)
    figure.suptitle("Clean vs perturbed (error bar: 95% interval of the drop)", fontsize=10)
    return figure


def breakdown_figure(rows: Sequence[Mapping[str, Any]], title: str = "", metric: str = "f1", ax: Any = None) -> Figure:
    """Horizontal bars of the drop per group (`robustqa.analysis.breakdown` rows), with its interval and size."""
    if ax is None:
        ax = _figure(6.0, 0.45 * len(rows) + 1.2).subplots()
    labels = [f"{r['group']} (n={r['n']})" for r in rows]
    values = [float(r[f"drop_{metric}"]) for r in rows]
    errors = error_bars(rows, "drop_f1", "drop_f1_ci") if metric == "f1" else None
    ax.barh(range(len(rows)), values, xerr=errors, color=["#e6550d" if v < 0 else "#31a354" for v in values], capsize=3)
    ax.set_yticks(range(len(rows)), labels)
    ax.invert_yaxis()
    ax.axvline(0.0, color="black", linewidth=0.8)
    ax.set_xlabel(f"{metric.upper()} drop (points, perturbed minus clean)")
    ax.set_title(title)
    if ax.figure.get_layout_engine() is None:  # a caller's figure (the notebook's subplots)
        ax.figure.tight_layout()
    return ax.figure


def png_bytes(figure: Figure) -> bytes:
    """The figure as PNG, ready for an atomic write or a data URI."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=120)
    return buffer.getvalue()
