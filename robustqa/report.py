"""The run folder: writers (atomic) and renderers of one or several runs side by side.

Writers produce the files of docs/FORMATS.md. Every file goes through a temporary file and `os.replace`, and
report.json is written last and only after everything else succeeded, so a run folder with a report.json is
always complete. Renderers take a *list* of runs (report.json contents, as `load_run` returns them) so that
`robustqa report RUN_DIR...` can put several runs in one table and one chart; matplotlib loads only when a
chart is drawn, and draws on its own Agg canvas without touching the global backend.
"""

from __future__ import annotations

import json
import os
import io
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from robustqa.errors import InputError, OutputError
from robustqa.outputs import write_bytes_atomic, write_text_atomic

if TYPE_CHECKING:
    from rich.console import Console

    from robustqa.evaluation import ModelOutcome

REPORT_JSON = "report.json"
REPORT_MD = "report.md"
CHART_PNG = "clean_vs_perturbed.png"
EXAMPLES_JSONL = "examples.jsonl"

COLUMNS = (
    "Model",
    "Clean EM",
    "Clean F1",
    "Pert. EM",
    "Pert. F1",
    "ΔEM [95% CI]",
    "ΔF1 [95% CI]",
    "ΔF1 changed [95% CI]",
    "ΔF1 changed answerable [95% CI]",
    "Flips R→W / W→R",
    "Changed",
    "Reused",
)


# --------------------------------------------------------------------------- writing


def _json_text(obj: Any, *, indent: int | None = 2) -> str:
    return json.dumps(obj, ensure_ascii=False, indent=indent) + "\n"


def write_json_atomic(path: Path, obj: Any) -> None:
    write_text_atomic(path, _json_text(obj))


def write_png_atomic(figure: Any, path: Path) -> None:
    """Save a matplotlib figure as PNG, atomically like every other output."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=120)
    write_bytes_atomic(path, buffer.getvalue())


def write_run(output_dir: Path, report: Mapping[str, Any], outcomes: Sequence["ModelOutcome"], examples: Iterable[Mapping[str, Any]]) -> None:
    """Write a whole run folder; report.json last (and any stale one removed first)."""
    output_dir = Path(output_dir)
    try:
        output_dir.mkdir(parents=True, exist_ok=True)
        (output_dir / REPORT_JSON).unlink(missing_ok=True)
        for outcome in outcomes:
            (output_dir / outcome.slug).mkdir(exist_ok=True)
    except OSError as error:
        raise OutputError(f"{output_dir}: cannot write the run folder ({error.strerror}); choose another --output-dir") from None
    for outcome in outcomes:
        files = outcome.entry["files"]
        write_json_atomic(output_dir / files["clean_predictions"], outcome.clean.texts)
        write_json_atomic(output_dir / files["clean_null_odds"], outcome.clean.null_odds)
        if outcome.perturbed is not None:
            write_json_atomic(output_dir / files["perturbed_predictions"], outcome.perturbed.texts)
            write_json_atomic(output_dir / files["perturbed_null_odds"], outcome.perturbed.null_odds)
    write_text_atomic(output_dir / EXAMPLES_JSONL, "".join(_json_text(row, indent=None) for row in examples))
    runs = [dict(report, run_dir=str(output_dir))]
    write_text_atomic(output_dir / REPORT_MD, render_markdown(runs))
    render_chart(runs, output_dir / CHART_PNG)
    write_json_atomic(output_dir / REPORT_JSON, report)


# --------------------------------------------------------------------------- reading


def load_run(run_dir: str | os.PathLike[str]) -> dict[str, Any]:
    """The report.json of a run folder, with `run_dir` added (where it was read from)."""
    path = Path(run_dir) / REPORT_JSON
    try:
        report = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError("no report.json here (not a finished `robustqa eval` run folder)", path=str(Path(run_dir)), hint="give a run's --output-dir") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise InputError(f"cannot read report.json ({error})", path=str(path)) from None
    if not isinstance(report, dict) or not isinstance(report.get("models"), list):
        raise InputError("report.json has no 'models' list", path=str(path), hint="give a run folder written by `robustqa eval`")
    report["run_dir"] = str(Path(run_dir))
    return report


# --------------------------------------------------------------------------- rendering


def _num(value: Any, digits: int = 2) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _signed(value: Any) -> str:
    return "–" if value is None else f"{value:+.2f}"


def _with_ci(value: Any, interval: Any) -> str:
    if value is None:
        return "–"
    if not interval:
        return _signed(value)
    return f"{_signed(value)} [{interval[0]:+.2f}, {interval[1]:+.2f}]"


def _labels(runs: Sequence[Mapping[str, Any]]) -> list[str]:
    """Run labels (folder names), made unique; empty when only one run is shown."""
    if len(runs) <= 1:
        return [""] * len(runs)
    names = [Path(str(run.get("run_dir", f"run{i + 1}"))).name or f"run{i + 1}" for i, run in enumerate(runs)]
    if len(set(names)) < len(names):
        names = [f"{name}#{i + 1}" for i, name in enumerate(names)]
    return names


def table_rows(runs: Sequence[Mapping[str, Any]]) -> list[dict[str, str]]:
    """One row of COLUMNS per (run, model), as display strings."""
    rows = []
    for label, run in zip(_labels(runs), runs):
        for entry in run["models"]:
            clean = entry.get("clean") or {}
            perturbed = entry.get("perturbed") or {}
            drop = entry.get("drop") or {}
            changed = drop.get("changed") or {}
            flips = entry.get("flips")
            coverage = entry.get("coverage") or {}
            share = coverage.get("changed_share")
            rows.append(
                {
                    "Model": f"{label}: {entry['model']}" if label else str(entry["model"]),
                    "Clean EM": _num(clean.get("exact")),
                    "Clean F1": _num(clean.get("f1")),
                    "Pert. EM": _num(perturbed.get("exact")),
                    "Pert. F1": _num(perturbed.get("f1")),
                    "ΔEM [95% CI]": _with_ci(drop.get("exact"), drop.get("exact_ci")),
                    "ΔF1 [95% CI]": _with_ci(drop.get("f1"), drop.get("f1_ci")),
                    "ΔF1 changed [95% CI]": _with_ci(changed.get("f1"), changed.get("f1_ci")),
                    "ΔF1 changed answerable [95% CI]": _with_ci(changed.get("HasAns_f1"), changed.get("HasAns_f1_ci")),
                    "Flips R→W / W→R": f"{flips['right_to_wrong']} / {flips['wrong_to_right']}" if flips else "–",
                    "Changed": f"{coverage.get('changed', 0)}/{coverage.get('matched', 0)} ({100 * share:.1f}%)" if share is not None else "–",
                    "Reused": str(coverage.get("reused_predictions", 0)) if entry.get("perturbed") else "–",
                }
            )
    return rows


def _signatures(runs: Sequence[Mapping[str, Any]]) -> list[tuple[str, str]]:
    return [(label, str(run.get("signature", ""))) for label, run in zip(_labels(runs), runs)]


def render_markdown(runs: Sequence[Mapping[str, Any]]) -> str:
    """The comparison table of report.md: every model of every run, then each run's signature."""
    rows = table_rows(runs)
    lines = [
        "# robustqa evaluation",
        "",
        "EM/F1: official SQuAD 2.0 rules, in points. Δ = perturbed − clean over the paired questions (negative: the",
        "model fell), with a paired bootstrap 95% interval; *changed*: only the questions the recipe changed;",
        "*answerable*: only those with a gold answer (a model that abstains more often gains on the others).",
        "",
        "| " + " | ".join(COLUMNS) + " |",
        "|" + "|".join(":---" if c == "Model" else "---:" for c in COLUMNS) + "|",
    ]
    for row in rows:
        lines.append("| " + " | ".join(row[c].replace("|", "\\|") for c in COLUMNS) + " |")
    lines.append("")
    for label, signature in _signatures(runs):
        lines.append(f"Signature{f' ({label})' if label else ''}: `{signature}`")
        lines.append("")
    return "\n".join(lines)


def print_table(runs: Sequence[Mapping[str, Any]], console: "Console") -> None:
    """The same table in the terminal (rich), followed by the signatures."""
    from rich.table import Table

    table = Table(title="robustqa: clean vs perturbed (official SQuAD 2.0 EM/F1, points)", title_justify="left")
    for column in COLUMNS:
        table.add_column(column, justify="left" if column == "Model" else "right", overflow="fold")
    for row in table_rows(runs):
        table.add_row(*(row[c] for c in COLUMNS))
    console.print(table)
    for label, signature in _signatures(runs):
        console.print(f"signature{f' ({label})' if label else ''}: {signature}", markup=False, highlight=False, soft_wrap=True)


def render_chart(runs: Sequence[Mapping[str, Any]], path: str | os.PathLike[str]) -> Path:
    """Grouped bars, clean vs perturbed EM and F1 per model (and run), with the drop written above."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    path = Path(path)
    labels, clean, perturbed = [], {"exact": [], "f1": []}, {"exact": [], "f1": []}
    for label, run in zip(_labels(runs), runs):
        for entry in run["models"]:
            labels.append(f"{label}\n{entry['model']}" if label else str(entry["model"]))
            for key in ("exact", "f1"):
                clean[key].append((entry.get("clean") or {}).get(key) or 0.0)
                value = (entry.get("perturbed") or {}).get(key)
                perturbed[key].append(float("nan") if value is None else value)
    width = max(6.0, 1.6 * len(labels) + 2.0)
    figure = Figure(figsize=(width, 4.0), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.subplots(1, 2, sharey=True)
    positions = list(range(len(labels)))
    for ax, key, title in zip(axes, ("exact", "f1"), ("Exact match", "F1")):
        ax.bar([x - 0.2 for x in positions], clean[key], width=0.4, label="clean", color="#4c72b0")
        ax.bar([x + 0.2 for x in positions], perturbed[key], width=0.4, label="perturbed", color="#dd8452")
        for x, before, after in zip(positions, clean[key], perturbed[key]):
            if after == after:  # not NaN
                ax.annotate(f"{after - before:+.1f}", (x + 0.2, after), ha="center", va="bottom", fontsize=8)
        ax.set_xticks(positions, labels, fontsize=8)
        ax.set_title(title)
        ax.set_ylim(0, 100)
        ax.grid(axis="y", alpha=0.3)
    axes[0].set_ylabel("points")
    axes[0].legend(loc="upper right", fontsize=8)
    write_png_atomic(figure, path)
    return path
