"""What a recipe's transformation is (`Transformation`), and the budget: which replacements a word may get,
and how many words change.

A transformation proposes (TextAttack's `Transformation`): it says what word a token is, and turns one
word into its ranked candidates; the engine hands them to the recipe's constraints, then spends the
budget. Everything a family of replacements knows (WordNet and word senses for `perturbations.synonyms`,
a spelling table for `perturbations.spelling`) stays in the family's module, so a new family is one new
module and touches no line of the engine. They sit below the engine (`perturbations.engine` imports this
module; it imports nothing of recipes or the engine), and `EngineRecipe` is what the engine needs of a
recipe, so that the engine and `perturbations.recipes` never import each other.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple, Protocol

from perturbations.components import Component, as_count, as_float
from perturbations.constraints import Candidate, ConstraintPlan, Position
from perturbations.errors import RecipeParameterError
from perturbations.records import Token


class Word(NamedTuple):
    """A word the transformation is asked about: `low` lower-cased, its Penn `tag`, the `lemma` and `pos`
    the transformation's own `lexeme` gave it, `context` what the transformation's `reading` gave for the
    text, and `position` where it is (None when no constraint of the recipe looks at the place, so
    candidates need not carry it)."""

    low: str
    tag: str
    lemma: str
    pos: str
    context: frozenset[str]
    position: Position | None


class Transformation(Component, ABC):
    """What proposes the replacements of a recipe. The engine asks it, for each word its position
    constraints let through:

    - `lexeme`: what word the token is, (lemma, part of speech), the key under which a word is counted once
      by the budget and kept consistent across texts; or the reason it is no word it can replace;
    - `candidates`: the word's candidates, best first, that the recipe's LEMMA and FORM rules accept
      (`lexical_key` names them: `perturbations.constraints.plan_for`); or the reason there are none;

    and, to keep a word as an earlier text (`consistent_with`) edited it, `name_in` and `carry`. `reading`
    is what of the text (and of the caller's `wsd_context`) it reads when it proposes; `REASONS` every
    reason it can give. `Candidate.synset` is the sense a candidate comes from in the family's own terms
    (a WordNet synset name, a spelling table's name), and it is what edit records carry.
    """

    REASONS: ClassVar[tuple[str, ...]] = ()

    def reading(self, tokens: tuple[Token, ...], wsd_context: str | None) -> frozenset[str]:
        """What the transformation reads of the text (and the caller's context) around each word: nothing
        by default."""
        return frozenset()

    @abstractmethod
    def lexeme(self, low: str, tag: str) -> tuple[str, str] | str:
        """(lemma, part of speech) of a lower-cased word with its Penn tag, or the reason it stays."""

    @abstractmethod
    def candidates(self, word: Word, lexical_key: str) -> list[Candidate] | str:
        """The word's candidates, best first, each with its confidence; or the reason there are none."""

    @abstractmethod
    def name_in(self, sense: str, tag: str, written: str) -> str | None:
        """The candidate name of `sense` that is written `written` (lower-case) for a word tagged `tag`, or
        None: how an earlier text's edit record is read back into a replacement."""

    @abstractmethod
    def carry(self, word: Word, name: str, sense: str, confidence: float) -> Candidate:
        """The candidate `name` of `sense` for `word`, as an earlier text gave it (its confidence kept)."""


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
        "rate": as_float,
        "min_substitutions": as_count,
        "max_substitutions": as_count,
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
    def transformation(self) -> Transformation: ...

    @property
    def plan(self) -> ConstraintPlan: ...

    @property
    def budget(self) -> Budget: ...

    @property
    def kind_rules(self) -> str: ...
