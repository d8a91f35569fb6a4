"""Model queries: many variants of many questions answered in one batched call, each with its answer, its
null odds, whether it is right, and the margin of the clean answer (`robustqa.attack.margin`).

The answers come from the runner's own `forward` and `decode`, the code `robustqa eval` predicts with, so
an answer here is the answer eval gives to the same question (up to the last bits of floating point when
the batches differ, which is why a flip must clear a margin; see `robustqa.attack.search`).

Under `torchrun`/`accelerate launch` every process calls `score` with the same queries: the runner deals
the batches to the processes, the main process decodes, and the results are broadcast, so every process
continues the same search.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from robustqa.attack.margin import gold_set, question_margin
from robustqa.evaluation import distributed
from robustqa.metric import normalize_answer
from robustqa.squad import QAExample


@dataclass(frozen=True)
class Query:
    """One question text to put to the model: a clean question or a variant of it (same id, same context)."""

    qid: str
    question: str
    example: QAExample  # the clean question: its context and gold answers

    @property
    def key(self) -> tuple[str, str]:
        return (self.qid, self.question)


@dataclass(frozen=True)
class Scored:
    """The model's answer to one query ("" = no answer), its null odds, whether the answer is an exact
    match of a gold answer (or, unanswerable, an abstention), and the clean answer's margin."""

    text: str
    null_odds: float
    right: bool
    margin: float


class Scorer(Protocol):
    """What the attack needs of a model (robustqa's `ModelScorer`, or a test double)."""

    fingerprint: str

    def score(self, queries: Sequence[Query], *, on_progress: Callable[[int], None] | None = None) -> list[Scored]: ...


def is_right(text: str, example: QAExample) -> bool:
    """Exact match under the SQuAD 2.0 rules: a gold answer, or "" for an unanswerable question."""
    golds = gold_set(example.gold_texts)
    return normalize_answer(text) in golds if golds else normalize_answer(text) == ""


class ModelScorer:
    """Scores queries with a `robustqa.evaluation.inference.QAModelRunner` (loaded by the caller)."""

    def __init__(self, runner: Any) -> None:
        self.runner = runner
        self.fingerprint: str = runner.model_fingerprint

    def score(self, queries: Sequence[Query], *, on_progress: Callable[[int], None] | None = None) -> list[Scored]:
        """Every query's result, in order, on every process."""
        if not queries:
            return []
        examples = [_as_example(i, q) for i, q in enumerate(queries)]
        windows, logits = self.runner.forward(examples, on_progress=on_progress)
        results: list[Scored] | None = None
        if logits is not None and distributed.is_main_process():
            answers = self.runner.decode(examples, windows, logits)
            self.runner.timing.questions += len(examples)
            settings = self.runner.settings
            by_example: dict[int, list[int]] = {}
            for w in range(len(windows)):
                by_example.setdefault(int(windows.example_index[w]), []).append(w)
            results = []
            for i, (query, example) in enumerate(zip(queries, examples)):
                views = [
                    (logits[w][0], logits[w][1], windows.offsets[w], int(windows.cls_index[w]))
                    for w in by_example.get(i, [])
                ]
                margin = question_margin(
                    views,
                    example.context,
                    gold_set(query.example.gold_texts),
                    n_best=settings.n_best,
                    max_answer_length=settings.max_answer_length,
                    null_threshold=settings.null_threshold,
                )
                answer = answers[example.id]
                results.append(
                    Scored(answer.text, float(answer.null_odds), is_right(answer.text, query.example), margin)
                )
        return distributed.broadcast_object(results) or []


def _as_example(index: int, query: Query) -> QAExample:
    clean = query.example
    return QAExample(
        id=f"query-{index}",
        question=query.question,
        context=clean.context,
        answers=clean.answers,
        is_impossible=clean.is_impossible,
        title=clean.title,
        source_id=clean.id,
        original_question=clean.question,
        original_context=clean.context,
    )
