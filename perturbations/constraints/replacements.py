"""Which replacements are acceptable: the candidate constraints of every recipe (1.1's rules, then
the 2.0 validity gates on the synonym).

They reject what is not a real substitution: the word itself in another spelling or any form of it
("located" -> "locate", "Norse" -> "Norse"), lemmas that contain the word ("car" -> "railway car"),
capitalised (proper) lemmas for common words, characters other than letters, forms lemminflect does not
know for the word's tag, and edits whose agreement with a neighbouring word would change frozen text.

Validity gates on the synonym (CONTEXT-stage candidate constraints of the 2.0 recipes): replacements
that read as another thing, another register or another grammatical form, even in the right sense.

From the blind review of `qads@1.1`: multiword definitions ("city manager" for mayor, "of all time" for
ever), rare, archaic or nonstandard forms ("yr", "complexness", "macroscopical", "aright"), function words
("exists" -> "is"), plurals for singulars ("government" -> "authorities"), mass nouns for count nouns ("a
war" -> "a warfare"), verbs that lose a frame ("helped establish" -> "aided establish"), and synonyms whose
own usual sense is another ("police" -> "law"). They are asked in context (not memoised per lemma), so
that every rejection is counted under the rule's own name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from perturbations.constraints import Candidate, CandidateConstraint, Stage, overlaps
from perturbations.errors import RecipeParameterError
from perturbations.frequency import zipf
from perturbations.inflect import (
    POSSESSIVES,
    agree_article,
    article_before,
    lemma_forms,
    match_case,
    possessive_clitic,
)
from perturbations.lexicon import stopwords
from perturbations.store import persistent
from perturbations.wordnet_facts import count_in, frames, pos_of_synset, senses_all_pos, usage_of

# -------------------- Which replacements are acceptable: the candidate constraints of the built-in recipes.


def _squash(word: str) -> str:
    return word.lower().replace("-", "").replace("_", "").replace(" ", "")


@dataclass(frozen=True)
class NoProperLemma(CandidateConstraint):
    """No capitalised WordNet lemma ("United_States" is a sense of "country", never its synonym)."""

    stage: ClassVar[Stage] = Stage.LEMMA

    def rejects(self, candidate: Candidate) -> bool:
        return candidate.name != candidate.name.lower()


@dataclass(frozen=True)
class NotSelf(CandidateConstraint):
    """Not the word or its lemma spelled another way ("half_brother" for "half-brother"), nor a lemma that
    has either as one of its words ("railway_car" for "car")."""

    stage: ClassVar[Stage] = Stage.LEMMA

    def rejects(self, candidate: Candidate) -> bool:
        low = candidate.name.lower()
        parts = low.split("_")
        if candidate.lemma in parts or candidate.word in parts:
            return True
        return _squash(low) in (_squash(candidate.lemma), _squash(candidate.word))


@dataclass(frozen=True)
class LettersOnly(CandidateConstraint):
    """Only letters, hyphens and apostrophes in each word of the lemma."""

    stage: ClassVar[Stage] = Stage.LEMMA

    def rejects(self, candidate: Candidate) -> bool:
        return not all(p.replace("-", "").replace("'", "").isalpha() for p in candidate.name.lower().split("_"))


@dataclass(frozen=True)
class Inflectable(CandidateConstraint):
    """lemminflect knows the synonym's form for the word's tag (on the head of a multiword lemma): a
    synonym is only a substitution if it reads as the same grammatical form, so none is guessed."""

    stage: ClassVar[Stage] = Stage.FORM

    def rejects(self, candidate: Candidate) -> bool:
        return not candidate.inflected

    def describe(self) -> str:
        return "Inflectable(lemminflect)"


@dataclass(frozen=True)
class NotOwnForm(CandidateConstraint):
    """The written form is neither the word (in any spelling) nor a form of the word's lemma
    ("located" -> "locate", "locates")."""

    stage: ClassVar[Stage] = Stage.FORM

    def rejects(self, candidate: Candidate) -> bool:
        low = candidate.form.lower()
        squashed = _squash(low)
        return (
            squashed == _squash(candidate.word)
            or squashed == _squash(candidate.lemma)
            or low in lemma_forms(candidate.lemma)
        )


@dataclass(frozen=True)
class NoUnderscore(CandidateConstraint):
    """The written form has words separated by spaces, never WordNet's underscores, and is not blank."""

    stage: ClassVar[Stage] = Stage.FORM

    def rejects(self, candidate: Candidate) -> bool:
        low = candidate.form.lower()
        return "_" in low or not low.strip()


@dataclass(frozen=True)
class ArticleAgreement(CandidateConstraint):
    """A synonym that needs the "a"/"an" before it to change ("a car" -> "an automobile") is written only
    when that article may change too (it is then re-agreed, and the substitution's record covers it)."""

    stage: ClassVar[Stage] = Stage.EDIT
    reason: ClassVar[str] = "frozen"
    FROZEN_ONLY: ClassVar[bool] = True

    def rejects(self, candidate: Candidate) -> bool:
        position = candidate.position
        if position is None:
            return False
        article = article_before(position.tokens, position.index)
        if article is None or not overlaps(article.start, article.end, position.frozen_spans):
            return False
        return agree_article(article.text, match_case(position.word, candidate.form)) != article.text


@dataclass(frozen=True)
class PossessiveAgreement(CandidateConstraint):
    """A plural synonym ending in "s" before "'s" needs the clitic to become "'" ("men's" -> "adult males'"):
    written only when that clitic may change too."""

    stage: ClassVar[Stage] = Stage.EDIT
    reason: ClassVar[str] = "frozen"
    FROZEN_ONLY: ClassVar[bool] = True

    def rejects(self, candidate: Candidate) -> bool:
        position = candidate.position
        if position is None:
            return False
        following = position.neighbour(1)  # the clitic, if any, which must be frozen to matter
        if following is None or following.text.lower() not in POSSESSIVES:
            return False
        if not overlaps(following.start, following.end, position.frozen_spans):
            return False
        return possessive_clitic(position.tokens, position.index, match_case(position.word, candidate.form)) is not None


# -------------------- Validity gates on the synonym (CONTEXT-stage candidate constraints of the 2.0 recipes).

# WordNet usage domains (";u" pointers) outside neutral written English
REGISTER_DOMAINS = frozenset(
    "colloquialism slang archaism disparagement ethnic_slur obscenity euphemism trope intensifier formality dialect "
    "regionalism idiom irony french yiddish street_name african_american_vernacular_english abbreviation acronym "
    "combining_form trade_name trademark blend".split()
)
# determiners that make the noun after them a count noun
COUNT_DETERMINERS = frozenset("a an one each every another many several few".split())
_SPELLING_RULES = (
    ("isation", "ization"),
    ("ise", "ize"),
    ("ising", "izing"),
    ("ised", "ized"),
    ("yse", "yze"),
    ("our", "or"),
    ("tre", "ter"),
    ("ogue", "og"),
    ("ae", "e"),
    ("oe", "e"),
    ("ll", "l"),
    ("ence", "ense"),
)


def spelling_variant(a: str, b: str) -> bool:
    """Whether two words are British and American spellings of one word ("colonised"/"colonized",
    "colour"/"color", "centre"/"center"): the same word, whatever its frequency or sense counts."""
    a, b = a.lower(), b.lower()
    if a == b or abs(len(a) - len(b)) > 2:
        return False

    def normal(word: str) -> str:
        for british, american in _SPELLING_RULES:
            word = word.replace(british, american)
        return word

    return normal(a) == normal(b)


def _written_word(candidate: Candidate) -> str:
    """The replaced word as written (lower-case)."""
    return candidate.position.word.lower() if candidate.position is not None else candidate.word


@dataclass(frozen=True)
class SingleWord(CandidateConstraint):
    """One word is replaced by one word: multiword synonyms read as definitions ("city manager" for mayor,
    "of all time" for ever, "linguistic communication" for language). A multiword original may still
    get a multiword synonym."""

    reason: ClassVar[str] = "multiword"
    GATE: ClassVar[bool] = True

    def rejects(self, candidate: Candidate) -> bool:
        return " " in candidate.form and "_" not in candidate.lemma


@dataclass(frozen=True)
class Register(CandidateConstraint):
    """No synonym from a synset, or a lemma, that WordNet marks with a usage domain outside neutral written
    English (colloquialism, slang, archaism, abbreviation, trade name...; see `REGISTER_DOMAINS`)."""

    reason: ClassVar[str] = "register"
    GATE: ClassVar[bool] = True

    def rejects(self, candidate: Candidate) -> bool:
        return bool(usage_of(candidate.synset, candidate.name) & REGISTER_DOMAINS)

    def describe(self) -> str:
        return f"Register(WordNet usage domains: {len(REGISTER_DOMAINS)} marked registers)"


@dataclass(frozen=True)
class Abbreviation(CandidateConstraint):
    """No synonym without a vowel letter: an abbreviation ("yr", "hr", "wk", "st")."""

    reason: ClassVar[str] = "abbreviation"
    GATE: ClassVar[bool] = True

    def rejects(self, candidate: Candidate) -> bool:
        return not any(ch in "aeiou" for ch in candidate.name.lower())


@dataclass(frozen=True)
class FunctionWord(CandidateConstraint):
    """A content word is replaced by a content word: a synonym made only of stopwords ("exists" -> "is",
    "also" -> "too") changes the sentence's structure or scope, not its wording."""

    reason: ClassVar[str] = "function-word"
    GATE: ClassVar[bool] = True

    def rejects(self, candidate: Candidate) -> bool:
        function_words = stopwords()
        return all(w in function_words for w in candidate.form.lower().split())


@persistent("plural_form")
def _plural_form(word: str) -> bool:
    """Whether lemminflect reads `word` as an inflected (plural) noun form."""
    from lemminflect import getLemma

    lemma = getLemma(word, "NOUN", lemmatize_oov=False)
    return bool(lemma) and lemma[0] != word


@persistent("countable")
def countable(lemma_name: str) -> bool:
    """Whether lemminflect gives the noun (its head, for a multiword name) a plural other than itself: "war"
    is countable, "warfare", "athletics" and "research" are not."""
    from lemminflect import getInflection

    head = lemma_name.split("_")[-1]
    plural = getInflection(head, "NNS", inflect_oov=False)
    return bool(plural) and plural[0] != head


@dataclass(frozen=True)
class NumberAgreement(CandidateConstraint):
    """Grammatical number is kept: a singular noun is not replaced by a plural lemma ("government" ->
    "authorities", "army" -> "ground forces"), and a noun tagged plural that is its own lemma ("physics")
    only by an uninflected synonym."""

    reason: ClassVar[str] = "agreement"
    GATE: ClassVar[bool] = True

    def rejects(self, candidate: Candidate) -> bool:
        words = candidate.form.split()
        head = words[0] if candidate.tag.startswith("V") else words[-1]
        if candidate.tag == "NN" and _plural_form(head):
            return True
        word = _written_word(candidate)
        return candidate.tag == "NNS" and word == candidate.lemma and candidate.form != candidate.name.replace("_", " ")


@dataclass(frozen=True)
class Countability(CandidateConstraint):
    """A noun used as a count noun (a real plural, or after "a", "each", "many"...) is not replaced by a
    noun lemminflect knows only as a mass noun ("win a war" -> "win a warfare", "how many sports" -> "how
    many athletics")."""

    reason: ClassVar[str] = "countability"
    GATE: ClassVar[bool] = True

    def rejects(self, candidate: Candidate) -> bool:
        position = candidate.position
        if candidate.tag not in ("NN", "NNS") or position is None:
            return False
        before = position.neighbour(-1)
        previous = before.text.lower() if before is not None else ""
        used_as_count = (
            candidate.tag == "NNS" and _written_word(candidate) != candidate.lemma
        ) or previous in COUNT_DETERMINERS
        return used_as_count and " " not in candidate.name and not countable(candidate.name.lower())


@dataclass(frozen=True)
class FrameSuperset(CandidateConstraint):
    """A verb's synonym allows every sentence frame WordNet gives the verb in the chosen sense: "help" has
    "Somebody ----s to INFINITIVE", "aid" does not ("helped establish" -> "aided establish")."""

    reason: ClassVar[str] = "frame"
    GATE: ClassVar[bool] = True

    def rejects(self, candidate: Candidate) -> bool:
        if candidate.pos != "v":
            return False
        return not frames(candidate.synset, candidate.lemma) <= frames(candidate.synset, candidate.name)

    def describe(self) -> str:
        return "FrameSuperset(WordNet verb frames)"


@dataclass(frozen=True)
class Rarity(CandidateConstraint):
    """The synonym (as written, and as a lemma when one word: "deceased" is common, "decease" is not) has a
    wordfreq Zipf frequency of at least `floor` and at most `max_drop` below the replaced word's ("yr",
    "complexness", "macroscopical", "aright", "vantages"). A spelling variant of the word is exempt."""

    floor: float = 2.5
    max_drop: float = 2.0
    reason: ClassVar[str] = "rare"
    GATE: ClassVar[bool] = True

    def rejects(self, candidate: Candidate) -> bool:
        word = _written_word(candidate)
        if spelling_variant(word, candidate.form):
            return False
        frequency = zipf(candidate.form)
        if " " not in candidate.form:
            frequency = min(frequency, zipf(candidate.name.lower()))
        return frequency < self.floor or frequency < zipf(word) - self.max_drop

    def validate(self) -> None:
        if self.max_drop < 0:
            raise RecipeParameterError(f"Rarity needs max_drop >= 0, not {self.max_drop}")

    def describe(self) -> str:
        return f"Rarity(Zipf >= {self.floor:g}, at most {self.max_drop:g} below the word's)"


@dataclass(frozen=True)
class DominantSense(CandidateConstraint):
    """The synonym's own most frequent sense (WordNet's tagged counts within its part of speech; with no
    counts, WordNet's first sense) is the chosen synset, so a reader takes it in that sense ("law" reads as
    law, not police; "end" as extremity, not goal). Its part of speech must also carry at least
    `min_pos_share` of its counts ("fresh" is an adjective, not an adverb for "newly"). With `min_attested`
    > 0, a synonym tagged at least that often in this very synset passes too ("reach" for achieve). A
    spelling variant of the word is exempt."""

    min_attested: int = 0
    min_pos_share: float = 0.1
    reason: ClassVar[str] = "dominant-sense"
    GATE: ClassVar[bool] = True

    def rejects(self, candidate: Candidate) -> bool:
        if spelling_variant(_written_word(candidate), candidate.form):
            return False
        rows = senses_all_pos(candidate.name)
        pos = pos_of_synset(candidate.synset)
        same = [(s, c) for s, p, c in rows if p == pos]
        if not same:
            return True
        total = sum(c for _, _, c in rows)
        if total > 0 and sum(c for _, c in same) < self.min_pos_share * total:
            return True  # mostly another part of speech: attestation does not help
        top = max(c for _, c in same)
        dominant = (
            same[0][0] == candidate.synset if top == 0 else next(s for s, c in same if c == top) == candidate.synset
        )
        if dominant:
            return False
        return not (self.min_attested > 0 and count_in(candidate.name, candidate.synset) >= self.min_attested)

    def describe(self) -> str:
        attested = f", or tagged >= {self.min_attested} times in the sense" if self.min_attested else ""
        return (
            f"DominantSense(the synonym's most frequent sense{attested}; its POS >= {self.min_pos_share:g} of its uses)"
        )


@dataclass(frozen=True)
class AttestedSynonym(CandidateConstraint):
    """The synonym was tagged in the chosen sense at least once (cntlist) whenever the word was (at least
    `min_original` times): a lemma WordNet lists in the synset but no annotator ever used for it often names
    a neighbouring thing ("city manager" for mayor, "differential" for derivative)."""

    min_original: int = 1
    reason: ClassVar[str] = "unattested"
    GATE: ClassVar[bool] = True

    def rejects(self, candidate: Candidate) -> bool:
        if spelling_variant(_written_word(candidate), candidate.form):
            return False
        return (
            count_in(candidate.name, candidate.synset) == 0
            and count_in(candidate.lemma, candidate.synset) >= self.min_original
        )

    def describe(self) -> str:
        return f"AttestedSynonym(tagged in the sense when the word was, >= {self.min_original} times)"
