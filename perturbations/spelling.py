"""A second family of transformations, with no WordNet: a word's other national spelling (British
"colour" <-> American "color").

Why: a model that understands words reads "colour" and "color" as one word, so a spelling variant changes
nothing a reader would notice, and a drop on it is a drop on surface form alone. The table
(`data/spelling_variants-<n>.json`, built by `tools/spelling_table.py`) lists only pairs that are one word in
every sense, each inflected form spelled out, so a candidate is written as it is. It ships with the package
and is named and hashed in every signature, as the vetted synonym tables are.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from perturbations.components import as_str
from perturbations.constraints import Candidate, first_rejection, plan_for
from perturbations.errors import RecipeParameterError
from perturbations.spelling_tables import spelling_table
from perturbations.transformation import Transformation, Word

DIRECTIONS = ("both", "to-american", "to-british")

# The coarse word class of a Penn tag: the budget counts a word once per class, as it does for WordNet words.
_CLASSES = {"N": "n", "V": "v", "J": "a", "R": "r"}


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
