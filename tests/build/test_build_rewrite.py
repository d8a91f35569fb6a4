"""Span-safe rewriting (robustqa.rewrite): unit tests and hypothesis properties."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from perturbations.records import Substitution
from robustqa.errors import SpanIntegrityError
from robustqa.rewrite import apply_substitutions, rewrite_answers
from robustqa.squad import Answer


def sub(text: str, start: int, end: int, replacement: str, shift: int = 0) -> Substitution:
    return Substitution(
        start, end, start + shift, start + shift + len(replacement), text[start:end], replacement, "NN", "x.n.01", 1.0
    )


def edits(text: str, spans: list[tuple[int, int, str]]) -> list[Substitution]:
    """Substitutions with correct new offsets for non-overlapping (start, end, replacement) spans."""
    out, shift = [], 0
    for start, end, replacement in sorted(spans):
        out.append(sub(text, start, end, replacement, shift))
        shift += len(replacement) - (end - start)
    return out


CONTEXT = "The city is located near the big river in France."


def test_apply_right_to_left_and_shift_answers() -> None:
    subs = edits(CONTEXT, [(4, 8, "metropolis"), (12, 19, "situated"), (29, 32, "large")])
    rewrite = apply_substitutions(CONTEXT, subs)
    assert rewrite.text == "The metropolis is situated near the large river in France."
    moved = rewrite_answers(rewrite, [Answer("France", 42), Answer("river", 33), Answer("The", 0)], where="q")
    assert [a.answer_start for a in moved] == [rewrite.text.index("France"), rewrite.text.index("river"), 0]


def test_no_edits_is_identity() -> None:
    rewrite = apply_substitutions(CONTEXT, [])
    assert rewrite.text == CONTEXT
    assert rewrite_answers(rewrite, [Answer("France", 42)], where="q") == (Answer("France", 42),)


def test_edit_inside_an_answer_raises() -> None:
    rewrite = apply_substitutions(CONTEXT, edits(CONTEXT, [(29, 32, "large")]))
    with pytest.raises(SpanIntegrityError, match="falls inside the answer 'big river'"):
        rewrite_answers(rewrite, [Answer("big river", 29)], where="article 'A', question q7")


def test_edit_adjacent_to_an_answer_is_fine() -> None:
    rewrite = apply_substitutions(CONTEXT, edits(CONTEXT, [(29, 32, "large")]))
    assert rewrite_answers(rewrite, [Answer("river", 33), Answer("the ", 25)], where="q")[0].answer_start == 35


def test_record_that_does_not_describe_its_text_raises() -> None:
    wrong = Substitution(4, 8, 4, 8, "town", "city", "NN", "city.n.01", 1.0)
    with pytest.raises(SpanIntegrityError, match="is not at characters 4-8"):
        apply_substitutions(CONTEXT, [wrong])


def test_wrong_new_offsets_raise() -> None:
    first, second = edits(CONTEXT, [(4, 8, "metropolis"), (12, 19, "situated")])
    stale = Substitution(
        second.start,
        second.end,
        second.start,
        second.start + 8,
        second.original,
        second.replacement,
        "VBN",
        "x.v.01",
        1.0,
    )
    with pytest.raises(SpanIntegrityError, match="new offsets"):
        apply_substitutions(CONTEXT, [first, stale])


def test_overlapping_edits_raise() -> None:
    with pytest.raises(SpanIntegrityError, match="overlap"):
        apply_substitutions(CONTEXT, [sub(CONTEXT, 4, 8, "town"), sub(CONTEXT, 6, 11, "xx")])


def test_answer_misaligned_in_original_raises() -> None:
    rewrite = apply_substitutions(CONTEXT, [])
    with pytest.raises(SpanIntegrityError, match="not at 3 of the original"):
        rewrite_answers(rewrite, [Answer("France", 3)], where="q")


WORDS = st.text(alphabet="abcé xyz,.", min_size=0, max_size=6)


@st.composite
def scenario(draw: st.DrawFn) -> tuple[str, list[Substitution], list[Answer]]:
    context = draw(st.text(alphabet="abcdefghij é.,", min_size=1, max_size=80))
    cuts = sorted(set(draw(st.lists(st.integers(0, len(context)), max_size=12))))
    pieces = list(zip([0] + cuts, cuts + [len(context)]))
    spans, answers = [], []
    for start, end in pieces:
        role = draw(st.sampled_from(["edit", "answer", "plain"]))
        if role == "edit" and end > start:
            spans.append((start, end, draw(WORDS)))
        elif role == "answer":
            answers.append(Answer(context[start:end], start))
            inner = draw(st.integers(start, end))  # answers may also end inside untouched text
            answers.append(Answer(context[start:inner], start))
    return context, edits(context, spans), answers


@settings(max_examples=300, deadline=None)
@given(scenario())
def test_property_rewritten_answers_always_match(case: tuple[str, list[Substitution], list[Answer]]) -> None:
    context, subs, answers = case
    rewrite = apply_substitutions(context, subs)
    for answer, moved in zip(answers, rewrite_answers(rewrite, answers, where="q")):
        assert rewrite.text[moved.answer_start : moved.answer_start + len(moved.text)] == answer.text
    # the rewritten text is the original with each edit swapped in
    rebuilt, cursor = [], 0
    for s in sorted(subs, key=lambda s: s.start):
        rebuilt += [context[cursor : s.start], s.replacement]
        cursor = s.end
    assert rewrite.text == "".join(rebuilt) + context[cursor:]


@settings(max_examples=200, deadline=None)
@given(scenario(), st.data())
def test_property_an_edit_inside_an_answer_never_passes(
    case: tuple[str, list[Substitution], list[Answer]], data: st.DataObject
) -> None:
    context, subs, _ = case
    nonempty = [s for s in subs if s.end > s.start]
    assume(nonempty)
    target = data.draw(st.sampled_from(nonempty))
    rewrite = apply_substitutions(context, subs)
    start = data.draw(st.integers(0, target.start))
    end = data.draw(st.integers(target.start + 1, len(context)))
    with pytest.raises(SpanIntegrityError):
        rewrite_answers(rewrite, [Answer(context[start:end], start)], where="q")
