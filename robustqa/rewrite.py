"""Span-safe rewriting of a context and the answer offsets that point into it.

The engine reports every edit with its offsets in the original text. Applying the edits here, right to
left, and shifting each `answer_start` by the length change of the edits before it is the one place where
answer offsets are recomputed; every shifted answer is then checked against the new context. A mismatch
means a bug (an edit inside an answer, or an engine record that does not describe its text): it raises
`SpanIntegrityError` so that nothing is written.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from perturbations.records import Substitution
from robustqa.errors import SpanIntegrityError
from robustqa.squad import Answer, answer_matches


@dataclass(frozen=True)
class Rewrite:
    """A text with its edits applied, and the map from original offsets to new ones."""

    original: str
    text: str
    substitutions: tuple[Substitution, ...]
    _ends: tuple[int, ...]  # original end offsets of the edits, ascending
    _shifts: tuple[int, ...]  # cumulative length change after each edit

    def shift(self, offset: int) -> int:
        """Where an original offset lies in the new text (for offsets outside every edit)."""
        index = bisect_right(self._ends, offset)
        return offset + (self._shifts[index - 1] if index else 0)

    def touches(self, start: int, end: int) -> Substitution | None:
        """The first edit that overlaps [start, end) of the original text, if any."""
        for sub in self.substitutions:
            if sub.start < end and start < sub.end:
                return sub
            if sub.start >= end:
                break
        return None


def apply_substitutions(text: str, substitutions: Sequence[Substitution], *, where: str = "text") -> Rewrite:
    """Apply edits right to left and verify each one describes the text it replaces.

    Raises `SpanIntegrityError` on overlapping edits, an `original` that is not at its offsets, or new
    offsets that do not match where the replacement lands.
    """
    ordered = tuple(sorted(substitutions, key=lambda s: (s.start, s.end)))
    for before, after in zip(ordered, ordered[1:]):
        if after.start < before.end:
            raise SpanIntegrityError(
                f"{where}: edits overlap at characters {after.start}-{before.end} ({before.original!r}, "
                f"{after.original!r})"
            )
    pieces: list[str] = []
    cursor = len(text)
    for sub in reversed(ordered):
        if not (0 <= sub.start <= sub.end <= len(text)) or text[sub.start : sub.end] != sub.original:
            raise SpanIntegrityError(
                f"{where}: edit {sub.original!r} -> {sub.replacement!r} is not at characters {sub.start}-{sub.end}"
            )
        pieces.append(text[sub.end : cursor])
        pieces.append(sub.replacement)
        cursor = sub.start
    pieces.append(text[:cursor])
    new_text = "".join(reversed(pieces))
    shifts, total = [], 0
    for sub in ordered:
        if sub.new_start != sub.start + total or sub.new_end != sub.new_start + len(sub.replacement):
            raise SpanIntegrityError(
                f"{where}: edit {sub.original!r} -> {sub.replacement!r} has new offsets {sub.new_start}-{sub.new_end}, "
                f"expected {sub.start + total}-{sub.start + total + len(sub.replacement)}"
            )
        total += len(sub.replacement) - (sub.end - sub.start)
        shifts.append(total)
    return Rewrite(text, new_text, ordered, tuple(s.end for s in ordered), tuple(shifts))


def rewrite_answers(rewrite: Rewrite, answers: Sequence[Answer], *, where: str) -> tuple[Answer, ...]:
    """Move answers into the rewritten text; raise rather than return an answer that does not match."""
    moved = []
    for answer in answers:
        if not answer_matches(rewrite.original, answer):
            raise SpanIntegrityError(
                f"{where}: answer {answer.text!r} is not at {answer.answer_start} of the original context"
            )
        end = answer.answer_start + len(answer.text)
        hit = rewrite.touches(answer.answer_start, end) if answer.text else None
        if hit is not None:
            raise SpanIntegrityError(
                f"{where}: the edit {hit.original!r} -> {hit.replacement!r} falls inside the answer {answer.text!r}"
            )
        new = Answer(answer.text, rewrite.shift(answer.answer_start))
        if not answer_matches(rewrite.text, new):
            raise SpanIntegrityError(
                f"{where}: answer {answer.text!r} does not match the rewritten context at {new.answer_start}"
            )
        moved.append(new)
    return tuple(moved)
