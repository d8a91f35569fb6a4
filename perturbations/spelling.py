"""A second family of transformations, with no WordNet: a word's other national spelling (British
"colour" <-> American "color").

Why: a model that understands words reads "colour" and "color" as one word, so a spelling variant changes
nothing a reader would notice, and a drop on it is a drop on surface form alone. The table
(`data/spelling_variants-<n>.json`, built by `tools/spelling_table.py`) lists only pairs that are one word in
every sense, each inflected form spelled out, so a candidate is written as it is. It ships with the package
and is named and hashed in every signature, as the vetted synonym tables are.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, ClassVar

from perturbations.components import as_str
from perturbations.constraints import Candidate, first_rejection, plan_for
from perturbations.errors import RecipeParameterError
from perturbations.transformation import Transformation, Word

_PREFIX = "spelling_variants-"
DIRECTIONS = ("both", "to-american", "to-british")

# The coarse word class of a Penn tag: the budget counts a word once per class, as it does for WordNet words.
_CLASSES = {"N": "n", "V": "v", "J": "a", "R": "r"}


@dataclass(frozen=True)
class SpellingTable:
    """One packaged table: `british` maps a British spelling to the American one of the same word form."""

    name: str
    sha256: str
    british: dict[str, str]

    def other(self, word: str, direction: str) -> tuple[str, str] | None:
        """The other spelling of a lower-case word and which way it goes ("en-GB>en-US"), or None."""
        if direction != "to-british" and word in self.british:
            return self.british[word], "en-GB>en-US"
        if direction != "to-american" and word in self.american:
            return self.american[word], "en-US>en-GB"
        return None

    @property
    def american(self) -> dict[str, str]:
        return _inverse(self.name)

    def describe(self) -> str:
        return f"{self.name} ({len(self.british)} pairs, sha256 {self.sha256[:12]})"


def table_names() -> tuple[str, ...]:
    """The packaged spelling tables, by name ("spelling-1", ...)."""
    folder = resources.files("perturbations") / "data"
    names = (p.name for p in folder.iterdir() if p.name.startswith(_PREFIX) and p.name.endswith(".json"))
    return tuple(sorted("spelling-" + n[len(_PREFIX) : -len(".json")] for n in names))


@cache
def spelling_table(name: str) -> SpellingTable:
    """A packaged table by name; RecipeParameterError naming the tables there are when it does not exist."""
    if name not in table_names():
        raise RecipeParameterError(f"no spelling table '{name}'; tables: {', '.join(table_names()) or 'none'}")
    raw = (resources.files("perturbations") / "data" / f"{_PREFIX}{name[len('spelling-') :]}.json").read_bytes()
    return SpellingTable(name, hashlib.sha256(raw).hexdigest(), dict(json.loads(raw)["pairs"]))


@cache
def _inverse(name: str) -> dict[str, str]:
    return {us: gb for gb, us in spelling_table(name).british.items()}


@dataclass(frozen=True)
class SpellingVariants(Transformation):
    """Transformation: a word's other national spelling from a packaged table, in one `direction` or both.

    A word has at most one candidate, with confidence 1 (the table lists only words spelled two ways in every
    sense); its sense is the table and the direction ("spelling-1:en-GB>en-US"), which the edit record
    carries. The recipe's LEMMA and FORM rules still judge it. A word the table does not list stays
    ("no-variant").
    """

    table: str = "spelling-1"
    direction: str = "both"
    PARAMETERS: ClassVar[dict[str, Callable[[Any], Any]]] = {"table": as_str, "direction": as_str}
    REASONS: ClassVar[tuple[str, ...]] = ("no-variant",)

    def validate(self) -> None:
        spelling_table(self.table)
        if self.direction not in DIRECTIONS:
            raise RecipeParameterError(f"direction must be one of {', '.join(DIRECTIONS)}, not '{self.direction}'")

    def lexeme(self, low: str, tag: str) -> tuple[str, str] | str:
        """The word itself and its coarse class: spellings are told apart form by form."""
        return low, _CLASSES.get(tag[:1], tag)

    def candidates(self, word: Word, lexical_key: str) -> list[Candidate] | str:
        found = spelling_table(self.table).other(word.low, self.direction)
        if found is None:
            return "no-variant"
        form, way = found
        candidate = self._candidate(word, form, f"{self.table}:{way}", 1.0)
        plan = plan_for(lexical_key)
        if first_rejection(plan.lemma, candidate._replace(form="", inflected=False)) or first_rejection(
            plan.form, candidate
        ):
            return "no-variant"
        return [candidate]

    def name_in(self, sense: str, tag: str, written: str) -> str | None:
        """The spelling an earlier record wrote, when this table could have written it (in either direction:
        a word keeps the spelling its question got)."""
        if not sense.startswith(f"{self.table}:"):
            return None
        table = spelling_table(self.table)
        ways = {"en-GB>en-US": table.american, "en-US>en-GB": table.british}
        return written if written in ways.get(sense.partition(":")[2], {}) else None

    def carry(self, word: Word, name: str, sense: str, confidence: float) -> Candidate:
        return self._candidate(word, name, sense, confidence)

    @staticmethod
    def _candidate(word: Word, form: str, sense: str, confidence: float) -> Candidate:
        return Candidate(
            word.low, word.tag, word.lemma, word.pos, sense, form, form, True, word.position, (), confidence
        )

    def parameters(self) -> dict[str, object]:
        return super().parameters() | {"table_sha256": spelling_table(self.table).sha256[:12]}

    def describe(self) -> str:
        return f"SpellingVariants(table={spelling_table(self.table).describe()}, direction={self.direction})"
