"""The substitution pass: tag, ask the recipe's constraints, disambiguate, propose candidates, spend the
budget, apply the edits and record them with offsets in both strings.

Pure given its arguments: the only randomness (tie-breaks, and word/synonym choice for variants > 0)
comes from a generator derived from (seed, key, variant), so a text's result never depends on which
other texts were perturbed before it.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from perturbations.constraints import (
    Candidate,
    CandidateConstraint,
    Position,
    Stage,
    first_rejection,
    plan_for,
)
from perturbations.inflect import (
    POSSESSIVES,
    agree_article,
    article_before,
    inflect,
    match_case,
    possessive_clitic,
)
from perturbations.lexicon import lemma_of, sense_names, synset_lemmas, wn_pos
from perturbations.records import Perturbation, Substitution, Token
from perturbations.store import persistent
from perturbations.text import is_word, tag
from perturbations.wsd import bag, choose, context_bag, posterior_names

if TYPE_CHECKING:
    from perturbations.recipes import Budget, Recipe


def rng_for(seed: int, key: str, variant: int = 0) -> random.Random:
    """A generator private to one (seed, key, variant): no global random state."""
    return random.Random(hashlib.sha256(f"{seed}:{key}:{variant}".encode()).digest())


def _synonym(
    word_low: str,
    tag_: str,
    lemma: str,
    pos: str,
    synset_name: str,
    name: str,
    position: Position | None = None,
    confidence: float | None = None,
) -> Candidate:
    """The candidate `name` for a word: inflected for the word's tag when lemminflect knows the form, else
    its words as they are (and `inflected` says which)."""
    form = inflect(name, tag_)
    written = form if form is not None else name.replace("_", " ")
    return Candidate(word_low, tag_, lemma, pos, synset_name, name, written, form is not None, position, (), confidence)


@persistent("candidate_forms")
def _candidate_forms(
    lexical_key: str, synset_name: str, tag_: str, word_low: str, lemma: str
) -> tuple[tuple[str, str, bool], ...]:
    """(lemma name, form, inflected) of the synonyms in one synset that the LEMMA and FORM constraints
    keyed by `lexical_key` accept, ranked by cntlist count then name, one per form; forms lower-case,
    words separated by spaces."""
    plan = plan_for(lexical_key)  # keyed by a string, so the table persists without pickling constraints
    pos = wn_pos(tag_) or ""
    out: list[tuple[str, str, bool]] = []
    seen: set[str] = set()
    for name, _count in synset_lemmas(synset_name):
        bare = Candidate(word_low, tag_, lemma, pos, synset_name, name, "", False)  # not inflected yet
        if first_rejection(plan.lemma, bare):
            continue
        candidate = _synonym(word_low, tag_, lemma, pos, synset_name, name)
        if candidate.form in seen or first_rejection(plan.form, candidate):
            continue
        seen.add(candidate.form)
        out.append((name, candidate.form, candidate.inflected))
    return tuple(out)


@persistent("synset_forms")
def _synset_forms(synset_name: str, tag_: str) -> frozenset[str]:
    """Every lemma of a synset inflected for one tag."""
    return frozenset(f for f in (inflect(name, tag_) for name, _ in synset_lemmas(synset_name)) if f)


def _synonym_mass(form: str, tag_: str, dist: list[tuple[str, float]]) -> float:
    """Probability that `form` is a synonym of the word in context: the posterior mass of every
    sense of the word that has `form` among its (inflected) lemmas."""
    total = 0.0
    for name, p in dist:
        if form in _synset_forms(name, tag_):
            total += p
    return min(1.0, total)


Replacement = tuple[str, str, bool, float]  # (lemma name, form, inflected, confidence)


@dataclass(frozen=True)
class _Option:
    """A word that may change: its sense, confidence and ranked replacements."""

    index: int
    lemma: str
    pos: str
    synset: str
    confidence: float
    replacements: tuple[Replacement, ...]  # ranked by cntlist
    senses: tuple[tuple[str, float], ...] = ()  # the WSD distribution; empty for a carried-over synonym
    forced: bool = False

    @property
    def group(self) -> tuple[str, str]:
        """Occurrences of the same lemma and POS in one text change together, to the same synonym."""
        return (self.lemma, self.pos)


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
    earlier: Sequence[Perturbation],
) -> tuple[dict[tuple[str, str], tuple[str, str, float]], set[tuple[str, str]]]:
    """From earlier perturbations: (lemma, pos) -> (replacement lemma, synset, confidence) of edited
    words, and the (lemma, pos) of words those texts kept unchanged."""
    edited: dict[tuple[str, str], tuple[str, str, float]] = {}
    for pert in earlier:
        for sub in pert.substitutions:
            pos = wn_pos(sub.pos)
            word = _strip_article(sub.original).lower()
            lemma = lemma_of(word, pos) if pos else None
            if pos is None or lemma is None:
                continue
            new_word = _strip_article(sub.replacement).lower()
            for name, _ in synset_lemmas(sub.synset):
                if inflect(name, sub.pos) == new_word:
                    edited.setdefault((lemma, pos), (name, sub.synset, sub.confidence))
                    break
    kept: set[tuple[str, str]] = set()
    for pert in earlier:
        spans = [(s.start, s.end) for s in pert.substitutions]
        for tok in tag(pert.original):
            pos = wn_pos(tok.tag)
            if pos is None or any(s <= tok.start < e for s, e in spans):
                continue
            lemma = lemma_of(tok.text.lower(), pos)
            if lemma is not None and (lemma, pos) not in edited:
                kept.add((lemma, pos))
    return edited, kept


def perturb_text(
    recipe: Recipe,
    text: str,
    *,
    seed: int,
    key: str,
    frozen_spans: Sequence[tuple[int, int]] = (),
    wsd_context: str | None = None,
    consistent_with: Sequence[Perturbation] = (),
    variant: int = 0,
) -> Perturbation:
    """Apply `recipe` to `text`; see Recipe.perturb for the contract."""
    ident = recipe.ident
    tokens = tag(text)
    if not tokens:
        return Perturbation(original=text, perturbed=text, recipe=ident)
    tf, plan, budget = recipe.transformation, recipe.plan, recipe.budget
    plan.register()
    skipped: Counter[str] = Counter()
    frozen = tuple(frozen_spans)
    context = bag(t.text for t in tokens)  # the question's words are already tokenized
    if wsd_context and tf.use_context:
        context = context | context_bag(wsd_context)
    edited, kept = _consistency_maps(consistent_with) if consistent_with else ({}, set())

    options: list[_Option] = []
    n_words = 0
    for i, tok in enumerate(tokens):
        if not is_word(tok.text):
            continue
        n_words += 1
        reason = plan.rejection(tokens, i, frozen)
        if reason is None:
            found = _option(recipe, tokens, i, frozen, context, edited, kept)
            if not isinstance(found, str):
                options.append(found)
                continue
            reason = found
        skipped[reason] += 1

    # generators are made only when drawn from: most texts never need one
    chosen = _spend_budget(options, n_words, budget, rng_for(seed, key, variant), variant) if options else []
    skipped["budget"] += len(options) - len(chosen)
    subs = _apply(text, tokens, chosen, frozen, plan.edit_constraints(frozen), variant, seed, key, skipped)
    if len(subs) < budget.min_substitutions:
        skipped["budget"] += len(subs)
        subs = []
    new_text, records = _render(text, subs)
    return Perturbation(
        original=text,
        perturbed=new_text,
        substitutions=records,
        skipped=tuple(sorted((k, v) for k, v in skipped.items() if v)),
        recipe=ident,
    )


def _option(
    recipe: Recipe,
    tokens: tuple[Token, ...],
    index: int,
    frozen: tuple[tuple[int, int], ...],
    context: frozenset[str],
    edited: dict[tuple[str, str], tuple[str, str, float]],
    kept: set[tuple[str, str]],
) -> _Option | str:
    """The word at `index` as an option for the budget, or the reason it stays as it is.

    Its position constraints have accepted it; the transformation now needs its lemma, a sense chosen by
    WSD, and synonyms of that sense that the candidate constraints accept with enough confidence."""
    tf, plan = recipe.transformation, recipe.plan
    token = tokens[index]
    low, tag_ = token.text.lower(), token.tag
    pos = wn_pos(tag_)
    lemma = lemma_of(low, pos) if pos is not None else None
    if pos is None or lemma is None:
        return "no-sense"
    if (lemma, pos) in edited:
        name, syn_name, conf = edited[(lemma, pos)]
        carried = _synonym(low, tag_, lemma, pos, syn_name, name, Position(tokens, index, frozen), conf)
        rule = first_rejection(plan.form, carried) or first_rejection(plan.context, carried)
        if rule is not None:
            return "consistency" if rule.stage is Stage.FORM else rule.reason
        replacement = (name, carried.form, carried.inflected, conf)
        return _Option(index, lemma, pos, syn_name, conf, (replacement,), forced=True)
    if (lemma, pos) in kept:
        return "consistency"
    word_senses = sense_names(lemma, pos)
    if not word_senses:
        return "no-sense"
    key = plan.lexical_key
    if not any(_candidate_forms(key, name, tag_, low, lemma) for name, _ in word_senses):
        return "no-candidate"  # no sense has a synonym: no need to disambiguate
    dist = posterior_names(tf.wsd, lemma, pos, context)
    syn = choose(tf.wsd, dist)[0]
    cands = _candidate_forms(key, syn, tag_, low, lemma)
    if not cands:
        return "no-candidate"
    scored = [(name, form, inflected, _synonym_mass(form, tag_, dist)) for name, form, inflected in cands]
    sure = [c for c in scored if c[3] >= tf.threshold]
    if not sure:
        return "low-confidence"
    if plan.context:
        position = Position(tokens, index, frozen)
        judged = [(c, _judge(plan.context, position, lemma, pos, syn, c, dist)) for c in sure]
        sure = [c for c, rule in judged if rule is None]
        if not sure:
            return judged[0][1].reason  # type: ignore[union-attr]  # every candidate has a rule here
    return _Option(index, lemma, pos, syn, max(c[3] for c in sure), tuple(sure), tuple(dist))


def _judge(
    constraints: tuple[CandidateConstraint, ...],
    position: Position,
    lemma: str,
    pos: str,
    synset: str,
    replacement: Replacement,
    senses: Sequence[tuple[str, float]],
) -> CandidateConstraint | None:
    """The first of `constraints` (CONTEXT or EDIT stage) that rejects one replacement of the word at
    `position`, or None."""
    name, form, inflected, conf = replacement
    token = position.tokens[position.index]
    candidate = Candidate(
        token.text.lower(), token.tag, lemma, pos, synset, name, form, inflected, position, tuple(senses), conf
    )
    return first_rejection(constraints, candidate)


def _spend_budget(
    options: list[_Option], n_words: int, budget: Budget, rng: random.Random, variant: int
) -> list[_Option]:
    """Keep the forced (consistency) edits, then the most confident words up to the budget.

    The budget counts distinct words (lemma and POS): every occurrence of a chosen word changes.
    Variant 0 takes the most confident words (ties broken by the generator); other variants sample
    words without replacement with probability growing with confidence (Efraimidis-Spirakis keys).
    """
    limit = min(budget.max_substitutions, max(budget.min_substitutions, math.floor(budget.rate * n_words + 1e-9)))
    forced_groups = {o.group for o in options if o.forced}
    confidence: dict[tuple[str, str], float] = {}
    for o in options:
        if o.group not in forced_groups:
            confidence[o.group] = max(confidence.get(o.group, 0.0), o.confidence)
    groups = sorted(confidence)  # a fixed order before drawing, so draws do not depend on dict order
    if variant == 0:
        keyed = [((-confidence[g], rng.random()), g) for g in groups]
    else:
        keyed = [((-(rng.random() ** (1.0 / max(confidence[g], 1e-6))), 0.0), g) for g in groups]
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


def _apply(
    text: str,
    tokens: tuple[Token, ...],
    chosen: list[_Option],
    frozen: tuple[tuple[int, int], ...],
    edit_constraints: tuple[CandidateConstraint, ...],
    variant: int,
    seed: int,
    key: str,
    skipped: Counter[str],
) -> list[_Edit]:
    """Choose each word's replacement (case kept), the first its EDIT constraints accept, and re-agree a
    preceding a/an and a following possessive with it."""
    edits: list[_Edit] = []
    pick: random.Random | None = None
    group_choice: dict[tuple[str, str], str] = {}  # the synonym (lemma name) each word got
    for opt in sorted(chosen, key=lambda o: o.index):
        tok = tokens[opt.index]
        order = list(opt.replacements)
        if opt.group in group_choice:
            order = [r for r in order if r[0] == group_choice[opt.group]]
        elif variant and len(order) > 1:
            if pick is None:
                pick = rng_for(seed, key + "#synonym", variant)
            first = pick.randrange(len(order))
            order = order[first:] + order[:first]
        article = article_before(tokens, opt.index)
        position = Position(tokens, opt.index, frozen) if edit_constraints else None
        first_reason = "consistency"  # when no replacement is left to try
        for rank, replacement in enumerate(order):
            if position is not None:
                rule = _judge(edit_constraints, position, opt.lemma, opt.pos, opt.synset, replacement, opt.senses)
                if rule is not None:
                    if rank == 0:
                        first_reason = rule.reason
                    continue
            name, form, _inflected, conf = replacement
            new_word = match_case(tok.text, form)
            start, end, new_text = tok.start, tok.end, new_word
            clitic = possessive_clitic(tokens, opt.index, new_word)
            if clitic is not None:
                end, new_text = clitic.end, new_word + clitic.text[0]
            if article is not None:
                new_article = agree_article(article.text, new_word)
                if new_article != article.text:
                    start, new_text = article.start, new_article + text[article.end : tok.start] + new_text
            edits.append(_Edit(start, end, new_text, tok.start, tok.tag, opt.synset, conf))
            group_choice.setdefault(opt.group, name)
            break
        else:
            skipped[first_reason] += 1
    return edits


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

