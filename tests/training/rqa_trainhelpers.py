"""What the training tests share (a module of its own: `conftest` is not importable by name in a full run)."""

from __future__ import annotations

from pathlib import Path

SAMPLE = Path(__file__).parents[2] / "robustqa" / "data" / "squad2-sample.json"
