"""The drop: perturbed minus clean, paired per question, with a seeded bootstrap interval and flip counts.

A score difference between two sets means little unless it is paired (the same questions, before and after)
and comes with its uncertainty. Each perturbed question is paired with the clean question it was made from
(`source_id`, else its own id). The drop is reported over every pair and over the pairs the recipe actually
changed (unchanged pairs keep their clean prediction, so they only dilute the drop). The interval is a paired
percentile bootstrap that resamples *clean questions* (all variants of one question together), drawn from
`numpy.random.default_rng(seed)`, a fresh generator for each interval, so every interval depends only on its
own pairs, the seed and the number of resamples: the same inputs give the same interval, in any order.

Where nothing pairs (a clean-only set beside a clean SQuAD run of the same model), the same resampling gives
a set's own interval and a two-sample (unpaired) interval of a difference. With several copies of a question
(AddSent), `worst_copy` applies the authors' protocol.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from robustqa.errors import InputError

DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 13
CONFIDENCE = 0.95
_BLOCK = 200  # resamples drawn at a time: bounds memory on large sets


@dataclass(frozen=True)
class Pair:
    """One perturbed question beside its clean question, with both official per-question scores (0..1)."""

    perturbed_id: str
    source_id: str
    changed: bool
    has_answer: bool
    clean_exact: float
    clean_f1: float
    perturbed_exact: float
    perturbed_f1: float


def match_to_clean(perturbed: Iterable[Any], clean_ids: Iterable[str], *, path: str | None = None) -> dict[str, str]:
    """Map each perturbed question id to its clean question id (`source_id` when present, else its id).

    Raises `InputError` naming the first perturbed question that matches nothing, and how many do not.
    """
    known = set(clean_ids)
    mapping: dict[str, str] = {}
    unmatched: list[str] = []
    for example in perturbed:
        source = getattr(example, "source_id", None) or example.id
        if source not in known:
            unmatched.append(example.id)
        elif example.id in mapping:
            raise InputError(f"question id {example.id} appears twice", path=path, hint="give each question its own id")
        mapping[example.id] = source
    if unmatched:
        more = f" (and {len(unmatched) - 1} more)" if len(unmatched) > 1 else ""
        raise InputError(
            f"perturbed question {unmatched[0]}{more} matches no question of the clean file",
            path=path,
            hint="build the perturbed file from this clean file (ids or source_id must match)",
        )
    return mapping


def _cluster_sums(pairs: Sequence[Pair]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per clean question: summed EM difference, summed F1 difference, number of pairs."""
    index: dict[str, int] = {}
    for pair in pairs:
        index.setdefault(pair.source_id, len(index))
    groups = np.fromiter((index[p.source_id] for p in pairs), dtype=np.int64, count=len(pairs))
    d_exact = np.fromiter((p.perturbed_exact - p.clean_exact for p in pairs), dtype=np.float64, count=len(pairs))
    d_f1 = np.fromiter((p.perturbed_f1 - p.clean_f1 for p in pairs), dtype=np.float64, count=len(pairs))
    n = len(index)
    return (
        np.bincount(groups, weights=d_exact, minlength=n),
        np.bincount(groups, weights=d_f1, minlength=n),
        np.bincount(groups, minlength=n).astype(np.float64),
    )


def _resampled_ratios(
    rng: np.random.Generator, sums: Sequence[np.ndarray], counts: np.ndarray, resamples: int
) -> list[np.ndarray]:
    """The one resampling loop: `resamples` estimates of sum(values)/sum(counts) per array of `sums`, each
    drawing as many clusters (with replacement) as there are, the same draws for every array."""
    n = len(counts)
    estimates = [np.empty(resamples) for _ in sums]
    for start in range(0, resamples, _BLOCK):
        size = min(_BLOCK, resamples - start)
        draws = rng.integers(0, n, size=(size, n))
        denominators = counts[draws].sum(axis=1)
        for values, out in zip(sums, estimates):
            out[start : start + size] = values[draws].sum(axis=1) / denominators
    return estimates


def _percentile_intervals(estimates: Sequence[np.ndarray], confidence: float) -> list[list[float]]:
    tail = 100.0 * (1.0 - confidence) / 2.0
    return [[float(100.0 * v) for v in np.percentile(e, [tail, 100.0 - tail])] for e in estimates]


def bootstrap_intervals(
    sums: Sequence[np.ndarray], counts: np.ndarray, *, resamples: int, seed: int, confidence: float = CONFIDENCE
) -> list[list[float]]:
    """Percentile intervals (in points) of sum(sums)/sum(counts) under resampling of clusters.

    The same cluster draws serve every statistic in `sums`, so EM and F1 intervals come from one resampling.
    """
    if len(counts) == 0:
        return [[float("nan"), float("nan")] for _ in sums]
    rng = np.random.default_rng(seed)
    return _percentile_intervals(_resampled_ratios(rng, sums, counts, resamples), confidence)


def score_intervals(
    scores: Sequence[Sequence[float]], *, resamples: int, seed: int, confidence: float = CONFIDENCE
) -> list[list[float]]:
    """Intervals (in points) of the mean of each list of per-question scores (0..1), resampling questions: a
    set's own uncertainty, where there is nothing to pair it with. All lists are over the same questions."""
    values = [np.asarray(s, dtype=np.float64) for s in scores]
    return bootstrap_intervals(
        values, np.ones(len(values[0]) if values else 0), resamples=resamples, seed=seed, confidence=confidence
    )


def unpaired_difference_intervals(
    shifted: Sequence[Sequence[float]],
    reference: Sequence[Sequence[float]],
    *,
    resamples: int,
    seed: int,
    confidence: float = CONFIDENCE,
) -> list[list[float]]:
    """Intervals (in points) of mean(shifted[i]) - mean(reference[i]) for two sets of *different* questions
    (a two-sample bootstrap): each set is resampled on its own, from one generator (the shifted set's
    draws first), and the differences of the resampled means give the interval. Nothing pairs the two
    sets, so this interval is wider than a paired one on the same number of questions."""
    a = [np.asarray(s, dtype=np.float64) for s in shifted]
    b = [np.asarray(s, dtype=np.float64) for s in reference]
    if not a or len(a[0]) == 0 or len(b[0]) == 0:
        return [[float("nan"), float("nan")] for _ in a]
    rng = np.random.default_rng(seed)
    estimates_a = _resampled_ratios(rng, a, np.ones(len(a[0])), resamples)
    estimates_b = _resampled_ratios(rng, b, np.ones(len(b[0])), resamples)
    return _percentile_intervals([x - y for x, y in zip(estimates_a, estimates_b)], confidence)


def _mean_drop(pairs: Sequence[Pair], attribute: str) -> float | None:
    if not pairs:
        return None
    clean = sum(getattr(p, f"clean_{attribute}") for p in pairs)
    perturbed = sum(getattr(p, f"perturbed_{attribute}") for p in pairs)
    return 100.0 * (perturbed - clean) / len(pairs)


def drop_with_interval(pairs: Sequence[Pair], *, resamples: int, seed: int) -> dict[str, Any]:
    """EM and F1 drop in points over `pairs`, with their bootstrap intervals.

    Everything is None when there are no pairs; the intervals are None when `resamples` is 0.
    """
    if not pairs:
        return {"questions": 0, "exact": None, "f1": None, "exact_ci": None, "f1_ci": None}
    exact_ci = f1_ci = None
    if resamples > 0:
        d_exact, d_f1, counts = _cluster_sums(pairs)
        exact_ci, f1_ci = bootstrap_intervals([d_exact, d_f1], counts, resamples=resamples, seed=seed)
    return {
        "questions": len(pairs),
        "exact": _mean_drop(pairs, "exact"),
        "f1": _mean_drop(pairs, "f1"),
        "exact_ci": exact_ci,
        "f1_ci": f1_ci,
    }


def _by_source(pairs: Iterable[Pair]) -> dict[str, list[Pair]]:
    """The pairs of each clean question, in the order they come."""
    groups: dict[str, list[Pair]] = {}
    for pair in pairs:
        groups.setdefault(pair.source_id, []).append(pair)
    return groups


def _per_question(pairs: Sequence[Pair], combine: Callable[[list[float]], float]) -> list[Pair]:
    """One pair per clean question: its clean score, and its variants' perturbed scores combined."""
    return [
        Pair(
            perturbed_id=source,
            source_id=source,
            changed=any(p.changed for p in group),
            has_answer=group[0].has_answer,
            clean_exact=group[0].clean_exact,
            clean_f1=group[0].clean_f1,
            perturbed_exact=combine([p.perturbed_exact for p in group]),
            perturbed_f1=combine([p.perturbed_f1 for p in group]),
        )
        for source, group in _by_source(pairs).items()
    ]


def worst_case_pairs(pairs: Sequence[Pair]) -> list[Pair]:
    """One pair per clean question whose perturbed score is the worst over its variants.

    A question counts as right only if every variant is; its F1 is the lowest of its variants'.
    """
    return _per_question(pairs, min)


def mean_case_pairs(pairs: Sequence[Pair]) -> list[Pair]:
    """One pair per clean question whose perturbed score is the mean over its variants: every question
    weighs the same, however many variants it has."""
    return _per_question(pairs, lambda scores: sum(scores) / len(scores))


def score_means(pairs: Sequence[Pair]) -> dict[str, dict[str, float | None]]:
    """Clean and perturbed EM/F1 in percent over `pairs` (None when there are none)."""

    def mean(attribute: str) -> float | None:
        return 100.0 * sum(getattr(p, attribute) for p in pairs) / len(pairs) if pairs else None

    return {
        "clean": {"exact": mean("clean_exact"), "f1": mean("clean_f1")},
        "perturbed": {"exact": mean("perturbed_exact"), "f1": mean("perturbed_f1")},
    }


def _scored(pairs: Sequence[Pair], *, resamples: int, seed: int) -> dict[str, Any]:
    """Clean and perturbed EM/F1 of per-question pairs, and the drop with its paired interval (all, and
    split by answerability)."""
    drop = drop_with_interval(pairs, resamples=resamples, seed=seed)
    drop.update(_split_by_answerability(pairs, resamples=resamples, seed=seed, keys=("questions", *_KEYS)))
    return {"questions": len(pairs), **score_means(pairs), "drop": drop}


def variant_summary(pairs: Sequence[Pair], *, resamples: int, seed: int) -> dict[str, Any] | None:
    """report.json's `variants` (docs/FORMATS.md): over the clean questions with at least one changed
    variant, each question scored by its worst variant (wrong if any variant is wrong: the headline when a
    set has several variants per question) and by the mean of its variants; None when no question has
    more than one changed variant (then both equal the changed drop)."""
    changed = [p for p in pairs if p.changed]
    if not has_several_variants(changed):
        return None
    questions = len({p.source_id for p in changed})
    return {
        "questions": questions,
        "variants": len(changed),
        "variants_per_question": len(changed) / questions,
        "worst": {
            **_scored(worst := worst_case_pairs(changed), resamples=resamples, seed=seed),
            "flips": flip_counts(worst),
        },
        "mean": _scored(mean_case_pairs(changed), resamples=resamples, seed=seed),
    }


def has_several_variants(pairs: Sequence[Pair]) -> bool:
    return len({p.source_id for p in pairs}) < len(pairs)


def worst_copy_pairs(
    pairs: Sequence[Pair],
    clean_ids: Sequence[str],
    has_answer: Mapping[str, bool],
    clean_exact: Mapping[str, float],
    clean_f1: Mapping[str, float],
) -> list[Pair]:
    """The authors' protocol of AddSent (Jia & Liang 2017): one pair per clean question, in clean order.

    A question with perturbed copies is scored by its worst copy: the lowest F1, and the EM *of that same
    copy*; among copies with the same lowest F1 the first in `pairs` (the perturbed file's order) counts,
    as in the authors' `evaluate-adversarial.py`, which replaces its choice only on a strictly lower F1. A
    question without a copy is scored by its own clean result (a pair with no difference).
    """
    copies = _by_source(pairs)
    chosen = []
    for cid in clean_ids:
        group = copies.get(cid)
        if group:
            worst = group[0]
            for pair in group[1:]:
                if pair.perturbed_f1 < worst.perturbed_f1:
                    worst = pair
            chosen.append(worst)
        else:
            exact, f1 = float(clean_exact[cid]), float(clean_f1[cid])
            chosen.append(Pair(cid, cid, False, has_answer[cid], exact, f1, exact, f1))
    return chosen


def needs_worst_copy(pairs: Sequence[Pair], clean_ids: Iterable[str]) -> bool:
    """The protocol differs from the plain pairing when a clean question has several copies or none."""
    sources = [p.source_id for p in pairs]
    return len(set(sources)) < len(sources) or set(sources) != set(clean_ids)


def worst_copy(
    pairs: Sequence[Pair],
    clean_ids: Sequence[str],
    has_answer: Mapping[str, bool],
    clean_exact: Mapping[str, float],
    clean_f1: Mapping[str, float],
    *,
    resamples: int,
    seed: int,
) -> dict[str, Any] | None:
    """report.json's `worst_copy` (docs/FORMATS.md): the protocol's EM/F1 over every clean question and its
    drop from the clean EM/F1 with a paired bootstrap interval; None when it equals the plain pairing."""
    clean_ids = list(clean_ids)
    if not clean_ids or not needs_worst_copy(pairs, clean_ids):
        return None
    chosen = worst_copy_pairs(pairs, clean_ids, has_answer, clean_exact, clean_f1)
    drop = drop_with_interval(chosen, resamples=resamples, seed=seed)
    sources = {p.source_id for p in pairs}
    n = len(chosen)
    return {
        "questions": n,
        "with_copies": sum(1 for cid in clean_ids if cid in sources),
        "exact": 100.0 * sum(p.perturbed_exact for p in chosen) / n,
        "f1": 100.0 * sum(p.perturbed_f1 for p in chosen) / n,
        "drop": {key: drop[key] for key in ("exact", "f1", "exact_ci", "f1_ci")},
    }


_KEYS = ("exact", "f1", "exact_ci", "f1_ci")


def _split_by_answerability(pairs: Sequence[Pair], *, resamples: int, seed: int, keys: Sequence[str]) -> dict[str, Any]:
    """`HasAns_*` and `NoAns_*` drops with intervals: a model that abstains more often under perturbation
    gains on unanswerable questions what it loses on answerable ones, so the overall drop can hide both."""
    out: dict[str, Any] = {}
    for prefix, selected in (
        ("HasAns", [p for p in pairs if p.has_answer]),
        ("NoAns", [p for p in pairs if not p.has_answer]),
    ):
        result = drop_with_interval(selected, resamples=resamples, seed=seed)
        out.update((f"{prefix}_{key}", result[key]) for key in keys)
    return out


def compute_drop(
    pairs: Sequence[Pair], *, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> dict[str, Any]:
    """The `drop` object of report.json (docs/FORMATS.md): all pairs, HasAns/NoAns, changed, worst case."""
    overall = drop_with_interval(pairs, resamples=resamples, seed=seed)
    drop: dict[str, Any] = {key: overall[key] for key in _KEYS}
    drop.update(_split_by_answerability(pairs, resamples=resamples, seed=seed, keys=_KEYS))
    changed_pairs = [p for p in pairs if p.changed]
    drop["changed"] = drop_with_interval(changed_pairs, resamples=resamples, seed=seed)
    drop["changed"].update(
        _split_by_answerability(changed_pairs, resamples=resamples, seed=seed, keys=("questions", *_KEYS))
    )
    if has_several_variants(pairs):
        drop["worst_case"] = drop_with_interval(worst_case_pairs(pairs), resamples=resamples, seed=seed)
    # both sides over the pairs the drop is taken on: the official clean score covers every clean question and
    # the perturbed one every perturbed question, which differ when a file lists variants of some questions only
    drop["pairs"] = {"questions": len(pairs), **score_means(pairs)}
    return drop


def flip_counts(pairs: Sequence[Pair]) -> dict[str, int]:
    """Exact-match flips between the clean and perturbed prediction of each pair, all and changed only."""

    def count(selected: Iterable[Pair], before: float, after: float) -> int:
        return sum(1 for p in selected if p.clean_exact == before and p.perturbed_exact == after)

    changed = [p for p in pairs if p.changed]
    return {
        "right_to_wrong": count(pairs, 1, 0),
        "wrong_to_right": count(pairs, 0, 1),
        "changed_right_to_wrong": count(changed, 1, 0),
        "changed_wrong_to_right": count(changed, 0, 1),
    }


def build_pairs(
    mapping: Mapping[str, str],
    changed: Mapping[str, bool],
    has_answer: Mapping[str, bool],
    clean_exact: Mapping[str, float],
    clean_f1: Mapping[str, float],
    perturbed_exact: Mapping[str, float],
    perturbed_f1: Mapping[str, float],
) -> list[Pair]:
    """Pairs in perturbed-file order from per-question scores keyed by clean and perturbed id."""
    return [
        Pair(
            perturbed_id=pid,
            source_id=cid,
            changed=changed[pid],
            has_answer=has_answer[cid],
            clean_exact=float(clean_exact[cid]),
            clean_f1=float(clean_f1[cid]),
            perturbed_exact=float(perturbed_exact[pid]),
            perturbed_f1=float(perturbed_f1[pid]),
        )
        for pid, cid in mapping.items()
    ]


def wilson_interval(successes: int, trials: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Wilson score interval of a proportion (in [0, 1]): unlike the normal interval it stays inside [0, 1]
    and keeps its coverage for small counts and rates near 0 or 1, which attack success rates often are.
    (0, 1) when there are no trials."""
    if trials <= 0:
        return (0.0, 1.0)
    if not 0 <= successes <= trials:
        raise ValueError(f"{successes} successes out of {trials} trials")
    from statistics import NormalDist

    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * float(np.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials))) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))
