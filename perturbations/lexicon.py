"""WordNet and stopwords through NLTK: loaded lazily, never downloaded, looked up through caches.

Uncached WordNet look-ups for every token cost more than POS tagging, so every look-up the engine
repeats (lemmas of a word, senses of a lemma, sense counts, synset lemmas) goes through a cache here.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from perturbations.errors import MissingResourceError

WORDNET_INSTALL = "python -m nltk.downloader wordnet"
STOPWORDS_INSTALL = "python -m nltk.downloader stopwords"

PENN_TO_WN: dict[str, str] = {"N": "n", "V": "v", "J": "a", "R": "r"}
WN_TO_UPOS: dict[str, str] = {"n": "NOUN", "v": "VERB", "a": "ADJ", "r": "ADV"}


def wn_pos(penn_tag: str) -> str | None:
    """WordNet part of speech ("n", "v", "a", "r") of a Penn tag, or None for other tags."""
    return PENN_TO_WN.get(penn_tag[:1]) if penn_tag else None


@lru_cache(maxsize=1)
def wordnet() -> Any:
    """The NLTK WordNet reader, loaded on first use; MissingResourceError when not installed."""
    try:
        from nltk.corpus import wordnet as wn

        wn.ensure_loaded()
        return wn
    except (LookupError, OSError) as exc:
        raise MissingResourceError("wordnet", WORDNET_INSTALL) from exc


def wordnet_version() -> str:
    """Version of the installed WordNet database, e.g. "3.0"."""
    return str(wordnet().get_version())


@lru_cache(maxsize=1)
def stopwords() -> frozenset[str]:
    """NLTK's English stopword list."""
    try:
        from nltk.corpus import stopwords as sw

        return frozenset(sw.words("english"))
    except (LookupError, OSError) as exc:
        raise MissingResourceError("stopwords", STOPWORDS_INSTALL) from exc


def check_resources() -> None:
    """Raise MissingResourceError naming the first NLTK resource that is not installed."""
    from perturbations.text import _tagger

    wordnet()
    stopwords()
    _tagger()


@lru_cache(maxsize=200_000)
def lemma_of(word: str, pos: str) -> str | None:
    """WordNet lemma of a lower-cased word form for a WordNet POS, or None if WordNet lacks it.

    lemminflect's lemmatizer, which knows irregular forms ("found"/VBD -> "find"), is tried first
    and kept only when WordNet has that lemma; WordNet's morphy is the fallback.
    """
    from lemminflect import getLemma

    wn = wordnet()
    upos = WN_TO_UPOS[pos]
    for lemma in getLemma(word, upos, lemmatize_oov=False):
        if wn.lemmas(lemma, pos):
            return str(lemma)
    if wn.lemmas(word, pos):
        return word
    found = wn.morphy(word, pos)
    return str(found) if found else None


@lru_cache(maxsize=200_000)
def senses(lemma: str, pos: str) -> tuple[tuple[Any, int], ...]:
    """(synset, cntlist count of this lemma in it) for each sense of `lemma`, in WordNet order."""
    out = []
    for lem in wordnet().lemmas(lemma, pos):
        if lem.name().lower() == lemma:
            out.append((lem.synset(), int(lem.count())))
    return tuple(out)


@lru_cache(maxsize=200_000)
def synset_lemmas(synset_name: str) -> tuple[tuple[str, int], ...]:
    """(lemma name, cntlist count) of a synset, ranked by count, ties by name."""
    syn = wordnet().synset(synset_name)
    ranked = sorted(((lem.name(), int(lem.count())) for lem in syn.lemmas()), key=lambda x: (-x[1], x[0]))
    return tuple(ranked)


def synset(name: str) -> Any:
    """A synset by name ("situate.v.01")."""
    return wordnet().synset(name)
