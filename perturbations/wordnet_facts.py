"""WordNet facts the validity gates read, beyond what synonym lookup needs: a lemma's senses over every part
of speech with their tagged counts, usage (register) pointers, verb frames, pertainyms, multiword lemmas.

Every look-up is a pure function of the WordNet files and is persisted in the lexicon cache, so a warm
build answers them without building NLTK's WordNet reader.
"""

from __future__ import annotations

from perturbations.lexicon import _data_file, lemma_count, wordnet
from perturbations.store import persistent

_DATA_FILES = (("n", "data.noun"), ("v", "data.verb"), ("a", "data.adj"), ("r", "data.adv"))


def pos_of_synset(synset_name: str) -> str:
    """The WordNet part of speech of a synset name ("good.s.01" -> "a": satellites are adjectives)."""
    letter = synset_name.rsplit(".", 2)[-2]
    return "a" if letter == "s" else letter


@persistent("senses_all_pos")
def senses_all_pos(name: str) -> tuple[tuple[str, str, int], ...]:
    """(synset name, part of speech with satellites as "a", cntlist count) of every sense of a lemma name
    (underscores for spaces, any case), over all parts of speech, WordNet's order within each (n, v, a, r)."""
    wn = wordnet()
    low = name.lower()
    out = []
    for pos in ("n", "v", "a", "r"):
        for lem in wn.lemmas(name, pos):
            if lem.name().lower() == low:
                out.append((lem.synset().name(), pos, lemma_count(lem)))
    return tuple(out)


def count_in(name: str, synset_name: str) -> int:
    """How often `name` was tagged in the sense `synset_name` (cntlist; 0 when it is not a lemma of it)."""
    return next((c for s, _, c in senses_all_pos(name) if s == synset_name), 0)


@persistent("usage_pointers")
def usage_pointers() -> dict[tuple[str, str | None], frozenset[str]]:
    """Usage domains (";u" pointers of the data files): {(synset, None): domains} for a whole synset and
    {(synset, lemma name lower-cased): domains} for one of its lemmas. A domain is named by its synset's
    first lemma ("colloquialism", "slang", "archaism", "abbreviation", "trade_name"...). Read from the
    data files directly: NLTK resolves lemma-level pointers to the target's lemmas, not the target synset."""
    wn = wordnet()
    found: dict[tuple[str, str | None], set[str]] = {}
    for _, fname in _DATA_FILES:
        for raw in _data_file(fname).split(b"\n"):
            if raw.startswith(b"  ") or b";u" not in raw:
                continue
            head = raw.decode("utf-8").split(" | ")[0].split()
            offset = int(head[0])
            n_words = int(head[3], 16)
            words = [head[4 + 2 * k] for k in range(n_words)]
            at = 4 + 2 * n_words
            for k in range(int(head[at])):
                symbol, target_offset, target_pos, source_target = head[at + 1 + 4 * k : at + 5 + 4 * k]
                if symbol != ";u":
                    continue
                domain = wn.synset_from_pos_and_offset(target_pos, int(target_offset)).lemma_names()[0].lower()
                source = int(source_target[:2], 16)
                synset = wn.synset_from_pos_and_offset(head[2], offset).name()
                word = None if source == 0 else words[source - 1].split("(")[0].lower()
                found.setdefault((synset, word), set()).add(domain)
    return {key: frozenset(value) for key, value in found.items()}


def usage_of(synset_name: str, lemma_name: str) -> frozenset[str]:
    """Usage domains marked on a synset or on this lemma of it."""
    pointers = usage_pointers()
    return pointers.get((synset_name, None), frozenset()) | pointers.get((synset_name, lemma_name.lower()), frozenset())


@persistent("verb_frames")
def frames(synset_name: str, lemma_name: str) -> frozenset[int]:
    """Verb frame numbers (WordNet's `frames` list, 1-35) of one lemma in one synset: the synset's frames
    that hold for all its lemmas plus the lemma's own (empty for a lemma not in the synset)."""
    low = lemma_name.lower()
    for lem in wordnet().synset(synset_name).lemmas():
        if lem.name().lower() == low:
            return frozenset(lem.frame_ids())
    return frozenset()


@persistent("pertainym")
def has_pertainym(synset_name: str, lemma_name: str) -> bool:
    """Whether WordNet gives this lemma of this (adjective) synset a pertainym: it means "relating to X"
    ("social" -> society, "financial" -> finance)."""
    low = lemma_name.lower()
    return any(lem.name().lower() == low and bool(lem.pertainyms()) for lem in wordnet().synset(synset_name).lemmas())


@persistent("multiword_lemmas")
def multiword_lemmas() -> dict[str, str]:
    """Every WordNet lemma of two or more words ("cooling_tower", "end_up") -> its parts of speech (letters
    of "nvar", satellites as "a")."""
    out: dict[str, str] = {}
    for name, by_pos in wordnet()._lemma_pos_offset_map.items():
        if "_" in name:
            out[name] = "".join(sorted({"a" if p == "s" else p for p in by_pos}))
    return out
