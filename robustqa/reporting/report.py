"""The comparison documents of finished runs: report.md, and `robustqa report` as md, json or html.

Every document takes a *list* of runs, so that several runs (recipes, models) go into one table; the
table itself comes from `robustqa.reporting.tables`, the chart from `robustqa.reporting.charts`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from robustqa.estimands import MIN_PLOTTED
from robustqa.render import distinct_columns, markdown_table
from robustqa.reporting.breakdowns import (
    ANSWERABLE_COLUMNS,
    BREAKDOWNS,
    UNANSWERABLE_COLUMNS,
    answerable_cells,
    answerable_rows,
    unanswerable_cells,
    unanswerable_rows,
)
from robustqa.reporting.headline import (
    COMPARISON_COLUMNS,
    HEADLINE_NOTE,
    MARKDOWN_COLUMNS,
    HeadlineRow,
    comparison_cells,
    comparisons,
    headline_rows,
    run_settings,
)
from robustqa.reporting.tables import (
    REPEATED_COLUMNS,
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


COMPARISON_NOTE = (
    "Each two models over the changed answerable questions both were scored on (their clean question ids), each "
    "question by each model's worst variant: the difference of their worst-of-K ΔF1 with a bootstrap 95% interval "
    "over questions, and an exact McNemar test on the questions one model flips and the other does not (of those "
    "both got right on clean)."
)


BREAKDOWN_NOTE = (
    "Changed answerable questions per group of edits (a variant counts in the group of each of its edits; each "
    "question by its worst variant in the group); unanswerable questions in their own section below. * marks an "
    f"interval that excludes zero (ranked first); a group of fewer than {MIN_PLOTTED} questions is named but not "
    "plotted. Edit kinds come from each substitution's `kind` (unclassified: a set recorded without kinds)."
)
PAIRS_SHOWN = 10
Table = tuple[str, Sequence[str], list[dict[str, str]]]


def breakdown_tables(rows: Sequence[HeadlineRow]) -> tuple[list[Table], list[Table]]:
    """Which edits break it, as (heading, columns, cells) per model and breakdown: the answerable tables, and the
    unanswerable ones for their own section (report.md and the HTML page render the same tables)."""
    answerable: list[Table] = []
    unanswerable: list[Table] = []
    for row in rows:
        examples = row.run.examples_of(row.model)
        resamples, seed = run_settings(row.run)
        for by, (title, _) in BREAKDOWNS.items():
            answer_rows = answerable_rows(examples, by, resamples=resamples, seed=seed)
            if answer_rows:
                shown = answer_rows[:PAIRS_SHOWN] if by == "pair" else answer_rows
                more = f" (the first {len(shown)} of {len(answer_rows)})" if len(shown) < len(answer_rows) else ""
                answerable.append((f"{row.label}: by {title}{more}", ANSWERABLE_COLUMNS, answerable_cells(shown)))
            if by == "pair":
                continue
            abstain_rows = unanswerable_rows(examples, by, resamples=resamples, seed=seed)
            if abstain_rows:
                unanswerable.append(
                    (f"{row.label}: by {title}", UNANSWERABLE_COLUMNS, unanswerable_cells(abstain_rows))
                )
    return answerable, unanswerable


UNANSWERABLE_HEADING = "Unanswerable questions: does it still abstain, by group?"


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
    lines += [f"- {row.line()}" for row in rows]
    lines += [
        f"- {row.label}: {row.estimands['reading']}" for row in rows if row.estimands and row.estimands.get("reading")
    ]
    lines += ["", *markdown_table([row.markdown_cells() for row in rows], MARKDOWN_COLUMNS), ""]
    compared = comparisons(runs)
    if compared:
        lines += ["## Is A more robust than B?", "", COMPARISON_NOTE, ""]
        lines += [f"- {result['verdict']}" for result in compared]
        lines += ["", *markdown_table([comparison_cells(r) for r in compared], COMPARISON_COLUMNS), ""]
    return lines + breakdown_markdown(rows)


def render_markdown(runs: Sequence[Run]) -> str:
    """report.md: the three answers (headline, comparisons), then the official table of every comparison of every
    model of every run, the transfer matrix when runs on adversarial sets are among them, each run's signature."""
    cells = report_cells(runs)
    headline = headline_markdown(runs)
    lines = [
        "# robustqa evaluation",
        "",
        *headline,
        *(["## Official SQuAD EM/F1 (all questions: answerable and unanswerable netted)", ""] if headline else []),
        f"EM/F1: {rules_text(runs)}, in points. {TABLE_NOTE}",
        "",
        *markdown_table(cells, distinct_columns(cells, REPORT_COLUMNS, REPEATED_COLUMNS)),
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
