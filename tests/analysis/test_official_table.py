"""The official all-question table of report.md and the HTML page, and the one formatter of differences.

Every difference robustqa prints (headline, breakdowns, comparison, official table, transfer) goes through
`robustqa.render.signed` / `with_ci`: the minus sign U+2212, never a hyphen; a value that rounds to zero prints
unsigned (`0.00`, never `-0.00`); the number of decimals is the caller's. The official table comes in two parts
(scores, then what each row compares and its cost), so that each fits a 1280-pixel page (the browser test of the
page is tests/review/test_report_page_browser.py).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from robustqa import estimands, render
from robustqa.reporting import tables
from robustqa.reporting.report import render_markdown
from robustqa.reporting.report_html import render_html
from robustqa.runs import load_run

from rqa_synthetic import write_run

HYPHEN_MINUS = re.compile(r"(?<![\w-])-\d")  # "-0.5" (a hyphen before a digit), not "qads@1.0-x" or "2.0"


def test_one_formatter_with_one_minus_sign_and_no_negative_zero() -> None:
    assert estimands.with_ci is render.with_ci and estimands.signed is render.signed  # one function, not two
    assert not hasattr(tables, "_with_interval") and not hasattr(tables, "_signed")
    assert render.signed(-1.25, 2) == "−1.25" and render.signed(3) == "+3.0" and render.signed(None) == "–"
    assert render.signed(-0.001, 2) == "0.00" and render.signed(-0.04) == "0.0" and render.signed(0.0) == "0.0"
    assert render.signed(0.004, 2) == "0.00" and render.signed(0.005001, 2) == "+0.01"
    assert render.with_ci(-0.001, (-1.234, 0.9), 2) == "0.00 [−1.23, +0.90]"
    assert render.with_ci(-4.44, [-6.41, -2.3]) == "−4.4 [−6.4, −2.3]" and render.with_ci(2.0, None) == "+2.0"


def _official_markdown(markdown: str) -> list[str]:
    return [line for line in markdown.split("## Official SQuAD EM/F1")[-1].splitlines() if line.startswith("|")]


def test_the_official_table_prints_true_minus_signs_and_no_negative_zero(tmp_path: Path) -> None:
    folder = write_run(tmp_path / "runs" / "synthetic")
    path = folder / "report.json"
    report = json.loads(path.read_text(encoding="utf-8"))
    drop = report["models"][0]["drop"]
    drop.update(exact=-0.001, exact_ci=[-2.5, 0.004], f1=-1.5, f1_ci=[-3.25, -0.5])  # a drop that rounds to zero
    path.write_text(json.dumps(report), encoding="utf-8")
    run = load_run(folder)

    markdown = render_markdown([run])
    official = _official_markdown(markdown)
    assert official and "Comparison" not in official[0]  # the scores; what each row compares follows apart
    assert tables.ROW_HEADING in markdown and "| Model | Shift | Comparison | Params |" in markdown
    text = "\n".join(official)
    assert "0.00 [−2.50, 0.00]" in text and "−1.50 [−3.25, −0.50]" in text
    assert "-0.00" not in markdown and "−0.00" not in markdown and not HYPHEN_MINUS.search(text), text

    page = render_html([run])
    assert "-0.00" not in page and "−0.00" not in page
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", page.split("Official SQuAD EM/F1")[-1])
    assert cells and not [cell for cell in cells if HYPHEN_MINUS.search(cell)]
    assert "0.00 [−2.50,\u00a00.00]" in page  # an interval never breaks inside: the cell wraps before it
