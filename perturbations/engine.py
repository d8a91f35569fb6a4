"""The substitution pass: tag, filter positions, disambiguate, propose candidates, spend the budget,
apply the edits and record them with offsets in both strings.

Pure given its arguments: the only randomness (tie-breaks, and word/synonym choice for variants > 0)
comes from a generator derived from (seed, key, variant), so a text's result never depends on which
other texts were perturbed before it.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from perturbations.constraints import acceptable_form, acceptable_lemma, position_reason
from perturbations.inflect import agree_article, forms, inflect, match_case
from perturbations.lexicon import lemma_of, sense_names, synset_lemmas, wn_pos
from perturbations.records import Perturbation, Substitution, Token
from perturbations.store import persistent
from perturbations.text import is_word, tag
from perturbations.wsd import bag, context_bag, posterior_names

if TYPE_CHECKING:
    from perturbations.recipes import Budget, Recipe


def rng_for(seed: int, key: str, variant: int = 0) -> random.Random:
    """A generator private to one (seed, key, variant): no global random state."""
    return random.Random(hashlib.sha256(f"{seed}:{key}:{variant}".encode()).digest())


@persistent("lemma_forms")
def lemma_forms(lemma: str) -> frozenset[str]:
    """Every inflected form lemminflect knows for a one-word lemma (and the lemma)."""
    from lemminflect import getAllInflections

    out = {lemma}
    for group in getAllInflections(lemma).values():
        out.update(g.lower() for g in group)
    return frozenset(out)


@persistent("candidate_forms")
def _candidate_forms(synset_name: str, tag_: str, word_low: str, lemma: str) -> tuple[tuple[str, str], ...]:
    """(lemma name, inflected form) of the acceptable synonyms in one synset, ranked by cntlist count
    then name; forms lower-case, words separated by spaces."""
    own_forms = lemma_forms(lemma)
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    for name, _count in synset_lemmas(synset_name):
        if not acceptable_lemma(name, word_low, lemma):
            continue
        form = inflect(name, tag_)
        if form is None or form in seen or not acceptable_form(form, word_low, lemma, own_forms):
            continue
        seen.add(form)
        out.append((name, form))
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


@dataclass(frozen=True)
class _Option:
    """A word that may change: its sense, confidence and ranked replacements."""

    index: int
    lemma: str
    pos: str
    synset: str
    confidence: float
    replacements: tuple[tuple[str, str, float], ...]  # (lemma name, form, confidence), ranked by cntlist
    forced: bool = False

    @property
    def group(self) -> tuple[str, str]:
        """Occurrences of the same lemma and POS in one text change together, to the same synonym."""
        return (self.lemma, self.pos)


_POSSESSIVES = ("'s", "’s")


def _strip_article(phrase: str) -> str:
    """The word of a substitution whose record also covers a re-agreed "a"/"an" before it, or a
    possessive after it ("men's" -> "adult males'")."""
    head, _, rest = phrase.partition(" ")
    word = rest.lstrip() if rest and head.lower() in ("a", "an") else phrase
    for ending in _POSSESSIVES + ("'", "’"):
        if word.endswith(ending) and len(word) > len(ending):
            return word[: -len(ending)]
    return word


@persistent("plural_noun")
def _plural_noun(word: str) -> bool:
    """Whether a lower-case noun is a plural form ("authorities", a lemma of government.n.01), not a
    singular that ends in s ("boss")."""
    from lemminflect import getLemma

    lemmas = getLemma(word, "NOUN", lemmatize_oov=False)
    return bool(lemmas) and lemmas[0] != word


def _possessive(tokens: Sequence[Token], index: int, new_word: str) -> Token | None:
    """The "'s" after a noun whose replacement is a plural ending in "s": it must become "'" ("men's"
    -> "adult males'", never "adult males's"; "government's" -> "authorities'")."""
    tok = tokens[index]
    low = new_word.lower()
    if index + 1 >= len(tokens) or not tok.tag.startswith("NN") or not low.endswith("s"):
        return None
    nxt = tokens[index + 1]
    if nxt.text.lower() not in _POSSESSIVES or nxt.start != tok.end:
        return None
    return nxt if tok.tag in ("NNS", "NNPS") or _plural_noun(low.rsplit(" ", 1)[-1]) else None


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
    recipe: "Recipe",
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
        return Perturbation(original=text, text=text, recipe=ident)
    tf, cons, budget = recipe.transformation, recipe.constraints, recipe.budget
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
        reason = position_reason(tokens, i, cons.protected_words, frozen)
        if reason is not None:
            skipped[reason] += 1
            continue
        pos = wn_pos(tok.tag)
        if pos is None or pos not in tf.pos:
            skipped["pos"] += 1
            continue
        low = tok.text.lower()
        lemma = lemma_of(low, pos)
        if lemma is None:
            skipped["no-sense"] += 1
            continue
        if low not in forms(lemma, tok.tag) and "_" not in lemma:
            skipped["inflection"] += 1  # the tag does not fit the word: the re-inflection would be a guess
            continue
        if (lemma, pos) in edited:
            name, syn_name, conf = edited[(lemma, pos)]
            form = inflect(name, tok.tag)
            if form is not None and acceptable_form(form, low, lemma, lemma_forms(lemma)):
                options.append(_Option(i, lemma, pos, syn_name, conf, ((name, form, conf),), forced=True))
            else:
                skipped["consistency"] += 1
            continue
        if (lemma, pos) in kept:
            skipped["consistency"] += 1
            continue
        word_senses = sense_names(lemma, pos)
        if not word_senses:
            skipped["no-sense"] += 1
            continue
        if not any(_candidate_forms(name, tok.tag, low, lemma) for name, _ in word_senses):
            skipped["no-candidate"] += 1  # no sense has a synonym: no need to disambiguate
            continue
        dist = posterior_names(tf.wsd, lemma, pos, context)
        syn = dist[0][0] if tf.wsd == "first-sense" else max(enumerate(dist), key=lambda kv: (kv[1][1], -kv[0]))[1][0]
        cands = _candidate_forms(syn, tok.tag, low, lemma)
        if not cands:
            skipped["no-candidate"] += 1
            continue
        scored = [(name, form, _synonym_mass(form, tok.tag, dist)) for name, form in cands]
        sure = tuple(c for c in scored if c[2] >= tf.threshold)
        if not sure:
            skipped["low-confidence"] += 1
            continue
        options.append(_Option(i, lemma, pos, syn, max(c[2] for c in sure), sure))

    # generators are made only when drawn from: seeding one costs more than most words' look-ups
    chosen = _spend_budget(options, n_words, budget, rng_for(seed, key, variant), variant) if options else []
    skipped["budget"] += len(options) - len(chosen)
    subs = _apply(text, tokens, chosen, frozen, variant, seed, key, skipped)
    if len(subs) < budget.min_substitutions:
        skipped["budget"] += len(subs)
        subs = []
    new_text, records = _render(text, subs)
    return Perturbation(
        original=text,
        text=new_text,
        substitutions=records,
        skipped=tuple(sorted((k, v) for k, v in skipped.items() if v)),
        recipe=ident,
    )


def _spend_budget(options: list[_Option], n_words: int, budget: "Budget", rng: random.Random, variant: int) -> list[_Option]:
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
    tokens: Sequence[Token],
    chosen: list[_Option],
    frozen: tuple[tuple[int, int], ...],
    variant: int,
    seed: int,
    key: str,
    skipped: Counter[str],
) -> list[_Edit]:
    """Choose each word's replacement (case kept) and fix a preceding a/an when it must change."""
    from perturbations.constraints import overlaps

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
        prev = tokens[opt.index - 1] if opt.index > 0 else None
        article = prev if prev is not None and prev.text.lower() in ("a", "an") else None
        for name, form, conf in order:
            new_word = match_case(tok.text, form)
            start, end, replacement = tok.start, tok.end, new_word
            clitic = _possessive(tokens, opt.index, new_word)
            if clitic is not None:
                if overlaps(clitic.start, clitic.end, frozen):
                    continue
                end, replacement = clitic.end, new_word + clitic.text[0]
            if article is not None:
                new_article = agree_article(article.text, new_word)
                if new_article != article.text:
                    if overlaps(article.start, article.end, frozen):
                        continue
                    start, replacement = article.start, new_article + text[article.end : tok.start] + replacement
            edits.append(_Edit(start, end, replacement, tok.start, tok.tag, opt.synset, conf))
            group_choice.setdefault(opt.group, name)
            break
        else:
            skipped["frozen" if order else "consistency"] += 1
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

