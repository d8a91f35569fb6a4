"""Which edits break it, as the tables every document shows (report.md and the HTML page render the same ones):
per model and breakdown, the answerable figures, and the unanswerable ones for their own section."""

from __future__ import annotations

from collections.abc import Sequence

from robustqa.estimands import MIN_PLOTTED
from robustqa.reporting.breakdowns import (
    ANSWERABLE_COLUMNS,
    BREAKDOWNS,
    UNANSWERABLE_COLUMNS,
    answerable_cells,
    answerable_rows,
    unanswerable_cells,
    unanswerable_rows,
)
from robustqa.reporting.headline import HeadlineRow, run_settings

BREAKDOWN_NOTE = (
    "Changed answerable questions per group of edits (a variant counts in the group of each of its edits; each "
    "question by its worst variant in the group); unanswerable questions in their own section below. * marks an "
    f"interval that excludes zero (ranked first) in a group of at least {MIN_PLOTTED} questions; a smaller group is "
    "named but neither marked nor plotted. Edit kinds come from each substitution's `kind` (unclassified: a set "
    "recorded without kinds)."
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
