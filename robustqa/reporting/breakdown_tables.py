"""Which edits break it, as the tables every document shows (report.md and the HTML page render the same ones):
per model and breakdown, the answerable figures, and the unanswerable ones for their own section."""

from __future__ import annotations

from collections.abc import Sequence

from robustqa.estimands import MIN_PLOTTED, kinds_text
from robustqa.reporting.breakdowns import (
    ANSWERABLE_COLUMNS,
    BREAKDOWNS,
    EVERY_KIND,
    UNANSWERABLE_COLUMNS,
    answerable_cells,
    unanswerable_cells,
)
from robustqa.reporting.headline import HeadlineRow

BREAKDOWN_NOTE = (
    "Changed answerable questions per group of edits (a variant counts in the group of each of its edits; each "
    "question by its worst variant in the group); unanswerable questions in their own section below. * marks a "
    f"group of at least {MIN_PLOTTED} questions whose ΔF1 interval (abstention Δ for unanswerable questions) "
    "excludes zero; the flip-rate interval is not tested. Rows are ranked: marked groups first, then the other "
    f"groups of at least {MIN_PLOTTED} questions, each by ΔF1 (largest drop first; largest abstention rise for "
    f"unanswerable questions); then the groups under {MIN_PLOTTED} questions, named but neither marked, plotted nor "
    "ranked as effects (their intervals are too wide), largest first. Edit kinds come from each substitution's "
    "`kind` (unclassified: a set "
    "recorded without kinds). Where the headline counts only some edit kinds, the breakdown by edit kind shows "
    "every kind and the other breakdowns the headline's kinds, as each heading says."
)
PAIRS_SHOWN = 10
Table = tuple[str, Sequence[str], list[dict[str, str]]]


def breakdown_tables(rows: Sequence[HeadlineRow]) -> tuple[list[Table], list[Table]]:
    """Which edits break it, as (heading, columns, cells) per model and breakdown: the answerable tables, and the
    unanswerable ones for their own section (report.md and the HTML page render the same tables), from each
    row's breakdowns (computed once)."""
    answerable: list[Table] = []
    unanswerable: list[Table] = []
    for row in rows:
        for by, (title, _) in BREAKDOWNS.items():
            covered = _covered(row, by)
            answer_rows = row.breakdowns.answerable[by]
            if answer_rows:
                shown = answer_rows[:PAIRS_SHOWN] if by == "pair" else answer_rows
                more = (
                    f"the first {len(shown)} of {len(answer_rows)} in the ranking above: pairs of at least "
                    f"{MIN_PLOTTED} questions by ΔF1, then the rest by number of questions"
                    if len(shown) < len(answer_rows)
                    else ""
                )
                notes = ", ".join(note for note in (covered, more) if note)
                heading = f"{row.label}: by {title}{f' ({notes})' if notes else ''}"
                answerable.append((heading, ANSWERABLE_COLUMNS, answerable_cells(shown)))
            abstain_rows = row.breakdowns.unanswerable.get(by)
            if abstain_rows:
                heading = f"{row.label}: by {title}{f' ({covered})' if covered else ''}"
                unanswerable.append((heading, UNANSWERABLE_COLUMNS, unanswerable_cells(abstain_rows)))
    return answerable, unanswerable


def _covered(row: HeadlineRow, by: str) -> str:
    """Which edit kinds a breakdown covers, where the headline counts only some: every kind by edit kind, the
    headline's kinds in the others ("" where the headline counts every variant)."""
    if row.kinds is None:
        return ""
    if by == EVERY_KIND:
        return f"every edit kind; the headline counts {kinds_text(row.kinds)}"
    return f"{kinds_text(row.kinds)} only, as the headline"


UNANSWERABLE_HEADING = "Unanswerable questions: does it still abstain, by group?"
