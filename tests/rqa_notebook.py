"""Helper of the tests that execute the failure-analysis notebook as a user's kernel would run it."""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
import pytest

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "failure_analysis.ipynb"


def executed_notebook(run: Path, monkeypatch: pytest.MonkeyPatch) -> nbformat.NotebookNode:
    """The notebook executed on `run` (taken from ROBUSTQA_RUN), its kernel started in notebooks/ with this checkout
    first on its path, so that the code under test is what the kernel imports; any cell error raises."""
    import nbclient

    monkeypatch.setenv("ROBUSTQA_RUN", str(run))
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join(filter(None, [str(NOTEBOOK.parents[1]), os.environ.get("PYTHONPATH")]))
    )
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(
        notebook, kernel_name="python3", timeout=600, resources={"metadata": {"path": str(NOTEBOOK.parent)}}
    )
    client.execute()
    return notebook
