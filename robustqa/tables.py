"""The one table pipeline: report.json entries -> rows -> text, markdown, HTML or a rich table.

Every table robustqa shows of finished runs (report.md, `robustqa report` in each format, the eval command's
terminal table, the notebook's headline) starts from `model_rows`: one `ModelRow` per (run, model), which
gives either the numbers (`numbers`, for scripts, JSON and the notebook) or the display cells of the report
table (`cells`). The renderers below take plain rows (dicts) and know nothing of runs.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from robustqa.signature import Signature

if TYPE_CHECKING:
    from rich.table import Table

    from robustqa.runs.load import Run

# The columns of the report table (report.md, `robustqa report`, the eval command's table).
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

# The keys of `ModelRow.numbers`, in order (the notebook's headline and `robustqa report --format json`).
HEADLINE_KEYS = (
    "model",
    "questions",
    "clean_em",
    "perturbed_em",
    "drop_em",
    "drop_em_ci",
    "clean_f1",
    "perturbed_f1",
    "drop_f1",
    "drop_f1_ci",
    "changed",
    "changed_drop_em",
    "changed_drop_f1",
    "changed_drop_f1_ci",
    "right_to_wrong",
    "wrong_to_right",
)


@dataclass(frozen=True)
class ModelRow:
    """One model of one run, as every table and the headline chart see it."""

    run_label: str  # the run's folder name when several runs are shown together, else ""
    run_dir: str
    recipe: str  # from the run's signature; "-" when it names none
    entry: Mapping[str, Any]  # the model's element of report.json's `models`

    @property
    def label(self) -> str:
        model = str(self.entry["model"])
        return f"{self.run_label}: {model}" if self.run_label else model

    def _part(self, key: str) -> Mapping[str, Any]:
        return self.entry.get(key) or {}

    def numbers(self) -> dict[str, Any]:
        """Scores, drops with their intervals (pairs) and flips, as numbers (None where the run has none)."""
        clean, perturbed, drop = self._part("clean"), self._part("perturbed"), self._part("drop")
        changed, flips = drop.get("changed") or {}, self._part("flips")
        return {
            "model": self.entry.get("model"),
            "questions": clean.get("total"),
            "clean_em": clean.get("exact"),
            "perturbed_em": perturbed.get("exact"),
            "drop_em": drop.get("exact"),
            "drop_em_ci": _pair(drop.get("exact_ci")),
            "clean_f1": clean.get("f1"),
            "perturbed_f1": perturbed.get("f1"),
            "drop_f1": drop.get("f1"),
            "drop_f1_ci": _pair(drop.get("f1_ci")),
            "changed": changed.get("questions", self._part("coverage").get("changed")),
            "changed_drop_em": changed.get("exact"),
            "changed_drop_f1": changed.get("f1"),
            "changed_drop_f1_ci": _pair(changed.get("f1_ci")),
            "right_to_wrong": flips.get("right_to_wrong"),
            "wrong_to_right": flips.get("wrong_to_right"),
        }

    def cells(self) -> dict[str, str]:
        """The row of the report table (COLUMNS), as display strings."""
        clean, perturbed, drop = self._part("clean"), self._part("perturbed"), self._part("drop")
        changed, flips, coverage = drop.get("changed") or {}, self.entry.get("flips"), self._part("coverage")
        share = coverage.get("changed_share")
        return {
            "Model": self.label,
            "Clean EM": _number(clean.get("exact")),
            "Clean F1": _number(clean.get("f1")),
            "Pert. EM": _number(perturbed.get("exact")),
            "Pert. F1": _number(perturbed.get("f1")),
            "ΔEM [95% CI]": _with_interval(drop.get("exact"), drop.get("exact_ci")),
            "ΔF1 [95% CI]": _with_interval(drop.get("f1"), drop.get("f1_ci")),
            "ΔF1 changed [95% CI]": _with_interval(changed.get("f1"), changed.get("f1_ci")),
            "ΔF1 changed answerable [95% CI]": _with_interval(changed.get("HasAns_f1"), changed.get("HasAns_f1_ci")),
            "Flips R→W / W→R": f"{flips['right_to_wrong']} / {flips['wrong_to_right']}" if flips else "–",
            "Changed": f"{coverage.get('changed', 0)}/{coverage.get('matched', 0)} ({100 * share:.1f}%)" if share is not None else "–",
            "Reused": str(coverage.get("reused_predictions", 0)) if self.entry.get("perturbed") else "–",
        }


def run_labels(runs: Sequence[Run]) -> list[str]:
    """Run labels (folder names), made unique; empty when only one run is shown."""
    if len(runs) <= 1:
        return [""] * len(runs)
    names = [run.path.name or f"run{i + 1}" for i, run in enumerate(runs)]
    if len(set(names)) < len(names):
        names = [f"{name}#{i + 1}" for i, name in enumerate(names)]
    return names


def recipe_of(run: Run) -> str:
    """The recipe named in the run's signature (`qads@1.1`), or `-` when it names none."""
    try:
        return Signature.parse(run.signature).get("recipe") or "-"
    except ValueError:
        return "-"


def model_rows(runs: Sequence[Run]) -> list[ModelRow]:
    """One row per (run, model), runs in the order given."""
    return [
        ModelRow(label, str(run.path), recipe_of(run), entry)
        for label, run in zip(run_labels(runs), runs)
        for entry in run.report.get("models", [])
    ]


def signatures(runs: Sequence[Run]) -> list[tuple[str, str]]:
    """(label, signature) of each run, labels as in `run_labels`."""
    return [(label, run.signature) for label, run in zip(run_labels(runs), runs)]


def _pair(value: Any) -> tuple[float, float] | None:
    if isinstance(value, (list, tuple)) and len(value) == 2 and all(isinstance(v, (int, float)) for v in value):
        return (float(value[0]), float(value[1]))
    return None


def _number(value: Any, digits: int = 2) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _signed(value: Any) -> str:
    return "–" if value is None else f"{value:+.2f}"


def _with_interval(value: Any, interval: Any) -> str:
    if value is None:
        return "–"
    if not interval:
        return _signed(value)
    return f"{_signed(value)} [{interval[0]:+.2f}, {interval[1]:+.2f}]"


# ------------------------------------------------------------------------------------------- renderers


def cell(value: Any) -> str:
    """A value as table text: None as "–", floats to 2 decimals, intervals as [lo, hi]."""
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.2f}"
    if isinstance(value, tuple) and len(value) == 2:
        return f"[{cell(value[0])}, {cell(value[1])}]"
    return str(value)


def text_table(rows: Sequence[Mapping[str, Any]], columns: Sequence[str] | None = None) -> str:
    """A fixed-width plain-text table (terminal, logs, test assertions)."""
    if not rows:
        return "(no rows)"
    columns = list(columns or rows[0].keys())
    cells = [[cell(row.get(c)) for c in columns] for row in rows]
    widths = [max(len(c), *(len(r[i]) for r in cells)) for i, c in enumerate(columns)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(columns, widths))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(v.ljust(w) for v, w in zip(r, widths)) for r in cells]
    return "\n".join(lines)


def markdown_table(rows: Sequence[Mapping[str, Any]], columns: Sequence[str]) -> list[str]:
    """The lines of a markdown table; the first column left-aligned, the others right-aligned."""
    lines = [
        "| " + " | ".join(columns) + " |",
        "|" + "|".join(":---" if i == 0 else "---:" for i, _ in enumerate(columns)) + "|",
    ]
    for row in rows:
        lines.append("| " + " | ".join(cell(row.get(c)).replace("|", "\\|") for c in columns) + " |")
    return lines


def html_table(
    rows: Sequence[Mapping[str, Any]],
    columns: Sequence[str] | None = None,
    *,
    escape_columns: Iterable[str] | None = None,
) -> str:
    """An HTML table. Cells are escaped except where `escape_columns` leaves them out (pre-rendered HTML)."""
    if not rows:
        return "<p>(no rows)</p>"
    columns = list(columns or rows[0].keys())
    escaped = set(columns if escape_columns is None else escape_columns)
    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    body = []
    for row in rows:
        cells = []
        for c in columns:
            value = cell(row.get(c))
            cells.append(f"<td style='text-align:left'>{html.escape(value) if c in escaped else value}</td>")
        body.append(f"<tr>{''.join(cells)}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def rich_table(rows: Sequence[Mapping[str, Any]], columns: Sequence[str], title: str) -> Table:
    """A rich table for the terminal; the first column left-aligned, the others right-aligned."""
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    for i, column in enumerate(columns):
        table.add_column(column, justify="left" if i == 0 else "right", overflow="fold")
    for row in rows:
        table.add_row(*(cell(row.get(c)) for c in columns))
    return table


def report_cells(runs: Sequence[Run]) -> list[dict[str, str]]:
    """The report table's rows (COLUMNS) of every model of every run."""
    return [row.cells() for row in model_rows(runs)]
