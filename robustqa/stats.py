"""The drop: perturbed minus clean, paired per question, with a seeded bootstrap interval and flip counts.

A score difference between two sets means little unless it is paired (the same questions, before and after)
and comes with its uncertainty. Each perturbed question is paired with the clean question it was made from
(`source_id`, else its own id). The drop is reported over every pair and over the pairs the recipe actually
changed (unchanged pairs keep their clean prediction, so they only dilute the drop). The interval is a paired
percentile bootstrap that resamples *clean questions* (all variants of one question together), drawn from
`numpy.random.default_rng(seed)`, a fresh generator for each interval, so every interval depends only on its
own pairs, the seed and the number of resamples: the same inputs give the same interval, in any order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
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


def bootstrap_intervals(
    sums: Sequence[np.ndarray], counts: np.ndarray, *, resamples: int, seed: int, confidence: float = CONFIDENCE
) -> list[list[float]]:
    """Percentile intervals (in points) of sum(sums)/sum(counts) under resampling of clusters.

    The same cluster draws serve every statistic in `sums`, so EM and F1 intervals come from one resampling.
    """
    n = len(counts)
    if n == 0:
        return [[float("nan"), float("nan")] for _ in sums]
    rng = np.random.default_rng(seed)
    estimates = [np.empty(resamples) for _ in sums]
    for start in range(0, resamples, _BLOCK):
        size = min(_BLOCK, resamples - start)
        draws = rng.integers(0, n, size=(size, n))
        denominators = counts[draws].sum(axis=1)
        for values, out in zip(sums, estimates):
            out[start : start + size] = values[draws].sum(axis=1) / denominators
    tail = 100.0 * (1.0 - confidence) / 2.0
    return [[float(100.0 * v) for v in np.percentile(e, [tail, 100.0 - tail])] for e in estimates]


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


def worst_case_pairs(pairs: Sequence[Pair]) -> list[Pair]:
    """One pair per clean question whose perturbed score is the worst over its variants.

    A question counts as right only if every variant is; its F1 is the lowest of its variants'.
    """
    by_source: dict[str, list[Pair]] = {}
    for pair in pairs:
        by_source.setdefault(pair.source_id, []).append(pair)
    worst = []
    for source, group in by_source.items():
        first = group[0]
        worst.append(
            Pair(
                perturbed_id=source,
                source_id=source,
                changed=any(p.changed for p in group),
                has_answer=first.has_answer,
                clean_exact=first.clean_exact,
                clean_f1=first.clean_f1,
                perturbed_exact=min(p.perturbed_exact for p in group),
                perturbed_f1=min(p.perturbed_f1 for p in group),
            )
        )
    return worst


def has_several_variants(pairs: Sequence[Pair]) -> bool:
    return len({p.source_id for p in pairs}) < len(pairs)


_KEYS = ("exact", "f1", "exact_ci", "f1_ci")


def _split_by_answerability(pairs: Sequence[Pair], *, resamples: int, seed: int, keys: Sequence[str]) -> dict[str, Any]:
    """`HasAns_*` and `NoAns_*` drops with intervals: a model that abstains more often under perturbation
    gains on unanswerable questions what it loses on answerable ones, so the overall drop can hide both."""
    out: dict[str, Any] = {}
    for prefix, selected in (("HasAns", [p for p in pairs if p.has_answer]), ("NoAns", [p for p in pairs if not p.has_answer])):
        result = drop_with_interval(selected, resamples=resamples, seed=seed)
        out.update((f"{prefix}_{key}", result[key]) for key in keys)
    return out


def compute_drop(pairs: Sequence[Pair], *, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> dict[str, Any]:
    """The `drop` object of report.json (docs/FORMATS.md): all pairs, HasAns/NoAns, changed, worst case."""
    overall = drop_with_interval(pairs, resamples=resamples, seed=seed)
    drop: dict[str, Any] = {key: overall[key] for key in _KEYS}
    drop.update(_split_by_answerability(pairs, resamples=resamples, seed=seed, keys=_KEYS))
    changed_pairs = [p for p in pairs if p.changed]
    drop["changed"] = drop_with_interval(changed_pairs, resamples=resamples, seed=seed)
    drop["changed"].update(_split_by_answerability(changed_pairs, resamples=resamples, seed=seed, keys=("questions", *_KEYS)))
    if has_several_variants(pairs):
        drop["worst_case"] = drop_with_interval(worst_case_pairs(pairs), resamples=resamples, seed=seed)
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
