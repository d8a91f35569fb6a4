"""Fixtures of the analysis tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from rqa_synthetic import write_run


@pytest.fixture()
def synthetic_run(tmp_path: Path) -> Path:
    return write_run(tmp_path / "runs" / "synthetic")
