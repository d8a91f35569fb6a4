"""From one model's predictions to the records of a run folder: official scores, the paired drop with its
intervals, flips, coverage and one example line per question.

The official metric scores each set on its own (`robustqa.metric`); the drop pairs each perturbed question
with the clean question it was made from (`robustqa.stats`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from robustqa.eval_data import EvalData
from robustqa.metric import QuestionScores, score_questions, summarize
from robustqa.models import ModelSpec
from robustqa.prediction import SetPredictions
from robustqa.runs.schema import Answered, Coverage, ExampleLine, ModelEntry, PredictionFiles
from robustqa.squad import QAExample
from robustqa.stats import Pair, build_pairs, compute_drop, flip_counts


@dataclass(frozen=True)
class ModelOutcome:
    """One model's predictions on both sets and their official per-question scores."""

    spec: ModelSpec
    slug: str
    fingerprint: str
    settings_fields: dict[str, Any]
    clean: SetPredictions
    perturbed: SetPredictions | None
    clean_scores: QuestionScores
    perturbed_scores: QuestionScores | None


def _gold(examples: list[QAExample]) -> dict[str, list[str]]:
    return {ex.id: list(ex.gold_texts) for ex in examples}


def score_model(
    spec: ModelSpec,
    *,
    slug: str,
    fingerprint: str,
    settings_fields: dict[str, Any],
    clean: SetPredictions,
    perturbed: SetPredictions | None,
    data: EvalData,
    na_prob_thresh: float,
) -> ModelOutcome:
    """Score both prediction sets with the official rules."""
    clean_scores = score_questions(_gold(data.clean), clean.texts, clean.null_odds, na_prob_thresh)
    perturbed_scores = None
    if perturbed is not None and data.perturbed is not None:
        perturbed_scores = score_questions(_gold(data.perturbed), perturbed.texts, perturbed.null_odds, na_prob_thresh)
    return ModelOutcome(spec, slug, fingerprint, settings_fields, clean, perturbed, clean_scores, perturbed_scores)


def pairs_of(outcome: ModelOutcome, data: EvalData) -> list[Pair]:
    if outcome.perturbed_scores is None:
        return []
    c, p = outcome.clean_scores, outcome.perturbed_scores
    return build_pairs(data.mapping, data.changed, c.has_answer, c.exact, c.f1, p.exact, p.f1)


def model_entry(outcome: ModelOutcome, data: EvalData, *, resamples: int, seed: int) -> ModelEntry:
    """The model's element of report.json: official results, drop with `resamples` bootstrap draws, flips, coverage."""
    clean = summarize(outcome.clean_scores, outcome.clean.texts, outcome.clean.null_odds)
    common = {"model": outcome.spec.name, "model_id": outcome.spec.model_id, "slug": outcome.slug, "fingerprint": outcome.fingerprint}
    if outcome.perturbed is None or outcome.perturbed_scores is None or data.perturbed is None:
        return ModelEntry(**common, clean=clean, coverage=Coverage(clean_questions=len(data.clean)))
    pairs = pairs_of(outcome, data)
    changed = sum(1 for p in pairs if p.changed)
    return ModelEntry(
        **common,
        clean=clean,
        perturbed=summarize(outcome.perturbed_scores, outcome.perturbed.texts, outcome.perturbed.null_odds),
        drop=compute_drop(pairs, resamples=resamples, seed=seed),
        flips=flip_counts(pairs),
        coverage=Coverage(
            clean_questions=len(data.clean),
            perturbed_questions=len(data.perturbed),
            matched=len(pairs),
            changed=changed,
            changed_share=changed / len(pairs),
            reused_predictions=outcome.perturbed.reused,
        ),
    )


def _answered(predictions: SetPredictions, scores: QuestionScores, qid: str) -> Answered:
    return Answered(predictions.texts[qid], int(scores.exact[qid]), float(scores.f1[qid]), predictions.null_odds[qid])


def example_lines(outcome: ModelOutcome, data: EvalData) -> list[ExampleLine]:
    """The examples.jsonl lines of one model: one per perturbed question (per clean question without a perturbed set)."""
    model = outcome.spec.name
    if data.perturbed is None or outcome.perturbed is None or outcome.perturbed_scores is None:
        return [
            ExampleLine(
                model=model, clean=ex, perturbed=None, perturbed_id=ex.id, changed=False, context_changed=False,
                clean_answer=_answered(outcome.clean, outcome.clean_scores, ex.id), perturbed_answer=None,
            )
            for ex in data.clean
        ]
    clean_by_id = data.clean_by_id
    lines = []
    for ex in data.perturbed:
        source = clean_by_id[data.mapping[ex.id]]
        lines.append(
            ExampleLine(
                model=model,
                clean=source,
                perturbed=ex,
                perturbed_id=ex.id,
                changed=data.changed[ex.id],
                context_changed=data.context_changed[ex.id],
                clean_answer=_answered(outcome.clean, outcome.clean_scores, source.id),
                perturbed_answer=_answered(outcome.perturbed, outcome.perturbed_scores, ex.id),
            )
        )
    return lines


def prediction_files(outcome: ModelOutcome) -> list[PredictionFiles]:
    """The official prediction and null-odds files of one model, clean first."""
    files = [PredictionFiles(outcome.slug, "clean", outcome.clean.texts, outcome.clean.null_odds)]
    if outcome.perturbed is not None:
        files.append(PredictionFiles(outcome.slug, "perturbed", outcome.perturbed.texts, outcome.perturbed.null_odds))
    return files
