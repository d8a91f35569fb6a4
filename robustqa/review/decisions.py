"""The decisions file: one reviewer's judgments of the changed questions of one built file.

It names the reviewer and the sha256 of the reviewed file, so decisions are never applied to another file,
and each decision carries the question's original and perturbed text and its substitution records (with
their Penn tags), so statistics need no other file. The server writes it after every decision (atomically);
the self-contained page builds the same JSON in the browser and downloads it. See docs/FORMATS.md.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from robustqa import __version__
from robustqa.errors import InputError
from robustqa.outputs import check_output_path, write_text_atomic
from robustqa.review.items import ReviewItem, ReviewSet, sha256_hex
from robustqa.squad import read_json_input

FORMAT = "robustqa-review-decisions"
FORMAT_VERSION = 1
ACCEPTED, REJECTED, SKIPPED = "accepted", "rejected", "skipped"
MEANING_CHANGED, UNGRAMMATICAL = "meaning_changed", "ungrammatical"
DECISIONS = (ACCEPTED, REJECTED, SKIPPED)
REASONS = (MEANING_CHANGED, UNGRAMMATICAL)
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_HINT = "give a decisions file written by `robustqa review` (or saved from its page)"


class DecisionError(InputError):
    """A decision that cannot be recorded (unknown question, unknown decision or reason)."""


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def check_reviewer(name: str) -> str:
    name = name.strip()
    if not name or len(name) > 100 or any(ch in name for ch in "\r\n\t"):
        raise InputError(
            f"reviewer name {name!r} must be 1 to 100 characters on one line",
            hint="give the name decisions should be recorded under",
        )
    return name


@dataclass(frozen=True)
class Decision:
    """One judgment. `reason` is set for rejections only."""

    id: str
    decision: str  # accepted | rejected | skipped
    reason: str | None  # meaning_changed | ungrammatical (rejections only)
    original: str
    perturbed: str
    substitutions: tuple[Mapping[str, Any], ...]
    at: str  # when it was made, ISO 8601 UTC

    @property
    def category(self) -> str | None:
        """accepted / meaning_changed / ungrammatical; None for a skip (no judgment)."""
        if self.decision == SKIPPED:
            return None
        return ACCEPTED if self.decision == ACCEPTED else self.reason

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "decision": self.decision,
            "reason": self.reason,
            "original": self.original,
            "perturbed": self.perturbed,
            "substitutions": [dict(s) for s in self.substitutions],
            "at": self.at,
        }


def decision_problem(decision: Any, reason: Any) -> str | None:
    """What is wrong with a (decision, reason) pair, or None."""
    if decision not in DECISIONS:
        return f"unknown decision {decision!r} (one of {', '.join(DECISIONS)})"
    if decision == REJECTED and reason not in REASONS:
        return f"a rejection needs a reason ({', '.join(REASONS)}), not {reason!r}"
    if decision != REJECTED and reason is not None:
        return f"only a rejection has a reason, not {decision!r}"
    return None


def make_decision(item: ReviewItem, decision: str, reason: str | None = None, *, at: str | None = None) -> Decision:
    """A decision on `item`, with the texts and substitutions that make it self-contained."""
    problem = decision_problem(decision, reason)
    if problem:
        raise DecisionError(problem, where=f"question {item.id}")
    return Decision(item.id, decision, reason, item.original, item.perturbed, tuple(item.substitutions), at or now())


@dataclass(frozen=True)
class DecisionsFile:
    """A reviewer's decisions on one file, in review order."""

    reviewer: str
    dataset_name: str
    dataset_sha256: str
    dataset_signature: str
    items: int  # questions to review in that file
    order: str
    decisions: tuple[Decision, ...] = ()
    updated: str | None = None
    path: str | None = None  # where it was read from
    file_sha256: str | None = None  # of the bytes read (what a validated build records)

    @property
    def label(self) -> str:
        return Path(self.path).name if self.path else self.reviewer

    def by_id(self) -> dict[str, Decision]:
        return {d.id: d for d in self.decisions}

    def judged(self) -> list[Decision]:
        """The decisions that judge a question (skips excluded)."""
        return [d for d in self.decisions if d.decision != SKIPPED]

    def with_decision(self, decision: Decision, order: Sequence[str]) -> DecisionsFile:
        """A copy with `decision` added or replacing an earlier one on the same question, in review order."""
        rank = {item_id: index for index, item_id in enumerate(order)}
        kept = {d.id: d for d in self.decisions}
        kept[decision.id] = decision
        ordered = sorted(kept.values(), key=lambda d: rank.get(d.id, len(rank)))
        return replace(self, decisions=tuple(ordered), updated=decision.at)

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "robustqa": __version__,
            "reviewer": self.reviewer,
            "dataset": {
                "name": self.dataset_name,
                "sha256": self.dataset_sha256,
                "signature": self.dataset_signature,
                "items": self.items,
            },
            "order": self.order,
            "updated": self.updated,
            "decisions": [d.to_dict() for d in self.decisions],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=2) + "\n"


def new_decisions(review_set: ReviewSet, reviewer: str) -> DecisionsFile:
    return DecisionsFile(
        check_reviewer(reviewer),
        review_set.name,
        review_set.sha256,
        review_set.signature,
        len(review_set.items),
        review_set.order,
    )


# ------------------------------------------------------------------------------------------ reading


def _field(
    raw: Mapping[str, Any], key: str, kind: type | tuple[type, ...], *, path: str, where: str | None = None
) -> Any:
    value = raw.get(key)
    if not isinstance(value, kind) or isinstance(value, bool) and kind is int:
        raise InputError(
            f"'{key}' is missing or not a {getattr(kind, '__name__', 'valid value')}",
            path=path,
            where=where,
            hint=_HINT,
        )
    return value


def _decision(raw: Any, index: int, *, path: str) -> Decision:
    where = f"decisions[{index}]"
    if not isinstance(raw, dict):
        raise InputError("not an object", path=path, where=where, hint=_HINT)
    item_id = _field(raw, "id", str, path=path, where=where)
    where = f"decisions[{index}] (question {item_id})"
    decision = _field(raw, "decision", str, path=path, where=where)
    reason = raw.get("reason")
    problem = decision_problem(decision, reason)
    if problem:
        raise InputError(problem, path=path, where=where, hint=_HINT)
    subs = _field(raw, "substitutions", list, path=path, where=where)
    for sub in subs:
        if not isinstance(sub, dict) or not isinstance(sub.get("pos"), str):
            raise InputError("each substitution needs its 'pos' tag", path=path, where=where, hint=_HINT)
    return Decision(
        item_id,
        decision,
        reason,
        _field(raw, "original", str, path=path, where=where),
        _field(raw, "perturbed", str, path=path, where=where),
        tuple(subs),
        str(raw.get("at") or ""),
    )


def read_decisions(path: str | Path) -> DecisionsFile:
    """Read and check a decisions file; `InputError` names the file and the entry that is wrong."""
    path = Path(path)
    name = str(path)
    raw, data = read_json_input(path, hint=_HINT)
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        raise InputError(f'not a decisions file (no "format": "{FORMAT}")', path=name, hint=_HINT)
    if raw.get("format_version") != FORMAT_VERSION:
        raise InputError(
            f"decisions format version {raw.get('format_version')!r} is not {FORMAT_VERSION}",
            path=name,
            hint="use the robustqa version that wrote it",
        )
    reviewer = _field(raw, "reviewer", str, path=name)
    dataset = _field(raw, "dataset", dict, path=name)
    sha = _field(dataset, "sha256", str, path=name, where="dataset")
    if not _SHA256.match(sha):
        raise InputError("dataset sha256 is not 64 hexadecimal digits", path=name, hint=_HINT)
    decisions = [
        _decision(entry, index, path=name) for index, entry in enumerate(_field(raw, "decisions", list, path=name))
    ]
    seen: set[str] = set()
    for decision in decisions:
        if decision.id in seen:
            raise InputError(
                f"question {decision.id} is decided twice", path=name, hint="keep one decision per question"
            )
        seen.add(decision.id)
    return DecisionsFile(
        reviewer=reviewer,
        dataset_name=str(dataset.get("name") or ""),
        dataset_sha256=sha,
        dataset_signature=str(dataset.get("signature") or ""),
        items=int(dataset.get("items") or 0),
        order=str(raw.get("order") or ""),
        decisions=tuple(decisions),
        updated=raw.get("updated") if isinstance(raw.get("updated"), str) else None,
        path=name,
        file_sha256=sha256_hex(data),
    )


def combined_status(judgments: Sequence[Decision]) -> str:
    """accepted when every judgment accepts, else rejected: one rule for applying decisions and for scoring
    reviewed-valid questions."""
    return ACCEPTED if all(d.decision == ACCEPTED for d in judgments) else REJECTED


def check_same_dataset(decisions: DecisionsFile, sha256: str, dataset: str) -> None:
    """Refuse decisions made on another file: they would revert or keep the wrong questions."""
    if decisions.dataset_sha256 != sha256:
        raise InputError(
            f"made for another dataset ({decisions.dataset_name or 'a file'} with sha256 "
            f"{decisions.dataset_sha256[:12]}), not {dataset} (sha256 {sha256[:12]})",
            path=decisions.path,
            hint="give the decisions made on this very file",
        )


def check_known_ids(decisions: DecisionsFile, review_set: ReviewSet) -> None:
    known = review_set.by_id()
    for decision in decisions.decisions:
        if decision.id not in known:
            raise InputError(
                f"question {decision.id} is not a changed question of {review_set.name}",
                path=decisions.path,
                hint=_HINT,
            )


# ------------------------------------------------------------------------------------------ the log


class DecisionLog:
    """The decisions of one review session, written to their file after every decision.

    Opening an existing file resumes it: it must be for the same dataset and the same reviewer.
    Thread-safe: the server handles requests on several threads.
    """

    def __init__(self, review_set: ReviewSet, reviewer: str, path: str | Path) -> None:
        self.review_set = review_set
        self.path = Path(path)
        self.lock = threading.Lock()
        self._items = review_set.by_id()
        self._order = [item.id for item in review_set.items]
        reviewer = check_reviewer(reviewer)
        if self.path.exists():
            current = read_decisions(self.path)
            check_same_dataset(current, review_set.sha256, review_set.name)
            if current.reviewer != reviewer:
                raise InputError(
                    f"these decisions are {current.reviewer}'s, not {reviewer}'s",
                    path=str(self.path),
                    hint=f"give another decisions file for {reviewer}, or the reviewer name {current.reviewer}",
                )
            check_known_ids(current, review_set)
            self.current = replace(current, path=None, file_sha256=None)
        else:
            self.current = new_decisions(review_set, reviewer)
            check_output_path(self.path)

    @property
    def done(self) -> int:
        return len(self.current.decisions)

    @property
    def total(self) -> int:
        return len(self._order)

    def decide(self, item_id: str, decision: str, reason: str | None = None) -> Decision:
        item = self._items.get(item_id)
        if item is None:
            raise DecisionError(f"question {item_id} is not under review", hint="reload the page")
        made = make_decision(item, decision, reason)
        with self.lock:
            updated = self.current.with_decision(made, self._order)
            write_text_atomic(self.path, updated.to_json())
            self.current = updated
        return made
