"""Fixtures of the training tests: the tiny random QA models of tests/models, and small SQuAD 2.0 files."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "models"))

sys.path.insert(0, str(Path(__file__).parent))

from rqa_trainhelpers import SAMPLE

from tiny import ARCHITECTURES, build_tiny_model


@pytest.fixture(scope="session")
def tiny_models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("tiny-train-models")
    return {arch: build_tiny_model(root / arch, arch) for arch in ARCHITECTURES}


@pytest.fixture
def sample_document() -> dict:
    return json.loads(SAMPLE.read_text(encoding="utf-8"))


@pytest.fixture(autouse=True)
def _one_torch_thread(one_torch_thread: None) -> None:
    """Every test here runs torch on one thread (tests/conftest.py says why); a test module opts out by
    defining its own `one_torch_thread`."""
