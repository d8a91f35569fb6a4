"""The attack's view of a recipe: every word it may change, with every valid replacement, and a way to
apply any chosen set of them.

This is the only module of the attack that talks to the engine, so that the search never depends on how
the engine is organised inside. A slot is what the engine's budget counts as one edit: every occurrence of
one lemma and part of speech in the question (they always change together, to the same synonym). A slot's
choices are all the replacements the recipe accepts for it (the same candidates, senses, confidence
threshold and constraints `build-dataset` uses, every rank, not only the first), each checked by applying
it alone, so that a choice the edit-stage rules would refuse never reaches the model.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import perturbations
from perturbations.records import Perturbation


@dataclass(frozen=True)
class Choice:
    """One replacement of one slot: `rank` 0 is the one `build-dataset` would pick."""

    slot: int
    rank: int
    name: str  # the WordNet lemma name (what keeps every occurrence of the slot consistent)
    form: str  # the replacement as written for the first occurrence
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


@dataclass(frozen=True)
class Space:
    """Every valid edit of one text under one recipe, and how many edits its budget allows."""

    text: str
    recipe: str  # name@version
    slots: tuple[Slot, ...]
    limit: int  # distinct words the recipe's budget lets change in this text
    min_edits: int  # fewer edits than this leave the text unchanged under the recipe
    _engine: Any = field(default=None, repr=False, compare=False)  # what `apply_choices` needs of the engine

    @property
    def choices(self) -> tuple[Choice, ...]:
        return tuple(c for slot in self.slots for c in slot.choices)

    @property
    def size(self) -> int:
        return sum(len(slot.choices) for slot in self.slots)


@dataclass(frozen=True)
class _EngineState:
    recipe: perturbations.Recipe
    tokens: tuple[Any, ...]
    options: tuple[Any, ...]  # the engine's per-occurrence options, grouped by slot below
    frozen: tuple[tuple[int, int], ...]


def search_space(
    recipe: perturbations.Recipe,
    text: str,
    *,
    seed: int,
    key: str,
    wsd_context: str | None = None,
    frozen_spans: Sequence[tuple[int, int]] = (),
) -> Space:
    """The slots of `text` under `recipe`, in text order, each with every replacement that applies alone."""
    from perturbations import engine
    from perturbations.text import is_word, tag
    from perturbations.wsd import bag, context_bag

    tokens = tag(text)
    plan, tf, budget = recipe.plan, recipe.transformation, recipe.budget
    plan.register()
    frozen = tuple(frozen_spans)
    context = bag(t.text for t in tokens)
    if wsd_context and tf.use_context:
        context = context | context_bag(wsd_context)
    options = []
    n_words = 0
    for i, tok in enumerate(tokens):
        if not is_word(tok.text):
            continue
        n_words += 1
        if plan.rejection(tokens, i, frozen) is None:
            found = engine._option(recipe, tokens, i, frozen, context, {}, set())
            if not isinstance(found, str):
                options.append(found)
    limit = min(budget.max_substitutions, max(budget.min_substitutions, math.floor(budget.rate * n_words + 1e-9)))
    state = _EngineState(recipe, tokens, tuple(options), frozen)
    slots: list[Slot] = []
    slot_groups: list[tuple[str, str]] = []
    for group in dict.fromkeys(o.group for o in options):
        first = next(o for o in options if o.group == group)
        tok = tokens[first.index]
        choices: list[Choice] = []
        for name, form, _inflected, conf in first.replacements:
            if _apply(state, text, {group: name}).substitutions:
                choices.append(Choice(len(slots), len(choices), name, form, conf))
        if choices:
            slots.append(Slot(len(slots), tok.text, tok.start, tok.end, tok.tag, first.synset, tuple(choices)))
            slot_groups.append(group)
    return Space(text, recipe.ident, tuple(slots), limit, budget.min_substitutions, (state, tuple(slot_groups)))


def apply_choices(space: Space, choices: Sequence[Choice]) -> Perturbation:
    """The text with `choices` (at most one per slot) applied, recorded as the engine records any edit."""
    state, slot_groups = space._engine
    names: dict[tuple[str, str], str] = {}
    for choice in choices:
        group = slot_groups[choice.slot]
        if group in names:
            raise ValueError(f"two choices for slot {choice.slot} of {space.text!r}")
        names[group] = choice.name
    return _apply(state, space.text, names)


def _apply(state: _EngineState, text: str, names: dict[tuple[str, str], str]) -> Perturbation:
    """The engine's own edit step on the options of the chosen groups, each restricted to its chosen lemma."""
    from dataclasses import replace

    from perturbations import engine

    chosen = []
    for option in state.options:
        name = names.get(option.group)
        replacements = tuple(r for r in option.replacements if r[0] == name) if name is not None else ()
        if replacements:
            chosen.append(replace(option, replacements=replacements))
    plan = state.recipe.plan
    edits = engine._apply(text, state.tokens, chosen, state.frozen, plan.edit_constraints(state.frozen), 0, 0, "", Counter())
    new_text, records = engine._render(text, edits)
    return Perturbation(original=text, perturbed=new_text, substitutions=records, recipe=state.recipe.ident)
