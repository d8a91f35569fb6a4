"""attack.json: what the attack found, in numbers, with the signature that says how.

Rates are in percent (points, as report.json gives scores); the success rate's interval is the 95% Wilson
score interval over the attempted questions (those right on the clean set). The curve gives, for every
budget b up to the one used, how many questions flipped within b queries: by the way the search orders its
queries, that is what the same attack with budget b flips (robustqa.attack.search).
"""

from __future__ import annotations

import statistics
from collections import Counter
from pathlib import Path
from typing import Any

from robustqa.attack.driver import FAILED, RIGHT_BY_A_HAIR, SUCCEEDED, WRONG_ON_CLEAN, AttackRun, QuestionResult
from robustqa.attack.search import FLIP_MARGIN
from robustqa.stats import wilson_interval


def _mean(values: list[int]) -> float | None:
    return round(statistics.fmean(values), 3) if values else None


def _median(values: list[int]) -> float | None:
    return float(statistics.median(values)) if values else None


def curve(results: list[QuestionResult], budget: int) -> list[dict[str, int]]:
    """[{"budget": b, "succeeded": flipped within b queries}] for b = 1..budget."""
    needed = Counter(r.outcome.queries_to_flip for r in results if r.status == SUCCEEDED and r.outcome is not None)
    points, total = [], 0
    for b in range(1, budget + 1):
        total += needed.get(b, 0)
        points.append({"budget": b, "succeeded": total})
    return points


def question_record(result: QuestionResult) -> dict[str, Any]:
    """One question's line of attack.json's `questions`."""
    ex, clean = result.example, result.clean
    record: dict[str, Any] = {
        "id": ex.id,
        "status": result.status,
        "answerable": bool(ex.answers),
        "gold_answers": list(ex.gold_texts),
        "clean_prediction": clean.text,
        "clean_margin": round(clean.margin, 4),
    }
    if result.space is not None and result.outcome is not None:
        outcome = result.outcome
        record.update(
            words=len(result.space.slots),
            choices=result.space.size,
            word_pos=[slot.pos for slot in result.space.slots],
            max_edits=result.max_edits,
            queries=outcome.queries,
            stop=outcome.stop,
        )
        if outcome.variant is not None and outcome.scored is not None:
            record.update(
                queries_to_flip=outcome.queries_to_flip,
                edits=len(outcome.variant.choices),
                question=ex.question,
                variant=outcome.variant.text,
                prediction=outcome.scored.text,
                margin=round(outcome.scored.margin, 4),
                substitutions=[s.to_dict() for s in outcome.variant.perturbation.substitutions],
            )
    return record


def attack_record(run: AttackRun) -> dict[str, Any]:
    """The whole of attack.json (docs/FORMATS.md)."""
    results = list(run.results)
    attempted = [r for r in results if r.attempted]
    succeeded = [r for r in attempted if r.status == SUCCEEDED]
    wins = [r.outcome for r in succeeded if r.outcome is not None and r.outcome.variant is not None]
    edits = [len(o.variant.choices) for o in wins if o.variant is not None]
    to_flip = [int(o.queries_to_flip) for o in wins if o.queries_to_flip is not None]
    spent = [o.queries for o in wins]
    low, high = wilson_interval(len(succeeded), len(attempted))
    config = run.config
    settings = dict(config.settings.to_dict()) if hasattr(config.settings, "to_dict") else {}
    settings.update(
        recipe=run.spaces.ident,
        budget=config.budget,
        max_edits=config.max_edits,
        beam=config.beam,
        include_penalised=config.include_penalised,
        limit=config.limit,
        seed=config.seed,
        flip_margin=FLIP_MARGIN,
    )
    cost = run.cost
    queries_total = sum(r.outcome.queries for r in attempted if r.outcome is not None)
    return {
        "signature": run.signature.format(),
        "model": run.spec.name,
        "model_id": run.spec.model_id,
        "fingerprint": run.fingerprint,
        "recipe": run.spaces.record(),
        "input": str(Path(config.input_file).resolve()),
        "settings": settings,
        "questions": len(results),
        "attempted": len(attempted),
        "succeeded": len(succeeded),
        "success_rate": round(100.0 * len(succeeded) / len(attempted), 2) if attempted else None,
        "success_rate_ci": [round(100.0 * low, 2), round(100.0 * high, 2)],
        "not_attacked": {
            WRONG_ON_CLEAN: [r.example.id for r in results if r.status == WRONG_ON_CLEAN],
            RIGHT_BY_A_HAIR: [r.example.id for r in results if r.status == RIGHT_BY_A_HAIR],
        },
        "no_valid_edit": sum(1 for r in attempted if r.outcome is not None and r.outcome.stop == "no-edit"),
        "stops": dict(
            sorted(Counter(r.outcome.stop for r in attempted if r.status == FAILED and r.outcome is not None).items())
        ),
        "edits_per_success": _mean(edits),
        "edits_histogram": {str(k): v for k, v in sorted(Counter(edits).items())},
        "queries_per_success": _mean(to_flip),
        "queries_per_success_median": _median(to_flip),
        "queries_spent_per_success": _mean(spent),
        "queries_total": queries_total,
        "curve": curve(results, config.budget),
        "cost": {
            "model_queries": cost.model_queries,
            "from_cache": cost.from_cache,
            "seconds": round(cost.seconds, 3),
            "forward_seconds": round(cost.forward_seconds, 3),
            "windows": cost.windows,
            "queries_per_second": round(cost.model_queries / cost.seconds, 3)
            if cost.seconds > 0 and cost.model_queries
            else None,
            "device": cost.device,
            "processes": cost.processes,
        },
        "questions_detail": [question_record(r) for r in results],
    }
