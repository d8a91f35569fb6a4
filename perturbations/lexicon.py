"""WordNet and stopwords through NLTK: loaded lazily, never downloaded, looked up through caches.

NLTK answers each WordNet look-up by parsing its text files again, and the engine asks the same questions
for every occurrence of a word, so every look-up it repeats (lemmas of a word, senses of a lemma, sense
counts, synset lemmas) goes through a cache here.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from perturbations import resources, store
from perturbations.errors import MissingResourceError
from perturbations.store import persistent
from perturbations.text import load_tagger

WORDNET_INSTALL = resources.RESOURCES["wordnet"][2]
STOPWORDS_INSTALL = resources.RESOURCES["stopwords"][2]

PENN_TO_WN: dict[str, str] = {"N": "n", "V": "v", "J": "a", "R": "r"}
WN_TO_UPOS: dict[str, str] = {"n": "NOUN", "v": "VERB", "a": "ADJ", "r": "ADV"}


def wn_pos(penn_tag: str) -> str | None:
    """WordNet part of speech ("n", "v", "a", "r") of a Penn tag, or None for other tags."""
    return PENN_TO_WN.get(penn_tag[:1]) if penn_tag else None


@lru_cache(maxsize=1)
def wordnet() -> Any:
    """NLTK's WordNet reader, loaded on first use; MissingResourceError when not installed.

    NLTK's reader builds, at construction, a sense map from "WordNet" to the loaded version for
    multilingual (OMW) look-ups; with NLTK 3.9+ that map is rebuilt even when both are WordNet 3.0,
    reading index.sense twice. The engine uses English only, so its reader skips that map; everything
    else is NLTK's WordNetCorpusReader unchanged.
    """
    import warnings

    try:
        from nltk.corpus.reader.wordnet import WordNetCorpusReader

        class _EnglishWordNet(WordNetCorpusReader):  # type: ignore[misc]
            def map_wn(self, version: str = "wordnet") -> None:
                return None

        root = resources.find("wordnet")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "multilingual functions are not available": not used
            return _EnglishWordNet(root, None)
    except (LookupError, OSError) as exc:
        raise MissingResourceError("wordnet", WORDNET_INSTALL) from exc


@persistent("wordnet_version")
def wordnet_version() -> str:
    """Version of the installed WordNet database, e.g. "3.0" (persisted: reading it builds the reader)."""
    return str(wordnet().get_version())


@persistent("stopwords")
def stopwords() -> frozenset[str]:
    """NLTK's English stopword list (persisted, so a warm build never imports NLTK)."""
    try:
        from nltk.corpus import stopwords as sw

        return frozenset(sw.words("english"))
    except (LookupError, OSError) as exc:
        raise MissingResourceError("stopwords", STOPWORDS_INSTALL) from exc


@lru_cache(maxsize=1)
def _sense_counts() -> dict[str, int]:
    """cntlist.rev read once into a dict: NLTK's Lemma.count() binary-searches the file on every call,
    and every candidate synonym needs its count."""
    try:
        raw = wordnet().root.join("cntlist.rev").open().read()
    except (OSError, LookupError):
        return {}
    text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    counts: dict[str, int] = {}
    for line in text.splitlines():
        parts = line.split(" ")
        if len(parts) == 3:
            counts[parts[0]] = int(parts[2])
    return counts


def lemma_count(lemma: Any) -> int:
    """cntlist count of a WordNet Lemma (the same number as `Lemma.count()`)."""
    return _sense_counts().get(lemma.key(), 0)


def has_lemma(word: str, pos: str) -> bool:
    """Whether WordNet has `word` as a lemma with this POS (a dict look-up, no synset is read)."""
    entry = wordnet()._lemma_pos_offset_map.get(word)
    if not entry:
        return False
    return pos in entry or (pos == "a" and "s" in entry)


_DATA_FILES = {"n": "data.noun", "v": "data.verb", "a": "data.adj", "s": "data.adj", "r": "data.adv"}
_RELATED = frozenset({"@", "@i", "~", "~i"})  # hypernym, instance hypernym, hyponym, instance hyponym


@lru_cache(maxsize=4)
def _data_file(name: str) -> bytes:
    """A WordNet data file held in memory: lines are addressed by byte offset."""
    raw = wordnet().root.join(name).open().read()
    return raw if isinstance(raw, bytes) else raw.encode("utf-8")


@lru_cache(maxsize=300_000)
def raw_synset(pos: str, offset: int) -> tuple[tuple[str, ...], str, tuple[tuple[str, int], ...]]:
    """(lemma names, gloss with examples, hypernym/hyponym (pos, offset) pointers) of a synset, parsed
    straight from its line in the data file: an enhanced-Lesk signature needs the glosses of every
    hypernym and hyponym, and NLTK would build a full Synset object (all its pointers) for each."""
    data = _data_file(_DATA_FILES[pos])
    line = data[offset : data.index(b"\n", offset)].decode("utf-8")
    head, _, gloss = line.partition(" | ")
    fields = head.split()
    n_words = int(fields[3], 16)
    words = tuple(fields[4 + 2 * k] for k in range(n_words))
    at = 4 + 2 * n_words
    n_ptrs = int(fields[at])
    related = []
    for k in range(n_ptrs):
        symbol, ptr_offset, ptr_pos = fields[at + 1 + 4 * k : at + 4 + 4 * k]
        if symbol in _RELATED:
            related.append((ptr_pos, int(ptr_offset)))
    return words, gloss.strip(), tuple(related)


def check_resources() -> None:
    """Raise MissingResourceError naming the first NLTK resource that is not installed.

    With a warm persistent cache whose record of NLTK's files still holds, nothing is imported."""
    if store.resources_verified():
        return
    resources.record()  # finds all three without building NLTK's readers
    stopwords()
    load_tagger()


@persistent("lemma_of")
def lemma_of(word: str, pos: str) -> str | None:
    """WordNet lemma of a lower-cased word form for a WordNet POS, or None if WordNet lacks it.

    lemminflect's lemmatizer, which knows irregular forms ("found"/VBD -> "find"), is tried first
    and kept only when WordNet has that lemma; WordNet's morphy is the fallback.
    """
    from lemminflect import getLemma

    upos = WN_TO_UPOS[pos]
    for lemma in getLemma(word, upos, lemmatize_oov=False):
        if has_lemma(lemma, pos):
            return str(lemma)
    if has_lemma(word, pos):
        return word
    found = wordnet().morphy(word, pos)
    return str(found) if found else None


@persistent("sense_names")
def sense_names(lemma: str, pos: str) -> tuple[tuple[str, int], ...]:
    """(synset name, cntlist count of this lemma in it) for each sense of `lemma`, in WordNet order."""
    out = []
    for lem in wordnet().lemmas(lemma, pos):
        if lem.name().lower() == lemma:
            out.append((lem.synset().name(), lemma_count(lem)))
    return tuple(out)


@lru_cache(maxsize=200_000)
def senses(lemma: str, pos: str) -> tuple[tuple[Any, int], ...]:
    """(synset, cntlist count of this lemma in it) for each sense of `lemma`, in WordNet order."""
    return tuple((synset(name), count) for name, count in sense_names(lemma, pos))


@persistent("synset_lemmas")
def synset_lemmas(synset_name: str) -> tuple[tuple[str, int], ...]:
    """(lemma name, cntlist count) of a synset, ranked by count, ties by name."""
    syn = wordnet().synset(synset_name)
    ranked = sorted(((lem.name(), lemma_count(lem)) for lem in syn.lemmas()), key=lambda x: (-x[1], x[0]))
    return tuple(ranked)


def synset(name: str) -> Any:
    """A synset by name ("situate.v.01")."""
    return wordnet().synset(name)
