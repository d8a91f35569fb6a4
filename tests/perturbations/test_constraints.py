"""Position rules (which words may change) and candidate rules (which replacements are acceptable)."""

from __future__ import annotations

import pytest

from perturbations.constraints import acceptable_form, acceptable_lemma, overlaps, position_reason
from perturbations.text import tag


def reasons(text: str, protected: frozenset[str] = frozenset(), frozen: tuple[tuple[int, int], ...] = ()) -> dict[str, str | None]:
    toks = tag(text)
    return {t.text: position_reason(toks, i, protected, frozen) for i, t in enumerate(toks) if t.text.isalnum() or "'" in t.text}


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
    assert reasons(text, protected=frozenset({"castle"}))["castle"] == "protected"
    start = text.index("king")
    assert reasons(text, frozen=((start, start + 2),))["king"] == "frozen"
    assert reasons(text, frozen=((start + 4, start + 4),))["king"] is None


def test_overlaps() -> None:
    assert overlaps(2, 5, [(4, 9)]) and not overlaps(2, 5, [(5, 9)]) and not overlaps(2, 5, [(3, 3)])


def test_never_the_word_itself_or_a_form_of_it() -> None:
    assert not acceptable_lemma("locate", "located", "locate")
    assert not acceptable_lemma("half_brother", "half-brother", "half-brother")
    assert not acceptable_form("Norse", "Norse", "norse", frozenset({"norse"}))
    assert not acceptable_form("locate", "located", "locate", frozenset({"locate", "located", "locates", "locating"}))
    assert not acceptable_form("locates", "located", "locate", frozenset({"locate", "located", "locates", "locating"}))
    assert acceptable_form("situated", "located", "locate", frozenset({"locate", "located", "locates", "locating"}))


def test_candidate_lemma_rules() -> None:
    assert acceptable_lemma("soldier_of_fortune", "mercenary", "mercenary")
    assert not acceptable_lemma("United_States", "country", "country")  # proper lemma for a common word
    assert not acceptable_lemma("railway_car", "car", "car")  # contains the word
    assert not acceptable_lemma("x2", "car", "car")
    assert not acceptable_form("ice_cream", "sorbet", "sorbet", frozenset())
