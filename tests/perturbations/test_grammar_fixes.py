"""Two grammar fixes of recipe version 1.1: finite forms of "be", and the possessive after a plural."""

from __future__ import annotations

import pytest

from perturbations import get_recipe
from perturbations.inflect import inflect, possessive_clitic
from perturbations.text import tag


@pytest.mark.parametrize(
    ("lemma", "tag_", "expected"),
    [
        ("be", "VBZ", "is"),  # "exists" -> "is", never "be"
        ("be", "VBP", None),  # "am" or "are": depends on the subject, so the candidate is rejected
        ("be", "VBD", None),  # "was" or "were": likewise
        ("be", "VB", "be"),  # "known to exist" -> "known to be" is right
        ("be", "VBN", "been"),
        ("be_born", "VBZ", "is born"),
        ("exist", "VBP", "exist"),  # other verbs keep their base form in the present
    ],
)
def test_finite_forms_of_be(lemma: str, tag_: str, expected: str | None) -> None:
    assert inflect(lemma, tag_) == expected


def test_exists_becomes_is_in_a_question() -> None:
    out = get_recipe("qads@1.1").perturb("What exists beneath the ice?", seed=1, key="k")
    assert out.perturbed == "What is beneath the ice?"


@pytest.mark.parametrize(
    ("text", "index", "new_word", "clitic"),
    [
        ("the men's team", 1, "adult males", "'s"),  # plural replaced by a plural in s: "'s" -> "'"
        ("the men's team", 1, "menfolk", None),  # no final s: "menfolk's" is right
        ("the boss's car", 1, "foreman", None),
        ("the government's plan", 1, "authorities", "'s"),  # a singular replaced by a plural lemma
        ("the government's plan", 1, "administrations", "'s"),
        ("the car's door", 1, "bus", None),  # a singular ending in s keeps "'s"
    ],
)
def test_possessive_after_a_plural_in_s(text: str, index: int, new_word: str, clitic: str | None) -> None:
    found = possessive_clitic(tag(text), index, new_word)
    assert (found.text if found is not None else None) == clitic


def test_possessive_is_rewritten_in_the_output() -> None:
    text = "Who accepted the German government's arguments that the measure proportional protected public health?"
    out = get_recipe("qads@1.1").perturb(text, seed=13, key="aa6ada453ecffefe5ca3e2c4a")
    assert "authorities' arguments" in out.perturbed and "s's" not in out.perturbed
    sub = next(s for s in out.substitutions if s.original.startswith("government"))
    assert (sub.original, sub.replacement) == ("government's", "authorities'")
    assert text[sub.start : sub.end] == sub.original and out.perturbed[sub.new_start : sub.new_end] == sub.replacement
