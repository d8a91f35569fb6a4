"""The analyze page (the failure-analysis notebook, executed) names each model as the report does.

Models given as local folders are recorded by their path (`../shared/models/minilm-squad2-mini`); the three
answers and the report name them short (`minilm-squad2-mini`, `robustqa.reporting.tables.short_model_name`). Every
later section (breakdowns, substitutions, comparison, shared flips, flipped questions) must use the same name, so
that a reader can match a section to the headline; the path appears only in the run summary at the top.
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
from rqa_notebook import executed_notebook

from robustqa.reporting import analysis
from robustqa.runs import load_run

from rqa_synthetic import write_run

PATHS = {"tiny-a": "../some/models/tiny-a", "tiny-b": "../some/models/tiny-b"}


def _run_with_model_paths(folder: Path) -> Path:
    """The synthetic two-model run, its models recorded as local folders' paths (as eval records them)."""
    write_run(folder)
    report = json.loads((folder / "report.json").read_text(encoding="utf-8"))
    for entry in report["models"]:
        entry["model"] = PATHS[entry["model"]]
    (folder / "report.json").write_text(json.dumps(report), encoding="utf-8")
    lines = [json.loads(line) for line in (folder / "examples.jsonl").read_text(encoding="utf-8").splitlines()]
    text = "".join(json.dumps({**line, "model": PATHS[line["model"]]}) + "\n" for line in lines)
    (folder / "examples.jsonl").write_text(text, encoding="utf-8")
    return folder


def test_shared_flips_rows_name_models_short(tmp_path: Path) -> None:
    shared = analysis.shared_flips(load_run(_run_with_model_paths(tmp_path / "run")))
    assert shared["models"] == list(PATHS.values())  # the ids stay whole for code
    assert [row["model"] for row in shared["per_model"]] == ["tiny-a", "tiny-b"]
    assert (shared["pairs"][0]["a"], shared["pairs"][0]["b"]) == ("tiny-a", "tiny-b")


def test_every_section_of_the_page_names_models_as_the_headline(tmp_path: Path, monkeypatch) -> None:
    run = _run_with_model_paths(tmp_path / "runs" / "paths")
    notebook = executed_notebook(run, monkeypatch)

    def shown(cell: nbformat.NotebookNode) -> str:
        parts = []
        for output in cell.get("outputs", []):
            parts.append(output.get("text", ""))
            for kind in ("text/markdown", "text/html", "text/plain"):
                parts.append(output.get("data", {}).get(kind, ""))
        return "".join(parts)

    first = next(i for i, c in enumerate(notebook.cells) if c.source.startswith("## 1. Does it still find the answer?"))
    summary, sections = notebook.cells[:first], notebook.cells[first:]
    top = "".join(shown(cell) for cell in summary)
    later = "".join(shown(cell) for cell in sections)
    assert "models:     tiny-a (../some/models/tiny-a), tiny-b (../some/models/tiny-b)" in top  # the run summary
    assert "**1. Does it still find the answer?**" in top and "- tiny-a: answerable" in top
    assert "../some/models" not in later, [line for line in later.splitlines() if "../some/models" in line][:5]
    for heading in ("tiny-a: answerable, by edit kind", "tiny-b: answerable, by part", "tiny-a: unanswerable"):
        assert heading in later, heading
    assert "tiny-a vs tiny-b" in later  # the comparison (section 3)
    assert "### tiny-a: " in later and "### tiny-b: " in later  # the flipped questions (section 4)
    for model in ("tiny-a", "tiny-b"):  # the substitutions that flip most: every model, not only the first
        assert f"#### {model}: the 15 substitutions that flip most" in later, model
    # the shared flips say which questions they count and that it is not McNemar's "both"
    assert "every edit kind; a question counts as flipped when any of its variants" in later
    assert "Not the McNemar" in later
    # the page names the run as it was given (the kernel runs in notebooks/, the run lies elsewhere: absolute)
    assert f"run folder: {run.resolve()}" in top
