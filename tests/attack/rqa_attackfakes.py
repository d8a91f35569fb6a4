"""Helpers of the attack tests: a small SQuAD document whose questions have synonyms under `qads`, and a fake
QA model (milliseconds, no torch) that both the attack (as a scorer) and eval (as a runner) can use.

The fake model's answer depends only on the question's words: every question starts from a margin of 2 (the
last one is wrong on clean) and some replacement words lower it; at or below 0 the answer is wrong."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from robustqa.attack.scorer import Query, Scored, is_right
from robustqa.evaluation.inference import Prediction

CONTEXT_A = (
    "Normandy is a region in France. The Normans gave their name to it in the 10th century. "
    "They built castles in every large city of the region, and Rouen was the largest city of them all."
)
CONTEXT_B = "The steam engine uses steam pressure to do work. James Watt improved it in 1781."

# how far a word in the question lowers the margin of the clean answer
FRAGILE = {"land": 3.0, "edifices": 1.5, "urban": 1.2, "sort": 0.3, "construct": 0.5, "biggest": 1.0, "part": 1.5}
WRONG_ON_CLEAN = {"b2"}


def _qa(qid: str, question: str, answer: str | None, context: str) -> dict[str, Any]:
    answers = [] if answer is None else [{"text": answer, "answer_start": context.index(answer)}]
    return {"id": qid, "question": question, "answers": answers, "is_impossible": answer is None}


def document() -> dict[str, Any]:
    return {
        "version": "v2.0",
        "data": [
            {
                "title": "Normans",
                "paragraphs": [
                    {
                        "context": CONTEXT_A,
                        "qas": [
                            _qa("a1", "In what country is Normandy located?", "France", CONTEXT_A),
                            _qa("a2", "What kind of buildings did the Normans build in a city?", "castles", CONTEXT_A),
                            _qa("a3", "What is the largest city of the region?", None, CONTEXT_A),
                            _qa("a4", "Who gave their name to Belgium?", None, CONTEXT_A),
                        ],
                    }
                ],
            },
            {
                "title": "Steam",
                "paragraphs": [
                    {
                        "context": CONTEXT_B,
                        "qas": [
                            _qa("b1", "Who improved the steam engine?", "James Watt", CONTEXT_B),
                            _qa("b2", "When did Watt improve it?", "1781", CONTEXT_B),
                        ],
                    }
                ],
            },
        ],
    }


def write_document(path: Path) -> Path:
    path.write_text(json.dumps(document()), encoding="utf-8")
    return path


def fake_margin(qid: str, question: str, fragile: dict[str, float] | None = None) -> float:
    base = -1.0 if qid in WRONG_ON_CLEAN else 2.0
    weights = FRAGILE if fragile is None else fragile
    return base - sum(weights.get(word, 0.0) for word in re.findall(r"[a-z]+", question.lower()))


def fake_answer(example: Any, margin: float) -> str:
    gold = example.answers[0].text if example.answers else ""
    if margin > 0:
        return gold
    return "Belgium" if example.answers else "Normandy"


@dataclass
class FakeQA:
    """The fake model as the attack's scorer and as eval's runner. `asked` records every query scored;
    `fail_after` raises after that many `score` calls (an interrupted run)."""

    fingerprint: str = "fake:1"
    model_fingerprint: str = "fake:1"
    fail_after: int | None = None
    fragile: dict[str, float] | None = None  # FRAGILE when None
    asked: list[tuple[str, str]] = field(default_factory=list)
    calls: int = 0

    def score(self, queries: Sequence[Query], *, on_progress: Callable[[int], None] | None = None) -> list[Scored]:
        if self.fail_after is not None and self.calls >= self.fail_after:
            raise KeyboardInterrupt("simulated interruption")
        self.calls += 1
        out = []
        for q in queries:
            self.asked.append(q.key)
            margin = fake_margin(q.qid, q.question, self.fragile)
            text = fake_answer(q.example, margin)
            out.append(Scored(text, -margin, is_right(text, q.example), margin))
        return out

    def predict(
        self, examples: Sequence[Any], *, on_progress: Callable[[int], None] | None = None
    ) -> dict[str, Prediction]:
        out = {}
        for ex in examples:
            margin = fake_margin(ex.source_id, ex.question, self.fragile)
            out[ex.id] = Prediction(ex.id, fake_answer(ex, margin), -margin, fake_answer(ex, margin) or "Normandy")
        return out
