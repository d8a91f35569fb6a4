"""Which words may change: the position constraints of the built-in recipes.

They protect what a synonym swap must never touch in a QA question: frozen spans (answer text),
user-protected words, wh-words ("Who"), auxiliaries and modals, pronouns, determiners, prepositions,
numbers and dates, names and proper nouns (nlpaug replaces "France"), stopwords; then words of parts of
speech the recipe leaves alone, and words whose tag does not fit them (their re-inflection would be a guess).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from perturbations.constraints import Position, PositionConstraint, overlaps
from perturbations.errors import RecipeParameterError
from perturbations.inflect import forms
from perturbations.lexicon import stopwords

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
