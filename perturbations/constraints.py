"""Which words may change, and which candidates are acceptable (the two kinds of constraint).

Position rules protect what a synonym swap must never touch in a QA question: names and proper nouns
(nlpaug replaces "France"), numbers and dates, wh-words ("Who"), auxiliaries and modals, pronouns,
determiners, prepositions, stopwords, user-protected words and frozen spans (answer text).
Candidate rules reject what is not a real substitution: the word itself or any form of it
("located" -> "locate", "Norse" -> "Norse"), leftover underscores, capitalised (proper) lemmas
for common words, and lemmas that contain the word.
"""

from __future__ import annotations

from typing import Sequence

from perturbations.lexicon import stopwords
from perturbations.records import Token

WH_WORDS = frozenset(
    "what which who whom whose when where why how whatever whichever whoever whomever wherever whenever "
    "however whither whence".split()
)
AUXILIARIES = frozenset(
    "be am is are was were been being 's 're 'm have has had having 've 'd do does did done doing "
    "can could may might must shall should will would ought 'll ca wo sha need dare".split()
)
PRONOUNS = frozenset(
    "i me my mine myself you your yours yourself yourselves he him his himself she her hers herself it its "
    "itself we us our ours ourselves they them their theirs themselves one oneself someone somebody "
    "something anyone anybody anything everyone everybody everything nobody nothing none".split()
)
DETERMINERS = frozenset(
    "a an the this that these those each every either neither some any no all both another other such "
    "much many few several enough half".split()
)
PREPOSITIONS = frozenset(
    "about above across after against along amid among around as at before behind below beneath beside "
    "besides between beyond by despite down during except for from in inside into like near of off on "
    "onto opposite out outside over past per regarding since than through throughout till to toward "
    "towards under underneath unlike until up upon versus via with within without".split()
)
MONTHS_DAYS = frozenset(
    "january february march april may june july august september october november december jan feb mar "
    "apr jun jul aug sep sept oct nov dec monday tuesday wednesday thursday friday saturday sunday".split()
)
NUMBER_WORDS = frozenset(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred "
    "thousand million billion trillion dozen first second third fourth fifth sixth seventh eighth ninth "
    "tenth eleventh twelfth twentieth hundredth thousandth millionth once twice thrice half quarter "
    "single double triple".split()
)
NEGATIONS = frozenset("not n't never no nor".split())

# Tokens after which a capital letter says nothing about the word (sentence or quote starts).
_SENTENCE_OPENERS = frozenset('. ! ? : ; " “ ” ( [ - — – \''.split())

# Stable reason names, also the keys of Perturbation.skipped.
REASONS: tuple[str, ...] = (
    "frozen", "protected", "wh-word", "auxiliary", "pronoun", "determiner", "preposition", "number",
    "date", "proper-noun", "stopword", "pos", "no-sense", "inflection", "low-confidence", "no-candidate",
    "consistency", "budget",
)


def overlaps(start: int, end: int, spans: Sequence[tuple[int, int]]) -> bool:
    """Whether [start, end) shares a character with any span (empty spans touch nothing)."""
    return any(s < e and start < e and s < end for s, e in spans)


def sentence_initial(tokens: Sequence[Token], i: int) -> bool:
    """Whether token i starts a sentence or a quotation (so its capital letter is not evidence)."""
    return i == 0 or tokens[i - 1].text in _SENTENCE_OPENERS


def position_reason(
    tokens: Sequence[Token],
    i: int,
    protected: frozenset[str],
    frozen_spans: Sequence[tuple[int, int]],
) -> str | None:
    """Why token i must not change (a reason name), or None when it may."""
    tok = tokens[i]
    word, tag = tok.text, tok.tag
    low = word.lower()
    if frozen_spans and overlaps(tok.start, tok.end, frozen_spans):
        return "frozen"
    if low in protected or word in protected:
        return "protected"
    if low in WH_WORDS or tag in ("WDT", "WP", "WP$", "WRB"):
        return "wh-word"
    if low in AUXILIARIES or tag == "MD":
        return "auxiliary"
    if low in PRONOUNS or tag in ("PRP", "PRP$", "EX"):
        return "pronoun"
    if low in DETERMINERS or tag in ("DT", "PDT"):
        return "determiner"
    if low in PREPOSITIONS or tag in ("IN", "TO", "RP"):
        return "preposition"
    if tag == "CD" or low in NUMBER_WORDS or any(ch.isdigit() for ch in word):
        return "number"
    if low in MONTHS_DAYS:
        return "date"
    if tag in ("NNP", "NNPS"):
        return "proper-noun"
    if word[:1].isupper() and (
        not sentence_initial(tokens, i)
        or (len(word) > 1 and word.isupper())
        or (i + 1 < len(tokens) and tokens[i + 1].text[:1].isupper())  # "Big O", "New York"
    ):
        return "proper-noun"
    if low in stopwords() or low in NEGATIONS:
        return "stopword"
    return None


def _squash(word: str) -> str:
    return word.lower().replace("-", "").replace("_", "").replace(" ", "")


def acceptable_lemma(candidate: str, original_word: str, original_lemma: str) -> bool:
    """Whether a WordNet lemma may replace the word (before inflection).

    Rejects the word's own lemma and its forms, proper (capitalised) lemmas, lemmas that contain
    the word or its lemma as one of their words, and lemmas with characters other than letters,
    spaces/underscores, hyphens and apostrophes.
    """
    low = candidate.lower()
    if candidate != low:
        return False
    parts = low.split("_")
    if original_lemma in parts or original_word.lower() in parts:
        return False
    if _squash(low) in (_squash(original_lemma), _squash(original_word)):
        return False  # "half_brother" for "half-brother"
    return all(p.replace("-", "").replace("'", "").isalpha() for p in parts)


def acceptable_form(replacement: str, original_word: str, original_lemma: str, lemma_forms: frozenset[str]) -> bool:
    """Whether an inflected replacement is a real change: not the word, nor a form of its lemma."""
    low = replacement.lower()
    if "_" in low or not low.strip():
        return False
    squashed = _squash(low)
    return squashed != _squash(original_word) and squashed != _squash(original_lemma) and low not in lemma_forms
