"""The attack's view of a recipe's search space: every word it may change, with every valid replacement,
and a way to apply any chosen set of them.

This is the only module of the attack that talks to the engine (`perturbations.search_space` and
`perturbations.apply_edits`, the functions `build-dataset` itself spends its budget through), so the search
never depends on how the engine is organised. A slot is what the engine's budget counts as one edit: every
occurrence of one lemma and part of speech in the question; they change together, to the same synonym,
as in a build. A slot's choices are the replacements the recipe allows at its first occurrence, every
rank, not only the first, except those a soft (ranking) rule of the recipe penalises: a build writes such an
edit only when it has nothing better, as a last resort for coverage, but a search that picks, among many
edits, the ones the model fails on would favour exactly the doubtful ones (weak sense evidence, a synonym
mostly used in another sense), and an attack that wins by breaking questions measures nothing. Recipes
without soft rules (the 1.x versions) lose nothing to this. `include_penalised` searches them too (the whole
space a build may write), to measure what they add.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import perturbations
from perturbations.records import Perturbation


@dataclass(frozen=True)
class Choice:
    """One replacement of one slot: `rank` 0 is the one `build-dataset` would write for that word."""

    slot: int
    rank: int
    name: str  # the WordNet lemma name (what keeps every occurrence of the slot consistent)
    form: str  # the replacement as written (lower case; the word's case is applied when written)
    confidence: float


@dataclass(frozen=True)
class Slot:
    """A word (every occurrence of one lemma and part of speech) the recipe may change."""

    index: int
    word: str  # its first occurrence, as written
    start: int  # character offsets of the first occurrence
    end: int
    pos: str  # Penn tag of the first occurrence
    synset: str  # the sense the recipe's disambiguation chose
    choices: tuple[Choice, ...]
    occurrences: tuple[int, ...] = ()  # token indices of every occurrence (engine positions)


@dataclass(frozen=True)
class Space:
    """Every valid edit of one text under one recipe, and how many edits its budget allows."""

    text: str
    recipe: str  # name@version
    slots: tuple[Slot, ...]
    limit: int  # distinct words the recipe's budget lets change in this text
    min_edits: int  # fewer edits than this leave the text unchanged under the recipe
    engine_space: perturbations.SearchSpace | None = field(default=None, repr=False, compare=False)

    @property
    def choices(self) -> tuple[Choice, ...]:
        return tuple(c for slot in self.slots for c in slot.choices)

    @property
    def size(self) -> int:
        return sum(len(slot.choices) for slot in self.slots)


def budget_limit(recipe: perturbations.Recipe, words: int) -> int:
    """Distinct words the recipe's budget lets change in a text of `words` words (as the engine counts)."""
    budget = recipe.budget
    return min(budget.max_substitutions, max(budget.min_substitutions, math.floor(budget.rate * words + 1e-9)))


def attack_slots(
    recipe: perturbations.Recipe,
    text: str,
    *,
    wsd_context: str | None = None,
    frozen_spans: Sequence[tuple[int, int]] = (),
    include_penalised: bool = False,
) -> Space:
    """The slots of `text` under `recipe`, in text order, each with its valid replacements, ranked: those no
    soft rule penalises, or with `include_penalised` every one the recipe allows (penalised ones last)."""
    space = perturbations.search_space(recipe, text, frozen_spans=tuple(frozen_spans), wsd_context=wsd_context)
    slots: list[Slot] = []
    for group in dict.fromkeys(p.group for p in space.positions):
        occurrences = [p for p in space.positions if p.group == group]
        first = occurrences[0]
        ranked = sorted(first.candidates, key=lambda r: r.penalty)  # stable: the engine's rank within a penalty
        trusted = ranked if include_penalised else [r for r in ranked if r.penalty <= 0]
        if not trusted:
            continue
        choices = tuple(Choice(len(slots), rank, r.name, r.form, r.confidence) for rank, r in enumerate(trusted))
        slots.append(
            Slot(
                len(slots),
                first.word,
                first.start,
                first.end,
                first.tag,
                first.synset,
                choices,
                tuple(p.index for p in occurrences),
            )
        )
    return Space(
        text, recipe.ident, tuple(slots), budget_limit(recipe, space.words), recipe.budget.min_substitutions, space
    )


def apply_choices(space: Space, choices: Sequence[Choice]) -> Perturbation:
    """The text with `choices` (at most one per slot) applied at every occurrence of each slot's word that
    can take the same synonym, written as a build writes it."""
    engine_space = space.engine_space
    if engine_space is None:
        raise ValueError("this space was not made by attack_slots")
    edits: dict[int, perturbations.Replacement] = {}
    used: set[int] = set()
    for choice in choices:
        if choice.slot in used:
            raise ValueError(f"two choices for slot {choice.slot} of {space.text!r}")
        used.add(choice.slot)
        for index in space.slots[choice.slot].occurrences:
            position = engine_space.position(index)
            same = next((r for r in position.candidates if r.name == choice.name), None)
            if same is not None:
                edits[index] = same
    return perturbations.apply_edits(engine_space, edits)
