"""Whether people reviewed the perturbed questions an eval scores, so that a drop is never reported as if
every edited question were valid when nobody checked.

Two ways a set counts as reviewed: the perturbed file was filtered with review decisions (`robustqa filter`
or `build-dataset --validated`: only accepted questions stay perturbed, which the file's metadata records),
or decisions made on the very file are given to the eval, which then also scores the drop on the
reviewed-valid questions alone. Without either the set is unreviewed, and the eval says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

NOT_REVIEWED, FILTERED, DECISIONS = "not reviewed", "filtered", "decisions"


@dataclass(frozen=True)
class ReviewStatus:
    """What people decided about a perturbed set's changed questions, as far as the eval knows.

    `valid_ids` (perturbed question ids every reviewer who judged them accepted) is known only when
    decisions are given to the eval; a filtered file already holds only accepted questions perturbed.
    """

    kind: str  # NOT_REVIEWED, FILTERED or DECISIONS
    accepted: int = 0
    rejected: int = 0
    unreviewed: int = 0
    decisions: tuple[str, ...] = ()  # sha256 (12 hex digits) of each decisions file
    reviewers: tuple[str, ...] = ()
    valid_ids: frozenset[str] | None = None

    @property
    def reviewed(self) -> bool:
        return self.kind != NOT_REVIEWED

    def describe(self) -> str:
        """One line for the eval's summary and the report."""
        if not self.reviewed:
            return "not reviewed by people: the drop mixes model errors with edits that changed the question's meaning"
        who = f" by {', '.join(self.reviewers)}" if self.reviewers else ""
        counts = f"{self.accepted} accepted, {self.rejected} rejected, {self.unreviewed} not reviewed"
        if self.kind == FILTERED:
            # the file's metadata counts the whole set it was filtered from, not the questions a run evaluates
            return (
                f"reviewed{who} and filtered: {counts} in the whole reviewed set (not only the questions this run "
                "evaluated); only accepted questions stay perturbed"
            )
        return f"reviewed{who}: {counts}; the reviewed-valid rows score the accepted questions alone"

    def short(self) -> str:
        """A few words for a table cell."""
        if not self.reviewed:
            return "not reviewed"
        if self.kind == FILTERED:
            return f"reviewed, {self.accepted} accepted kept in the whole set"
        return f"reviewed, {self.accepted}/{self.accepted + self.rejected + self.unreviewed} accepted"

    @classmethod
    def from_dict(cls, record: Mapping[str, Any] | None) -> ReviewStatus | None:
        """The status report.json records (`to_dict`); None for runs without a perturbed file or made
        before robustqa recorded reviews."""
        if not isinstance(record, Mapping) or record.get("kind") not in (NOT_REVIEWED, FILTERED, DECISIONS):
            return None
        return cls(
            str(record["kind"]),
            accepted=int(record.get("accepted", 0)),
            rejected=int(record.get("rejected", 0)),
            unreviewed=int(record.get("unreviewed", 0)),
            decisions=tuple(record.get("decisions", ())),
            reviewers=tuple(record.get("reviewers", ())),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "reviewed": self.reviewed,
            "kind": self.kind,
            "accepted": self.accepted,
            "rejected": self.rejected,
            "unreviewed": self.unreviewed,
            "decisions": list(self.decisions),
            "reviewers": list(self.reviewers),
        }


def status_of_file(metadata: Mapping[str, Any] | None) -> ReviewStatus:
    """The review recorded in a perturbed file's `robustqa` metadata (written by `apply_decisions`)."""
    review = metadata.get("review") if isinstance(metadata, Mapping) else None
    if not isinstance(review, Mapping):
        return ReviewStatus(NOT_REVIEWED)
    raw_counts = review.get("counts")
    counts: Mapping[str, Any] = raw_counts if isinstance(raw_counts, Mapping) else {}
    files = [f for f in review.get("decisions", []) if isinstance(f, Mapping)]
    return ReviewStatus(
        FILTERED,
        accepted=int(counts.get("accepted", 0)),
        rejected=int(counts.get("rejected", 0)),
        unreviewed=int(counts.get("unreviewed", 0)),
        decisions=tuple(str(f.get("sha256", ""))[:12] for f in files),
        reviewers=tuple(sorted({str(f["reviewer"]) for f in files if f.get("reviewer")})),
    )
