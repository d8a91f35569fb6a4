"""Fixtures of the evaluation tests (helpers in rqa_evalfakes.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rqa_evalfakes import FakeRunner, clean_document, perturbed_document, write_json


@pytest.fixture
def squad_files(tmp_path: Path) -> tuple[Path, Path]:
    return write_json(tmp_path / "clean.json", clean_document()), write_json(
        tmp_path / "perturbed.json", perturbed_document()
    )


@pytest.fixture
def fake_factory():
    runners: list[FakeRunner] = []

    def factory(spec: Any, settings: Any, **kwargs: Any) -> FakeRunner:
        runner = FakeRunner(**kwargs)
        runners.append(runner)
        return runner

    factory.runners = runners  # type: ignore[attr-defined]
    return factory
