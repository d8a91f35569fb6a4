"""Which words may change: the position constraints of every recipe (1.1's rules, then the 2.0
validity gates on the word).

They protect what a synonym swap must never touch in a QA question: frozen spans (answer text),
user-protected words, wh-words ("Who"), auxiliaries and modals, pronouns, determiners, prepositions,
numbers and dates, names and proper nouns (nlpaug replaces "France"), stopwords; then words of parts of
speech the recipe leaves alone, and words whose tag does not fit them (their re-inflection would be a guess).

Validity gates on the word (position constraints of the 2.0 recipes): words whose replacement alone would
change what a question asks, whatever synonym is offered.

A blind review of `qads@1.1` (one edited question in four changed meaning) found these classes: a word
inside a term ("cooling tower", "decision problem", "particle physics", a quoted name), half of a phrasal
verb ("ended up"), a word the tagger took for the wrong part of speech ("results" as a noun where it is
the verb), very general verbs whose synonyms fit one use and not the next ("used" -> "applied"), adverbs
("ever" -> "of all time"), a verb or adjective that selects its preposition ("associated with"). Each rule
is general: the only word lists are closed grammatical classes (particles, copulas, prepositions).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar, TypeVar

from perturbations.constraints import Position, PositionConstraint, overlaps
from perturbations.errors import RecipeParameterError
from perturbations.frequency import zipf
from perturbations.inflect import forms
from perturbations.lexicon import lemma_of, stopwords
from perturbations.records import Token
from perturbations.text import tag_margin
from perturbations.wordnet_facts import multiword_lemmas

# -------------------- Which words may change: the position constraints of the built-in recipes.

WN_POS = ("n", "v", "a", "r")

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


@dataclass(frozen=True)
class FrozenSpans(PositionConstraint):
    """Never edit a character the caller froze (answer spans in a context)."""

    reason: ClassVar[str] = "frozen"
    FROZEN_ONLY: ClassVar[bool] = True

    def rejects(self, position: Position) -> bool:
        token = position.tokens[position.index]
        return overlaps(token.start, token.end, position.frozen_spans)


def _protected_words(value: Any) -> frozenset[str]:
    items = [value] if isinstance(value, str) else list(value)
    return frozenset(str(w).strip().lower() for w in items if str(w).strip())


@dataclass(frozen=True)
class ProtectedWords(PositionConstraint):
    """Never edit the words the user named (matched lower-cased, or exactly as given)."""

    WORD_ONLY: ClassVar[bool] = True

    protected_words: frozenset[str] = frozenset()
    reason: ClassVar[str] = "protected"
    PARAMETERS: ClassVar[dict[str, Any]] = {"protected_words": _protected_words}

    def rejects(self, position: Position) -> bool:
        return position.lower in self.protected_words or position.word in self.protected_words

    def describe(self) -> str:
        return f"ProtectedWords({','.join(sorted(self.protected_words)) or '-'})"


@dataclass(frozen=True)
class WordClass(PositionConstraint):
    """A closed class of words, known by a list (lower-cased) and by Penn tags."""

    WORD_ONLY: ClassVar[bool] = True

    name: str
    words: frozenset[str]
    tags: frozenset[str]
    reason: str = ""  # type: ignore[misc]  # a field here: each word class has its own reason name

    def __post_init__(self) -> None:
        if not self.reason:
            raise ValueError(f"word class {self.name} needs a reason name")

    def rejects(self, position: Position) -> bool:
        return position.lower in self.words or position.tag in self.tags

    def describe(self) -> str:
        tags = f"; tags {','.join(sorted(self.tags))}" if self.tags else ""
        return f"{self.name}({len(self.words)} words{tags})"


@dataclass(frozen=True)
class Numbers(PositionConstraint):
    """Numbers: tagged CD, a number word or ordinal ("seven", "first"), or any digit ("1066", "3rd")."""

    WORD_ONLY: ClassVar[bool] = True

    reason: ClassVar[str] = "number"

    def rejects(self, position: Position) -> bool:
        return position.tag == "CD" or position.lower in NUMBER_WORDS or any(ch.isdigit() for ch in position.word)

    def describe(self) -> str:
        return f"Numbers(CD, {len(NUMBER_WORDS)} number words, digits)"


@dataclass(frozen=True)
class ProperNouns(PositionConstraint):
    """Names: tagged NNP/NNPS, or capitalised where a capital is evidence: inside a sentence, all capitals
    ("NASA"), or followed by another capitalised word ("Big O", "New York")."""

    reason: ClassVar[str] = "proper-noun"

    def rejects(self, position: Position) -> bool:
        tokens, index = position.tokens, position.index
        token = tokens[index]  # read once: this rule is asked at every occurrence of most words
        if token.tag == "NNP" or token.tag == "NNPS":
            return True
        word = token.text
        if not word[:1].isupper():
            return False
        return (
            not position.sentence_initial
            or (len(word) > 1 and word.isupper())
            or (index + 1 < len(tokens) and tokens[index + 1].text[:1].isupper())
        )

    def describe(self) -> str:
        return "ProperNouns(NNP/NNPS, capitalised mid-sentence, all capitals, before a capitalised word)"


@dataclass(frozen=True)
class Stopwords(PositionConstraint):
    """NLTK's English stopwords and negations ("not", "never")."""

    WORD_ONLY: ClassVar[bool] = True

    reason: ClassVar[str] = "stopword"

    def rejects(self, position: Position) -> bool:
        low = position.lower
        return low in stopwords() or low in NEGATIONS

    def describe(self) -> str:
        return "Stopwords(nltk english, negations)"


def _parts_of_speech(value: Any) -> tuple[str, ...]:
    items = value.split(",") if isinstance(value, str) else list(value)
    return tuple(sorted({str(p).strip() for p in items if str(p).strip()}, key=WN_POS.index))


@dataclass(frozen=True)
class PartsOfSpeech(PositionConstraint):
    """Only words of these WordNet parts of speech (of their Penn tag) change."""

    WORD_ONLY: ClassVar[bool] = True

    pos: tuple[str, ...] = WN_POS
    reason: ClassVar[str] = "pos"
    PARAMETERS: ClassVar[dict[str, Any]] = {"pos": _parts_of_speech}

    def rejects(self, position: Position) -> bool:
        pos = position.pos
        return pos is None or pos not in self.pos

    def validate(self) -> None:
        if not self.pos or any(p not in WN_POS for p in self.pos):
            raise RecipeParameterError(f"pos must be a non-empty subset of {','.join(WN_POS)}, not {self.pos}")

    def describe(self) -> str:
        return f"PartsOfSpeech({','.join(self.pos)})"


@dataclass(frozen=True)
class TagFitsWord(PositionConstraint):
    """The word is a form lemminflect gives its lemma for its tag ("took" tagged VBN is not): otherwise
    the replacement's re-inflection would be a guess. Words WordNet has no lemma for are left to the
    transformation (which counts them as "no-sense")."""

    WORD_ONLY: ClassVar[bool] = True

    reason: ClassVar[str] = "inflection"

    def rejects(self, position: Position) -> bool:
        lemma = position.lemma
        return lemma is not None and "_" not in lemma and position.lower not in forms(lemma, position.tag)

    def describe(self) -> str:
        return "TagFitsWord(lemminflect)"


WH = WordClass("WhWords", WH_WORDS, frozenset({"WDT", "WP", "WP$", "WRB"}), reason="wh-word")
AUXILIARY = WordClass("AuxiliariesAndModals", AUXILIARIES, frozenset({"MD"}), reason="auxiliary")
PRONOUN = WordClass("Pronouns", PRONOUNS, frozenset({"PRP", "PRP$", "EX"}), reason="pronoun")
DETERMINER = WordClass("Determiners", DETERMINERS, frozenset({"DT", "PDT"}), reason="determiner")
PREPOSITION = WordClass("Prepositions", PREPOSITIONS, frozenset({"IN", "TO", "RP"}), reason="preposition")
DATE = WordClass("Dates", MONTHS_DAYS, frozenset(), reason="date")


# -------------------- Validity gates on the word (position constraints of the 2.0 recipes).

NOUN_TAGS = frozenset({"NN", "NNS"})
# particles that are never prepositions: a verb followed by one is a phrasal verb ("end up", "carry out")
PURE_PARTICLES = frozenset("up out off down away back apart aside together forward".split())
COPULAS = frozenset(
    "be is are was were been being am 's 're become becomes became becoming seem seems seemed remain remains "
    "remained get gets got".split()
)
DO_AUXILIARIES = frozenset({"do", "does", "did"})
COMPLEMENT_PREPOSITIONS = frozenset("to with from for at on upon into as onto".split())
T = TypeVar("T")


def per_text(fn: Callable[..., T]) -> Callable[..., T]:
    """Memoise `fn(tokens, *rest)` for the text being perturbed: the engine asks every word of one text in
    turn, so one entry, found by the identity of the token tuple (held, so it cannot be reused), is enough,
    and costs nothing per word where hashing a long paragraph's tokens would cost more than the answer."""
    last: list[Any] = [None, None, None]

    @functools.wraps(fn)
    def wrapper(tokens: tuple[Token, ...], *rest: Any) -> T:
        if last[0] is not tokens or last[1] != rest:
            last[:] = [tokens, rest, fn(tokens, *rest)]
        return last[2]  # type: ignore[no-any-return]

    return wrapper


_OPEN_QUOTES = frozenset({"“", "``"})
_CLOSE_QUOTES = frozenset({"”", "''"})
_BOTH_QUOTES = frozenset({'"', "'"})
_ANY_CLOSE = frozenset({'"', "”", "’", "'", "''"})


@dataclass(frozen=True)
class KnownLemma(PositionConstraint):
    """WordNet has a lemma for the word in its part of speech. (The transformation would leave it alone
    as "no-sense" anyway; asked before the gates, so that they count only words that could change.)"""

    WORD_ONLY: ClassVar[bool] = True
    reason: ClassVar[str] = "no-sense"

    def rejects(self, position: Position) -> bool:
        return position.pos is None or position.lemma is None


@dataclass(frozen=True)
class QuotedTerm(PositionConstraint):
    """A word between quotation marks is cited, not paraphrased ("the term 'cooling tower'")."""

    reason: ClassVar[str] = "quoted"
    GATE: ClassVar[bool] = True

    def rejects(self, position: Position) -> bool:
        return position.index in quoted_indices(position.tokens)

    def describe(self) -> str:
        return "QuotedTerm(between quotation marks)"


@per_text
def quoted_indices(tokens: tuple[Token, ...]) -> frozenset[int]:
    """Indices of the tokens after an opening quotation mark (a straight quote opens when none is open)
    that a quotation mark follows later in the text."""
    inside = []
    opened = False
    for token in tokens:
        inside.append(opened)
        t = token.text
        if t in _OPEN_QUOTES or (t in _BOTH_QUOTES and not opened):
            opened = True
        elif t in _CLOSE_QUOTES or (t in _BOTH_QUOTES and opened):
            opened = False
    found = set()
    closed_later = False
    for k in range(len(tokens) - 1, -1, -1):
        if inside[k] and closed_later:
            found.add(k)
        closed_later = closed_later or tokens[k].text in _ANY_CLOSE
    return frozenset(found)


@lru_cache(maxsize=100_000)
def _variants(word: str, first: bool, last: bool) -> tuple[str, ...]:
    """The word lower-cased, and its verb lemma when it starts a span, its noun lemma when it ends one."""
    low = word.lower()
    out = {low}
    for pos, wanted in (("v", first), ("n", last)):
        if wanted:
            lemma = lemma_of(low, pos)
            if lemma:
                out.add(lemma)
    return tuple(sorted(out))


@dataclass(frozen=True)
class FixedTerm(PositionConstraint):
    """The word is part of a WordNet multiword lemma formed with its neighbours (up to `max_words` words):
    a noun of content words ("particle physics", "cooling tower", "market economy", "combustion engine"), or
    a verb with particles that are never prepositions ("ended up", "set up", "carried out"). Such a word is
    never replaced on its own: the term would fall apart."""

    max_words: int = 4
    reason: ClassVar[str] = "fixed-term"
    GATE: ClassVar[bool] = True

    def rejects(self, position: Position) -> bool:
        return position.index in term_indices(position.tokens, self.max_words)

    def validate(self) -> None:
        if self.max_words < 2:
            raise RecipeParameterError(f"FixedTerm needs max_words >= 2, not {self.max_words}")

    def describe(self) -> str:
        return f"FixedTerm(WordNet multiword nouns and verb+particle lemmas, up to {self.max_words} words)"


@per_text
def term_indices(tokens: tuple[Token, ...], max_words: int) -> frozenset[int]:
    """Indices of the tokens that belong to a multiword term (see `FixedTerm`): every span of 2 to
    `max_words` adjacent letter words (one space at most between them) that is a term. Computed once per
    text, as each word of it asks."""
    letters = [t.text.replace("-", "").isalpha() for t in tokens]  # letter words (hyphens inside allowed)
    found: set[int] = set()
    long_starts = _term_ends()[2]
    for start in range(len(tokens)):
        if not letters[start]:
            continue
        for end in range(start + 2, min(len(tokens), start + max_words) + 1):
            if not letters[end - 1] or tokens[end - 1].start - tokens[end - 2].end > 1:
                break  # a longer span from `start` would hold the same gap or non-word
            if end == start + 3:  # no lemma of 3+ words starts with these two: stop growing the span
                second = tokens[start + 1].text.lower()
                if not any(first + "_" + second in long_starts for first in _variants(tokens[start].text, True, False)):
                    break
            if _is_multiword_term(tuple(t.text for t in tokens[start:end])):
                found.update(range(start, end))
    return frozenset(found)


@lru_cache(maxsize=200_000)
def _is_multiword_term(words: tuple[str, ...]) -> bool:
    """Whether the words, read with their lemmas (a verb lemma first, a noun lemma last), are a WordNet
    multiword noun of content words or a verb followed by pure particles."""
    n = len(words)
    ends = _term_ends()
    first, last = _variants(words[0], True, n == 1), _variants(words[-1], n == 1, True)
    if not any(w in ends[0] for w in first) or not any(w in ends[1] for w in last):
        return False  # no multiword lemma starts (or ends) so: most spans stop here
    combos: list[list[str]] = [[]]
    for i, word in enumerate(words):
        combos = [c + [v] for c in combos for v in _variants(word, i == 0, i == n - 1)]
    lemmas = multiword_lemmas()
    function_words = stopwords()
    for combo in combos:
        pos = lemmas.get("_".join(combo), "")
        if "n" in pos and not any(w in function_words for w in combo):
            return True
        if "v" in pos and all(w in PURE_PARTICLES for w in combo[1:]):
            return True
    return False


@lru_cache(maxsize=1)
def _term_ends() -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """The first words and the last words of WordNet's multiword lemmas, and the first two words (joined
    by "_") of those of three words or more."""
    names = [name.split("_") for name in multiword_lemmas()]
    return (
        frozenset(parts[0] for parts in names),
        frozenset(parts[-1] for parts in names),
        frozenset(parts[0] + "_" + parts[1] for parts in names if len(parts) >= 3),
    )


def _gerund_modifier(tokens: tuple[Token, ...], i: int) -> bool:
    """A VBG right before a common noun, not after a copula ("cooling tower", but not "is cooling water")."""
    if i < 0 or tokens[i].tag != "VBG" or i + 1 >= len(tokens) or tokens[i + 1].tag not in NOUN_TAGS:
        return False
    return i == 0 or tokens[i - 1].text.lower() not in COPULAS


@dataclass(frozen=True)
class NounCompound(PositionConstraint):
    """A common noun before or after another common noun, or a gerund modifying one, is part of a compound
    ("decision problem", "complexity classes", "cooling tower"): its synonym would name something else."""

    reason: ClassVar[str] = "compound"
    GATE: ClassVar[bool] = True

    def rejects(self, position: Position) -> bool:
        tokens, i = position.tokens, position.index
        token = tokens[i]
        if token.tag in NOUN_TAGS:
            if i + 1 < len(tokens) and tokens[i + 1].tag in NOUN_TAGS:
                return True
            if i > 0 and (tokens[i - 1].tag in NOUN_TAGS or _gerund_modifier(tokens, i - 1)):
                return True
        return _gerund_modifier(tokens, i)

    def describe(self) -> str:
        return "NounCompound(noun+noun, gerund+noun)"


@dataclass(frozen=True)
class PhrasalVerb(PositionConstraint):
    """A verb followed by a particle (tagged RP) is half of a phrasal verb ("ended up", "set off")."""

    reason: ClassVar[str] = "phrasal"
    GATE: ClassVar[bool] = True

    def rejects(self, position: Position) -> bool:
        nxt = position.neighbour(1)
        return position.tag.startswith("V") and nxt is not None and nxt.tag == "RP"

    def describe(self) -> str:
        return "PhrasalVerb(verb + RP)"


@dataclass(frozen=True)
class UncertainTag(PositionConstraint):
    """The tagger's score for the word's tag must beat the best tag of another part of speech by at least
    `min_margin`: a synonym of the wrong part of speech ("refuse" -> "garbage") is worse than none."""

    min_margin: float = 1.0
    reason: ClassVar[str] = "pos-uncertain"
    GATE: ClassVar[bool] = True

    def rejects(self, position: Position) -> bool:
        return tag_margin(position.tokens, position.index) < self.min_margin

    def describe(self) -> str:
        return f"UncertainTag(tagger margin >= {self.min_margin:g})"


_AFTER_VERB = frozenset({"DT", "IN", "TO", "RP", ".", "PRP", "PRP$", "CD", "RB", "WP", "WDT", "JJ", ":", ","})


def _verb_slot_empty(tokens: tuple[Token, ...]) -> bool:
    """The question lacks a main verb: no verb at all, or a do-auxiliary with no base verb after it (an
    infinitive after "to" does not count)."""
    tags = [t.tag for t in tokens]
    verbs = [k for k, t in enumerate(tags) if t.startswith("V") or t == "MD"]
    if not verbs:
        return True
    for k in verbs:
        if tokens[k].text.lower() in DO_AUXILIARIES:
            later = [m for m in verbs if m > k and tags[m].startswith("VB") and tokens[m - 1].tag != "TO"]
            if not later:
                return True
    return False


def _verb_capable(token: Token) -> bool:
    return token.tag in NOUN_TAGS and token.text.isalpha() and lemma_of(token.text.lower(), "v") is not None


@per_text
def suspected_verb(tokens: tuple[Token, ...]) -> int | None:
    """The index of the noun-tagged word that is really the question's missing main verb, if any: after a
    do-auxiliary without a base verb, the first verb-capable noun that follows a noun or pronoun and comes
    before a preposition, particle or determiner ("did Spain and Portugal refuse to", "does a machine
    handle"), else the last verb-capable noun; in a question without any verb, such a noun followed by one
    ("deprivation results in")."""
    if not _verb_slot_empty(tokens):
        return None
    n = len(tokens)
    aux = next((k for k, t in enumerate(tokens) if t.text.lower() in DO_AUXILIARIES and t.tag.startswith("V")), None)
    start = aux + 1 if aux is not None else 0
    for k in range(max(start, 1), n):
        token = tokens[k]
        if not _verb_capable(token):
            continue
        prev = tokens[k - 1]
        if not (prev.tag.startswith("NN") or prev.tag in ("PRP", "NNP", "NNPS")):
            continue
        if k + 1 >= n or tokens[k + 1].tag in _AFTER_VERB:
            return k
    if aux is not None:
        for k in range(n - 1, start, -1):
            if _verb_capable(tokens[k]):
                return k
    return None


@dataclass(frozen=True)
class NounAsVerb(PositionConstraint):
    """A noun-tagged word is not replaced when it is the question's missing main verb (see `suspected_verb`):
    its noun synonym would turn the question into another ("results" -> "outcomes", "refuse" -> "garbage")."""

    reason: ClassVar[str] = "pos-noun-verb"
    GATE: ClassVar[bool] = True

    def rejects(self, position: Position) -> bool:
        return position.tag in NOUN_TAGS and suspected_verb(position.tokens) == position.index

    def describe(self) -> str:
        return "NounAsVerb(a noun-tagged missing main verb)"


@dataclass(frozen=True)
class GeneralVerb(PositionConstraint):
    """The most frequent verbs (wordfreq Zipf of the lemma at least `min_zipf`: "use", "make", "take",
    "live", "help") keep their word: their WordNet senses are fine-grained, and a synonym fits one use but
    not the next ("used" -> "applied", "says" -> "tells", "live" -> "populate")."""

    WORD_ONLY: ClassVar[bool] = True
    min_zipf: float = 5.5
    reason: ClassVar[str] = "general-verb"
    GATE: ClassVar[bool] = True

    def rejects(self, position: Position) -> bool:
        if position.pos != "v":
            return False
        lemma = position.lemma
        return lemma is not None and zipf(lemma.replace("_", " ")) >= self.min_zipf

    def describe(self) -> str:
        return f"GeneralVerb(lemma Zipf >= {self.min_zipf:g})"


@dataclass(frozen=True)
class NoAdverbs(PositionConstraint):
    """Adverbs keep their word: in the review sample most adverb synonyms changed the scope or read oddly
    ("ever" -> "of all time", "exactly" -> "just", "also" -> "too")."""

    WORD_ONLY: ClassVar[bool] = True
    reason: ClassVar[str] = "adverb"
    GATE: ClassVar[bool] = True

    def rejects(self, position: Position) -> bool:
        return position.pos == "r"


@dataclass(frozen=True)
class ComplementPreposition(PositionConstraint):
    """A verb or adjective directly followed by a preposition it may select ("associated with", "coupled
    to", "disqualified from", "referred to as") keeps its word: a synonym rarely takes the same preposition.
    Not "to" before a base verb (an infinitive: "intended to promote"), nor "as" after "as"/"so" (a
    comparison)."""

    prepositions: frozenset[str] = COMPLEMENT_PREPOSITIONS
    reason: ClassVar[str] = "complement"
    GATE: ClassVar[bool] = True

    def rejects(self, position: Position) -> bool:
        tokens, i = position.tokens, position.index
        tag = tokens[i].tag
        if not (tag.startswith("V") or tag.startswith("JJ")) or i + 1 >= len(tokens):
            return False
        preposition = tokens[i + 1].text.lower()
        if preposition not in self.prepositions:
            return False
        if preposition == "to" and i + 2 < len(tokens) and tokens[i + 2].tag.startswith("VB"):
            return False
        return not (preposition == "as" and i > 0 and tokens[i - 1].text.lower() in ("as", "so"))

    def describe(self) -> str:
        return f"ComplementPreposition(verb/adjective + {','.join(sorted(self.prepositions))})"


_MODIFIER_TAGS = frozenset({"JJ", "NN", "NNS", "VBN", "VBG"})


@lru_cache(maxsize=50_000)
def _source_has(phrase: str, source: str) -> bool:
    return re.search(r"(?<![A-Za-z])" + re.escape(phrase) + r"(?![A-Za-z])", source, re.IGNORECASE) is not None


@dataclass(frozen=True)
class ParagraphTerm(PositionConstraint):
    """A modifier and its head noun that the source text (the question's paragraph) also uses side by side
    ("connected graphs", "constituent country") are the source's term: neither word is replaced."""

    reason: ClassVar[str] = "paragraph-term"
    GATE: ClassVar[bool] = True

    def rejects(self, position: Position) -> bool:
        source = position.context
        if not source:
            return False
        tokens, i = position.tokens, position.index
        token = tokens[i]
        if i + 1 < len(tokens) and token.tag in _MODIFIER_TAGS and tokens[i + 1].tag.startswith("NN"):
            if _source_has(token.text + " " + tokens[i + 1].text, source):
                return True
        if i > 0 and token.tag.startswith("NN") and tokens[i - 1].tag in _MODIFIER_TAGS:
            return _source_has(tokens[i - 1].text + " " + token.text, source)
        return False

    def describe(self) -> str:
        return "ParagraphTerm(modifier+noun pairs the paragraph uses)"


__all__ = [
    "ComplementPreposition",
    "FixedTerm",
    "GeneralVerb",
    "KnownLemma",
    "NoAdverbs",
    "NounAsVerb",
    "NounCompound",
    "ParagraphTerm",
    "PhrasalVerb",
    "QuotedTerm",
    "UncertainTag",
]
