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
def one_torch_thread():
    """Tiny models run fastest on one thread, and a shared CI machine punishes spinning OpenMP threads."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
