"""Fixtures for the model tests: tiny random models saved once per session."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from tiny import ARCHITECTURES, build_tiny_model


@pytest.fixture(scope="session")
def tiny_models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("tiny-models")
    return {arch: build_tiny_model(root / arch, arch) for arch in ARCHITECTURES}


@pytest.fixture(autouse=True)
def _one_torch_thread(one_torch_thread: None) -> None:
    """Every test here runs torch on one thread (tests/conftest.py says why); a test module opts out by
    defining its own `one_torch_thread`."""
