"""Fixtures of the importer tests (helpers in rqa_importfakes.py)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def addsent_sample(shared_dir: Path) -> Path:
    return shared_dir / "adversarial" / "addsent-sample.json"


@pytest.fixture(autouse=True)
def one_torch_thread():
    """The end-to-end eval runs a tiny model, fastest on one thread on a shared machine."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
