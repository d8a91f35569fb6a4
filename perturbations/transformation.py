"""The transformation and the budget of a recipe: which synonyms a word may get, and how many words change.

They sit below the engine (`perturbations.engine` imports them; they import nothing of recipes or the
engine), so a recipe is built from parts that know nothing of one another; `EngineRecipe` is what the
engine needs of a recipe, so that the engine and `perturbations.recipes` never import each other.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from perturbations.components import Component, as_bool, as_count, as_float, as_str
from perturbations.constraints import ConstraintPlan
from perturbations.errors import RecipeParameterError
from perturbations.vetted import vetted_table
from perturbations.wsd import METHODS

# Reasons the transformation gives for leaving a word alone (the constraints name their own).
TRANSFORMATION_REASONS = ("no-sense", "no-candidate", "low-confidence")


@dataclass(frozen=True)
class WordNetSynonyms(Component):
    """Transformation: a word's synonyms from the one WordNet synset its WSD picks.

    Candidates are the synset's other lemmas ranked by cntlist count (ties by name), multiword lemmas
    rendered with spaces, re-inflected to the original Penn tag with case kept. A candidate's confidence
    is the WSD probability mass of every sense of the word that has it among its lemmas; candidates below
    `threshold` are dropped. `use_context` adds the caller's `wsd_context` (a question's paragraph) to the
    words WSD looks at.
    """

    wsd: str = "enhanced-lesk"
    threshold: float = 0.8
    use_context: bool = True
    PARAMETERS: ClassVar[dict[str, Callable[[Any], Any]]] = {
        "wsd": as_str, "threshold": as_float, "use_context": as_bool,
    }
    REASONS: ClassVar[tuple[str, ...]] = TRANSFORMATION_REASONS

    def validate(self) -> None:
        if self.wsd not in METHODS:
            raise RecipeParameterError(f"wsd must be one of {', '.join(METHODS)}, not '{self.wsd}'")
        if not 0.0 <= self.threshold <= 1.0:
            raise RecipeParameterError(f"threshold must be in [0, 1], not {self.threshold}")

    def allowed(self, lemma: str, pos: str) -> tuple[str, ...] | None:
        """The synonyms this transformation may offer for a word whatever its sense, or None: only those
        of the sense WSD picks (`VettedSynonyms` answers with its table)."""
        return None

    def describe(self) -> str:
        return (
            f"WordNetSynonyms(wsd={self.wsd}, threshold={self.threshold}, use_context={self.use_context}, "
            "ranking=cntlist, inflection=lemminflect)"
        )


@dataclass(frozen=True)
class VettedSynonyms(WordNetSynonyms):
    """Transformation: a word's synonyms from any of its WordNet senses, but only those a vetted table
    (`perturbations.vetted`) lists for the word.

    Why every sense: a vetted pair keeps the meaning whichever common sense the word has, so the pair must
    not wait for WSD to pick the one synset that holds it. WSD still orders the candidates (a candidate's
    confidence is, as for `WordNetSynonyms`, the WSD mass of the word's senses that have it), names the
    sense the gates check, and drops candidates below `threshold`. A word the table does not list is left
    alone ("not-vetted").
    """

    threshold: float = 0.0
    table: str = "vetted-1"
    PARAMETERS: ClassVar[dict[str, Callable[[Any], Any]]] = {**WordNetSynonyms.PARAMETERS, "table": as_str}
    REASONS: ClassVar[tuple[str, ...]] = (*TRANSFORMATION_REASONS, "not-vetted")

    def validate(self) -> None:
        super().validate()
        vetted_table(self.table)

    def allowed(self, lemma: str, pos: str) -> tuple[str, ...] | None:
        return vetted_table(self.table).allowed(lemma, pos)

    def parameters(self) -> dict[str, object]:
        return super().parameters() | {"table_sha256": vetted_table(self.table).sha256[:12]}

    def describe(self) -> str:
        return (
            f"VettedSynonyms(table={vetted_table(self.table).describe()}, senses=all, wsd={self.wsd}, "
            f"threshold={self.threshold}, use_context={self.use_context}, ranking=WSD synonym mass, inflection=lemminflect)"
        )


@dataclass(frozen=True)
class Budget(Component):
    """How many words may change: at most `rate` of the words, within [min, max] per text.

    The budget keeps the most confident candidate words; a text with fewer than
    `min_substitutions` possible edits is left unchanged.
    """

    rate: float = 0.25
    min_substitutions: int = 1
    max_substitutions: int = 3
    PARAMETERS: ClassVar[dict[str, Callable[[Any], Any]]] = {
        "rate": as_float, "min_substitutions": as_count, "max_substitutions": as_count,
    }

    def validate(self) -> None:
        if not 0.0 < self.rate <= 1.0:
            raise RecipeParameterError(f"rate must be in (0, 1], not {self.rate}")
        if self.min_substitutions < 0 or self.max_substitutions < max(1, self.min_substitutions):
            raise RecipeParameterError(
                f"need 0 <= min_substitutions <= max_substitutions and max_substitutions >= 1, "
                f"not {self.min_substitutions}/{self.max_substitutions}"
            )

    def describe(self) -> str:
        return (
            f"Budget(rate={self.rate}, min_substitutions={self.min_substitutions}, "
            f"max_substitutions={self.max_substitutions})"
        )


class EngineRecipe(Protocol):
    """What the engine reads of a recipe (`perturbations.recipes.Recipe` is one)."""

    @property
    def ident(self) -> str: ...

    @property
    def transformation(self) -> WordNetSynonyms: ...

    @property
    def plan(self) -> ConstraintPlan: ...

    @property
    def budget(self) -> Budget: ...
