"""The search space of a recipe on one text: every word it may edit, with every replacement it allows.

Why a record of its own: `Recipe.perturb` spends a budget on this space (the most confident words, the
first-ranked synonym), but an attack searches it (which words, which synonyms flip a model). Both must see
exactly the same candidates, so the engine builds the space once (`build_space`), and both the budget and
an attack turn chosen edits into a `Perturbation` with the same function (`apply_edits`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from perturbations.records import Token


class Replacement(NamedTuple):
    """One replacement the recipe allows for one word.

    `name` is the WordNet lemma name ("soldier_of_fortune"), `form` what is written (lower-case, inflected
    for the word's tag; the word's case is applied when written), `confidence` the probability that it is a
    synonym of the word here. `penalty` is the summed weight of the recipe's soft rules that it (or its
    word, or its sense) fails, `penalties` their reasons. `blocked` names the EDIT-stage rule that forbids
    writing it at this place (an "a"/"an" or a possessive it would have to change is frozen), None when it
    can be written.

    Immutable like the engine's frozen dataclasses, but a NamedTuple, as `Position` and `Candidate` are:
    one is built for every candidate of every editable word of every text.
    """

    name: str
    form: str
    inflected: bool
    confidence: float
    penalty: float = 0.0
    penalties: tuple[str, ...] = ()
    blocked: str | None = None


class EditPosition(NamedTuple):
    """A word the recipe may edit: where it is, the sense WSD chose, and its replacements, ranked.

    `index` is the word's place in `SearchSpace.tokens`; `lemma`/`pos` its WordNet lemma and part of speech
    (occurrences of one `group` change together when `Recipe.perturb` chooses them); `synset` the chosen
    sense, `senses` the whole WSD distribution (empty when `forced`); `confidence` the best replacement's.
    `replacements` are ranked lowest penalty first, then by WordNet's sense-tagged counts; `forced` means a
    consistent earlier text already edited this word, and this is the replacement it must get. A
    NamedTuple for the reason `Replacement` is.
    """

    index: int  # type: ignore[assignment]  # a field named like tuple.index, as the engine names it
    start: int
    end: int
    word: str
    tag: str
    lemma: str
    pos: str
    synset: str
    confidence: float
    replacements: tuple[Replacement, ...]
    senses: tuple[tuple[str, float], ...] = ()
    forced: bool = False

    @property
    def group(self) -> tuple[str, str]:
        """(lemma, part of speech): occurrences of the same word change together, to the same synonym."""
        return (self.lemma, self.pos)

    @property
    def candidates(self) -> tuple[Replacement, ...]:
        """The replacements that can be written here (not `blocked`), in rank order."""
        return tuple(r for r in self.replacements if r.blocked is None)

    @property
    def penalty(self) -> float:
        """The lowest penalty among the replacements (the word's rank for the budget)."""
        return min((r.penalty for r in self.replacements), default=0.0)


@dataclass(frozen=True)
class SearchSpace:
    """Every word of `text` that `recipe` may edit, and why each other word stays as it is.

    `all_positions` are the words the budget chooses among, in text order; `positions` those of them with
    at least one replacement that can be written (in a text with frozen spans, a word can have none).
    `skipped` counts the words left alone per reason before any budget ("proper-noun", "compound", ...);
    `words` is the number of words, which the budget's rate applies to. `kind_rules` is the recipe's
    (`Recipe.kind_rules`): when set, every substitution written from this space carries its edit kind.
    """

    recipe: str
    text: str
    tokens: tuple[Token, ...]
    frozen_spans: tuple[tuple[int, int], ...]
    all_positions: tuple[EditPosition, ...]
    skipped: tuple[tuple[str, int], ...]
    words: int
    kind_rules: str = ""

    @property
    def positions(self) -> tuple[EditPosition, ...]:
        """The words that can be edited, each with its writable replacements (`EditPosition.candidates`)."""
        return tuple(p for p in self.all_positions if p.candidates)

    def position(self, index: int) -> EditPosition:
        """The position of the word at token `index`; KeyError when the recipe may not edit it."""
        for p in self.all_positions:
            if p.index == index:
                return p
        raise KeyError(index)

    def skipped_counts(self) -> dict[str, int]:
        return dict(self.skipped)
