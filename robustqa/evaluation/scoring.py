"""From one model's predictions to the records of a run folder: official scores, the paired drop with its
intervals, the authors' worst-copy protocol, flips, coverage and one example line per question.

The official metric scores each set on its own (`robustqa.metric`), with the run's rules: SQuAD 2.0 scores
the answers as given (the model may abstain), SQuAD v1.1 the best non-null span of each question (the model
always answers). The drop pairs each perturbed question with the clean question it was made from
(`robustqa.stats`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from robustqa.errors import InputError
from robustqa.estimands import compare, estimands
from robustqa.evaluation.data import EvalData
from robustqa.evaluation.models import ModelSpec
from robustqa.evaluation.prediction import SetPredictions
from robustqa.metric import RULES_V1, QuestionScores, score_questions, score_questions_v1, summarize, summarize_v1
from robustqa.runs.schema import Answered, Cost, Coverage, ExampleLine, ModelEntry, PredictionFiles
from robustqa.squad import QAExample
from robustqa.stats import (
    Pair,
    build_pairs,
    compute_drop,
    flip_counts,
    score_intervals,
    score_means,
    variant_summary,
    worst_copy,
)


@dataclass(frozen=True)
class ModelOutcome:
    """One model's predictions on both sets, the answers the rules scored, and their per-question scores."""

    spec: ModelSpec
    slug: str
    fingerprint: str
    settings_fields: dict[str, Any]
    clean: SetPredictions
    perturbed: SetPredictions | None
    clean_scores: QuestionScores
    perturbed_scores: QuestionScores | None
    rules: str
    clean_answers: Mapping[str, str]  # what the rules scored: the texts (2.0) or the best spans (1.1)
    perturbed_answers: Mapping[str, str] | None
    cost: Cost | None
    # the best non-null span's (EM, F1) of each answerable question: what the model finds with abstention off
    clean_best: Mapping[str, tuple[float, float]] | None = None
    perturbed_best: Mapping[str, tuple[float, float]] | None = None

    def answers(self, role: str) -> Mapping[str, str]:
        answers = self.clean_answers if role == "clean" else self.perturbed_answers
        assert answers is not None
        return answers


def _gold(examples: list[QAExample]) -> dict[str, list[str]]:
    return {ex.id: list(ex.gold_texts) for ex in examples}


def scored_answers(predictions: SetPredictions, rules: str) -> dict[str, str]:
    """The answers a rule set scores: SQuAD 2.0 the texts as given ("" to abstain); v1.1 the best non-null
    span of every question, which a model that always answers gives."""
    if rules != RULES_V1:
        return dict(predictions.texts)
    spans: dict[str, str] = {}
    for qid in predictions.texts:
        span = predictions.best_spans.get(qid)
        if span is None:
            raise InputError(
                f"no best non-null span for question {qid}, which SQuAD v1.1 rules answer with",
                hint="predict it again with a runner that reports the best span (robustqa's own)",
            )
        spans[qid] = span
    return spans


def best_span_scores(examples: list[QAExample], predictions: SetPredictions) -> dict[str, tuple[float, float]]:
    """(EM, F1) of the best non-null span of every answerable question whose runner reported one: the
    threshold-free scores (docs/metrics.md), so that a drop cannot hide in the null threshold."""
    gold = {ex.id: list(ex.gold_texts) for ex in examples if ex.gold_texts}
    spans = {qid: predictions.best_spans.get(qid) for qid in gold}
    known = {qid: span for qid, span in spans.items() if span is not None}
    if not known:
        return {}
    scores = score_questions_v1({qid: gold[qid] for qid in known}, known)
    return {qid: (float(scores.exact[qid]), float(scores.f1[qid])) for qid in known}


def score_set(
    examples: list[QAExample],
    answers: Mapping[str, str],
    predictions: SetPredictions,
    rules: str,
    na_prob_thresh: float,
) -> QuestionScores:
    if rules == RULES_V1:
        return score_questions_v1(_gold(examples), answers)
    return score_questions(_gold(examples), answers, predictions.null_odds, na_prob_thresh)


def summarize_set(
    scores: QuestionScores, answers: Mapping[str, str], predictions: SetPredictions, rules: str
) -> dict[str, Any]:
    """The official result dict of the rules: evaluate-v2.0's keys, or evaluate-v1.1's (`exact`, `f1`, `total`)."""
    if rules == RULES_V1:
        return summarize_v1(scores)
    return summarize(scores, answers, predictions.null_odds)


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
    cost: Cost | None = None,
) -> ModelOutcome:
    """Score both prediction sets with the official rules of the run (`data.rules`)."""
    clean_answers = scored_answers(clean, data.rules)
    clean_scores = score_set(data.clean, clean_answers, clean, data.rules, na_prob_thresh)
    perturbed_scores = perturbed_answers = None
    if perturbed is not None and data.perturbed is not None:
        perturbed_answers = scored_answers(perturbed, data.rules)
        perturbed_scores = score_set(data.perturbed, perturbed_answers, perturbed, data.rules, na_prob_thresh)
    return ModelOutcome(
        spec,
        slug,
        fingerprint,
        settings_fields,
        clean,
        perturbed,
        clean_scores,
        perturbed_scores,
        data.rules,
        clean_answers,
        perturbed_answers,
        cost,
        best_span_scores(data.clean, clean),
        best_span_scores(data.perturbed, perturbed) if perturbed is not None and data.perturbed is not None else None,
    )


def pairs_of(outcome: ModelOutcome, data: EvalData) -> list[Pair]:
    if outcome.perturbed_scores is None:
        return []
    c, p = outcome.clean_scores, outcome.perturbed_scores
    return build_pairs(data.mapping, data.changed, c.has_answer, c.exact, c.f1, p.exact, p.f1)


def _clean_ci(scores: QuestionScores, *, resamples: int, seed: int) -> dict[str, list[float]]:
    exact_ci, f1_ci = score_intervals(
        [list(scores.exact.values()), list(scores.f1.values())], resamples=resamples, seed=seed
    )
    return {"exact": exact_ci, "f1": f1_ci}


def model_entry(outcome: ModelOutcome, data: EvalData, *, resamples: int, seed: int) -> ModelEntry:
    """The model's element of report.json: official results, drop with `resamples` bootstrap draws, the
    worst-copy protocol where it applies, flips, coverage, cost."""
    clean = summarize_set(outcome.clean_scores, outcome.answers("clean"), outcome.clean, outcome.rules)
    common: dict[str, Any] = {
        "model": outcome.spec.name,
        "model_id": outcome.spec.model_id,
        "slug": outcome.slug,
        "fingerprint": outcome.fingerprint,
        "clean": clean,
        "clean_ci": _clean_ci(outcome.clean_scores, resamples=resamples, seed=seed),
        "cost": outcome.cost,
    }
    if outcome.perturbed is None or outcome.perturbed_scores is None or data.perturbed is None:
        return ModelEntry(**common, coverage=Coverage(clean_questions=len(data.clean)))
    pairs = pairs_of(outcome, data)
    changed = sum(1 for p in pairs if p.changed)
    c = outcome.clean_scores
    review = data.review
    return ModelEntry(
        valid=reviewed_valid(pairs, review.valid_ids, resamples=resamples, seed=seed)
        if review and review.valid_ids is not None
        else None,
        **common,
        perturbed=summarize_set(
            outcome.perturbed_scores, outcome.answers("perturbed"), outcome.perturbed, outcome.rules
        ),
        drop=compute_drop(pairs, resamples=resamples, seed=seed),
        worst_copy=worst_copy(
            pairs, [ex.id for ex in data.clean], c.has_answer, c.exact, c.f1, resamples=resamples, seed=seed
        ),
        variants=None if _imported(data.recipe) else variant_summary(pairs, resamples=resamples, seed=seed),
        estimands=estimands(
            [line.to_dict() for line in example_lines(outcome, data)],
            resamples=resamples,
            seed=seed,
            kinds=data.counted_kinds,
        ),
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


def _imported(shift: str | None) -> bool:
    """An imported set (AddSent, ...): its copies follow its authors' protocol (worst copy), not worst-of-K."""
    from robustqa.importers import importer_of_shift

    return importer_of_shift(shift) is not None


def reviewed_valid(pairs: list[Pair], valid_ids: frozenset[str], *, resamples: int, seed: int) -> dict[str, Any]:
    """The drop and flips over the questions left once every changed question people did not accept is set
    aside: what the shift does to the model when only reviewed-valid edits count."""
    kept = [p for p in pairs if not p.changed or p.perturbed_id in valid_ids]
    return {
        "questions": len(kept),
        "changed": sum(1 for p in kept if p.changed),
        **score_means(kept),
        "drop": compute_drop(kept, resamples=resamples, seed=seed),
        "flips": flip_counts(kept),
    }


def _answered(outcome: ModelOutcome, role: str, qid: str) -> Answered:
    predictions = outcome.clean if role == "clean" else outcome.perturbed
    scores = outcome.clean_scores if role == "clean" else outcome.perturbed_scores
    best = (outcome.clean_best if role == "clean" else outcome.perturbed_best) or {}
    assert predictions is not None and scores is not None
    best_exact, best_f1 = best.get(qid, (None, None))
    return Answered(
        outcome.answers(role)[qid],
        int(scores.exact[qid]),
        float(scores.f1[qid]),
        predictions.null_odds[qid],
        best_span=predictions.best_spans.get(qid) if qid in best else None,
        best_exact=None if best_exact is None else int(best_exact),
        best_f1=best_f1,
    )


def example_lines(outcome: ModelOutcome, data: EvalData) -> list[ExampleLine]:
    """The examples.jsonl lines of one model: one per perturbed question (per clean question without a
    perturbed set)."""
    model = outcome.spec.name
    if data.perturbed is None or outcome.perturbed is None or outcome.perturbed_scores is None:
        return [
            ExampleLine(
                model=model,
                clean=ex,
                perturbed=None,
                perturbed_id=ex.id,
                changed=False,
                context_changed=False,
                clean_answer=_answered(outcome, "clean", ex.id),
                perturbed_answer=None,
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
                clean_answer=_answered(outcome, "clean", source.id),
                perturbed_answer=_answered(outcome, "perturbed", ex.id),
            )
        )
    return lines


def _scores(scores: QuestionScores) -> dict[str, dict[str, float]]:
    return {qid: {"exact": int(scores.exact[qid]), "f1": float(scores.f1[qid])} for qid in scores.exact}


def prediction_files(outcome: ModelOutcome) -> list[PredictionFiles]:
    """The official prediction and null-odds files of one model, and its per-question scores, clean first."""
    files = [
        PredictionFiles(
            outcome.slug, "clean", outcome.answers("clean"), outcome.clean.null_odds, _scores(outcome.clean_scores)
        )
    ]
    if outcome.perturbed is not None and outcome.perturbed_scores is not None:
        files.append(
            PredictionFiles(
                outcome.slug,
                "perturbed",
                outcome.answers("perturbed"),
                outcome.perturbed.null_odds,
                _scores(outcome.perturbed_scores),
            )
        )
    return files


def comparisons(outcomes: list[ModelOutcome], data: EvalData, *, resamples: int, seed: int) -> list[dict[str, Any]]:
    """report.json's `comparisons`: each two models of a run, paired over their shared questions
    (`robustqa.estimands.compare`, over the variants the headline counts); none for a single model or a
    clean-only run."""
    if data.perturbed is None or len(outcomes) < 2:
        return []
    lines = {o.spec.name: [line.to_dict() for line in example_lines(o, data)] for o in outcomes}
    names = list(lines)
    return [
        compare(a, lines[a], b, lines[b], resamples=resamples, seed=seed, kinds=data.counted_kinds)
        for i, a in enumerate(names)
        for b in names[i + 1 :]
    ]
