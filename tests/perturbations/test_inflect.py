"""Re-inflection to the original Penn tag, case, and a/an agreement."""

from __future__ import annotations

import pytest

from perturbations import get_recipe
from perturbations.inflect import agree_article, forms, indefinite_article, inflect, match_case


@pytest.mark.parametrize(
    ("lemma", "tag", "expected"),
    [
        ("situate", "VBN", "situated"),
        ("situate", "VBZ", "situates"),
        ("automobile", "NNS", "automobiles"),
        ("large", "JJR", "larger"),
        ("soldier_of_fortune", "NNS", "soldiers of fortune"),
        ("turn_up", "VBD", "turned up"),
        ("ice_cream", "NN", "ice cream"),
        ("situate", "VB", "situate"),
    ],
)
def test_inflect(lemma: str, tag: str, expected: str) -> None:
    assert inflect(lemma, tag) == expected


def test_no_form_means_no_candidate() -> None:
    assert inflect("car", "IN") is None
    assert forms("car", "NNS") == ("cars",)


def test_case_is_kept() -> None:
    assert match_case("Located", "situated") == "Situated"
    assert match_case("LOCATED", "situated") == "SITUATED"
    assert match_case("located", "situated") == "situated"


@pytest.mark.parametrize(
    ("word", "article"),
    [("automobile", "an"), ("car", "a"), ("hour", "an"), ("university", "a"), ("one", "a"), ("eatery", "an")],
)
def test_indefinite_article(word: str, article: str) -> None:
    assert indefinite_article(word) == article


def test_article_agreement_keeps_case() -> None:
    assert agree_article("A", "automobile") == "An"
    assert agree_article("an", "car") == "a"
    assert agree_article("a", "car") == "a"


def test_engine_reinflects_located_as_situated_never_situate() -> None:
    # A context that selects situate.v.01 ("determine or indicate the place, site, or limits of").
    context = "Surveyors determine and indicate the place and the limits of a site with an instrument."
    p = get_recipe("qads@1.1").perturb("Where was the house located?", seed=1, key="k", wsd_context=context)
    located = [s for s in p.substitutions if s.original == "located"]
    assert located and located[0].replacement == "situated"


def test_engine_keeps_plural_nouns_plural_and_fixes_the_article() -> None:
    recipe = get_recipe("qads@1.1", rate=1.0, pos="n")
    p = recipe.perturb("He bought a car and two cars.", seed=1, key="k")
    assert p.perturbed == "He bought an automobile and two automobiles."
    first = p.substitutions[0]
    assert (first.original, first.replacement) == ("a car", "an automobile")


def test_engine_keeps_title_case_at_sentence_start() -> None:
    p = get_recipe("qads@1.1").perturb("Cars are fast.", seed=1, key="k")
    assert p.perturbed.startswith("Automobiles ")
