"""The records of a run folder: report.json (the run and one entry per model) and the lines of examples.jsonl.

Each record is built once, by keyword, and turned into JSON here and nowhere else, with its keys in the
order docs/FORMATS.md gives; the reader (`robustqa.runs.load`) checks the keys the analysis relies on.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from robustqa.runs.layout import model_files
from robustqa.squad import QAExample

# The keys of an examples.jsonl line that every reader relies on (the others are informative).
EXAMPLE_REQUIRED_KEYS = ("model", "id", "question", "perturbed_question", "clean_exact", "perturbed_exact", "clean_f1", "perturbed_f1")


@dataclass(frozen=True, kw_only=True)
class Coverage:
    """How the clean and perturbed questions of one model paired up, and how many predictions were reused."""

    clean_questions: int
    perturbed_questions: int = 0
    matched: int = 0
    changed: int = 0
    changed_share: float | None = None
    reused_predictions: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "clean_questions": self.clean_questions,
            "perturbed_questions": self.perturbed_questions,
            "matched": self.matched,
            "changed": self.changed,
            "changed_share": self.changed_share,
            "reused_predictions": self.reused_predictions,
        }


@dataclass(frozen=True, kw_only=True)
class ModelEntry:
    """One element of report.json's `models`: scores, the drop with its intervals, flips, coverage.

    `clean`/`perturbed` are the official metric's result dicts, `drop` and `flips` those of
    `robustqa.stats`; the prediction files are named by `robustqa.runs.layout`, not chosen here.
    """

    model: str  # what the user typed
    model_id: str
    slug: str
    fingerprint: str
    clean: Mapping[str, Any]
    perturbed: Mapping[str, Any] | None = None
    drop: Mapping[str, Any] | None = None
    flips: Mapping[str, int] | None = None
    coverage: Coverage

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "model_id": self.model_id,
            "slug": self.slug,
            "fingerprint": self.fingerprint,
            "clean": self.clean,
            "perturbed": self.perturbed,
            "drop": self.drop,
            "flips": self.flips,
            "coverage": self.coverage.to_dict(),
            "files": model_files(self.slug, perturbed=self.perturbed is not None),
        }


@dataclass(frozen=True, kw_only=True)
class RunReport:
    """report.json: how the run was made (signature, files, settings) and one entry per model."""

    signature: str
    clean_file: str
    perturbed_file: str | None
    perturbed_signature: str | None
    settings: Mapping[str, Any]
    models: tuple[ModelEntry, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "signature": self.signature,
            "clean_file": self.clean_file,
            "perturbed_file": self.perturbed_file,
            "perturbed_signature": self.perturbed_signature,
            "settings": dict(self.settings),
            "models": [entry.to_dict() for entry in self.models],
        }


@dataclass(frozen=True)
class Answered:
    """One prediction of one question, with its official per-question scores (after the no-answer threshold)."""

    text: str
    exact: int
    f1: float
    null_odds: float


@dataclass(frozen=True, kw_only=True)
class ExampleLine:
    """One line of examples.jsonl: a perturbed question beside the clean question it was made from.

    In a clean-only run there is one line per clean question, with `perturbed` and `perturbed_answer` None.
    """

    model: str
    clean: QAExample
    perturbed: QAExample | None
    perturbed_id: str
    changed: bool
    context_changed: bool
    clean_answer: Answered
    perturbed_answer: Answered | None

    def to_dict(self) -> dict[str, Any]:
        clean, perturbed, after = self.clean, self.perturbed, self.perturbed_answer
        return {
            "model": self.model,
            "id": self.perturbed_id,
            "source_id": clean.id,
            "title": clean.title,
            "question": clean.question,
            "perturbed_question": perturbed.question if perturbed is not None else None,
            "changed": self.changed,
            "context_changed": self.context_changed,
            "answerable": bool(clean.answers),
            "gold_answers": [a.text for a in clean.answers],
            "clean_prediction": self.clean_answer.text,
            "perturbed_prediction": after.text if after is not None else None,
            "clean_exact": self.clean_answer.exact,
            "clean_f1": self.clean_answer.f1,
            "perturbed_exact": after.exact if after is not None else None,
            "perturbed_f1": after.f1 if after is not None else None,
            "clean_null_odds": self.clean_answer.null_odds,
            "perturbed_null_odds": after.null_odds if after is not None else None,
            "substitutions": [s.to_dict() for s in perturbed.substitutions] if perturbed is not None else [],
        }


@dataclass(frozen=True)
class PredictionFiles:
    """The official prediction and null-odds files of one model on one set (`role`: clean or perturbed)."""

    slug: str
    role: str
    texts: Mapping[str, str]
    null_odds: Mapping[str, float]
