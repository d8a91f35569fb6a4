"""Helpers of the evaluation tests: small SQuAD documents and a fake model runner (no model, milliseconds)."""

from __future__ import annotations

import json
import re
import string
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from robustqa.evaluation.inference import Prediction

CONTEXT_A = "Normandy is a region in France. The Normans gave their name to it in the 10th century."
CONTEXT_B = "The steam engine uses steam pressure to do work. James Watt improved it in 1781."


def _qa(qid: str, question: str, answer: str | None, context: str, **extra: Any) -> dict[str, Any]:
    answers = [] if answer is None else [{"text": answer, "answer_start": context.index(answer)}]
    return {"id": qid, "question": question, "answers": answers, "is_impossible": answer is None, **extra}


def clean_document() -> dict[str, Any]:
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
                            _qa("a2", "When did the Normans give their name to Normandy?", "10th century", CONTEXT_A),
                            _qa("a3", "Who gave their name to Belgium?", None, CONTEXT_A),
                            _qa("a4", "What is Normandy?", "a region in France", CONTEXT_A),
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
                            _qa("b3", "Who invented the jet engine?", None, CONTEXT_B),
                            _qa("b4", "What does the engine use to do work?", "steam pressure", CONTEXT_B),
                        ],
                    }
                ],
            },
        ],
    }


# question id -> perturbed question (the others stay identical)
CHANGED = {
    "a1": "In what nation is Normandy situated?",
    "a2": "When did the Normans give their name to Normandy?",  # unchanged text
    "b1": "Who amended the steam engine?",
    "b3": "Who devised the jet engine?",
}


def perturbed_document(*, variants: bool = False) -> dict[str, Any]:
    doc = clean_document()
    doc["signature"] = "recipe:qads@1.0|seed:13|robustqa:0.1.0"
    doc["robustqa"] = {"recipe": {"name": "qads", "version": "1.0"}}
    for article in doc["data"]:
        for paragraph in article["paragraphs"]:
            new_qas = []
            for qa in paragraph["qas"]:
                text = CHANGED.get(qa["id"], qa["question"])
                copies = [1, 2] if variants else [None]
                for k in copies:
                    item = dict(qa, question=text)
                    if text != qa["question"]:
                        item["original_question"] = qa["question"]
                    if k is not None:
                        item["id"] = f"{qa['id']}-v{k}"
                        item["source_id"] = qa["id"]
                        if k == 2 and qa["id"] == "b2":  # one variant that does change
                            item["question"] = "When did Watt amend it?"
                    new_qas.append(item)
            paragraph["qas"] = new_qas
    return doc


def answerable_only(document: dict[str, Any]) -> dict[str, Any]:
    """The document without its unanswerable questions: a SQuAD v1.1 file."""
    for article in document["data"]:
        for paragraph in article["paragraphs"]:
            paragraph["qas"] = [qa for qa in paragraph["qas"] if qa["answers"]]
    document["version"] = "1.1"
    return document


def write_json(path: Path, document: Any) -> Path:
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


@dataclass
class FakeRunner:
    """Answers with the gold text unless the question contains a "perturbed" word; records what it saw.

    `fail_after` raises after that many `predict` calls, to simulate an interrupted run.
    """

    model_fingerprint: str = "fake:1"
    fail_after: int | None = None
    seen: list[str] = field(default_factory=list)
    calls: int = 0

    def predict(
        self, examples: Sequence[Any], *, on_progress: Callable[[int], None] | None = None
    ) -> dict[str, Prediction]:
        if self.fail_after is not None and self.calls >= self.fail_after:
            raise KeyboardInterrupt("simulated interruption")
        self.calls += 1
        out = {}
        for ex in examples:
            self.seen.append(ex.id)
            confused = any(word in ex.question for word in ("nation", "amended", "devised"))
            gold = ex.answers[0].text if ex.answers else ""
            text = "Belgium" if confused and ex.answers else ("" if confused else gold)
            if ex.id.startswith("b3"):
                text = "" if not confused else "James Watt"
            # the best non-null span: the answer given, else the first word of the context (never "")
            out[ex.id] = Prediction(ex.id, text, -2.0 if text else 1.5, text or ex.context.split()[0])
        if on_progress is not None:
            on_progress(len(examples))
        return out


@dataclass
class TimedFakeRunner(FakeRunner):
    """The fake runner with what robustqa's runner measures: parameters, device, precision, and a `Timing`
    that counts the questions and windows (one per question) it was asked, at 10 ms a question."""

    parameters: int = 1_234_567
    device: str = "cpu"
    device_name: str = "Fake CPU, 1 threads"
    precision: str = "fp32"
    settings: Any = None
    timing: Any = None

    def __post_init__(self) -> None:
        from robustqa.evaluation.inference import InferenceSettings, Timing

        self.settings = self.settings or InferenceSettings()
        self.timing = Timing()

    def predict(
        self, examples: Sequence[Any], *, on_progress: Callable[[int], None] | None = None
    ) -> dict[str, Prediction]:
        out = super().predict(examples, on_progress=on_progress)
        self.timing.questions += len(examples)
        self.timing.windows += len(examples)
        self.timing.forward_seconds += 0.008 * len(examples)
        self.timing.predict_seconds += 0.010 * len(examples)
        return out


def _normalize(text: str) -> str:
    text = "".join(ch for ch in text.lower() if ch not in set(string.punctuation))
    text = re.sub(r"\b(a|an|the)\b", " ", text)
    return " ".join(text.split())


def _f1(prediction: str, gold: str) -> float:
    p, g = _normalize(prediction).split(), _normalize(gold).split()
    if not p or not g:
        return float(p == g)
    common = sum((Counter(p) & Counter(g)).values())
    if common == 0:
        return 0.0
    return 2 * common / (len(p) + len(g))


def reference_score(golds: list[str], prediction: str) -> tuple[float, float]:
    """(EM, F1) of one prediction by the SQuAD 2.0 rules, written apart from robustqa.metric so that tests can
    recompute its figures independently: the best over the gold answers; "" is right on no answer."""
    golds = [g for g in golds if _normalize(g)] or [""]
    return (
        max(float(_normalize(prediction) == _normalize(g)) for g in golds),
        max(_f1(prediction, g) for g in golds),
    )


def edit_record(original: str, replacement: str, question: str, kind: str | None) -> dict[str, Any]:
    """The record of one word edit of `question` (a one-word span, same start), with its kind when given."""
    start = question.index(original)
    record = {
        "start": start,
        "end": start + len(original),
        "new_start": start,
        "new_end": start + len(replacement),
        "original": original,
        "replacement": replacement,
        "pos": "NN",
        "synset": "x.n.01",
        "confidence": 1.0,
    }
    if kind is not None:
        record["kind"] = kind
    return record
