"""The comparison documents of finished runs: report.md, and `robustqa report` as md, json or html.

Every document takes a *list* of runs, so that several runs (recipes, models) go into one table; the
table itself comes from `robustqa.reporting.tables`, the chart from `robustqa.reporting.charts`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from robustqa.render import markdown_table
from robustqa.reporting.tables import (
    REPORT_COLUMNS,
    TABLE_NOTE,
    model_rows,
    report_cells,
    review_notes,
    rules_text,
    signatures,
)
from robustqa.reporting.transfer import TRANSFER_NOTE, transfer_cells, transfer_table

if TYPE_CHECKING:
    from robustqa.runs.load import Run

FORMATS = ("md", "json", "html")


def render_markdown(runs: Sequence[Run]) -> str:
    """The comparison table of report.md: every comparison of every model of every run, the transfer matrix
    when runs on adversarial sets are among them, then each run's signature."""
    lines = [
        "# robustqa evaluation",
        "",
        f"EM/F1: {rules_text(runs)}, in points. {TABLE_NOTE}",
        "",
        *markdown_table(report_cells(runs), REPORT_COLUMNS),
        "",
        *(f"{note}\n" for note in review_notes(runs)),
    ]
    columns, rows = transfer_table(runs)
    if rows:
        lines += ["## Transfer", "", TRANSFER_NOTE, "", *markdown_table(rows, columns), ""]
    for label, signature in signatures(runs):
        lines.append(f"Signature{f' ({label})' if label else ''}: `{signature}`")
        lines.append("")
    return "\n".join(lines)


def comparison_rows(runs: Sequence[Run]) -> list[dict[str, Any]]:
    """One row per (run, model, comparison) with numbers, not display strings (the `table` of the JSON document)."""
    return [{"run": row.run_dir, "recipe": row.recipe, **row.numbers()} for row in model_rows(runs)]


def render_json(runs: Sequence[Run]) -> str:
    """The numbers for scripts: the comparison rows, the transfer cells (runs on adversarial sets; else empty)
    and every run's report.json (with `run_dir`)."""
    document = {
        "table": comparison_rows(runs),
        "transfer": [c.to_dict() for c in transfer_cells(runs)],
        "runs": [run.to_dict() for run in runs],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def render(fmt: str, runs: Sequence[Run], chart_png: bytes | None = None) -> str:
    """The comparison document in one of FORMATS; only html embeds the chart."""
    if fmt == "md":
        return render_markdown(runs)
    if fmt == "json":
        return render_json(runs)
    if fmt == "html":
        from robustqa.reporting.report_html import render_html

        return render_html(runs, chart_png)
    raise ValueError(f"unknown report format {fmt!r}; choose from {', '.join(FORMATS)}")
