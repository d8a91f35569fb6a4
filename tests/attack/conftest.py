"""Fixtures of the attack tests (helpers in rqa_attackfakes.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rqa_attackfakes import FakeQA, write_document


@pytest.fixture
def attack_input(tmp_path: Path) -> Path:
    return write_document(tmp_path / "clean.json")


@pytest.fixture
def fake_model():
    made: list[FakeQA] = []

    def factory(spec, settings, **kwargs) -> FakeQA:
        model = FakeQA(**kwargs)
        made.append(model)
        return model

    factory.made = made  # type: ignore[attr-defined]
    return factory
