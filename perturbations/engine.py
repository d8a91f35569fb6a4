"""The substitution pass, in three steps: the search space (tag, ask the recipe's constraints,
disambiguate, propose and rank candidates), the budget (which words change), and the edits (written and
recorded with offsets in both strings).

`build_space` and `apply_edits` are the first and last steps on their own, for callers that choose the
edits themselves (an attack); `perturb_text` is the three together, so both see the same candidates.

Pure given its arguments: the only randomness (tie-breaks, and word/synonym choice for variants > 0)
comes from a generator derived from (seed, key, variant), so a text's result never depends on which
other texts were perturbed before it.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from perturbations.constraints import (
    Candidate,
    CandidateConstraint,
    ConstraintPlan,
    Position,
    Stage,
    first_rejection,
    penalty,
)
from perturbations.errors import InvalidEditError
from perturbations.inflect import POSSESSIVES
from perturbations.records import Perturbation, Substitution, Token
from perturbations.space import EditPosition, Replacement, SearchSpace
from perturbations.text import is_word, tag
from perturbations.transformation import Budget, EngineRecipe, Transformation, Word
from perturbations.variants import written_span


def rng_for(seed: int, key: str, variant: int = 0) -> random.Random:
    """A generator private to one (seed, key, variant): no global random state."""
    return random.Random(hashlib.sha256(f"{seed}:{key}:{variant}".encode()).digest())


def _strip_article(phrase: str) -> str:
    """The word of a substitution whose record also covers a re-agreed "a"/"an" before it, or a
    possessive after it ("men's" -> "adult males'")."""
    head, _, rest = phrase.partition(" ")
    word = rest.lstrip() if rest and head.lower() in ("a", "an") else phrase
    for ending in POSSESSIVES + ("'", "’"):
        if word.endswith(ending) and len(word) > len(ending):
            return word[: -len(ending)]
    return word


def _consistency_maps(
    tf: Transformation, earlier: Sequence[Perturbation]
) -> tuple[dict[tuple[str, str], tuple[str, str, float]], set[tuple[str, str]]]:
    """From earlier perturbations: (lemma, pos) -> (replacement name, sense, confidence) of edited words,
    and the (lemma, pos) of words those texts kept unchanged, as the transformation reads them."""
    edited: dict[tuple[str, str], tuple[str, str, float]] = {}
    for pert in earlier:
        for sub in pert.substitutions:
            key = tf.lexeme(_strip_article(sub.original).lower(), sub.pos)
            if isinstance(key, str):
                continue
            name = tf.name_in(sub.synset, sub.pos, _strip_article(sub.replacement).lower())
            if name is not None:
                edited.setdefault(key, (name, sub.synset, sub.confidence))
    kept: set[tuple[str, str]] = set()
    for pert in earlier:
        spans = [(s.start, s.end) for s in pert.substitutions]
        for tok in tag(pert.original):
            if any(s <= tok.start < e for s, e in spans):
                continue
            key = tf.lexeme(tok.text.lower(), tok.tag)
            if not isinstance(key, str) and key not in edited:
                kept.add(key)
    return edited, kept


def build_space(
    recipe: EngineRecipe,
    text: str,
    *,
    frozen_spans: Sequence[tuple[int, int]] = (),
    wsd_context: str | None = None,
    consistent_with: Sequence[Perturbation] = (),
) -> SearchSpace:
    """Every word of `text` that `recipe` may edit, with every replacement its constraints allow, ranked
    (see `SearchSpace`); the arguments mean what they mean for `Recipe.perturb`. No randomness is involved:
    the seed and variant only matter to the budget."""
    frozen = tuple(frozen_spans)
    tokens = tag(text)
    if not tokens:
        return SearchSpace(recipe.ident, text, tokens, frozen, (), (), 0, recipe.kind_rules)
    tf, plan = recipe.transformation, recipe.plan
    plan.register()
    skipped: Counter[str] = Counter()
    context = tf.reading(tokens, wsd_context)
    source = wsd_context or ""
    edited, kept = _consistency_maps(tf, consistent_with) if consistent_with else ({}, set())
    edit_rules = plan.edit_constraints(frozen)

    positions: list[EditPosition] = []
    n_words = 0
    for i, tok in enumerate(tokens):
        if not is_word(tok.text):
            continue
        n_words += 1
        reason = plan.rejection(tokens, i, frozen, source)
        if reason is None:
            found = _position(recipe, tokens, i, frozen, source, context, edited, kept, edit_rules)
            if not isinstance(found, str):
                positions.append(found)
                continue
            reason = found
        skipped[reason] += 1
    return SearchSpace(
        recipe.ident,
        text,
        tokens,
        frozen,
        tuple(positions),
        tuple(sorted((k, v) for k, v in skipped.items() if v)),
        n_words,
        recipe.kind_rules,
    )


def perturb_text(
    recipe: EngineRecipe,
    text: str,
    *,
    seed: int,
    key: str,
    frozen_spans: Sequence[tuple[int, int]] = (),
    wsd_context: str | None = None,
    consistent_with: Sequence[Perturbation] = (),
    variant: int = 0,
) -> Perturbation:
    """Apply `recipe` to `text`: its search space, its budget, then the edits (see Recipe.perturb)."""
    space = build_space(
        recipe, text, frozen_spans=frozen_spans, wsd_context=wsd_context, consistent_with=consistent_with
    )
    if not space.tokens:
        return Perturbation(original=text, perturbed=text, recipe=recipe.ident)
    budget = recipe.budget
    skipped: Counter[str] = Counter(dict(space.skipped))
    options = space.all_positions
    # generators are made only when drawn from: most texts never need one
    chosen = _spend_budget(list(options), space.words, budget, rng_for(seed, key, variant), variant) if options else []
    skipped["budget"] += len(options) - len(chosen)
    picks = _pick_replacements(chosen, variant, seed, key, skipped)
    if len(picks) < budget.min_substitutions:
        skipped["budget"] += len(picks)
        picks = []
    return _write(space, picks, skipped)


def apply_edits(
    space: SearchSpace, edits: Mapping[int, Replacement | str] | Iterable[tuple[int, Replacement | str]]
) -> Perturbation:
    """The text of `space` with exactly these edits: token index of an `EditPosition` -> one of its
    `candidates` (or its lemma name or form). Written as `perturb_text` writes its own choices (case kept,
    "a"/"an" and a possessive re-agreed, the same records), so an edit found by a search is the edit a
    build would write. Nothing else changes: occurrences of the same word are edited only where asked.

    `skipped` of the result is the space's, plus "budget" for every position left alone. Raises
    InvalidEditError for a word the recipe may not edit, a replacement it does not allow there, or a
    word given twice."""
    items = list(edits.items()) if isinstance(edits, Mapping) else list(edits)
    picks: list[tuple[EditPosition, Replacement]] = []
    seen: set[int] = set()
    for index, choice in items:
        if index in seen:
            raise InvalidEditError(
                f"word {index} of {_quoted(space.text)} is edited twice; give one replacement per word"
            )
        seen.add(index)
        try:
            position = space.position(index)
        except KeyError:
            raise InvalidEditError(
                f"word {index} of {_quoted(space.text)} is not one {space.recipe} may edit; choose among the positions "
                "of its search space"
            ) from None
        picks.append((position, _allowed(position, choice, space.recipe)))
    skipped: Counter[str] = Counter(dict(space.skipped))
    skipped["budget"] += len(space.all_positions) - len(picks)
    return _write(space, picks, skipped)


def _quoted(text: str, limit: int = 60) -> str:
    """A text as an error message names it: quoted, cut after `limit` characters (contexts are long)."""
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


def _allowed(position: EditPosition, choice: Replacement | str, recipe: str) -> Replacement:
    """The writable replacement of `position` that `choice` names (itself, its lemma name or its form)."""
    for r in position.candidates:
        if r == choice or (isinstance(choice, str) and choice in (r.name, r.form)):
            return r
    allowed = ", ".join(r.form for r in position.candidates) or "none"
    shown = choice.form if isinstance(choice, Replacement) else choice
    raise InvalidEditError(
        f"{recipe} does not allow {shown!r} for {position.word!r} (word {position.index}); allowed: {allowed}"
    )


def _write(
    space: SearchSpace, picks: Sequence[tuple[EditPosition, Replacement]], skipped: Counter[str]
) -> Perturbation:
    """The Perturbation that writes `picks` into the space's text, each record with its edit kind when the
    recipe writes kinds (the one place they are written, so a budget's edits and an attack's carry the same)."""
    new_text, records = _render(space.text, [_edit_for(space.text, space.tokens, p, r) for p, r in picks])
    if space.kind_rules:
        records = tuple(record.classified(space.kind_rules) for record in records)
    penalised = Counter(name for _, r in picks for name in r.penalties)
    return Perturbation(
        original=space.text,
        perturbed=new_text,
        substitutions=records,
        skipped=tuple(sorted((k, v) for k, v in skipped.items() if v)),
        recipe=space.recipe,
        penalties=tuple(sorted(penalised.items())),
    )


def _position(
    recipe: EngineRecipe,
    tokens: tuple[Token, ...],
    index: int,
    frozen: tuple[tuple[int, int], ...],
    source: str,
    context: frozenset[str],
    edited: dict[tuple[str, str], tuple[str, str, float]],
    kept: set[tuple[str, str]],
    edit_rules: tuple[CandidateConstraint, ...],
) -> EditPosition | str:
    """The word at `index` as a position the recipe may edit, or the reason it stays as it is.

    Its position constraints have accepted it; it needs to be a word the transformation knows (`lexeme`),
    then the transformation's candidates (or the replacement a consistent earlier text gave it) that the
    candidate constraints accept."""
    tf, plan = recipe.transformation, recipe.plan
    token = tokens[index]
    low, tag_ = token.text.lower(), token.tag
    key = tf.lexeme(low, tag_)
    if isinstance(key, str):
        return key
    lemma, pos = key
    if key in edited:
        name, syn_name, conf = edited[key]
        where = Position(tokens, index, frozen, source)
        carried = tf.carry(Word(low, tag_, lemma, pos, context, where), name, syn_name, conf)
        rule = (
            first_rejection(plan.form, carried)
            or first_rejection(plan.sense, _sense_candidate(carried))
            or first_rejection(plan.context, carried)
        )
        if rule is not None:
            return "consistency" if rule.stage is Stage.FORM else rule.reason
        ranked = _rank(plan, where, [carried])
        replacements = _replacements(edit_rules, ranked, ())
        return EditPosition(
            index, token.start, token.end, token.text, tag_, lemma, pos, syn_name, conf, replacements, forced=True
        )
    if key in kept:
        return "consistency"
    placed = bool(plan.sense or plan.context or plan.soft or edit_rules)  # whether any rule looks at the place
    place = Position(tokens, index, frozen, source) if placed else None
    word = Word(low, tag_, lemma, pos, context, place)
    proposed = tf.candidates(word, plan.lexical_key)
    if isinstance(proposed, str):
        return proposed
    return _constrained(plan, token, index, word, proposed, edit_rules)


def _constrained(
    plan: ConstraintPlan,
    token: Token,
    index: int,
    word: Word,
    proposed: list[Candidate],
    edit_rules: tuple[CandidateConstraint, ...],
) -> EditPosition | str:
    """The proposed candidates the SENSE and CONTEXT rules accept (each in its own sense), ranked by the
    soft rules, as an edit position; or the reason of the rule that rejected the first-ranked candidate."""
    if plan.sense or plan.context:
        sense_rule: dict[str, CandidateConstraint | None] = {}  # candidates of one sense share its verdict
        reasons = []
        for c in proposed:
            if c.synset not in sense_rule:
                sense_rule[c.synset] = first_rejection(plan.sense, _sense_candidate(c))
            reasons.append(sense_rule[c.synset] or first_rejection(plan.context, c))
        accepted = [c for c, rule in zip(proposed, reasons) if rule is None]
        if not accepted:
            return reasons[0].reason  # type: ignore[union-attr]  # every candidate has a rule here
    else:
        accepted = proposed
    senses = accepted[0].senses
    # no rule looks at the place when it is None: nothing to rank by but the transformation's order
    ranked = _rank(plan, word.position, accepted) if word.position is not None else _unranked(accepted)
    best = max(c.confidence or 0.0 for c in accepted)
    replacements = _replacements(edit_rules, ranked, senses)
    first = ranked[0][0]
    return EditPosition(
        index,
        token.start,
        token.end,
        token.text,
        word.tag,
        word.lemma,
        word.pos,
        first.synset,
        best,
        replacements,
        senses,
    )


def _sense_candidate(candidate: Candidate) -> Candidate:
    """What a SENSE-stage rule sees of a word: the candidate without its synonym."""
    return candidate._replace(name="", form="", inflected=False, confidence=None)


def _rank(
    plan: ConstraintPlan, where: Position, candidates: list[Candidate]
) -> list[tuple[Candidate, float, tuple[str, ...]]]:
    """The candidates with their soft-rule penalties (the word's, their sense's and their own), lowest
    penalty first, then in their given order (cntlist rank). Candidates of one sense share its penalty."""
    if not plan.soft:
        return _unranked(candidates)
    word_penalty, word_names = penalty(plan.soft_position, where)
    by_sense: dict[str, tuple[float, tuple[str, ...]]] = {}
    scored = []
    for k, c in enumerate(candidates):
        if c.synset not in by_sense:
            by_sense[c.synset] = penalty(plan.soft_sense, _sense_candidate(c))
        sense_penalty, sense_names_ = by_sense[c.synset]
        own, names = penalty(plan.soft_context, c)
        scored.append((word_penalty + sense_penalty + own, k, c, word_names + sense_names_ + names))
    scored.sort(key=lambda row: (row[0], row[1]))
    return [(c, total, names) for total, _, c, names in scored]


def _unranked(candidates: list[Candidate]) -> list[tuple[Candidate, float, tuple[str, ...]]]:
    """The candidates as `_rank` gives them when no soft rule applies: no penalty, order kept."""
    return [(c, 0.0, ()) for c in candidates]


def _replacements(
    edit_rules: tuple[CandidateConstraint, ...],
    ranked: list[tuple[Candidate, float, tuple[str, ...]]],
    senses: tuple[tuple[str, float], ...],
) -> tuple[Replacement, ...]:
    """Replacement records, each with the EDIT-stage rule that blocks it at its place (if any)."""
    out = []
    for c, total, names in ranked:
        blocked = None
        if edit_rules:
            rule = first_rejection(edit_rules, c if c.senses is senses else c._replace(senses=senses))
            blocked = rule.reason if rule is not None else None
        out.append(Replacement(c.name, c.form, c.inflected, c.confidence, total, names, blocked))  # type: ignore[arg-type]
    return tuple(out)


def _spend_budget(
    options: list[EditPosition], n_words: int, budget: Budget, rng: random.Random, variant: int
) -> list[EditPosition]:
    """Keep the forced (consistency) edits, then the best words up to the budget: lowest soft-rule
    penalty first, then the most confident.

    The budget counts distinct words (lemma and POS): every occurrence of a chosen word changes.
    Variant 0 takes the best words (ties broken by the generator); other variants sample words without
    replacement with probability growing with confidence (Efraimidis-Spirakis keys), lowest penalty first.
    """
    limit = min(budget.max_substitutions, max(budget.min_substitutions, math.floor(budget.rate * n_words + 1e-9)))
    forced_groups = {o.group for o in options if o.forced}
    confidence: dict[tuple[str, str], float] = {}
    penalties: dict[tuple[str, str], float] = {}
    for o in options:
        if o.group not in forced_groups:
            confidence[o.group] = max(confidence.get(o.group, 0.0), o.confidence)
            penalties[o.group] = min(penalties.get(o.group, math.inf), o.penalty)
    groups = sorted(confidence)  # a fixed order before drawing, so draws do not depend on dict order
    if variant == 0:
        keyed = [((penalties[g], -confidence[g], rng.random()), g) for g in groups]
    else:
        keyed = [((penalties[g], -(rng.random() ** (1.0 / max(confidence[g], 1e-6))), 0.0), g) for g in groups]
    keyed.sort(key=lambda x: x[0])
    room = max(0, limit - len(forced_groups))
    keep = forced_groups | {g for _, g in keyed[:room]}
    return [o for o in options if o.group in keep]


@dataclass(frozen=True)
class _Edit:
    start: int
    end: int
    replacement: str
    word_start: int
    tag: str
    synset: str
    confidence: float


def _pick_replacements(
    chosen: list[EditPosition], variant: int, seed: int, key: str, skipped: Counter[str]
) -> list[tuple[EditPosition, Replacement]]:
    """Each chosen word's replacement: the first (variant 0; another variant starts at a drawn rank) that
    can be written there, the same synonym for every occurrence of a word. A word left with none is
    counted under the reason that blocked its first-ranked replacement."""
    picks: list[tuple[EditPosition, Replacement]] = []
    pick: random.Random | None = None
    group_choice: dict[tuple[str, str], str] = {}  # the synonym (lemma name) each word got
    for opt in sorted(chosen, key=lambda o: o.index):
        order = list(opt.replacements)
        if opt.group in group_choice:
            order = [r for r in order if r.name == group_choice[opt.group]]
        elif variant and len(order) > 1:
            if pick is None:
                pick = rng_for(seed, key + "#synonym", variant)
            first = pick.randrange(len(order))
            order = order[first:] + order[:first]
        first_reason = "consistency"  # when no replacement is left to try
        for rank, replacement in enumerate(order):
            if replacement.blocked is not None:
                if rank == 0:
                    first_reason = replacement.blocked
                continue
            picks.append((opt, replacement))
            group_choice.setdefault(opt.group, replacement.name)
            break
        else:
            skipped[first_reason] += 1
    return picks


def _edit_for(text: str, tokens: tuple[Token, ...], position: EditPosition, replacement: Replacement) -> _Edit:
    """The edit that writes `replacement` over the word (case kept), re-agreeing a preceding a/an and a
    following possessive with it."""
    tok = tokens[position.index]
    start, end, new_text = written_span(text, tokens, position.index, replacement.form)
    return _Edit(start, end, new_text, tok.start, tok.tag, position.synset, replacement.confidence)


def _render(text: str, edits: list[_Edit]) -> tuple[str, tuple[Substitution, ...]]:
    """Apply non-overlapping edits left to right, recording offsets in both strings."""
    parts: list[str] = []
    records: list[Substitution] = []
    cursor = 0
    shift = 0
    for e in sorted(edits, key=lambda x: x.start):
        parts.append(text[cursor : e.start])
        parts.append(e.replacement)
        new_start = e.start + shift
        records.append(
            Substitution(
                start=e.start,
                end=e.end,
                new_start=new_start,
                new_end=new_start + len(e.replacement),
                original=text[e.start : e.end],
                replacement=e.replacement,
                pos=e.tag,
                synset=e.synset,
                confidence=e.confidence,
            )
        )
        shift += len(e.replacement) - (e.end - e.start)
        cursor = e.end
    parts.append(text[cursor:])
    return "".join(parts), tuple(records)
