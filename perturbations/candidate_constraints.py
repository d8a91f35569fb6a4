"""Which replacements are acceptable: the candidate constraints of the built-in recipes.

They reject what is not a real substitution: the word itself in another spelling or any form of it
("located" -> "locate", "Norse" -> "Norse"), lemmas that contain the word ("car" -> "railway car"),
capitalised (proper) lemmas for common words, characters other than letters, forms lemminflect does not
know for the word's tag, and edits whose agreement with a neighbouring word would change frozen text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from perturbations.constraints import Candidate, CandidateConstraint, Stage, overlaps
from perturbations.inflect import (
    POSSESSIVES,
    agree_article,
    article_before,
    lemma_forms,
    match_case,
    possessive_clitic,
)


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
