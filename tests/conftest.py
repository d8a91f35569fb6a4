"""Shared test setup: offline resources from ../shared, found relative to the repository."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("ROBUSTQA_SHARED", REPO.parent / "shared"))

os.environ.setdefault("NLTK_DATA", str(SHARED / "nltk_data"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    return SHARED


@pytest.fixture(scope="session")
def squad_half_path() -> Path:
    return SHARED / "squad" / "squad2-dev-half.json"


@pytest.fixture(scope="session")
def squad_heldout_path() -> Path:
    return SHARED / "squad" / "squad2-dev-heldout.json"


@pytest.fixture(scope="session")
def shared_model_path() -> Path:
    return SHARED / "models" / "minilm-squad2-mini"
