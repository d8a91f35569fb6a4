"""Fixtures shared by the engine's tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from perturbations.score_table import forget_scorers


@pytest.fixture
def fresh_score_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No model score table (stand-in or real) and an empty cache folder of its own: a model rule's test
    never sees another's scores."""
    monkeypatch.setenv("ROBUSTQA_CACHE", str(tmp_path / "cache"))
    forget_scorers()
    yield
    forget_scorers()
