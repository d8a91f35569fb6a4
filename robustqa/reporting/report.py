"""The comparison documents of finished runs: report.md, and `robustqa report` as md, json or html.

Every document takes a *list* of runs, so that several runs (recipes, models) go into one table; the
table itself comes from `robustqa.reporting.tables`, the chart from `robustqa.reporting.charts`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from robustqa.render import distinct_columns, markdown_table
from robustqa.reporting.breakdown_tables import BREAKDOWN_NOTE, UNANSWERABLE_HEADING, breakdown_tables
from robustqa.reporting.headline import (
    ABSTENTION_DETAILS,
    ABSTENTION_HEADING,
    ANSWERABLE_DETAILS,
    COMPARISON_COLUMNS,
    COMPARISON_NOTE,
    HEADLINE_NOTE,
    OFFICIAL_HEADING,
    HeadlineRow,
    comparison_cells,
    comparisons,
    headline_rows,
    kinds_caption,
    official_caption,
)
from robustqa.reporting.tables import (
    COLUMNS,
    REPEATED_COLUMNS,
    ROW_COLUMNS,
    ROW_HEADING,
    TABLE_NOTE,
    model_rows,
    official_cells,
    review_notes,
    rules_text,
    signatures,
)
from robustqa.reporting.transfer import TRANSFER_NOTE, transfer_cells, transfer_table

if TYPE_CHECKING:
    from robustqa.runs.load import Run

FORMATS = ("md", "json", "html")


def breakdown_markdown(rows: Sequence[HeadlineRow]) -> list[str]:
    """Which edits break it: every model's breakdowns, answerable first, unanswerable in their own section."""
    answerable, unanswerable = breakdown_tables(rows)
    lines = ["## Which edits break it?", "", BREAKDOWN_NOTE, ""]
    for heading, columns, cells in answerable:
        lines += [f"### {heading}", "", *markdown_table(cells, columns), ""]
    if unanswerable:
        lines += [f"## {UNANSWERABLE_HEADING}", ""]
        for heading, columns, cells in unanswerable:
            lines += [f"### {heading}", "", *markdown_table(cells, columns), ""]
    return lines


def headline_markdown(runs: Sequence[Run]) -> list[str]:
    """The three answers: one line per model, its table, and each two models compared."""
    rows = headline_rows(runs)
    if not rows:
        return []
    lines = ["## Does the model still find the answer?", "", HEADLINE_NOTE, ""]
    caption = kinds_caption(rows)
    lines += [caption, ""] if caption else []
    lines += [f"- {row.line()}" for row in rows]
    lines += [
        f"- {row.label}: {row.estimands['reading']}" for row in rows if row.estimands and row.estimands.get("reading")
    ]
    details = [row.markdown_cells() for row in rows]
    lines += ["", *markdown_table(details, ANSWERABLE_DETAILS), "", f"{ABSTENTION_HEADING}:", ""]
    lines += [*markdown_table(details, ABSTENTION_DETAILS), ""]
    compared = comparisons(runs)
    if compared:
        lines += ["## Is A more robust than B?", "", COMPARISON_NOTE, ""]
        lines += [f"- {result['verdict']}" for result in compared]
        lines += ["", *markdown_table([comparison_cells(r) for r in compared], COMPARISON_COLUMNS), ""]
    return lines + breakdown_markdown(rows)


def render_markdown(runs: Sequence[Run]) -> str:
    """report.md: the three answers (headline, comparisons), then the official table of every comparison of every
    model of every run, the transfer matrix when runs on adversarial sets are among them, each run's signature."""
    cells = official_cells(runs)
    headline = headline_markdown(runs)
    caption = official_caption(headline_rows(runs))
    lines = [
        "# robustqa evaluation",
        "",
        *headline,
        *([f"## {OFFICIAL_HEADING}", ""] if headline else []),
        *([caption, ""] if caption else []),
        f"EM/F1: {rules_text(runs)}, in points. {TABLE_NOTE}",
        "",
        *markdown_table(cells, distinct_columns(cells, COLUMNS, REPEATED_COLUMNS)),
        "",
        f"{ROW_HEADING}:",
        "",
        *markdown_table(cells, ROW_COLUMNS),
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
        "headline": [row.numbers() for row in headline_rows(runs)],
        "comparisons": comparisons(runs),
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
