"""The failure-analysis notebook: stored clean, and it runs end to end on a real run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import nbformat
from rqa_notebook import NOTEBOOK, executed_notebook


def test_notebook_is_stored_without_outputs() -> None:
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(notebook)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert code, "the notebook has no code cells"
    dirty = [i for i, cell in enumerate(code) if cell.outputs or cell.execution_count is not None]
    assert not dirty, f"code cells {dirty} carry outputs: clear them before committing"
    assert notebook.metadata["kernelspec"]["name"] == "python3"


def test_notebook_only_calls_the_library() -> None:
    """Logic lives in robustqa.reporting.analysis: no cell defines its own function or class."""
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    sources = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "code")
    assert "from robustqa.reporting import analysis" in sources
    assert "\ndef " not in sources and "\nclass " not in sources


def test_notebook_runs_on_a_real_run(real_run: Path, monkeypatch) -> None:
    """Executed as a user would open it: kernel python3 started in notebooks/, run taken from ROBUSTQA_RUN."""
    notebook = executed_notebook(real_run, monkeypatch)

    outputs = [output for cell in notebook.cells if cell.cell_type == "code" for output in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert f"run folder: {real_run.resolve()}" in text
    pictures = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(pictures) >= 2
    html = "".join(o["data"].get("text/html", "") for o in outputs if "data" in o)
    flip_rows = [row for row in html.split("<tr>") if "<mark" in row]
    assert len(flip_rows) >= 10, f"only {len(flip_rows)} flipped questions with highlighted substitutions shown"
    markdown = [o["data"].get("text/markdown", "") for o in outputs if "data" in o and "text/markdown" in o["data"]]
    assert markdown[0].startswith("**1. Does it still find the answer?**")  # the three answers come first
    assert "**2. Which edits break it?**" in markdown[0] and "**3. Is it more robust" in markdown[0]
    for heading in (
        "answerable, by edit kind",
        "answerable, by part of speech",
        "answerable, by question word",
        "answerable, by substitution pair",
        "unanswerable, by part of speech",
    ):
        assert any(heading in text for text in markdown), heading


def test_breakdown_intervals_are_drawn_as_report_json_intervals(real_run: Path) -> None:
    """One bootstrap: the answerable/unanswerable breakdown of a run reproduces report.json's HasAns/NoAns drop."""
    from robustqa.reporting import analysis
    from robustqa.runs import load_run

    run = load_run(real_run)
    drop = run.report["models"][0]["drop"]
    rows = {row["group"]: row for row in analysis.breakdown(run, "answerable")}
    for group, prefix in (("answerable", "HasAns"), ("unanswerable", "NoAns")):
        assert rows[group]["drop_f1"] == round(drop[f"{prefix}_f1"], 2)
        assert rows[group]["drop_f1_ci"] == tuple(round(x, 2) for x in drop[f"{prefix}_f1_ci"])


def test_analyze_writes_the_executed_notebook_as_one_page(real_run: Path, tmp_path: Path) -> None:
    """`robustqa analyze RUN --output FILE`: the packaged notebook (the one notebooks/ links to) executed
    headless on the run, every figure inline, the review status and signature at the top; the terminal shows
    what it does and where it wrote, not the kernel's log (run as a process, so the kernel's stderr is seen)."""
    from robustqa.notebook import notebook_path

    assert NOTEBOOK.resolve() == notebook_path().resolve()
    page = tmp_path / "analysis.html"
    script = Path(sys.executable).with_name("robustqa")
    done = subprocess.run(
        [str(script), "analyze", str(real_run), "--output", str(page)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=real_run.parent,  # the run lies under the working folder: the page names it relative to it
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [f"running the failure-analysis notebook on {real_run.name} ..."]
    assert done.stdout.splitlines() == [f"wrote {page}"]
    html = page.read_text(encoding="utf-8")
    assert html.count("data:image/png;base64,") >= 2
    top = html[: html.index("The three answers")]
    assert "reviewed:" in top and "signature:" in top and "not reviewed by people" in top
    assert f"run folder: {real_run.name}\n" in top
    # the page opens with the three answers, before any detail
    assert html.index("1. Does it still find the answer?") < html.index("Official SQuAD EM/F1")
    assert "Traceback" not in html and "Error" not in html.split("</style>")[-1]


def test_analyze_refuses_a_folder_without_a_run(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from robustqa.cli import cli

    result = CliRunner().invoke(cli, ["analyze", str(tmp_path)])
    assert result.exit_code == 2
    assert "no report.json here" in result.output and "Traceback" not in result.output


def test_analyze_names_a_missing_run_folder_not_the_page(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from robustqa.cli import cli

    missing = tmp_path / "runs" / "no-such-run"
    result = CliRunner().invoke(cli, ["analyze", str(missing)])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert f"{missing}: no such run folder" in result.output and "analysis.html" not in result.output
    assert not missing.exists()
