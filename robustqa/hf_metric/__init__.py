"""robustqa's SQuAD metrics for Hugging Face `evaluate`, as a metric module shipped inside the package.

`evaluate.load(metric_path())` loads the module in `robustqa_squad/` from this installed package, offline
(no hub look-up for a local folder). The module only declares its inputs; every number comes from `compute`
below, which calls robustqa's own metric (`robustqa.metric`) and drop and bootstrap code
(`robustqa.stats.compute_drop`), so a score from `evaluate` and one in a robustqa report.json cannot
disagree.

Inputs are those of evaluate's official `squad_v2` metric (`squad` for the v1.1 rules): predictions
`{"id", "prediction_text", "no_answer_probability"}` and references `{"id", "answers": {"text",
"answer_start"}}`. Perturbed predictions and references (the same shapes; a reference may add `source_id`,
the id of the clean question it was made from, and `changed`, False when it equals that question) add the
perturbed scores and the clean-vs-perturbed drop with its paired bootstrap interval.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from robustqa.errors import InputError
from robustqa.metric import (
    DEFAULT_NA_PROB_THRESHOLD,
    QuestionScores,
    score_questions,
    score_questions_v1,
    summarize,
    summarize_v1,
)
from robustqa.stats import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    build_pairs,
    compute_drop,
    flip_counts,
    worst_copy,
)

METRIC_NAME = "robustqa_squad"
RULES = {"squad_v2": "2.0", "default": "2.0", "squad": "1.1"}  # evaluate config name -> SQuAD rules


def metric_path() -> str:
    """The folder to pass to `evaluate.load` (a local path: loading it needs no network)."""
    return str(Path(__file__).resolve().parent / METRIC_NAME)


def _gold(references: Sequence[Mapping[str, Any]], what: str) -> dict[str, list[str]]:
    try:
        return {str(r["id"]): [str(t) for t in r["answers"]["text"]] for r in references}
    except (KeyError, TypeError) as error:
        raise InputError(
            f"{what}: not evaluate's squad format (missing {error})",
            hint='each needs "id" and "answers": {"text", "answer_start"}',
        ) from None


def _predictions(
    predictions: Sequence[Mapping[str, Any]], rules: str, what: str
) -> tuple[dict[str, str], dict[str, float] | None]:
    try:
        texts = {str(p["id"]): str(p["prediction_text"]) for p in predictions}
        if rules == "1.1":
            return texts, None
        return texts, {str(p["id"]): float(p["no_answer_probability"]) for p in predictions}
    except (KeyError, TypeError) as error:
        fields = '"id", "prediction_text"' + ("" if rules == "1.1" else ', "no_answer_probability"')
        raise InputError(
            f"{what}: not evaluate's squad format (missing {error})", hint=f"each needs {fields}"
        ) from None


def _score(
    predictions: Sequence[Mapping[str, Any]],
    references: Sequence[Mapping[str, Any]],
    rules: str,
    threshold: float,
    what: str,
) -> tuple[QuestionScores, dict[str, Any]]:
    gold = _gold(references, what)
    if not gold:
        raise InputError(f"{what}: no questions to score", hint="give at least one reference")
    texts, na_probs = _predictions(predictions, rules, what)
    if rules == "1.1":
        scores = score_questions_v1(gold, texts)
        result = summarize_v1(scores)
        return scores, {"exact_match": result["exact"], "f1": result["f1"], "total": result["total"]}
    scores = score_questions(gold, texts, na_probs, threshold)
    return scores, summarize(scores, texts, na_probs)


def compute(
    predictions: Sequence[Mapping[str, Any]],
    references: Sequence[Mapping[str, Any]],
    *,
    rules: str = "2.0",
    perturbed_predictions: Sequence[Mapping[str, Any]] | None = None,
    perturbed_references: Sequence[Mapping[str, Any]] | None = None,
    no_answer_threshold: float = DEFAULT_NA_PROB_THRESHOLD,
    bootstrap: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> dict[str, Any]:
    """Clean scores (the official keys of evaluate's squad_v2, or squad's `exact_match`/`f1` under v1.1 rules);
    with perturbed inputs also `perturbed` (the same keys), `drop` (report.json's drop object: perturbed minus
    clean in points, with 95% paired bootstrap intervals), `worst_copy` (report.json's: the AddSent authors'
    protocol, None when every clean question has exactly one copy) and `flips`."""
    if rules not in ("2.0", "1.1"):
        raise InputError(f"unknown SQuAD rules '{rules}'", hint="use 2.0 or 1.1")
    clean_scores, result = _score(predictions, references, rules, no_answer_threshold, "predictions")
    if perturbed_predictions is None and perturbed_references is None:
        return result
    if perturbed_predictions is None or perturbed_references is None:
        raise InputError("give both perturbed_predictions and perturbed_references, or neither")
    if bootstrap < 1:
        raise InputError(f"bootstrap {bootstrap} must be at least 1")
    perturbed_scores, perturbed_result = _score(
        perturbed_predictions, perturbed_references, rules, no_answer_threshold, "perturbed_predictions"
    )
    mapping: dict[str, str] = {}
    changed: dict[str, bool] = {}
    for reference in perturbed_references:
        pid = str(reference["id"])
        source = str(reference.get("source_id") or pid)
        if source not in clean_scores.exact:
            raise InputError(
                f"perturbed question {pid} matches no clean reference",
                hint="its source_id (or id) must be the id of a clean question",
            )
        mapping[pid] = source
        changed[pid] = bool(reference.get("changed", True))
    pairs = build_pairs(
        mapping,
        changed,
        clean_scores.has_answer,
        clean_scores.exact,
        clean_scores.f1,
        perturbed_scores.exact,
        perturbed_scores.f1,
    )
    result = dict(result)
    result["perturbed"] = perturbed_result
    result["drop"] = compute_drop(pairs, resamples=bootstrap, seed=seed)
    result["worst_copy"] = worst_copy(
        pairs,
        list(clean_scores.exact),
        clean_scores.has_answer,
        clean_scores.exact,
        clean_scores.f1,
        resamples=bootstrap,
        seed=seed,
    )
    result["flips"] = flip_counts(pairs)
    return result
