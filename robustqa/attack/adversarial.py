"""adversarial.json: the attacked questions as a SQuAD 2.0 file in build-dataset's output format.

Every question of the attacked range is there, in the input's order and shape: a question the attack
flipped carries its adversarial text, `original_question` and `substitutions` (as build-dataset writes
them), and an `attack` record (queries used, edits); one it searched without a flip keeps its text and
gets the `attack` record alone; the others are as they were. So `robustqa eval --clean INPUT --perturbed
adversarial.json` pairs every question, reuses the clean answer of every unchanged one, and finds exactly
the flips the attack claims, for the attacked model or any other.
"""

from __future__ import annotations

from typing import Any

from robustqa.attack.driver import SUCCEEDED, AttackRun, QuestionResult
from robustqa.attack.search import FLIP_MARGIN
from robustqa.squad import Paragraph, Question, article_to_dict, document_to_dict, paragraph_to_dict

# what a question record of the input may already carry that the attack's record replaces
_REPLACED = ("original_question", "substitutions", "attack")


def attack_fields(result: QuestionResult) -> dict[str, Any]:
    outcome = result.outcome
    if outcome is None:
        return {}
    record: dict[str, Any] = {"queries": outcome.queries, "flipped": outcome.succeeded}
    if outcome.succeeded and outcome.variant is not None:
        record.update(queries_to_flip=outcome.queries_to_flip, edits=len(outcome.variant.choices))
    else:
        record["stop"] = outcome.stop
    return record


def _question(q: Question, result: QuestionResult) -> Question:
    extra = {k: v for k, v in q.extra.items() if k not in _REPLACED}
    fields = attack_fields(result)
    outcome = result.outcome
    if result.status == SUCCEEDED and outcome is not None and outcome.variant is not None:
        pert = outcome.variant.perturbation
        own = {
            "original_question": q.question,
            "substitutions": [s.to_dict() for s in pert.substitutions],
            "attack": fields,
        }
        return Question(q.id, pert.perturbed, q.answers, q.is_impossible, q.plausible_answers, {**own, **extra})
    if fields:
        return Question(q.id, q.question, q.answers, q.is_impossible, q.plausible_answers, {**extra, "attack": fields})
    return Question(q.id, q.question, q.answers, q.is_impossible, q.plausible_answers, extra)


def adversarial_document(run: AttackRun) -> dict[str, Any]:
    """The SQuAD 2.0 document of the attacked range (docs/FORMATS.md)."""
    by_id = {r.example.id: r for r in run.results}
    data = []
    for article in run.dataset.articles:
        paragraphs = []
        for paragraph in article.paragraphs:
            qas = tuple(_question(q, by_id[q.id]) for q in paragraph.qas if q.id in by_id)
            if qas:
                paragraphs.append(paragraph_to_dict(Paragraph(paragraph.context, qas, paragraph.extra)))
        if paragraphs:
            data.append(article_to_dict(article, paragraphs))
    succeeded = [
        r for r in run.results if r.status == SUCCEEDED and r.outcome is not None and r.outcome.variant is not None
    ]
    config = run.config
    meta = {
        "signature": run.signature.to_dict(),
        "recipe": run.spaces.record(),
        "attack": {
            "target": run.spec.name,
            "model_id": run.spec.model_id,
            "fingerprint": run.fingerprint,
            "budget": config.budget,
            "max_edits": config.max_edits,
            "beam": config.beam,
            "include_penalised": config.include_penalised,
            "seed": config.seed,
            "flip_margin": FLIP_MARGIN,
        },
        "source": config.input_file.name,
        "summary": {
            "questions": len(run.results),
            "attempted": sum(1 for r in run.results if r.attempted),
            "changed": len(succeeded),
            "substitutions": sum(len(r.outcome.variant.perturbation.substitutions) for r in succeeded),  # type: ignore[union-attr,misc]
        },
    }
    return document_to_dict(run.dataset.version, {"signature": run.signature.format(), "robustqa": meta}, data)
