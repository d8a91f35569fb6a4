"""What reviews say about a set: accepted share with a Wilson interval, rejections, agreement.

Every figure is computed from decisions files alone (each decision carries its substitutions' Penn tags).
Skips are no judgment: they are left out of every share, count and kappa.

- Accepted share: accepted / judged, with the Wilson score interval at 95% (it stays inside [0, 1] and
  keeps its coverage for small samples and shares near 1, where the normal interval does neither).
- Combined (with several files): a question judged by at least one reviewer is accepted when every reviewer
  who judged it accepted it, rejected otherwise; this is the rule `validate` applies.
- Rejections by part of speech: over the combined judgments, a question counts once for each coarse part
  of speech (noun / verb / adjective / adverb from the Penn tag, as in the failure analysis) among its
  substitutions.
- Cohen's kappa for each pair of reviewers, on the questions both judged, with two category sets: three
  categories (accepted / rejected as meaning changed / rejected as ungrammatical) and two (accepted /
  rejected, the distinction that decides what `validate` keeps). kappa = (p_o - p_e) / (1 - p_e), p_e from
  each reviewer's own category shares; undefined (None) when p_e = 1.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from robustqa.edits import COARSE_POS, coarse_pos
from robustqa.errors import InputError
from robustqa.render import text_table
from robustqa.review.decisions import (
    ACCEPTED,
    MEANING_CHANGED,
    REASONS,
    REJECTED,
    UNGRAMMATICAL,
    Decision,
    DecisionsFile,
    combined_status,
)
from robustqa.stats import wilson_interval


def cohen_kappa(first: Sequence[Hashable], second: Sequence[Hashable]) -> float | None:
    """Cohen's kappa of two raters' labels of the same items (same order); None when chance agreement is 1."""
    if len(first) != len(second):
        raise ValueError("both raters must label the same items")
    n = len(first)
    if n == 0:
        return None
    observed = sum(a == b for a, b in zip(first, second)) / n
    labels = set(first) | set(second)
    expected = sum((list(first).count(label) / n) * (list(second).count(label) / n) for label in labels)
    if expected >= 1.0:
        return None
    return (observed - expected) / (1.0 - expected)


@dataclass(frozen=True)
class ShareRow:
    """Accepted share of one reviewer (or of the combined judgments)."""

    name: str
    decided: int
    skipped: int
    judged: int
    accepted: int
    meaning_changed: int
    ungrammatical: int

    @property
    def share(self) -> float | None:
        return self.accepted / self.judged if self.judged else None

    @property
    def interval(self) -> tuple[float, float] | None:
        return wilson_interval(self.accepted, self.judged) if self.judged > 0 else None  # nothing judged: no interval


@dataclass(frozen=True)
class PosRow:
    pos: str
    judged: int
    rejected: int

    @property
    def share(self) -> float | None:
        return self.rejected / self.judged if self.judged else None


@dataclass(frozen=True)
class Agreement:
    first: str
    second: str
    questions: int
    agreed: int  # same three-way category
    kappa3: float | None
    kappa2: float | None


@dataclass(frozen=True)
class ReviewStats:
    dataset_name: str
    dataset_sha256: str
    items: int
    order: str
    files: tuple[str, ...]
    reviewers: tuple[ShareRow, ...]
    combined: ShareRow | None  # only with several files
    by_pos: tuple[PosRow, ...]
    agreements: tuple[Agreement, ...]


def _share_row(name: str, decisions: Sequence[Decision]) -> ShareRow:
    judged = [d for d in decisions if d.category is not None]
    return ShareRow(
        name,
        len(decisions),
        len(decisions) - len(judged),
        len(judged),
        sum(d.category == ACCEPTED for d in judged),
        sum(d.category == MEANING_CHANGED for d in judged),
        sum(d.category == UNGRAMMATICAL for d in judged),
    )


def _labels(files: Sequence[DecisionsFile]) -> list[str]:
    """Reviewer names, or file names where two files share a reviewer."""
    names = [f.reviewer for f in files]
    return [f.reviewer if names.count(f.reviewer) == 1 else f"{f.reviewer} ({f.label})" for f in files]


def compute_stats(files: Sequence[DecisionsFile]) -> ReviewStats:
    """The statistics of one dataset's decisions files; `InputError` if they are for different datasets."""
    if not files:
        raise InputError("no decisions files given", hint="give one or more decisions files")
    first = files[0]
    for other in files[1:]:
        if other.dataset_sha256 != first.dataset_sha256:
            raise InputError(
                f"decisions for different datasets: {first.label} is for sha256 {first.dataset_sha256[:12]}, "
                f"{other.label} for {other.dataset_sha256[:12]}",
                path=other.path,
                hint="give decisions files of one dataset",
            )
    labels = _labels(files)
    reviewers = tuple(_share_row(label, f.decisions) for label, f in zip(labels, files))

    per_item: dict[str, list[Decision]] = {}
    for f in files:
        for d in f.judged():
            per_item.setdefault(d.id, []).append(d)
    combined = None
    if len(files) > 1:
        statuses = [combined_status(ds) for ds in per_item.values()]
        reasons = [{d.reason for d in ds if d.reason} for ds in per_item.values()]
        decided = {d.id for f in files for d in f.decisions}
        combined = ShareRow(
            "combined",
            len(decided),
            len(decided) - len(per_item),
            len(per_item),
            statuses.count(ACCEPTED),
            sum(MEANING_CHANGED in r for r in reasons),
            sum(UNGRAMMATICAL in r for r in reasons),
        )

    judged_pos: dict[str, int] = dict.fromkeys(COARSE_POS, 0)
    rejected_pos: dict[str, int] = dict.fromkeys(COARSE_POS, 0)
    for decisions in per_item.values():
        groups = {coarse_pos(str(s["pos"])) for s in decisions[0].substitutions}
        rejected = combined_status(decisions) == REJECTED
        for group in groups:
            judged_pos[group] += 1
            rejected_pos[group] += rejected
    by_pos = tuple(PosRow(p, judged_pos[p], rejected_pos[p]) for p in COARSE_POS if p != "other" or judged_pos[p])

    agreements = []
    for (label_a, a), (label_b, b) in combinations(list(zip(labels, files)), 2):
        mine, theirs = a.by_id(), b.by_id()
        both = [i for i in mine if i in theirs and mine[i].category is not None and theirs[i].category is not None]
        three_a, three_b = [mine[i].category for i in both], [theirs[i].category for i in both]
        two_a = [c == ACCEPTED for c in three_a]
        two_b = [c == ACCEPTED for c in three_b]
        agreements.append(
            Agreement(
                label_a,
                label_b,
                len(both),
                sum(x == y for x, y in zip(three_a, three_b)),
                cohen_kappa(three_a, three_b),
                cohen_kappa(two_a, two_b),
            )
        )
    return ReviewStats(
        first.dataset_name,
        first.dataset_sha256,
        first.items,
        first.order,
        tuple(f.label for f in files),
        reviewers,
        combined,
        by_pos,
        tuple(agreements),
    )


# ------------------------------------------------------------------------------------------ rendering


def _percent(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def _interval(value: tuple[float, float] | None) -> str:
    return "–" if value is None else f"{100 * value[0]:.1f}–{100 * value[1]:.1f}%"


def _kappa(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def format_stats(stats: ReviewStats) -> str:
    """The plain-text summary `robustqa review --stats` prints."""
    rows = list(stats.reviewers) + ([stats.combined] if stats.combined else [])
    lines = [
        f"dataset  {stats.dataset_name} (sha256 {stats.dataset_sha256[:12]}), {stats.items} changed questions, "
        f"reviewed in {stats.order} order",
        f"files    {', '.join(stats.files)}",
        "",
        "accepted share (skips excluded; 95% Wilson interval)",
        text_table(
            [
                {
                    "reviewer": r.name,
                    "decided": str(r.decided),
                    "skipped": str(r.skipped),
                    "judged": str(r.judged),
                    "accepted": str(r.accepted),
                    "share": _percent(r.share),
                    "95% interval": _interval(r.interval),
                }
                for r in rows
            ]
        ),
    ]
    if stats.combined:
        lines.append("combined: a question is accepted when every reviewer who judged it accepted it")
    lines += [
        "",
        "rejections by reason",
        text_table(
            [
                {
                    "reviewer": r.name,
                    "rejected": str(r.judged - r.accepted),
                    **{reason: str(getattr(r, reason)) for reason in REASONS},
                }
                for r in rows
            ]
        ),
        "",
        "rejections by part of speech ("
        + ("combined as above; " if stats.combined else "")
        + "a question counts once for each part of speech it has a substitution of)",
        text_table(
            [
                {"pos": p.pos, "judged": str(p.judged), "rejected": str(p.rejected), "share": _percent(p.share)}
                for p in stats.by_pos
            ]
        ),
    ]
    if stats.agreements:
        lines += [
            "",
            "agreement (Cohen's kappa on the questions both reviewers judged; skips excluded)",
            "  kappa3: accepted / meaning_changed / ungrammatical; kappa2: accepted / rejected",
            text_table(
                [
                    {
                        "reviewers": f"{a.first} vs {a.second}",
                        "questions": str(a.questions),
                        "agreed": str(a.agreed),
                        "kappa3": _kappa(a.kappa3),
                        "kappa2": _kappa(a.kappa2),
                    }
                    for a in stats.agreements
                ]
            ),
        ]
    return "\n".join(line.rstrip() for line in "\n".join(lines).splitlines()) + "\n"


def stats_to_dict(stats: ReviewStats) -> dict[str, Any]:
    """The same figures as JSON (`--json`)."""

    def share(row: ShareRow) -> dict[str, Any]:
        return {
            "reviewer": row.name,
            "decided": row.decided,
            "skipped": row.skipped,
            "judged": row.judged,
            "accepted": row.accepted,
            "rejected": {MEANING_CHANGED: row.meaning_changed, UNGRAMMATICAL: row.ungrammatical},
            "accepted_share": row.share,
            "accepted_share_ci95": list(row.interval) if row.interval else None,
        }

    return {
        "dataset": {
            "name": stats.dataset_name,
            "sha256": stats.dataset_sha256,
            "items": stats.items,
            "order": stats.order,
        },
        "files": list(stats.files),
        "reviewers": [share(r) for r in stats.reviewers],
        "combined": share(stats.combined) if stats.combined else None,
        "rejections_by_pos": [{"pos": p.pos, "judged": p.judged, "rejected": p.rejected} for p in stats.by_pos],
        "agreement": [
            {
                "reviewers": [a.first, a.second],
                "questions": a.questions,
                "agreed": a.agreed,
                "kappa3": a.kappa3,
                "kappa2": a.kappa2,
            }
            for a in stats.agreements
        ],
    }
