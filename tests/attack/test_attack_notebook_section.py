"""The notebook's attack section, executed on an eval run of a real attack's adversarial set."""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
import pytest

pytestmark = pytest.mark.slow

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "failure_analysis.ipynb"


def test_the_attack_section_shows_the_attacked_questions(
    real_attack: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    import nbclient

    monkeypatch.setenv("ROBUSTQA_RUN", str(real_attack["eval"]))
    monkeypatch.delenv("ROBUSTQA_ATTACK", raising=False)
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join(filter(None, [str(NOTEBOOK.parents[1]), os.environ.get("PYTHONPATH")]))
    )
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(
        notebook, kernel_name="python3", timeout=600, resources={"metadata": {"path": str(NOTEBOOK.parent)}}
    )
    client.execute()
    start = next(
        i
        for i, cell in enumerate(notebook.cells)
        if cell.cell_type == "markdown" and cell.source.startswith("## 5. Attack")
    )
    outputs = [o for cell in notebook.cells[start:] if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert f"attack folder: {real_attack['attack']}" in text and "questions right on clean flipped" in text
    html = "".join(o["data"].get("text/html", "") for o in outputs if "data" in o)
    assert len([row for row in html.split("<tr>") if "<mark" in row]) >= 3
    assert "noun" in html and "edits_in_flips" in html
    assert any("image/png" in o.get("data", {}) for o in outputs)
