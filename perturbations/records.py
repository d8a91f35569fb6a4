"""Immutable records of what the engine did to a text.

Every edit is kept with its character offsets in both the original and the perturbed string, so
callers can map spans across the edit (SQuAD answer offsets) and show what changed (notebooks).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from perturbations.edit_kinds import EDIT_KIND_RULES, edit_kind


@dataclass(frozen=True)
class Token:
    """A word of the original text with its character span and Penn Treebank tag."""

    text: str
    start: int
    end: int
    tag: str


@dataclass(frozen=True)
class Substitution:
    """One word replaced by a synonym.

    `start`/`end` index the original text, `new_start`/`new_end` the perturbed text. `pos` is the Penn
    tag of the original word as tagged in its original sentence; `synset` the WordNet synset name the
    word-sense disambiguation chose (e.g. "situate.v.01"); `confidence` that method's score in [0, 1].
    `kind` is the edit's kind (`perturbations.edit_kinds`: "synonym", "rare", "spelling", "abbreviation",
    "morphology"), "" where the record does not say (files of published recipe versions, which keep their bytes):
    `classified()` fills it, since the kind is a function of the two words (and of the rules' version).
    `judge` is the learned judge's probability that the edit keeps the meaning, for recipes that rank by it
    (None otherwise, and then absent from the record's dict).
    """

    start: int
    end: int
    new_start: int
    new_end: int
    original: str
    replacement: str
    pos: str
    synset: str
    confidence: float
    kind: str = field(default="", compare=False)  # derived from the two words: equal records stay equal
    judge: float | None = None

    def classified(self, rules: str = EDIT_KIND_RULES) -> Substitution:
        """This record with its kind: the stored one, else `perturbations.edit_kinds.edit_kind` by `rules` (the
        current rules unless a recipe names others)."""
        return self if self.kind else replace(self, kind=edit_kind(self.original, self.replacement, rules).value)

    def to_dict(self) -> dict[str, Any]:
        record: dict[str, Any] = {
            "start": self.start,
            "end": self.end,
            "new_start": self.new_start,
            "new_end": self.new_end,
            "original": self.original,
            "replacement": self.replacement,
            "pos": self.pos,
            "synset": self.synset,
            "confidence": round(self.confidence, 6),
        }
        if self.kind:
            record["kind"] = self.kind
        if self.judge is not None:
            record["judge"] = self.judge
        return record

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Substitution:
        return cls(
            start=int(data["start"]),
            end=int(data["end"]),
            new_start=int(data["new_start"]),
            new_end=int(data["new_end"]),
            original=str(data["original"]),
            replacement=str(data["replacement"]),
            pos=str(data["pos"]),
            synset=str(data["synset"]),
            confidence=float(data["confidence"]),
            kind=str(data.get("kind", "")),
            judge=float(data["judge"]) if data.get("judge") is not None else None,
        )


@dataclass(frozen=True)
class Perturbation:
    """A text (`original`), its perturbed form (`perturbed`), and every substitution that turns one into
    the other; `recipe` is the "name@version" that made it.

    `skipped` counts, per reason (e.g. "proper-noun", "stopword", "low-confidence"), the words that
    were considered and left alone; it feeds the build summary. `penalties` counts, per soft rule of the
    recipe (one that ranks instead of rejecting), the substitutions written although that rule penalised
    them (empty for recipes without soft rules).
    """

    original: str
    perturbed: str
    substitutions: tuple[Substitution, ...] = ()
    skipped: tuple[tuple[str, int], ...] = field(default=())
    recipe: str = ""
    penalties: tuple[tuple[str, int], ...] = ()

    @property
    def changed(self) -> bool:
        return self.perturbed != self.original

    def skipped_counts(self) -> dict[str, int]:
        return dict(self.skipped)

    def penalty_counts(self) -> dict[str, int]:
        return dict(self.penalties)

    def to_dict(self) -> dict[str, Any]:
        """The JSON record `robustqa perturb --json` prints: "text" is the original, as it always was."""
        return {
            "text": self.original,
            "perturbed": self.perturbed,
            "substitutions": [s.to_dict() for s in self.substitutions],
        }


@dataclass(frozen=True)
class TextToPerturb:
    """A text a caller will perturb, with the arguments that decide its search space (for `Recipe.prepare`)."""

    text: str
    wsd_context: str | None = None
    frozen_spans: tuple[tuple[int, int], ...] = ()
