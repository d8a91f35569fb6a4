"""The notebook's attack section, executed on an eval run of a real attack's adversarial set."""

from __future__ import annotations

from pathlib import Path

import pytest
from rqa_notebook import executed_notebook

pytestmark = pytest.mark.slow


def test_the_attack_section_shows_the_attacked_questions(
    real_attack: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ROBUSTQA_ATTACK", raising=False)
    notebook = executed_notebook(real_attack["eval"], monkeypatch)
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
