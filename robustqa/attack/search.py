"""The search for one question: single edits ranked by how far each lowers the clean answer's margin, then
edits added greedily (a beam of width 1) or with a wider beam, stopping at the first flip.

The search is a generator: it yields the variants it wants scored next and receives their results, so the
driver can put the variants of many questions into one batched forward pass and answer repeated variants
from its cache. It draws nothing at random: the same space and the same answers give the same search.

Queries are counted per question as distinct variant texts scored (the clean question is not counted). The
variants of a round are ordered before they are cut to the budget and the first flip *in that order* is
taken, so a run with budget Q asks, for every smaller budget b, exactly the queries a run with budget b
would ask up to its b-th: the share flipped within b queries (the success-versus-budget curve) is the
success rate of the same attack with budget b.

A flip is a variant whose decoded answer is wrong and whose margin is below `-flip_margin`: a variant
wrong by less could come out right when eval batches it with other questions (floating point differs with
the padding), and the adversarial set must flip under eval exactly as here.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field

from perturbations.records import Perturbation
from robustqa.attack.attack_space import Choice, Space, apply_choices
from robustqa.attack.scorer import Scored

FLIP_MARGIN = 0.1  # logits; see the module docstring
DEFAULT_BUDGET = 50
DEFAULT_BEAM = 1


@dataclass(frozen=True)
class Variant:
    """One set of edits (at most one choice per slot, in slot order) and the question it makes."""

    choices: tuple[Choice, ...]
    perturbation: Perturbation

    @property
    def text(self) -> str:
        return self.perturbation.perturbed


@dataclass(frozen=True)
class SearchOutcome:
    """How the search of one question ended.

    `variant`/`scored`: the flipping variant, or (no flip) the variant with the lowest margin found.
    `queries`: distinct variants scored; `queries_to_flip`: the flip's place in query order (what a
    sequential attack with this order needs). `stop`: flipped, budget, max-edits (more words could have been
    added), exhausted (every word is in the kept variants, or every combination was tried) or no-edit (the
    recipe may change no word of the question)."""

    succeeded: bool
    stop: str
    queries: int
    queries_to_flip: int | None = None
    variant: Variant | None = None
    scored: Scored | None = None
    # (slot, rank, margin) of each single edit scored
    single_margins: tuple[tuple[int, int, float], ...] = field(default=())


Search = Generator[list[Variant], dict[str, Scored], SearchOutcome]


def search(
    space: Space, *, budget: int, max_edits: int, beam: int = DEFAULT_BEAM, flip_margin: float = FLIP_MARGIN
) -> Search:
    """Yield lists of variants to score (new texts only, at most the budget left); receive {text: result};
    return the outcome. `max_edits` counts slots (every occurrence of a word changes together)."""
    if not space.slots or max_edits < max(1, space.min_edits):
        return SearchOutcome(False, "no-edit", 0)
    log: list[tuple[Variant, Scored]] = []
    seen: dict[str, Scored] = {}

    def is_flip(variant: Variant, scored: Scored) -> bool:
        return not scored.right and scored.margin < -flip_margin and len(variant.choices) >= space.min_edits

    def ask(variants: Sequence[Variant]) -> Generator[list[Variant], dict[str, Scored], list[tuple[Variant, Scored]]]:
        new: dict[str, Variant] = {}
        for v in variants:
            if v.text not in seen and v.text not in new and len(seen) + len(new) < budget:
                new[v.text] = v
        if new:
            results = yield list(new.values())
            for text, v in new.items():
                seen[text] = results[text]
                log.append((v, results[text]))
        return [(v, seen[v.text]) for v in variants if v.text in seen]

    def first_flip() -> SearchOutcome | None:
        return _first_flip(log, is_flip, singles_record)

    def lowest(stop: str) -> SearchOutcome:
        return _lowest(log, stop, singles_record)

    singles_record: tuple[tuple[int, int, float], ...] = ()
    singles = [_variant(space, (c,)) for c in sorted(space.choices, key=lambda c: (c.rank, c.slot))]
    scored_singles = yield from ask(singles)
    singles_record = tuple((v.choices[0].slot, v.choices[0].rank, s.margin) for v, s in scored_singles)
    found = first_flip()
    if found is not None:
        return found
    if len(seen) >= budget:
        return lowest("budget")
    single_margin = {v.choices[0]: s.margin for v, s in scored_singles}
    slot_margin = {slot.index: min(single_margin.get(c, float("inf")) for c in slot.choices) for slot in space.slots}
    ranked = sorted(scored_singles, key=lambda item: item[1].margin)
    states = [v for v, _ in ranked[:beam]]
    tried: set[tuple[Choice, ...]] = {v.choices for v in singles}
    edits = 1
    while edits < max_edits:
        expansions: list[Variant] = []
        for state in states:
            used = {c.slot for c in state.choices}
            for slot in sorted(
                (s for s in space.slots if s.index not in used), key=lambda s: (slot_margin[s.index], s.index)
            ):
                for choice in sorted(slot.choices, key=lambda c: (single_margin.get(c, float("inf")), c.rank)):
                    combo = tuple(sorted((*state.choices, choice), key=lambda c: c.slot))
                    if combo not in tried:
                        tried.add(combo)
                        expansions.append(_variant(space, combo))
        if not expansions:
            return lowest("exhausted")
        scored = yield from ask(expansions)
        found = first_flip()
        if found is not None:
            return found
        if len(seen) >= budget:
            return lowest("budget")
        states = [v for v, _ in sorted(scored, key=lambda item: item[1].margin)[:beam]]
        edits += 1
    more = any(len(state.choices) < len(space.slots) for state in states)
    return lowest("max-edits" if more else "exhausted")


def search_listed(variants: Sequence[Variant], *, budget: int, flip_margin: float = FLIP_MARGIN) -> Search:
    """The search of a space that lists its variants (a reviewed set): score them in their order, at most
    `budget`, in one round; the first that flips in that order is the outcome, as for `search`."""
    if not variants:
        return SearchOutcome(False, "no-edit", 0)
    first: dict[str, Variant] = {}
    for variant in variants:
        first.setdefault(variant.text, variant)
    distinct = list(first.values())
    asked = distinct[:budget]
    results = yield asked
    log = [(v, results[v.text]) for v in asked]

    def is_flip(variant: Variant, scored: Scored) -> bool:
        return not scored.right and scored.margin < -flip_margin

    found = _first_flip(log, is_flip, ())
    return found if found is not None else _lowest(log, "budget" if len(distinct) > budget else "exhausted", ())


def _first_flip(
    log: Sequence[tuple[Variant, Scored]],
    is_flip: Callable[[Variant, Scored], bool],
    singles: tuple[tuple[int, int, float], ...],
) -> SearchOutcome | None:
    """The first flip in query order, with its place in that order; None when nothing flipped."""
    for position, (variant, scored) in enumerate(log, start=1):
        if is_flip(variant, scored):
            return SearchOutcome(True, "flipped", len(log), position, variant, scored, singles)
    return None


def _lowest(
    log: Sequence[tuple[Variant, Scored]], stop: str, singles: tuple[tuple[int, int, float], ...]
) -> SearchOutcome:
    """No flip: the outcome names the variant that lowered the margin most (the earliest of equal ones)."""
    if not log:
        return SearchOutcome(False, stop, 0, single_margins=singles)
    variant, scored = min(log, key=lambda item: item[1].margin)
    return SearchOutcome(False, stop, len(log), None, variant, scored, singles)


def _variant(space: Space, choices: tuple[Choice, ...]) -> Variant:
    return Variant(choices, apply_choices(space, choices))
