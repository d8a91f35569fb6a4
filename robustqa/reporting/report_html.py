"""The HTML form of `robustqa report`: one self-contained page.

The page embeds the chart as a data URI so it can be mailed or attached to an issue as one file.
"""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from robustqa import __version__
from robustqa.render import distinct_columns, html_table
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
    official_cells,
    review_notes,
    rules_text,
)
from robustqa.reporting.transfer import TRANSFER_NOTE, transfer_table

if TYPE_CHECKING:
    from robustqa.runs.load import Run

# The page never scrolls sideways: a table wraps its cells to fit the page (a figure and its interval may go on two
# lines, an interval stays whole, a long model name breaks anywhere); a table that still cannot fit scrolls inside
# its own box (its first column stays in view); the chart shrinks to the page; long signatures wrap.
_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; max-width: 100%; box-sizing: border-box; }
.table-box { max-width: 100%; overflow-x: auto; margin: 1em 0; }
table { border-collapse: collapse; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.6em; }
td { text-align: right; }
td:first-child { text-align: left; position: sticky; left: 0; background: #fff; }
td:first-child { overflow-wrap: anywhere; min-width: 8em; }
th { background: #f3f3f3; }
img { max-width: 100%; height: auto; }
p, li { max-width: 70em; overflow-wrap: anywhere; }
code { font-size: 0.85em; word-break: break-all; }
"""


_INTERVAL = re.compile(r"\[[^\]]*\]")


def _boxed(table: str) -> str:
    return f'<div class="table-box">{table}</div>'


def _table(cells: Sequence[Mapping[str, str]], columns: Sequence[str]) -> str:
    """A boxed table whose intervals (`[−6.40, −2.30]`) never break inside: a cell may wrap only between a figure
    and its interval, or between words."""
    unbroken = [
        {key: _INTERVAL.sub(lambda m: m.group(0).replace(" ", "\u00a0"), value) for key, value in row.items()}
        for row in cells
    ]
    return _boxed(html_table(unbroken, list(columns)))


def _breakdowns(rows: Sequence[HeadlineRow]) -> str:
    from robustqa.reporting.breakdown_tables import BREAKDOWN_NOTE, UNANSWERABLE_HEADING, breakdown_tables

    answerable, unanswerable = breakdown_tables(rows)

    def tables(found: Sequence[tuple[str, Sequence[str], list[dict[str, str]]]]) -> str:
        return "".join(
            f"<h3>{html.escape(heading)}</h3>\n{_table(cells, columns)}\n" for heading, columns, cells in found
        )

    page = (
        f"<h2>Which edits break it?</h2>\n<p>{html.escape(BREAKDOWN_NOTE.replace('`', ''))}</p>\n{tables(answerable)}"
    )
    if unanswerable:
        page += f"<h2>{html.escape(UNANSWERABLE_HEADING)}</h2>\n{tables(unanswerable)}"
    return page


def render_html(runs: Sequence[Run], chart_png: bytes | None = None) -> str:
    """The comparison page: the same table as report.md (every model of every run), the chart, the signatures."""
    cells = official_cells(runs)
    table = (
        f"{_table(cells, distinct_columns(cells, COLUMNS, REPEATED_COLUMNS))}\n"
        f"<h3>{html.escape(ROW_HEADING)}</h3>\n{_table(cells, ROW_COLUMNS)}"
    )
    chart = ""
    if chart_png:
        encoded = base64.b64encode(chart_png).decode("ascii")
        chart = f'<img alt="the three answers per model" src="data:image/png;base64,{encoded}">'
    headline = headline_rows(runs)
    answers = ""
    if headline:
        lines = "".join(f"<li>{html.escape(row.line())}</li>" for row in headline)
        readings = "".join(
            f"<li>{html.escape(row.label)}: {html.escape(str(row.estimands['reading']))}</li>"
            for row in headline
            if row.estimands and row.estimands.get("reading")
        )
        caption = kinds_caption(headline)
        details = [row.markdown_cells() for row in headline]
        answers = (
            "<h2>Does the model still find the answer?</h2>\n"
            f"{f'<p>{html.escape(caption)}</p>' if caption else ''}"
            f"<ul>{lines}{readings}</ul>\n{chart}\n"
            f"<p>{html.escape(HEADLINE_NOTE.replace('*', ''))}</p>\n"
            f"{_table(details, ANSWERABLE_DETAILS)}\n<h3>{html.escape(ABSTENTION_HEADING)}</h3>\n"
            f"{_table(details, ABSTENTION_DETAILS)}\n"
        )
        chart = ""
        compared = comparisons(runs)
        if compared:
            verdicts = "".join(f"<li>{html.escape(str(r['verdict']))}</li>" for r in compared)
            answers += (
                f"<h2>Is A more robust than B?</h2>\n<p>{html.escape(COMPARISON_NOTE)}</p>\n<ul>{verdicts}</ul>\n"
                f"{_table([comparison_cells(r) for r in compared], COMPARISON_COLUMNS)}\n"
            )
        answers += _breakdowns(headline)
        caption = official_caption(headline)
        answers += f"<h2>{html.escape(OFFICIAL_HEADING)}</h2>\n"
        answers += f"<p>{html.escape(caption)}</p>\n" if caption else ""
    columns, rows = transfer_table(runs)
    transfer = f"<h2>Transfer</h2>\n<p>{html.escape(TRANSFER_NOTE)}</p>\n{_table(rows, columns)}\n" if rows else ""
    # who reviewed each set, as report.md says
    notes = "".join(f"<p>{html.escape(note)}</p>\n" for note in review_notes(runs))
    signatures = "".join(
        f"<li><b>{html.escape(str(run.path))}</b>: <code>{html.escape(run.signature)}</code></li>" for run in runs
    )
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'><meta name='viewport' "
        "content='width=device-width, initial-scale=1'>"
        "<title>robustqa report</title>"
        f"<style>{_STYLE}</style></head><body>\n"
        "<h1>robustqa: clean vs perturbed</h1>\n"
        f"{answers}"
        f"<p>EM/F1: {html.escape(rules_text(runs))}, in points. {html.escape(TABLE_NOTE.replace('*', ''))}</p>\n"
        f"{table}\n{notes}{chart}\n{transfer}<h2>Signatures</h2><ul>{signatures}</ul>\n"
        f"<p><small>robustqa {html.escape(__version__)}</small></p></body></html>\n"
    )
