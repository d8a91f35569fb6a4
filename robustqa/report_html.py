"""The HTML and JSON forms of `robustqa report` (the markdown form and the chart are `robustqa.report`'s).

The HTML page embeds the chart as a data URI so it can be mailed or attached to an issue as one file; the
JSON form keeps numbers as numbers, for scripts.
"""

from __future__ import annotations

import base64
import html
from typing import Any, Mapping, Sequence

from robustqa import __version__
from robustqa.analysis import headline_rows, html_table

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.6em; }
th { background: #f3f3f3; }
code { font-size: 0.85em; word-break: break-all; }
"""


def recipe_of(report: Mapping[str, Any]) -> str:
    """The recipe named in the run's signature (`recipe:qads@1.0`), or `-` for a clean-only run."""
    for part in str(report.get("signature", "")).split("|"):
        key, _, value = part.partition(":")
        if key == "recipe":
            return value
    return "-"


def comparison_rows(runs: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One row per (run, model) with numbers, not display strings (the `table` of `--format json`)."""
    rows = []
    for run in runs:
        for row in headline_rows(run):
            rows.append({"run": _label(run), "recipe": recipe_of(run), **row})
    return rows


def render_html(runs: Sequence[Mapping[str, Any]], chart_png: bytes | None = None) -> str:
    """The comparison page: the same table as report.md (every model of every run), the chart, the signatures.

    `runs` are what `robustqa.report.load_run` returns.
    """
    from robustqa import report

    table = html_table(report.table_rows(runs), list(report.COLUMNS))
    chart = ""
    if chart_png:
        encoded = base64.b64encode(chart_png).decode("ascii")
        chart = f'<img alt="clean vs perturbed scores" src="data:image/png;base64,{encoded}">'
    signatures = "".join(
        f"<li><b>{html.escape(_label(run))}</b>: <code>{html.escape(str(run.get('signature', '')))}</code></li>" for run in runs
    )
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'><title>robustqa report</title>"
        f"<style>{_STYLE}</style></head><body>\n"
        "<h1>robustqa: clean vs perturbed</h1>\n"
        "<p>EM/F1: official SQuAD 2.0 rules, in points. &Delta; = perturbed &minus; clean over the paired questions "
        "(negative: the model fell), with a paired bootstrap 95% interval; <i>changed</i>: only the questions the "
        "recipe changed.</p>\n"
        f"{table}\n{chart}\n<h2>Signatures</h2><ul>{signatures}</ul>\n"
        f"<p><small>robustqa {html.escape(__version__)}</small></p></body></html>\n"
    )


def _label(run: Mapping[str, Any]) -> str:
    return str(run.get("run_dir", "run"))
