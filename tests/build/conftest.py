"""Fixtures of the dataset-building tests: golden files, the packaged sample, recording recipes."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import perturbations
from perturbations.records import Perturbation, Substitution

REPO = Path(__file__).resolve().parents[2]
GOLDEN = REPO / "tests" / "golden" / "build"
SAMPLE = REPO / "robustqa" / "data" / "squad2-sample.json"


@pytest.fixture(scope="session")
def sample_path() -> Path:
    return SAMPLE


@pytest.fixture(scope="session")
def golden() -> Callable[[str, str], None]:
    """Compare text with tests/golden/build/<name>; ROBUSTQA_UPDATE_GOLDEN=1 rewrites the file instead."""

    def check(name: str, text: str) -> None:
        path = GOLDEN / name
        if os.environ.get("ROBUSTQA_UPDATE_GOLDEN") == "1":
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        expected = path.read_text(encoding="utf-8")
        assert text == expected, (
            f"{name} differs from its golden file; if the change is intended, rerun with ROBUSTQA_UPDATE_GOLDEN=1"
        )

    return check


@dataclass
class RecordingRecipe:
    """A real recipe that records every call, to check what the builder asks of the engine."""

    inner: perturbations.Recipe
    calls: list[dict[str, Any]] = field(default_factory=list)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def perturb(self, text: str, **kwargs: Any) -> Perturbation:
        self.calls.append({"text": text, **kwargs})
        return self.inner.perturb(text, **kwargs)


@dataclass
class AnswerBreakingRecipe:
    """A broken engine: edits the first character range given as frozen (an answer) in every context."""

    inner: perturbations.Recipe

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def perturb(self, text: str, *, frozen_spans: Any = (), **kwargs: Any) -> Perturbation:
        if not frozen_spans:
            return self.inner.perturb(text, frozen_spans=frozen_spans, **kwargs)
        start, end = frozen_spans[0]
        replacement = "X" * (end - start + 2)
        sub = Substitution(
            start, end, start, start + len(replacement), text[start:end], replacement, "NN", "x.n.01", 1.0
        )
        return Perturbation(text, text[:start] + replacement + text[end:], (sub,), (), self.inner.name)


@pytest.fixture
def recording() -> Callable[[str], RecordingRecipe]:
    return lambda name: RecordingRecipe(perturbations.get_recipe(name))


@pytest.fixture
def answer_breaking() -> AnswerBreakingRecipe:
    return AnswerBreakingRecipe(perturbations.get_recipe("context"))
