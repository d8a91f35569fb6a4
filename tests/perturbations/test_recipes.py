"""Recipes: registry, parameters, overrides and their validation, readable composition."""

from __future__ import annotations

import json

import pytest

from perturbations import RecipeParameterError, UnknownRecipeError, get_recipe, list_recipes


def test_registry_lists_the_four_recipes_sorted() -> None:
    names = [r.name for r in list_recipes()]
    assert names == ["both", "context", "qads", "qads-nouns"]
    for r in list_recipes():
        assert r.version and r.citation and r.fields <= {"question", "context"}


def test_fields_per_recipe() -> None:
    assert get_recipe("qads").fields == {"question"}
    assert get_recipe("qads-nouns").transformation.pos == ("n",)
    assert get_recipe("context").fields == {"context"}
    assert get_recipe("both").fields == {"question", "context"}


def test_unknown_recipe() -> None:
    with pytest.raises(UnknownRecipeError, match="choose one of: both, context, qads, qads-nouns"):
        get_recipe("textfooler")


def test_parameters_are_json_and_overrides_apply() -> None:
    r = get_recipe("qads", rate=0.5, protected_words=["Castle"])
    params = r.parameters()
    json.dumps(params)
    assert params["rate"] == 0.5 and params["protected_words"] == ["castle"]
    assert list(params)[:3] == ["fields", "wsd", "threshold"]
    assert get_recipe("qads", rate=None) == get_recipe("qads")
    sig = r.signature_fields()
    assert sig["recipe"] == "qads@1.1" and sig["rate"] == 0.5 and sig["wsd"] == "enhanced-lesk"


@pytest.mark.parametrize(
    "overrides",
    [{"rate": 0.0}, {"rate": 1.5}, {"threshold": -0.1}, {"wsd": "bert"}, {"pos": "x"}, {"max_substitutions": 0},
     {"min_substitutions": 3, "max_substitutions": 2}, {"max_substitutions": 1.5}, {"rate": "lots"}, {"colour": 1}],
)
def test_bad_parameters(overrides: dict[str, object]) -> None:
    with pytest.raises(RecipeParameterError):
        get_recipe("qads", **overrides)


def test_repr_shows_the_whole_composition() -> None:
    text = repr(get_recipe("qads"))
    for part in ("qads@1.1", "(transformation) WordNetSynonyms(wsd=enhanced-lesk", "(constraints)", "ProperNouns",
                 "Stopwords", "(budget) Budget(rate=0.25", "NotSelfOrOwnForm"):
        assert part in text


def test_recipes_are_immutable() -> None:
    r = get_recipe("qads")
    with pytest.raises(AttributeError):
        r.name = "other"  # type: ignore[misc]
