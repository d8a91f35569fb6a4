"""Which edits break it? The answerable estimands per group of edits, with unanswerable questions apart.

Each breakdown groups the *variants* (examples.jsonl lines) of the changed questions: by edit kind, part of
speech, substitution pair and how common the new word is (a variant counts in the group of each of its
edits), by where the edit sits in the question, and by the question's wh-word. Within a group every question
is scored by its worst variant in that group, so each row is `robustqa.estimands.answerable` on fewer lines:
n, flip rate and ΔF1 with their intervals. Unanswerable questions get their own rows (the abstention change),
never mixed in. Rows are ranked so that effects whose ΔF1 (or abstention Δ) interval excludes zero come first
(only groups large enough to plot are marked: a handful of questions gives a degenerate interval); a group of
fewer than `MIN_PLOTTED` questions is named but neither plotted nor ranked by its effect (by its size instead).

Where a run's headline counts only some edit kinds (`certified@2`: synonyms, common and rare), the breakdown by
edit kind still shows every kind as its own row (how much a spelling variant or an abbreviation hurts), while
the other breakdowns cover the headline's kinds only, as the headline does. A model's breakdowns are computed
once (`model_breakdowns`, a bootstrap per row) and every document reads them from there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from robustqa.edits import coarse_pos
from robustqa.estimands import (
    MIN_PLOTTED,
    Line,
    abstention_change,
    answerable,
    covers,
    edit_kinds_of,
    rate_text,
    with_ci,
)
from robustqa.reporting.analysis import question_type

# the edit kind "rare" is another thing (a replacement much rarer than its word), so no band is called rare
FREQUENCY_BANDS = ("common (Zipf ≥ 4)", "uncommon (Zipf 3-4)", "infrequent (Zipf < 3)")


def _subs(example: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return list(example.get("substitutions") or ())


def _pos(example: Mapping[str, Any]) -> list[str]:
    return sorted({coarse_pos(str(s.get("pos", ""))) for s in _subs(example)})


def _pair(example: Mapping[str, Any]) -> list[str]:
    return sorted({f"{str(s['original']).lower()} → {str(s['replacement']).lower()}" for s in _subs(example)})


def frequency_band(word: str) -> str:
    """How common the new word is: wordfreq's Zipf frequency in three bands ("unknown" without wordfreq)."""
    from perturbations.errors import MissingPackageError
    from perturbations.frequency import zipf

    try:
        value = zipf(word.lower())
    except MissingPackageError:
        return "unknown"
    return FREQUENCY_BANDS[0] if value >= 4 else FREQUENCY_BANDS[1] if value >= 3 else FREQUENCY_BANDS[2]


def _frequency(example: Mapping[str, Any]) -> list[str]:
    return sorted({frequency_band(str(s["replacement"])) for s in _subs(example)})


def _position(example: Mapping[str, Any]) -> list[str]:
    """Where each edit starts in the question: its first, middle or last third (by characters)."""
    length = max(1, len(str(example.get("question", ""))))
    thirds = ("first third", "middle third", "last third")
    return sorted({thirds[min(2, 3 * int(s.get("start", 0)) // length)] for s in _subs(example)})


def _question_word(example: Mapping[str, Any]) -> list[str]:
    return [question_type(str(example.get("question", "")))]


# name -> (title, the groups of one variant)
BREAKDOWNS: dict[str, tuple[str, Callable[[Mapping[str, Any]], list[str]]]] = {
    "kind": ("edit kind", edit_kinds_of),
    "pos": ("part of speech of the edited word", _pos),
    "frequency": ("how common the new word is", _frequency),
    "question_word": ("question word", _question_word),
    "position": ("where the edit is in the question", _position),
    "pair": ("substitution pair", _pair),
}


# the breakdown that shows every edit kind, whatever kinds the headline counts
EVERY_KIND = "kind"


def _groups(
    examples: Iterable[Mapping[str, Any]], by: str, kinds: Sequence[str] | None
) -> dict[str, list[Mapping[str, Any]]]:
    """The changed variants by group; every variant by edit kind, else only those made of `kinds` (None: all)."""
    if by not in BREAKDOWNS:
        raise ValueError(f"unknown breakdown {by!r}; choose from {', '.join(BREAKDOWNS)}")
    grouper = BREAKDOWNS[by][1]
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for example in examples:
        if example.get("perturbed_exact") is None or not example.get("changed", True):
            continue
        if by != EVERY_KIND and not covers(example, kinds):
            continue
        for name in grouper(example):
            groups.setdefault(name, []).append(example)
    return groups


def _significant(interval: Any) -> bool:
    return bool(interval) and (interval[0] > 0 or interval[1] < 0)


def _rank(row: Mapping[str, Any]) -> tuple[bool, bool, int]:
    """Marked groups first, then the other plotted ones (each then by its effect); then the groups too small to
    rank as effects, largest first (a one-question pair's −100 says nothing about the pair)."""
    return (not row["significant"], not row["plotted"], 0 if row["plotted"] else -row["questions"])


def answerable_rows(
    examples: Iterable[Mapping[str, Any]], by: str, *, resamples: int, seed: int, kinds: Sequence[str] | None = None
) -> list[dict[str, Any]]:
    """One row per group of the changed answerable questions: n, ΔF1 worst of K and flip rate with intervals,
    ranked (`_rank`): groups of at least MIN_PLOTTED questions whose ΔF1 interval excludes zero first, then the
    other such groups, each by the largest drop; then the smaller groups by size. Only the
    variants made of edit `kinds` count, except by edit kind (every kind its own row)."""
    rows = []
    for name, group in _groups(examples, by, kinds).items():
        lines = [Line.from_example(e) for e in group if e.get("answerable", True)]
        result = answerable(lines, resamples=resamples, seed=seed)
        if result is None:
            continue
        worst, flips = result["worst"], result["flips"]
        rows.append(
            {
                "group": name,
                "questions": result["questions"],
                "variants": result["variants"],
                "drop_f1": worst["f1"],
                "drop_f1_ci": worst["f1_ci"],
                "flip_rate": flips["rate"],
                "flip_rate_ci": flips["rate_ci"],
                "flipped": flips["flipped"],
                "right_on_clean": flips["right_on_clean"],
                # a bootstrap over a handful of questions gives a degenerate interval: only groups large enough
                # to plot can be marked (a one-question group's interval is its own value)
                "significant": result["questions"] >= MIN_PLOTTED and _significant(worst["f1_ci"]),
                "plotted": result["questions"] >= MIN_PLOTTED,
            }
        )
    rows.sort(key=lambda r: (*_rank(r), r["drop_f1"], -r["questions"], r["group"]))
    return rows


def unanswerable_rows(
    examples: Iterable[Mapping[str, Any]], by: str, *, resamples: int, seed: int, kinds: Sequence[str] | None = None
) -> list[dict[str, Any]]:
    """One row per group of the changed unanswerable questions: n and the abstention change with its interval
    (`kinds` as for `answerable_rows`)."""
    rows = []
    for name, group in _groups(examples, by, kinds).items():
        lines = [Line.from_example(e) for e in group if not e.get("answerable", True)]
        result = abstention_change(lines, resamples=resamples, seed=seed)
        if result is None:
            continue
        rows.append(
            {
                "group": name,
                "questions": result["questions"],
                "abstention_clean": result["clean"],
                "abstention_perturbed": result["perturbed"],
                "abstention_shift": result["shift"],
                "abstention_shift_ci": result["shift_ci"],
                "significant": result["questions"] >= MIN_PLOTTED and _significant(result["shift_ci"]),
                "plotted": result["questions"] >= MIN_PLOTTED,
            }
        )
    rows.sort(key=lambda r: (*_rank(r), -r["abstention_shift"], r["group"]))
    return rows


@dataclass(frozen=True)
class ModelBreakdowns:
    """Every breakdown of one model, computed once: breakdown name -> its ranked rows (no unanswerable rows by
    substitution pair: too many groups of a question or two)."""

    answerable: Mapping[str, list[dict[str, Any]]]
    unanswerable: Mapping[str, list[dict[str, Any]]]


def model_breakdowns(
    examples: Iterable[Mapping[str, Any]], *, resamples: int, seed: int, kinds: Sequence[str] | None = None
) -> ModelBreakdowns:
    """All of a model's breakdowns (`answerable_rows` and `unanswerable_rows` of each of BREAKDOWNS)."""
    lines = list(examples)
    return ModelBreakdowns(
        {by: answerable_rows(lines, by, resamples=resamples, seed=seed, kinds=kinds) for by in BREAKDOWNS},
        {
            by: unanswerable_rows(lines, by, resamples=resamples, seed=seed, kinds=kinds)
            for by in BREAKDOWNS
            if by != "pair"
        },
    )


# a group holding more than this share of the questions follows the overall drop: it singles out no edit
BROAD_SHARE = 0.5


def breaking_groups(breakdowns: ModelBreakdowns, everything: int | None) -> list[dict[str, Any]]:
    """Which edits break it: every answerable group, of every breakdown, whose ΔF1 interval lies below zero and that
    holds at least MIN_PLOTTED questions but not all `everything` of them (a group of every question says nothing
    about which edits), largest drop first. All of them: a summary that promises these groups lists each one."""
    found = []
    for by, (title, _) in BREAKDOWNS.items():
        for group in breakdowns.answerable[by]:
            ci = group["drop_f1_ci"]
            if ci and ci[1] < 0 and MIN_PLOTTED <= group["questions"] < (everything or 0):
                found.append({"breakdown": title, **group})
    return sorted(found, key=lambda g: (g["drop_f1"], g["breakdown"], g["group"]))


def breaking_text(breakdowns: ModelBreakdowns, everything: int | None) -> str:
    """`breaking_groups` as one line of the three answers: each group with its share of the questions (n of N),
    and the groups that hold most of them (a question word most questions start with, a third of the question)
    set apart, since they fall below zero because the overall drop does, not because their edits are special."""
    groups = breaking_groups(breakdowns, everything)
    if not groups:
        return "no group of edits with a drop that excludes zero"

    def shown(g: Mapping[str, Any]) -> str:
        share = f"{g['questions']} of {everything}" if everything else str(g["questions"])
        return f"{g['breakdown']} *{g['group']}* {with_ci(g['drop_f1'], g['drop_f1_ci'])} ({share} questions)"

    broad = [g for g in groups if everything and g["questions"] > BROAD_SHARE * everything]
    narrow = [g for g in groups if g not in broad]
    parts = []
    if narrow:
        parts.append(f"{len(narrow)} groups (all, largest drop first): " + "; ".join(shown(g) for g in narrow))
    if broad:
        parts.append(
            f"{len(broad)} groups holding most of the questions, so below zero with the overall drop rather than "
            "singling out an edit: " + "; ".join(shown(g) for g in broad)
        )
    return ". ".join(parts)


ANSWERABLE_COLUMNS = ("Group", "Answerable questions", "ΔF1 worst of K [95% CI]", "Flip rate [95% CI]")
UNANSWERABLE_COLUMNS = ("Group", "Unanswerable questions", "Abstention clean → variant", "Abstention Δ [95% CI]")


def _name(row: Mapping[str, Any]) -> str:
    marks = ("*" if row["significant"] else "") + ("" if row["plotted"] else f" (under {MIN_PLOTTED}: not plotted)")
    return f"{row['group']}{marks}"


def answerable_cells(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, str]]:
    return [
        {
            "Group": _name(r),
            "Answerable questions": str(r["questions"]),
            "ΔF1 worst of K [95% CI]": with_ci(r["drop_f1"], r["drop_f1_ci"]),
            "Flip rate [95% CI]": rate_text({"rate": r["flip_rate"], "rate_ci": r["flip_rate_ci"]})
            + (f" ({r['flipped']}/{r['right_on_clean']})" if r["right_on_clean"] else ""),
        }
        for r in rows
    ]


def unanswerable_cells(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, str]]:
    return [
        {
            "Group": _name(r),
            "Unanswerable questions": str(r["questions"]),
            "Abstention clean → variant": f"{r['abstention_clean']:.1f}% → {r['abstention_perturbed']:.1f}%",
            "Abstention Δ [95% CI]": with_ci(r["abstention_shift"], r["abstention_shift_ci"]),
        }
        for r in rows
    ]
