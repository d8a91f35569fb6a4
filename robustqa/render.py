"""Generic table renderers: rows (mappings of column -> value) as plain text, markdown, HTML or a rich
table, and which columns fit a terminal. They know nothing of runs, reviews or attacks, so every part of
robustqa that shows a table (reports, review statistics, attack findings, the notebook) uses them from below.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.table import Table


def cell(value: Any) -> str:
    """A value as table text: None as "–", floats to 2 decimals, intervals as [lo, hi]."""
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.2f}"
    if isinstance(value, tuple) and len(value) == 2:
        return f"[{cell(value[0])}, {cell(value[1])}]"
    return str(value)


def signed(value: Any, digits: int = 1) -> str:
    """A difference as every table and sentence prints it: an explicit sign, the minus sign U+2212 (not the
    hyphen), `digits` decimals; a value that rounds to zero has no sign (`0.0`, never `-0.0`); None as "–"."""
    if value is None:
        return "–"
    text = f"{float(value):+.{digits}f}"
    if float(text) == 0:
        return f"{0.0:.{digits}f}"
    return text.replace("-", "−")


def with_ci(value: Any, interval: Any, digits: int = 1) -> str:
    """A difference with its interval, `−4.4 [−6.4, −2.3]`, each number as `signed` prints it."""
    if value is None:
        return "–"
    if not interval:
        return signed(value, digits)
    return f"{signed(value, digits)} [{signed(interval[0], digits)}, {signed(interval[1], digits)}]"


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
            raw = row.get(c)
            value = cell(raw)
            align = "right" if _numeric(raw, value) else "left"
            cells.append(f"<td style='text-align:{align}'>{html.escape(value) if c in escaped else value}</td>")
        body.append(f"<tr>{''.join(cells)}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


_NUMBER = re.compile(r"^[+\-−–]?\d[\d,.]*%?( \[[^\]]*\])?( \(.*\))?$")


def _numeric(raw: Any, text: str) -> bool:
    """A number (or a number with its interval): right-aligned, so that digits line up in a column."""
    if isinstance(raw, (int, float)) and not isinstance(raw, bool):
        return True
    return bool(_NUMBER.match(text.strip())) or text.strip() == "–"


def distinct_columns(
    rows: Sequence[Mapping[str, Any]], columns: Sequence[str], repeats: Mapping[str, str]
) -> list[str]:
    """`columns` without each column of `repeats` (column -> the column it may repeat) whose cells equal the
    other's in every row: a table never shows one figure twice under two names."""
    return [
        column
        for column in columns
        if not (
            rows and column in repeats and all(cell(row.get(column)) == cell(row.get(repeats[column])) for row in rows)
        )
    ]


def fitting_columns(
    rows: Sequence[Mapping[str, Any]], columns: Sequence[str], width: int, *, keep: int = 2
) -> tuple[list[str], list[str]]:
    """The columns (in order) whose whole words fit in `width` terminal columns, dropping from the end (the
    first `keep` always stay, folding where they must); and those left out. A column is as wide as its longest
    header line or cell."""

    def needed(column: str) -> int:
        return max([len(line) for line in column.split("\n")] + [len(cell(row.get(column))) for row in rows]) + 3

    kept = list(columns)
    while len(kept) > keep and sum(needed(c) for c in kept) + 1 > width:
        kept.pop()
    return kept, [c for c in columns if c not in kept]


NAME_WIDTH = 32


def rich_table(rows: Sequence[Mapping[str, Any]], columns: Sequence[str], title: str) -> Table:
    """A rich table for the terminal; the first column left-aligned, the others right-aligned."""
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    # the first column (a model's name) keeps its width, so a name breaks only where it is longer than NAME_WIDTH
    first = min(NAME_WIDTH, max([len(cell(row.get(columns[0]))) for row in rows] + [0])) if columns else 0
    for i, column in enumerate(columns):
        table.add_column(
            column, justify="left" if i == 0 else "right", overflow="fold", min_width=first if i == 0 else None
        )
    for row in rows:
        table.add_row(*(cell(row.get(c)) for c in columns))
    return table
