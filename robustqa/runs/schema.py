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
EXAMPLE_REQUIRED_KEYS = (
    "model",
    "id",
    "question",
    "perturbed_question",
    "clean_exact",
    "perturbed_exact",
    "clean_f1",
    "perturbed_f1",
)


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
class Cost:
    """What running the model cost in this run, on the device it ran on (measured by the runner).

    Only questions that reached the model count: cache hits and reused predictions cost nothing here, and
    a run served entirely from the cache has no speed (`questions` 0, the rates None)."""

    parameters: int
    device: str  # as torch names it: cpu, cuda:0, mps
    device_name: str  # the hardware: a GPU's name, or the CPU's model and torch's thread count
    precision: str  # int8, fp32, bf16 or fp16
    batch_size: int  # windows per forward pass
    processes: int  # under torchrun/accelerate, the processes that shared the forward passes
    questions: int
    windows: int
    forward_seconds: float
    predict_seconds: float

    @property
    def windows_per_second(self) -> float | None:
        return self.windows / self.forward_seconds if self.questions and self.forward_seconds > 0 else None

    @property
    def ms_per_question(self) -> float | None:
        return 1000.0 * self.predict_seconds / self.questions if self.questions else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "parameters": self.parameters,
            "device": self.device,
            "device_name": self.device_name,
            "precision": self.precision,
            "batch_size": self.batch_size,
            "processes": self.processes,
            "questions": self.questions,
            "windows": self.windows,
            "forward_seconds": self.forward_seconds,
            "predict_seconds": self.predict_seconds,
            "windows_per_second": self.windows_per_second,
            "ms_per_question": self.ms_per_question,
        }


@dataclass(frozen=True, kw_only=True)
class ModelEntry:
    """One element of report.json's `models`: scores, the drop with its intervals, flips, coverage.

    `clean`/`perturbed` are the official metric's result dicts (of the run's rules), `clean_ci`, `drop`,
    `worst_copy` and `flips` those of `robustqa.stats`; the prediction files are named by
    `robustqa.runs.layout`, not chosen here.
    """

    model: str  # what the user typed
    model_id: str
    slug: str
    fingerprint: str
    clean: Mapping[str, Any]
    clean_ci: Mapping[str, Any] | None = None
    perturbed: Mapping[str, Any] | None = None
    drop: Mapping[str, Any] | None = None
    worst_copy: Mapping[str, Any] | None = None
    flips: Mapping[str, int] | None = None
    coverage: Coverage
    cost: Cost | None = None
    valid: Mapping[str, Any] | None = None  # the drop on reviewed-valid questions, when review decisions were given
    variants: Mapping[str, Any] | None = None  # worst-of-K and mean-of-K, when questions have several changed variants
    estimands: Mapping[str, Any] | None = None  # robustqa.estimands: the headline (docs/metrics.md); paired runs

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "model_id": self.model_id,
            "slug": self.slug,
            "fingerprint": self.fingerprint,
            "clean": self.clean,
            "clean_ci": self.clean_ci,
            "perturbed": self.perturbed,
            "drop": self.drop,
            "worst_copy": self.worst_copy,
            **({"variants": self.variants} if self.variants is not None else {}),
            **({"estimands": self.estimands} if self.estimands is not None else {}),
            "flips": self.flips,
            "coverage": self.coverage.to_dict(),
            "cost": self.cost.to_dict() if self.cost is not None else None,
            "valid": self.valid,
            "files": model_files(self.slug, perturbed=self.perturbed is not None),
        }


@dataclass(frozen=True, kw_only=True)
class RunReport:
    """report.json: how the run was made (signature, files, settings) and one entry per model."""

    signature: str
    rules: str  # the SQuAD rules that scored both sets: "2.0" or "1.1"
    shift: str | None  # what shifted the data (`qads@1.1`, `addsent@1`, `squad-shifts@1`); None: clean SQuAD alone
    clean_file: str
    perturbed_file: str | None
    clean_signature: str | None
    perturbed_signature: str | None
    settings: Mapping[str, Any]
    models: tuple[ModelEntry, ...]
    review: Mapping[str, Any] | None = (
        None  # robustqa.review.status.ReviewStatus.to_dict(); None without a perturbed file
    )
    comparisons: tuple[Mapping[str, Any], ...] = ()  # robustqa.estimands.compare of each two models of the run

    def to_dict(self) -> dict[str, Any]:
        return {
            "signature": self.signature,
            "rules": self.rules,
            "shift": self.shift,
            "clean_file": self.clean_file,
            "perturbed_file": self.perturbed_file,
            "clean_signature": self.clean_signature,
            "perturbed_signature": self.perturbed_signature,
            "review": dict(self.review) if self.review is not None else None,
            "settings": dict(self.settings),
            "models": [entry.to_dict() for entry in self.models],
            **({"comparisons": list(self.comparisons)} if self.comparisons else {}),
        }


@dataclass(frozen=True)
class Answered:
    """One prediction of one question, with its official per-question scores (after the no-answer threshold)."""

    text: str
    exact: int
    f1: float
    null_odds: float
    # the best non-null span and its scores (answerable questions whose runner reported one), else None
    best_span: str | None = None
    best_exact: int | None = None
    best_f1: float | None = None


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
            # every edit with its kind, classified here when the perturbed file does not say (older builds)
            "substitutions": [s.classified().to_dict() for s in (perturbed.substitutions if perturbed else ())],
            "clean_best_span": self.clean_answer.best_span,
            "perturbed_best_span": after.best_span if after is not None else None,
            "clean_best_exact": self.clean_answer.best_exact,
            "clean_best_f1": self.clean_answer.best_f1,
            "perturbed_best_exact": after.best_exact if after is not None else None,
            "perturbed_best_f1": after.best_f1 if after is not None else None,
        }


@dataclass(frozen=True)
class PredictionFiles:
    """The official prediction and null-odds files of one model on one set (`role`: clean or perturbed), and
    the per-question scores. `texts` are the answers the run's rules scored (best non-null spans under v1.1)."""

    slug: str
    role: str
    texts: Mapping[str, str]
    null_odds: Mapping[str, float]
    scores: Mapping[str, Mapping[str, float]]  # id -> {"exact", "f1"}
