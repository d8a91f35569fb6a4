"""Constraint objects: position constraints (which words may change) and candidate constraints (which
replacements are acceptable), each acting and describing itself; a new rule is one new object."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import ClassVar

import pytest

from perturbations import (
    Candidate,
    CandidateConstraint,
    Position,
    PositionConstraint,
    Stage,
    get_recipe,
)
from perturbations.constraints import ConstraintPlan, overlaps
from perturbations.constraints.replacements import (
    ArticleAgreement,
    Inflectable,
    LettersOnly,
    NoProperLemma,
    NotOwnForm,
    NotSelf,
    NoUnderscore,
    PossessiveAgreement,
)
from perturbations.constraints.words import (
    FrozenSpans,
    PartsOfSpeech,
    ProperNouns,
    ProtectedWords,
    TagFitsWord,
)
from perturbations.text import tag

Spans = tuple[tuple[int, int], ...]


def reasons(text: str, protected: tuple[str, ...] = (), frozen: Spans = ()) -> dict[str, str | None]:
    """Why each word of `text` stays as it is under qads's position constraints (None: it may change)."""
    plan = get_recipe("qads@1.1", protected_words=protected or None).plan
    toks = tag(text)
    return {t.text: plan.rejection(toks, i, frozen) for i, t in enumerate(toks) if t.text.isalnum() or "'" in t.text}


def asked_in_order(rules: tuple[PositionConstraint, ...], text: str, index: int, frozen: Spans = ()) -> str | None:
    """The reference answer: every position constraint asked in order, nothing memoised."""
    position = Position(tag(text), index, frozen)
    return next((c.reason for c in rules if c.rejects(position)), None)


@pytest.mark.parametrize(
    ("text", "word", "reason"),
    [
        ("Who ruled the kingdom?", "Who", "wh-word"),
        ("Which kingdom fell?", "Which", "wh-word"),
        ("Where is France located?", "is", "auxiliary"),
        ("What could the king have done?", "could", "auxiliary"),
        ("What did the king have?", "have", "auxiliary"),
        ("What did they build?", "they", "pronoun"),
        ("Which of these castles fell?", "these", "determiner"),
        ("What fell during the war?", "during", "preposition"),
        ("Where is France located?", "France", "proper-noun"),
        ("When did the Norse king arrive?", "Norse", "proper-noun"),
        ("Big O notation bounds what?", "Big", "proper-noun"),
        ("What does NASA build?", "NASA", "proper-noun"),
        ("What happened in 1066?", "1066", "number"),
        ("How many of the seven kings ruled?", "seven", "number"),
        ("What happened in the first war?", "first", "number"),
        ("What happened on Monday in July?", "Monday", "date"),
        ("What is not a castle?", "not", "stopword"),
        ("What and why?", "and", "stopword"),
    ],
)
def test_protected_positions(text: str, word: str, reason: str) -> None:
    assert reasons(text)[word] == reason


def test_content_words_may_change() -> None:
    r = reasons("Name the castle that the old king built.")
    assert r["Name"] is None and r["castle"] is None and r["old"] is None and r["built"] is None


def test_user_protected_words_and_frozen_spans() -> None:
    text = "What castle did the king build?"
    assert reasons(text, protected=("castle",))["castle"] == "protected"
    start = text.index("king")
    assert reasons(text, frozen=((start, start + 2),))["king"] == "frozen"
    assert reasons(text, frozen=((start + 4, start + 4),))["king"] is None


def test_memoised_verdicts_equal_asking_every_constraint_in_order() -> None:
    """The plan asks word-only constraints once per (word, tag) and frozen-span ones only where there are
    frozen spans: the reasons must be those of asking every constraint, in order, at every word."""
    recipe = get_recipe("qads-nouns@1.1", protected_words=["castle"])
    texts = [
        "Which castle did the Norse king build near the river in 1066?",
        "The castle was built; the king, who was old, built it.",
        "Where did the raiders sail after they had burned the castle?",
    ]
    for text in texts:
        toks = tag(text)
        for frozen in ((), ((0, 3), (text.index("king") if "king" in text else 4, len(text) - 2))):
            for i in range(len(toks)):
                expected = asked_in_order(recipe.plan.position, text, i, frozen)
                assert recipe.plan.rejection(toks, i, frozen) == expected, (text, i)


def test_part_of_speech_and_tag_fit() -> None:
    toks = tag("The kings ruled wisely.")
    nouns = PartsOfSpeech(("n",))
    assert not nouns.rejects(Position(toks, 1)) and nouns.rejects(Position(toks, 2))
    assert PartsOfSpeech().rejects(Position(toks, 0))  # "The": no WordNet part of speech
    fits = TagFitsWord()
    assert not fits.rejects(Position(toks, 1)) and not fits.rejects(Position(toks, 2))
    took = tag("They took the town.")
    assert not fits.rejects(Position(took, 1))
    wrong = (took[0], dataclasses.replace(took[1], tag="VBN")) + took[2:]  # "took" is not the VBN of "take"
    assert fits.rejects(Position(wrong, 1))


def test_proper_nouns_look_at_the_neighbours() -> None:
    rule = ProperNouns()
    assert not rule.rejects(Position(tag("Big dogs bark."), 0))  # a sentence-initial capital is no evidence
    assert rule.rejects(Position(tag("Big O notation bounds what?"), 0))  # before another capitalised word
    assert rule.rejects(Position(tag("What does NASA build?"), 2))  # all capitals


def test_overlaps() -> None:
    assert overlaps(2, 5, [(4, 9)]) and not overlaps(2, 5, [(5, 9)]) and not overlaps(2, 5, [(3, 3)])
    toks = tag("The king ruled.")
    assert FrozenSpans().rejects(Position(toks, 1, ((5, 6),)))
    assert not FrozenSpans().rejects(Position(toks, 1, ((0, 3),)))


def candidate(
    name: str,
    form: str,
    *,
    word: str = "located",
    tag_: str = "VBN",
    lemma: str = "locate",
    pos: str = "v",
    inflected: bool = True,
    position: Position | None = None,
) -> Candidate:
    return Candidate(word, tag_, lemma, pos, "situate.v.01", name, form, inflected, position)


def noun(name: str, form: str, word: str, position: Position | None = None) -> Candidate:
    """A candidate for a singular noun that is its own lemma."""
    return candidate(name, form, word=word, tag_="NN", lemma=word, pos="n", position=position)


def test_never_the_word_itself_or_a_form_of_it() -> None:
    assert NotSelf().rejects(candidate("locate", "located"))
    assert NotSelf().rejects(noun("half_brother", "half brother", "half-brother"))
    assert NotSelf().rejects(noun("railway_car", "railway car", "car"))
    assert NotOwnForm().rejects(candidate("x", "Norse", word="norse", tag_="JJ", lemma="norse", pos="a"))
    assert NotOwnForm().rejects(candidate("locate", "locate"))
    assert NotOwnForm().rejects(candidate("locate", "locates"))
    assert not NotOwnForm().rejects(candidate("situate", "situated"))
    assert not NotSelf().rejects(candidate("situate", "situated"))


def test_candidate_lemma_and_form_rules() -> None:
    soldier = noun("soldier_of_fortune", "soldier of fortune", "mercenary")
    assert not any(rule.rejects(soldier) for rule in (NoProperLemma(), NotSelf(), LettersOnly()))
    assert NoProperLemma().rejects(noun("United_States", "United States", "country"))
    assert LettersOnly().rejects(noun("x2", "x2", "car"))
    assert NoUnderscore().rejects(noun("ice_cream", "ice_cream", "sorbet"))
    assert NoUnderscore().rejects(noun("x", " ", "sorbet"))
    assert Inflectable().rejects(candidate("situate", "situate", inflected=False))
    assert not Inflectable().rejects(candidate("situate", "situated"))


def test_agreement_with_frozen_neighbours() -> None:
    text = "He bought a car's wheel."
    toks = tag(text)
    car = next(i for i, t in enumerate(toks) if t.text == "car")
    article = text.index(" a ") + 1
    here = Position(toks, car, ((article, article + 1),))
    assert ArticleAgreement().rejects(noun("automobile", "automobile", "car", here))
    assert not ArticleAgreement().rejects(noun("motorcar", "motorcar", "car", here))
    clitic = text.index("'s")
    there = Position(toks, car, ((clitic, clitic + 2),))
    assert PossessiveAgreement().rejects(noun("autos", "autos", "car", there))
    assert not PossessiveAgreement().rejects(noun("auto", "auto", "car", there))


# --- a new rule is one new object ---------------------------------------------------------------------


@dataclass(frozen=True)
class NoWordsEndingIn(PositionConstraint):
    """A test rule: words ending in `suffix` stay."""

    suffix: str = "ings"
    reason: ClassVar[str] = "test-suffix"
    WORD_ONLY: ClassVar[bool] = True

    def rejects(self, position: Position) -> bool:
        return position.lower.endswith(self.suffix)


@dataclass(frozen=True)
class NotAfter(CandidateConstraint):
    """A test rule judged in context: after the word `after`, none of `forms` is written (any form when empty)."""

    after: str = "What"
    forms: frozenset[str] = frozenset()
    stage: ClassVar[Stage] = Stage.CONTEXT
    reason: ClassVar[str] = "test-context"

    def rejects(self, candidate: Candidate) -> bool:
        assert candidate.position is not None and candidate.senses and candidate.confidence is not None
        previous = candidate.position.neighbour(-1)
        return previous is not None and previous.text == self.after and (not self.forms or candidate.form in self.forms)


QUESTION = "What kind of buildings did the Normans build in a city?"


def with_extra(*extra: object) -> object:
    base = get_recipe("qads@1.1")
    return dataclasses.replace(base, version="test", constraints=base.constraints + extra)


def test_a_new_position_constraint_acts_and_describes_itself() -> None:
    recipe = with_extra(NoWordsEndingIn())
    plain = get_recipe("qads@1.1").perturb(QUESTION, seed=13, key="q1")
    guarded = recipe.perturb(QUESTION, seed=13, key="q1")
    assert "buildings" in plain.original and "edifices" in plain.perturbed
    assert "buildings" in guarded.perturbed and guarded.skipped_counts()["test-suffix"] == 1
    assert "(position) NoWordsEndingIn -> test-suffix" in repr(recipe)
    assert "test-suffix" in recipe.reasons()


def test_a_context_stage_candidate_constraint_sees_the_position_and_the_senses() -> None:
    plain = get_recipe("qads@1.1").perturb(QUESTION, seed=13, key="q1")
    assert plain.perturbed.startswith("What sort of edifices")
    no_sort = with_extra(NotAfter(forms=frozenset({"sort"}))).perturb(QUESTION, seed=13, key="q1")
    assert no_sort.perturbed.startswith("What form of edifices")  # the next-ranked synonym
    recipe = with_extra(NotAfter())
    guarded = recipe.perturb(QUESTION, seed=13, key="q1")
    assert guarded.perturbed.startswith("What kind of edifices") and guarded.skipped_counts()["test-context"] == 1
    assert "(candidate, context) NotAfter -> test-context" in repr(recipe)
    elsewhere = recipe.perturb("Which kind of buildings did the Normans build in a city?", seed=13, key="q1")
    assert elsewhere.perturbed.startswith("Which sort of")  # the same word after another word may change


def test_lexical_constraints_key_their_memoised_candidates() -> None:
    """Recipes whose LEMMA/FORM constraints differ never share memoised candidate lists."""
    base = get_recipe("qads@1.1")
    without = tuple(c for c in base.constraints if not isinstance(c, NoProperLemma))
    assert ConstraintPlan.of(without).lexical_key != base.plan.lexical_key
    assert ConstraintPlan.of(base.constraints).lexical_key == base.plan.lexical_key
    assert ConstraintPlan.of(base.constraints + (NoWordsEndingIn(),)).lexical_key == base.plan.lexical_key
    loose = dataclasses.replace(base, version="test-loose", constraints=without)
    text = "Who was the king of the land?"
    assert base.perturb(text, seed=1, key="k").perturbed == "Who was the male monarch of the land?"
    assert loose.perturb(text, seed=1, key="k").perturbed == "Who was the Rex of the land?"  # a proper lemma
    assert base.perturb(text, seed=1, key="k").perturbed == "Who was the male monarch of the land?"


def test_protected_words_describe_their_parameter() -> None:
    assert ProtectedWords(frozenset({"castle", "king"})).describe() == "ProtectedWords(castle,king)"
    assert ProtectedWords().describe() == "ProtectedWords(-)"


def test_a_constraint_without_a_reason_name_is_refused() -> None:
    @dataclass(frozen=True)
    class Nameless(PositionConstraint):
        def rejects(self, position: Position) -> bool:
            return False

    with pytest.raises(TypeError, match="Nameless needs a reason name"):
        ConstraintPlan.of((Nameless(),))
