"""Helpers of the importer tests: small synthetic files in each published format, written by the tests."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))

CONTEXT_A = "Normandy is a region in France. The Normans gave their name to it in the 10th century."
CONTEXT_B = "The steam engine uses steam pressure to do work. James Watt improved it in 1781."
DISTRACTORS = [
    "Paris is a region in Spain.",
    "Jeff Dean improved the jet engine in 1999.",
    "Rollo named Belgium in 1066.",
]


def qa(qid: str, question: str, answer: str, context: str, **extra: Any) -> dict[str, Any]:
    return {
        "id": qid,
        "question": question,
        "answers": [{"text": answer, "answer_start": context.index(answer)}],
        **extra,
    }


def originals() -> list[tuple[str, str, str, str, str]]:
    """(article, id, question, answer, context) of the original questions."""
    return [
        ("Normans", "n1", "In what country is Normandy located?", "France", CONTEXT_A),
        ("Normans", "n2", "When did the Normans name Normandy?", "10th century", CONTEXT_A),
        ("Steam", "s1", "Who improved the steam engine?", "James Watt", CONTEXT_B),
        ("Steam", "s2", "When did Watt improve it?", "1781", CONTEXT_B),
    ]


def adversarial_document(copies: dict[str, int], *, copies_first: bool = False) -> dict[str, Any]:
    """An AddSent-style v1.1 file: the originals, and `copies[id]` copies of each, each copy in its own
    paragraph with a distracting sentence appended (ids `<id>-high-conf-turk<k>`)."""
    articles: dict[str, list[dict[str, Any]]] = {}
    for title, qid, question, answer, context in originals():
        original = {"context": context, "qas": [qa(qid, question, answer, context)]}
        adversarial = []
        for k in range(copies.get(qid, 0)):
            new_context = f"{context} {DISTRACTORS[k % len(DISTRACTORS)]}"
            adversarial.append(
                {"context": new_context, "qas": [qa(f"{qid}-high-conf-turk{k}", question, answer, new_context)]}
            )
        paragraphs = articles.setdefault(title, [])
        paragraphs.extend(adversarial + [original] if copies_first else [original] + adversarial)
    return {
        "version": "1.1",
        "data": [{"title": title, "paragraphs": paragraphs} for title, paragraphs in articles.items()],
    }


def plain_document() -> dict[str, Any]:
    """A SQuAD v1.1 file of new questions (SQuAD-Shifts / AdversarialQA form)."""
    return adversarial_document({})


def write(path: Path, document: Any) -> Path:
    path.write_text(json.dumps(document) if not isinstance(document, str) else document, encoding="utf-8")
    return path
