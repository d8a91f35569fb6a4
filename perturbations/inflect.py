"""Re-inflection of a WordNet lemma to the original word's Penn tag, case, and a/an agreement.

A synonym is only a substitution if it reads as the same grammatical form: "located" (VBN) becomes
"situated", never "situate"; plural nouns stay plural. lemminflect gives the forms; a multiword lemma
inflects its head (the first word of a verb phrase such as "turn up", the last word of a noun
compound such as "ice cream", the word before "of" in "soldier of fortune").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from perturbations.records import Token
from perturbations.store import persistent

# Tags whose form is the lemma itself.
_BASE_TAGS = frozenset({"NN", "VB", "VBP", "JJ", "RB"})
_INFLECTED_TAGS = frozenset({"NNS", "VBZ", "VBD", "VBG", "VBN", "JJR", "JJS", "RBR", "RBS"})


@persistent("forms")
def forms(lemma: str, tag: str) -> tuple[str, ...]:
    """Forms lemminflect gives for a one-word lemma and a Penn tag (the lemma for base tags)."""
    if tag in _BASE_TAGS:
        return (lemma,)
    if tag not in _INFLECTED_TAGS:
        return ()
    from lemminflect import getInflection

    return tuple(getInflection(lemma, tag, inflect_oov=False))


@persistent("lemma_forms")
def lemma_forms(lemma: str) -> frozenset[str]:
    """Every inflected form lemminflect knows for a one-word lemma (and the lemma)."""
    from lemminflect import getAllInflections

    out = {lemma}
    for group in getAllInflections(lemma).values():
        out.update(g.lower() for g in group)
    return frozenset(out)


_FINITE_TAGS = frozenset({"VBP", "VBZ", "VBD"})
_BE_FINITE = {"VBZ": "is"}

_LINKS = frozenset("of in on for to at by with from de".split())


def _head(words: list[str], tag: str) -> int:
    """Index of the word that carries the inflection: a verb phrase's first word ("turned up"), the
    word before a linking preposition ("soldiers of fortune"), else a compound's last word."""
    if tag.startswith("V"):
        return 0
    for i, w in enumerate(words[1:], start=1):
        if w in _LINKS:
            return i - 1
    return len(words) - 1


@persistent("inflect")
def inflect(lemma_name: str, tag: str) -> str | None:
    """The WordNet lemma (underscores allowed) inflected for `tag`, words joined by spaces.

    None when lemminflect has no form for that tag (the candidate is then rejected rather than
    guessed).
    """
    words = lemma_name.split("_")
    head = _head(words, tag)
    if words[head] == "be" and tag in _FINITE_TAGS:
        # "be" is the one verb whose present tense is not its base form ("exist" -> "be" is wrong); its
        # VBP ("am"/"are") and VBD ("was"/"were") forms depend on the subject, which is not known here
        be = _BE_FINITE.get(tag)
        if be is None:
            return None
        words[head] = be
        return " ".join(words)
    if tag in _BASE_TAGS or tag == "NNP":
        return " ".join(words)
    found = forms(words[head], tag)
    if not found:
        return None
    words[head] = found[0]
    return " ".join(words)


def match_case(original: str, replacement: str) -> str:
    """Give the replacement the original's casing: UPPER stays upper, Title stays title."""
    if len(original) > 1 and original.isupper():
        return replacement.upper()
    if original[:1].isupper():
        return replacement[:1].upper() + replacement[1:]
    return replacement


_AN_EXCEPTIONS = re.compile(r"^(hour|honest|honor|honour|heir)", re.IGNORECASE)
_A_EXCEPTIONS = re.compile(r"^(uni|use|usu|uti|eu|ewe|one|once|ur[aeiou])", re.IGNORECASE)


def indefinite_article(word: str) -> str:
    """ "a" or "an" before `word`, by its (approximate) first sound."""
    if _AN_EXCEPTIONS.match(word):
        return "an"
    if _A_EXCEPTIONS.match(word):
        return "a"
    return "an" if word[:1].lower() in "aeiou" else "a"


def agree_article(article: str, next_word: str) -> str:
    """The article `article` ("a"/"an", any case) corrected for `next_word`, case kept."""
    wanted = indefinite_article(next_word)
    if article.lower() == wanted:
        return article
    return match_case(article, wanted)


def article_before(tokens: Sequence[Token], index: int) -> Token | None:
    """The "a"/"an" just before token `index`, if there is one (it must agree with a replacement)."""
    if index <= 0:
        return None
    previous = tokens[index - 1]
    return previous if previous.text.lower() in ("a", "an") else None


POSSESSIVES = ("'s", "’s")  # the clitic, lower-cased


@persistent("plural_noun")
def _plural_noun(word: str) -> bool:
    """Whether a lower-case noun is a plural form ("authorities", a lemma of government.n.01), not a
    singular that ends in s ("boss")."""
    from lemminflect import getLemma

    lemmas = getLemma(word, "NOUN", lemmatize_oov=False)
    return bool(lemmas) and lemmas[0] != word


def possessive_clitic(tokens: Sequence[Token], index: int, new_word: str) -> Token | None:
    """The "'s" after a noun whose replacement is a plural ending in "s": it must become "'" ("men's"
    -> "adult males'", never "adult males's"; "government's" -> "authorities'")."""
    tok = tokens[index]
    low = new_word.lower()
    if index + 1 >= len(tokens) or not tok.tag.startswith("NN") or not low.endswith("s"):
        return None
    nxt = tokens[index + 1]
    if nxt.text.lower() not in POSSESSIVES or nxt.start != tok.end:
        return None
    return nxt if tok.tag in ("NNS", "NNPS") or _plural_noun(low.rsplit(" ", 1)[-1]) else None
