"""The failure-analysis notebook: stored clean, and it runs end to end on a real run."""

from __future__ import annotations

from pathlib import Path

import nbformat

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "failure_analysis.ipynb"


def test_notebook_is_stored_without_outputs() -> None:
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(notebook)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert code, "the notebook has no code cells"
    dirty = [i for i, cell in enumerate(code) if cell.outputs or cell.execution_count is not None]
    assert not dirty, f"code cells {dirty} carry outputs: clear them before committing"
    assert notebook.metadata["kernelspec"]["name"] == "python3"


def test_notebook_only_calls_the_library() -> None:
    """Logic lives in robustqa.analysis: no cell defines its own function or class."""
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    sources = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "code")
    assert "from robustqa import analysis" in sources
    assert "\ndef " not in sources and "\nclass " not in sources
