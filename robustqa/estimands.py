"""The estimands: what robustqa answers about a model, defined once (docs/metrics.md) and computed here only.

On SQuAD 2.0 a synonym makes a model less sure, so it abstains more often; abstaining is right on
unanswerable questions, so the official all-question EM/F1 nets a loss on answerable questions against a
"gain" that is only the model giving up. The answers here never net the two kinds of question:

- *answerable* (does it still find the answer?): over the changed answerable questions, the worst-of-K and
  mean-of-K drop in EM and F1 with the paired bootstrap interval of `robustqa.stats`; the flip rate per
  question (right on clean, wrong on its worst variant) with a Wilson interval; the flips split into
  "abstained on the variant" and "answered something else";
- *threshold-free*: the same answerable figures scored on the best non-null span (abstention switched off),
  so a drop cannot hide in the null threshold; None where the prediction files do not record best spans;
- *unanswerable* (does it still abstain?): the change in the abstention rate on changed unanswerable
  questions (each question by the mean of its variants), its own row; with it the abstention change on the
  answerable questions, so that a rise on both is named for what it is: the model is less sure of the variant.

Everything is computed from examples.jsonl-shaped lines (`Line.from_example`), so report.json, the analysis
of an old run folder and a test's own recomputation read the same records. A run may count only some edit kinds
in its headline (`kinds`: `certified@2` counts synonyms, common and rare, while it evaluates every variant):
then every answer here covers the variants made only of those kinds (`covers`), and says so.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from robustqa.render import signed, with_ci
from robustqa.stats import (
    Pair,
    bootstrap_intervals,
    drop_with_interval,
    mean_case_pairs,
    wilson_interval,
    worst_case_pairs,
)

# a breakdown group of fewer questions is named but not plotted: one question's flip is not a rate
MIN_PLOTTED = 20
# the edit kind of a substitution recorded without one (a run made before kinds)
UNCLASSIFIED = "unclassified"


@dataclass(frozen=True)
class Line:
    """One variant beside its clean question, as an examples.jsonl line records it (scores 0..1)."""

    source_id: str
    perturbed_id: str
    changed: bool
    answerable: bool
    clean_exact: float
    clean_f1: float
    perturbed_exact: float
    perturbed_f1: float
    clean_abstained: bool
    perturbed_abstained: bool
    # the best non-null span's scores (abstention switched off); None where the run did not record them
    clean_best_exact: float | None = None
    clean_best_f1: float | None = None
    perturbed_best_exact: float | None = None
    perturbed_best_f1: float | None = None

    @classmethod
    def from_example(cls, e: Mapping[str, Any]) -> Line:
        def optional(key: str) -> float | None:
            value = e.get(key)
            return None if value is None else float(value)

        return cls(
            source_id=str(e.get("source_id") or e["id"]),
            perturbed_id=str(e["id"]),
            changed=bool(e.get("changed", True)),
            answerable=bool(e.get("answerable", True)),
            clean_exact=float(e["clean_exact"]),
            clean_f1=float(e["clean_f1"]),
            perturbed_exact=float(e["perturbed_exact"]),
            perturbed_f1=float(e["perturbed_f1"]),
            clean_abstained=not e.get("clean_prediction"),
            perturbed_abstained=not e.get("perturbed_prediction"),
            clean_best_exact=optional("clean_best_exact"),
            clean_best_f1=optional("clean_best_f1"),
            perturbed_best_exact=optional("perturbed_best_exact"),
            perturbed_best_f1=optional("perturbed_best_f1"),
        )

    def pair(self) -> Pair:
        return Pair(
            self.perturbed_id,
            self.source_id,
            self.changed,
            self.answerable,
            self.clean_exact,
            self.clean_f1,
            self.perturbed_exact,
            self.perturbed_f1,
        )

    def threshold_free(self) -> Line | None:
        """The line scored on best non-null spans (never abstaining); None where they were not recorded."""
        if None in (self.clean_best_exact, self.clean_best_f1, self.perturbed_best_exact, self.perturbed_best_f1):
            return None
        return replace(
            self,
            clean_exact=float(self.clean_best_exact or 0.0),
            clean_f1=float(self.clean_best_f1 or 0.0),
            perturbed_exact=float(self.perturbed_best_exact or 0.0),
            perturbed_f1=float(self.perturbed_best_f1 or 0.0),
            clean_abstained=False,
            perturbed_abstained=False,
        )

    def abstention_pair(self) -> Pair:
        """The line as a pair whose scores are 1 where the model abstained: its drop is the abstention change."""
        clean, perturbed = float(self.clean_abstained), float(self.perturbed_abstained)
        return Pair(
            self.perturbed_id, self.source_id, self.changed, self.answerable, clean, clean, perturbed, perturbed
        )


def edit_kinds_of(example: Mapping[str, Any]) -> list[str]:
    """The edit kinds of an examples.jsonl line (`kind` of each substitution; a run made before kinds: none)."""
    return sorted({str(s.get("kind") or UNCLASSIFIED) for s in example.get("substitutions") or ()})


def covers(example: Mapping[str, Any], kinds: Collection[str] | None) -> bool:
    """Whether a headline over edit `kinds` counts the variant: every edit of it is of one of them (None: every
    variant counts)."""
    return kinds is None or all(kind in kinds for kind in edit_kinds_of(example))


def lines_of(examples: Iterable[Mapping[str, Any]], kinds: Collection[str] | None = None) -> list[Line]:
    """The compared lines of examples.jsonl (lines of a clean-only run have no perturbed side and are left out),
    only the variants made of edit `kinds` when given."""
    return [Line.from_example(e) for e in examples if e.get("perturbed_exact") is not None and covers(e, kinds)]


def _by_question(lines: Iterable[Line]) -> dict[str, list[Line]]:
    groups: dict[str, list[Line]] = {}
    for line in lines:
        groups.setdefault(line.source_id, []).append(line)
    return groups


def worst_variant(variants: Sequence[Line]) -> Line:
    """A question's worst variant: the lowest EM, then the lowest F1 (the first of equals, in file order)."""
    return min(variants, key=lambda line: (line.perturbed_exact, line.perturbed_f1))


def _interval(values: Any) -> list[float] | None:
    return None if values is None else [float(values[0]), float(values[1])]


def flips_of(lines: Sequence[Line]) -> dict[str, Any]:
    """Flips per question: of the questions right on clean (EM 1), those wrong (EM 0) on their worst variant,
    with the rate's Wilson 95% interval (percent), split by what the worst variant got: no answer, or another."""
    right = flipped = abstained = 0
    for variants in _by_question(lines).values():
        if variants[0].clean_exact != 1:
            continue
        right += 1
        worst = worst_variant(variants)
        if worst.perturbed_exact == 0:
            flipped += 1
            abstained += int(worst.perturbed_abstained)
    low, high = wilson_interval(flipped, right)
    return {
        "right_on_clean": right,
        "flipped": flipped,
        "rate": 100.0 * flipped / right if right else None,
        "rate_ci": [100.0 * low, 100.0 * high] if right else None,
        "abstained": abstained,
        "answered_other": flipped - abstained,
    }


def _drop(pairs: Sequence[Pair], *, resamples: int, seed: int) -> dict[str, Any]:
    drop = drop_with_interval(pairs, resamples=resamples, seed=seed)
    return {key: drop[key] for key in ("exact", "f1", "exact_ci", "f1_ci")}


def answerable(lines: Sequence[Line], *, resamples: int, seed: int) -> dict[str, Any] | None:
    """Does it still find the answer? Over the changed answerable questions; None when there are none."""
    chosen = [line for line in lines if line.changed and line.answerable]
    if not chosen:
        return None
    pairs = [line.pair() for line in chosen]
    worst = worst_case_pairs(pairs)
    n = len(worst)
    return {
        "questions": n,
        "variants": len(chosen),
        "clean_exact": 100.0 * sum(p.clean_exact for p in worst) / n,
        "clean_f1": 100.0 * sum(p.clean_f1 for p in worst) / n,
        "worst": _drop(worst, resamples=resamples, seed=seed),
        "mean": _drop(mean_case_pairs(pairs), resamples=resamples, seed=seed),
        "flips": flips_of(chosen),
    }


def abstention_change(lines: Sequence[Line], *, resamples: int, seed: int) -> dict[str, Any] | None:
    """The abstention rate (percent) on the clean questions and on their variants (each question by the mean
    of its variants), and its change in points with the paired bootstrap interval; None without lines."""
    if not lines:
        return None
    pairs = mean_case_pairs([line.abstention_pair() for line in lines])
    drop = drop_with_interval(pairs, resamples=resamples, seed=seed)
    n = len(pairs)
    return {
        "questions": n,
        "variants": len(lines),
        "clean": 100.0 * sum(p.clean_exact for p in pairs) / n,
        "perturbed": 100.0 * sum(p.perturbed_exact for p in pairs) / n,
        "shift": drop["exact"],
        "shift_ci": _interval(drop["exact_ci"]),
    }


def _above_zero(part: Mapping[str, Any] | None) -> bool:
    ci = (part or {}).get("shift_ci")
    return ci is not None and len(ci) == 2 and ci[0] > 0


def reading(result: Mapping[str, Any]) -> str:
    """What the abstention rows mean, in words (never a gain)."""
    if _above_zero(result.get("unanswerable")) and _above_zero(result.get("answerable_abstention")):
        return (
            "abstains more on both kinds of question: the model is less sure of the variants "
            "(right on unanswerable ones, but not a gain)"
        )
    if _above_zero(result.get("unanswerable")):
        return "abstains more on unanswerable variants: the model is less sure of them, not more robust"
    return ""


def estimands(
    examples: Iterable[Mapping[str, Any]], *, resamples: int, seed: int, kinds: Sequence[str] | None = None
) -> dict[str, Any]:
    """report.json's `estimands` of one model (docs/metrics.md), from its examples.jsonl lines: over the variants
    made of edit `kinds` (recorded as `kinds`; None: every variant)."""
    lines = lines_of(examples, kinds)
    changed = [line for line in lines if line.changed]
    free = [line.threshold_free() for line in changed if line.answerable]
    threshold_free = (
        answerable([line for line in free if line is not None], resamples=resamples, seed=seed)
        if free and all(line is not None for line in free)
        else None
    )
    result: dict[str, Any] = {
        "kinds": list(kinds) if kinds is not None else None,
        "answerable": answerable(changed, resamples=resamples, seed=seed),
        "threshold_free": threshold_free,
        "unanswerable": abstention_change([x for x in changed if not x.answerable], resamples=resamples, seed=seed),
        "answerable_abstention": abstention_change(
            [x for x in changed if x.answerable], resamples=resamples, seed=seed
        ),
    }
    result["reading"] = reading(result)
    return result


# -------------------------------------------------------------------------------------------- text


def rate_text(flips: Mapping[str, Any] | None) -> str:
    if not flips or flips.get("rate") is None:
        return "–"
    low, high = flips["rate_ci"]
    return f"{flips['rate']:.1f}% [{low:.1f}, {high:.1f}]"


def headline_parts(result: Mapping[str, Any]) -> dict[str, str]:
    """The three figures of the headline, as text: answerable worst-of-K ΔF1, flip rate, abstention shift."""
    ans, unans = result.get("answerable") or {}, result.get("unanswerable") or {}
    worst = ans.get("worst") or {}
    return {
        "drop": with_ci(worst.get("f1"), worst.get("f1_ci")),
        "flips": rate_text(ans.get("flips")),
        "abstention": with_ci(unans.get("shift"), unans.get("shift_ci")),
    }


def kinds_text(kinds: Sequence[str] | None) -> str:
    """The edit kinds a headline covers, in words ("synonym and rare edits"); "" for every variant."""
    if not kinds:
        return ""
    names = list(kinds)
    joined = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
    return f"{joined} edits"


def headline_line(model: str, result: Mapping[str, Any]) -> str:
    """One line per model: the answerable worst-of-K ΔF1 [CI], the flip rate [CI] and the abstention shift [CI],
    each saying which questions (and which edit kinds) it covers."""
    ans, unans = result.get("answerable"), result.get("unanswerable")
    parts = headline_parts(result)
    kinds = kinds_text(result.get("kinds"))
    only = f", {kinds} only" if kinds else ""
    if ans is None:
        text = f"{model}: no changed answerable question{f' ({kinds} only)' if kinds else ''}"
    else:
        flips = ans["flips"]
        text = (
            f"{model}: answerable worst-of-K ΔF1 {parts['drop']} points ({ans['questions']} changed answerable "
            f"questions{only}); flip rate {parts['flips']} ({flips['flipped']} of {flips['right_on_clean']} right on "
            "clean: "
            f"{flips['abstained']} abstained, {flips['answered_other']} answered something else)"
        )
    if unans is not None:
        text += (
            f"; abstention on unanswerable {unans['clean']:.1f}% → {unans['perturbed']:.1f}%, "
            f"{parts['abstention']} points ({unans['questions']} changed unanswerable questions{only})"
        )
    return text


# -------------------------------------------------------------------------------------- two models


def mcnemar_exact(only_a: int, only_b: int) -> float:
    """Two-sided exact McNemar p-value from the discordant counts: a binomial test of `only_a` of
    `only_a + only_b` at one half (1.0 when nothing is discordant)."""
    n = only_a + only_b
    if n == 0:
        return 1.0
    k = min(only_a, only_b)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2.0**n
    return min(1.0, 2.0 * tail)


def compare(
    model_a: str,
    examples_a: Iterable[Mapping[str, Any]],
    model_b: str,
    examples_b: Iterable[Mapping[str, Any]],
    *,
    resamples: int,
    seed: int,
    kinds: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Is A more robust than B? Over the changed answerable questions both runs share (same clean question id,
    each model's worst variant among those made of edit `kinds`, None: every variant): the paired difference of
    their worst-of-K ΔF1 (A minus B: positive means A loses less) with a bootstrap interval over questions, and an
    exact McNemar test on their flips (over the shared questions both got right on clean)."""
    per_model = []
    for examples in (examples_a, examples_b):
        lines = [line for line in lines_of(examples, kinds) if line.changed and line.answerable]
        per_model.append(_by_question(lines))
    shared = [q for q in per_model[0] if q in per_model[1]]
    delta = {}
    flipped = {}
    for name, groups in zip(("a", "b"), per_model):
        drops = []
        flips = []
        for q in shared:
            variants = groups[q]
            drops.append(min(v.perturbed_f1 for v in variants) - variants[0].clean_f1)
            flips.append((variants[0].clean_exact == 1, worst_variant(variants).perturbed_exact == 0))
        delta[name] = np.asarray(drops, dtype=np.float64)
        flipped[name] = flips
    difference = delta["a"] - delta["b"] if shared else np.zeros(0)
    ci = bootstrap_intervals([difference], np.ones(len(shared)), resamples=resamples, seed=seed)[0] if shared else None
    both_right = [i for i in range(len(shared)) if flipped["a"][i][0] and flipped["b"][i][0]]
    only_a = sum(1 for i in both_right if flipped["a"][i][1] and not flipped["b"][i][1])
    only_b = sum(1 for i in both_right if flipped["b"][i][1] and not flipped["a"][i][1])
    n = len(shared)
    result = {
        "a": model_a,
        "b": model_b,
        "kinds": list(kinds) if kinds is not None else None,
        "questions": n,
        "drop_f1_a": 100.0 * float(delta["a"].mean()) if n else None,
        "drop_f1_b": 100.0 * float(delta["b"].mean()) if n else None,
        "difference": 100.0 * float(difference.mean()) if n else None,
        "difference_ci": _interval(ci),
        "flips": {
            "both_right_on_clean": len(both_right),
            "only_a": only_a,
            "only_b": only_b,
            "both": sum(1 for i in both_right if flipped["a"][i][1] and flipped["b"][i][1]),
            "p_value": mcnemar_exact(only_a, only_b),
        },
    }
    result["verdict"] = verdict(result)
    return result


def verdict(result: Mapping[str, Any]) -> str:
    """The comparison in words: which model is more robust and by how much, or that no difference shows. The two
    tests rest on different questions, so each names its own n: the F1 bootstrap every shared changed answerable
    question, McNemar only those both got right on clean that exactly one model flipped."""
    ci, flips = result.get("difference_ci"), result["flips"]
    a, b = result["a"], result["b"]
    if not result["questions"] or ci is None:
        return f"{a} vs {b}: no changed answerable question in common"
    interval = f"[{signed(ci[0])}, {signed(ci[1])}]"
    difference = signed(result["difference"])
    if ci[0] > 0:
        head = f"{a} is more robust than {b} by {difference} {interval} F1 points"
    elif ci[1] < 0:
        flipped = f"[{signed(-ci[1])}, {signed(-ci[0])}]"
        head = f"{b} is more robust than {a} by {signed(-result['difference'])} {flipped} F1 points"
    else:
        head = f"{a} vs {b}: no detectable difference in answerable worst-of-K ΔF1 ({difference} {interval})"
    right = flips.get("both_right_on_clean")
    among = f"of the {right} both got right on clean, " if right is not None else ""
    mcnemar = (
        f"exact McNemar on flips, n = {flips['only_a'] + flips['only_b']} ({among}those only one model flipped): "
        f"{flips['only_a']} only {a}, {flips['only_b']} only {b}, p = {flips['p_value']:.3g}"
    )
    if flips["p_value"] < 0.05:
        mcnemar += f": {a if flips['only_a'] < flips['only_b'] else b} flips fewer of them"
    else:
        mcnemar += ": no detectable difference in flips"
    kinds = kinds_text(result.get("kinds"))
    only = f" ({kinds} only)" if kinds else ""
    return (
        f"{head}, paired bootstrap over n = {result['questions']} shared changed answerable questions{only}; {mcnemar}"
    )
