"""Fixtures of the importer tests (helpers in rqa_importfakes.py)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def addsent_sample(shared_dir: Path) -> Path:
    return shared_dir / "adversarial" / "addsent-sample.json"


@pytest.fixture(autouse=True)
def _one_torch_thread(one_torch_thread: None) -> None:
    """Every test here runs torch on one thread (tests/conftest.py says why); a test module opts out by
    defining its own `one_torch_thread`."""
