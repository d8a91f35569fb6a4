"""Word-sense disambiguation: most frequent sense, simplified Lesk, enhanced Lesk.

Each method (one entry of `METHODS`) is a pure function of (lemma, WordNet POS, context words) giving every
sense a probability, and a rule to pick one sense; the caller leaves a word alone when the probability
that a synonym fits is below its threshold. All three share one scoring frame, so their probabilities are
comparable:

    p(sense) ∝ prior(sense) · exp(beta · overlap(sense, context))

- first sense: the first WordNet sense (WordNet orders senses by tagged frequency); its confidence
  is its smoothed cntlist share, i.e. how much that sense dominates the word's tagged uses.
- simplified Lesk (Kilgarriff & Rosenzweig 2000): overlap of the context with the sense's gloss and
  examples, uniform prior.
- enhanced Lesk (Banerjee & Pedersen 2002, as QADS uses it): the signature adds the sense's lemmas and
  the glosses, examples and lemmas of its hypernyms and hyponyms; the overlap is combined with the
  cntlist prior, so that a sense is chosen over the dominant one only when the context supports it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from perturbations import store
from perturbations.lexicon import raw_synset, sense_names, stopwords, synset, wordnet
from perturbations.text import tokenize

# Smoothing of the cntlist prior and weight of one overlapping word (tuned on SemEval-2007: benchmarks/wsd_eval.py).
PRIOR_SMOOTHING = 0.3
OVERLAP_WEIGHT = 0.5
RELATED_WEIGHT = 0.5

_NORM: dict[str, str | None] = store.tables().setdefault("normalise", {})  # persisted, keyed by the word
_UNSEEN = "\0unseen"


def normalise(word: str) -> str | None:
    """Content-word key used for overlaps: lower-cased, lemmatized; None for stopwords/punctuation."""
    try:
        return _NORM[word]
    except KeyError:
        pass
    store.load()
    if word in _NORM:
        return _NORM[word]
    low = word.lower()
    key: str | None
    if not low.isalpha() or low in stopwords() or len(low) < 2:
        key = None
    else:
        # WordNet's morphy rules, preferring a base form over the word itself ("banks" -> "bank",
        # although "Banks" is also a lemma): cheap, and enough for overlap counting.
        key = low
        wn = wordnet()
        for pos in ("n", "v", "a", "r"):
            found = wn._morphy(low, pos)
            if found:
                key = found[-1]
                break
    _NORM[word] = key
    return key


def bag(words: Iterable[str]) -> frozenset[str]:
    """Normalised content words of a word sequence."""
    out = set()
    known = _NORM.get
    for w in words:
        k = known(w, _UNSEEN)
        if k is _UNSEEN:
            k = normalise(w)
        if k:
            out.add(k)
    return frozenset(out)


@lru_cache(maxsize=50_000)
def context_bag(text: str) -> frozenset[str]:
    """Normalised content words of a text (cached: a paragraph serves many questions)."""
    return bag(w for w, _, _ in tokenize(text))


_WORD_RE = re.compile(r"[A-Za-z]+")


def _gloss_words(pos: str, offset: int) -> list[str]:
    """Words of a synset's gloss and examples (only letters matter for overlaps)."""
    return _WORD_RE.findall(raw_synset(pos, offset)[1])


@lru_cache(maxsize=100_000)
def simple_signature(synset_name: str) -> frozenset[str]:
    """Gloss and example words of a sense."""
    syn = wordnet().synset(synset_name)
    return bag(_gloss_words(syn.pos(), syn.offset()))


@lru_cache(maxsize=300_000)
def _synset_bag(pos: str, offset: int) -> frozenset[str]:
    """Normalised words of one synset's gloss, examples and lemmas (shared by every sense that has
    it as hypernym or hyponym, so computed once)."""
    words, _, _ = raw_synset(pos, offset)
    found = _gloss_words(pos, offset)
    for lem in words:
        found.extend(_WORD_RE.findall(lem))
    return bag(found)


@lru_cache(maxsize=100_000)
def enhanced_signature(synset_name: str) -> tuple[frozenset[str], frozenset[str]]:
    """(own words, related words): gloss, examples, lemmas; and those of hypernyms and hyponyms."""
    syn = wordnet().synset(synset_name)
    pos, offset = syn.pos(), syn.offset()
    own = _synset_bag(pos, offset)
    related: set[str] = set()
    for rel_pos, rel_offset in raw_synset(pos, offset)[2]:
        related |= _synset_bag(rel_pos, rel_offset)
    return own, frozenset(related - own)


def _priors(counts: list[int], smoothing: float) -> list[float]:
    total = sum(counts) + smoothing * len(counts)
    return [(c + smoothing) / total for c in counts]


def _posterior(scores: list[float]) -> list[float]:
    top = max(scores)
    exps = [math.exp(s - top) for s in scores]
    z = sum(exps)
    return [e / z for e in exps]


def _first_sense_names(lemma: str, pos: str, context: frozenset[str]) -> list[tuple[str, float]]:
    """Each sense with its smoothed cntlist share (the context is ignored)."""
    cands = sense_names(lemma, pos)
    if not cands:
        return []
    priors = _priors([c for _, c in cands], PRIOR_SMOOTHING)
    return [(name, p) for (name, _), p in zip(cands, priors)]


def _lesk_names(lemma: str, pos: str, context: frozenset[str]) -> list[tuple[str, float]]:
    """Simplified Lesk: gloss/example overlap with the context, uniform prior."""
    cands = sense_names(lemma, pos)
    if not cands:
        return []
    ctx = context - {lemma}
    overlaps = [len(ctx & simple_signature(name)) for name, _ in cands]
    post = _posterior([OVERLAP_WEIGHT * o for o in overlaps])
    return [(name, p) for (name, _), p in zip(cands, post)]


@store.persistent("enhanced_table")
def _enhanced_table(lemma: str, pos: str) -> tuple[tuple[str, float, frozenset[str], frozenset[str]], ...]:
    """Per sense of a lemma: (synset name, log prior, own words, related words), built once per lemma
    and persisted (deriving the signatures from the data files is most of a cold build's work)."""
    cands = sense_names(lemma, pos)
    priors = _priors([c for _, c in cands], PRIOR_SMOOTHING)
    return tuple((name, math.log(p), *enhanced_signature(name)) for (name, _), p in zip(cands, priors))


def _enhanced_lesk_names(lemma: str, pos: str, context: frozenset[str]) -> list[tuple[str, float]]:
    """Enhanced Lesk with the cntlist prior (see the module docstring); needs no WordNet reader when the
    tables are cached."""
    table = _enhanced_table(lemma, pos)
    if not table:
        return []
    self_in_context = lemma in context  # the word itself is no evidence for any of its senses
    scores = []
    for _, log_prior, own, related in table:
        own_hits = len(context & own) - (self_in_context and lemma in own)
        related_hits = len(context & related) - (self_in_context and lemma in related)
        scores.append(log_prior + OVERLAP_WEIGHT * (own_hits + RELATED_WEIGHT * related_hits))
    post = _posterior(scores)
    return [(row[0], p) for row, p in zip(table, post)]


def _first(dist: Sequence[tuple[str, float]]) -> tuple[str, float]:
    return dist[0]


def _most_probable(dist: Sequence[tuple[str, float]]) -> tuple[str, float]:
    """The most probable sense; ties go to the earlier (more frequent) WordNet sense."""
    best = max(range(len(dist)), key=lambda i: (dist[i][1], -i))
    return dist[best]


@dataclass(frozen=True)
class Method:
    """A WSD method: the probability of every sense of a word in a context, and which sense it picks."""

    name: str
    posterior: Callable[[str, str, frozenset[str]], list[tuple[str, float]]]
    pick: Callable[[Sequence[tuple[str, float]]], tuple[str, float]]


METHODS: dict[str, Method] = {
    m.name: m
    for m in (
        Method("first-sense", _first_sense_names, _first),  # WordNet's first sense, whatever its share
        Method("lesk", _lesk_names, _most_probable),
        Method("enhanced-lesk", _enhanced_lesk_names, _most_probable),
    )
}


def posterior_names(method: str, lemma: str, pos: str, context: frozenset[str]) -> list[tuple[str, float]]:
    """Every sense of `lemma` (synset name) with the named method's probability, in WordNet order."""
    return METHODS[method].posterior(lemma, pos, context)


def choose(method: str, dist: Sequence[tuple[str, float]]) -> tuple[str, float]:
    """The sense the named method picks from its (non-empty) distribution."""
    return METHODS[method].pick(dist)


def posterior(method: str, lemma: str, pos: str, context: frozenset[str]) -> list[tuple[Any, float]]:
    """`posterior_names` with NLTK synsets."""
    return [(synset(name), p) for name, p in posterior_names(method, lemma, pos, context)]


def disambiguate(method: str, lemma: str, pos: str, context: frozenset[str] = frozenset()) -> tuple[Any, float] | None:
    """The sense the named method picks (an NLTK synset) and its probability; None when WordNet has no
    sense of `lemma` with that POS."""
    dist = posterior_names(method, lemma, pos, context)
    if not dist:
        return None
    name, p = choose(method, dist)
    return synset(name), p
