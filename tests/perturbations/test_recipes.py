"""Recipes: the versioned registry, parameters, overrides and their validation, readable composition."""

from __future__ import annotations

import dataclasses
import json

import pytest

from perturbations import (
    CandidateConstraint,
    RecipeParameterError,
    RecipeRegistrationError,
    Soft,
    UnknownRecipeError,
    UnknownRecipeVersionError,
    get_recipe,
    list_recipes,
)
from perturbations.constraints.words import PartsOfSpeech
from perturbations.registry import RecipeRegistry

NAMES = [
    "both",
    "context",
    "qads",
    "qads-judge",
    "qads-lm",
    "qads-lm-strict",
    "qads-loose",
    "qads-nouns",
    "qads-strict",
    "qads-strictest",
]


def test_registry_lists_every_recipe_version_sorted() -> None:
    assert [r.ident for r in list_recipes()] == [
        "both@1.1",
        "both@2.0",
        "context@1.1",
        "context@2.0",
        "qads@1.1",
        "qads@2.0",
        "qads@2.1",
        "qads@2.2",
        "qads-judge@1",
        "qads-judge@2",
        "qads-judge@3",
        "qads-lm@2.0",
        "qads-lm@2.1",
        "qads-lm@2.2",
        "qads-lm-strict@2.1",
        "qads-loose@2.0",
        "qads-nouns@1.1",
        "qads-nouns@2.0",
        "qads-strict@2.0",
        "qads-strictest@2.0",
        "spelling@1",
        "spelling@2",
    ]
    for r in list_recipes():
        assert r.version and r.citation and r.fields <= {"question", "context"}
    # 2.0 is every other name's default
    defaults = {"qads": "2.2", "qads-judge": "2", "qads-lm": "2.2", "qads-lm-strict": "2.1"}
    assert get_recipe("spelling").version == "2"
    for name in NAMES:
        assert get_recipe(name).version == defaults.get(name, "2.0")


def test_fields_per_recipe() -> None:
    assert get_recipe("qads").fields == {"question"}
    assert get_recipe("qads-nouns").parameters()["pos"] == ["n"]
    assert any(c == PartsOfSpeech(("n",)) for c in get_recipe("qads-nouns").constraints)
    assert get_recipe("context").fields == {"context"}
    assert get_recipe("both").fields == {"question", "context"}


def test_unknown_recipe() -> None:
    with pytest.raises(UnknownRecipeError, match="choose one of: " + ", ".join(NAMES)):
        get_recipe("textfooler")
    with pytest.raises(UnknownRecipeError, match="unknown recipe 'textfooler'"):
        get_recipe("textfooler@1.1")


def test_a_name_means_its_default_version_and_name_at_version_that_version() -> None:
    for recipe in list_recipes():
        assert get_recipe(recipe.ident) is recipe
    assert get_recipe("qads") is get_recipe("qads@2.2") and get_recipe("qads") is not get_recipe("qads@2.1")
    assert get_recipe("qads@1.1", rate=0.5).ident == "qads@1.1"


def test_an_unknown_version_lists_the_available_ones() -> None:
    message = r"recipe 'qads' has no version '9.9'; available versions: 1.1, 2.0, 2.1, 2.2 \(default\)"
    with pytest.raises(UnknownRecipeVersionError, match=message) as caught:
        get_recipe("qads@9.9")
    assert caught.value.available == ("1.1", "2.0", "2.1", "2.2") and caught.value.known == (
        "qads@1.1",
        "qads@2.0",
        "qads@2.1",
        "qads@2.2",
    )
    assert isinstance(caught.value, UnknownRecipeError)  # callers catching the wider error still catch it
    with pytest.raises(UnknownRecipeVersionError, match="no version ''"):
        get_recipe("qads@")


def test_registry_keeps_every_version_and_never_replaces_one() -> None:
    registry = RecipeRegistry()
    base = get_recipe("qads")
    v = {ver: dataclasses.replace(base, version=ver) for ver in ("1.1", "1.9", "1.10", "2.0")}
    registry.register(v["1.9"])
    registry.register(v["1.1"])
    assert registry.get("qads") is v["1.9"]  # the first registered version is the default...
    registry.register(v["2.0"], default=True)
    registry.register(v["1.10"])
    assert registry.get("qads") is v["2.0"]  # ...until another is registered as the default
    assert registry.versions("qads") == ("1.1", "1.9", "1.10", "2.0")
    assert [r.version for r in registry.all()] == ["1.1", "1.9", "1.10", "2.0"]
    assert registry.get("qads@1.1") is v["1.1"] and registry.default_version("qads") == "2.0"
    with pytest.raises(RecipeRegistrationError, match="already registered; a changed recipe needs a new version"):
        registry.register(dataclasses.replace(base, version="1.1", description="changed"))
    assert registry.get("qads@1.1") is v["1.1"]
    for bad in ("", "1@2", " 1.2"):
        with pytest.raises(RecipeRegistrationError):
            registry.register(dataclasses.replace(base, version=bad))
    with pytest.raises(RecipeRegistrationError):
        registry.register(dataclasses.replace(base, name="qads@x", version="3.0"))
    with pytest.raises(UnknownRecipeVersionError, match="available versions: 1.1, 1.9, 1.10, 2.0 \\(default\\)"):
        registry.get("qads@3.0")


def test_parameters_are_json_and_overrides_apply() -> None:
    r = get_recipe("qads", rate=0.5, protected_words=["Castle"])
    params = r.parameters()
    json.dumps(params)
    assert params["rate"] == 0.5 and params["protected_words"] == ["castle"]
    assert list(params)[:3] == ["fields", "wsd", "threshold"]
    assert get_recipe("qads", rate=None) == get_recipe("qads")
    sig = r.signature_fields()
    assert sig["recipe"] == "qads@2.2" and sig["rate"] == 0.5 and sig["wsd"] == "enhanced-lesk"
    old = get_recipe("qads@1.1").parameters()
    assert "gates" not in old and "ranks" not in old  # 1.1 files and signatures stay as they were


@pytest.mark.parametrize(
    "overrides",
    [
        {"rate": 0.0},
        {"rate": 1.5},
        {"threshold": -0.1},
        {"wsd": "bert"},
        {"pos": "x"},
        {"max_substitutions": 0},
        {"min_substitutions": 3, "max_substitutions": 2},
        {"max_substitutions": 1.5},
        {"rate": "lots"},
        {"colour": 1},
    ],
)
def test_bad_parameters(overrides: dict[str, object]) -> None:
    with pytest.raises(RecipeParameterError):
        get_recipe("qads", **overrides)


@pytest.mark.parametrize("spec", ["qads@1.1", "qads@2.0"])
def test_repr_shows_the_whole_composition(spec: str) -> None:
    recipe = get_recipe(spec)
    text = repr(recipe)
    for part in (
        spec,
        "(transformation) WordNetSynonyms(wsd=enhanced-lesk",
        "(constraints)",
        "ProperNouns",
        "Stopwords",
        "(budget) Budget(rate=0.25",
        "(candidate, form) NotOwnForm",
        "(position) PartsOfSpeech(n,v,a,r) -> pos",
    ):
        assert part in text
    for constraint in recipe.constraints:  # every acting object has its line, in the order it acts
        if isinstance(constraint, Soft):
            assert f") {constraint.describe()} -> penalised: {constraint.reason}" in text
        else:
            assert f") {constraint.describe()} -> {constraint.reason}" in text
    lines = [line.strip() for line in text.splitlines() if line.strip().startswith("(position)")]
    assert [line.rsplit("-> ", 1)[1] for line in lines] == [c.reason for c in recipe.plan.position]
    assert "ProtectedWords(castle)" in repr(get_recipe("qads", protected_words=["Castle"]))
    assert "PartsOfSpeech(n)" in repr(get_recipe("qads-nouns"))


def test_overrides_reach_the_object_that_owns_the_parameter() -> None:
    r = get_recipe("qads", pos="n,v", protected_words="castle", threshold=0.5, max_substitutions=2)
    assert PartsOfSpeech(("n", "v")) in r.constraints
    assert r.transformation.threshold == 0.5 and r.budget.max_substitutions == 2
    assert get_recipe("qads").constraints != r.constraints  # the registered recipe is untouched
    with pytest.raises(RecipeParameterError, match="no parameter 'colour'; parameters: max_substitutions, "):
        get_recipe("qads", colour=1)


def test_recipes_are_immutable() -> None:
    r = get_recipe("qads")
    with pytest.raises(AttributeError):
        r.name = "other"  # type: ignore[misc]


def test_every_reason_a_2_0_recipe_can_count_is_named() -> None:
    """Every rule's reason appears in `reasons()` (hard) or `penalty_reasons()` (soft), and what a 2.0
    recipe records about its gates in files and signatures comes from those objects."""
    recipe = get_recipe("qads@2.0")
    for c in recipe.constraints:
        if isinstance(c, Soft):
            assert c.reason in recipe.penalty_reasons()
        elif not isinstance(c, CandidateConstraint) or c.stage.value not in ("lemma", "form"):
            assert c.reason in recipe.reasons()
    assert recipe.penalty_reasons() == ("complement", "weak-sense", "dominant-sense", "rare")
    params = recipe.parameters()
    assert (
        params["gates"] == list(recipe.gate_reasons()) and "compound" in params["gates"] and "rare" in params["gates"]
    )
    assert params["ranks"] == ["complement", "weak-sense", "dominant-sense", "rare"]
    sig = recipe.signature_fields()
    assert (
        sig["ranks"] == "complement,weak-sense,dominant-sense,rare" and sig["max_subs"] == 1 and sig["threshold"] == 0.7
    )
    strict = get_recipe("qads-strict")
    assert "adverb" in strict.gate_reasons() and "dominant-sense" in strict.gate_reasons()
    assert strict.penalty_reasons() == ("weak-sense", "rare")


def test_the_settings_of_2_0_differ_where_documented() -> None:
    base, loose = get_recipe("qads"), get_recipe("qads-loose")
    assert (
        loose.constraints == base.constraints
        and loose.budget.max_substitutions == 2
        and base.budget.max_substitutions == 1
    )
    strict, strictest = get_recipe("qads-strict"), get_recipe("qads-strictest")
    assert strict.transformation.threshold == 0.7 and strictest.transformation.threshold == 0.8
    assert get_recipe("qads-nouns").parameters()["pos"] == ["n"]
    for name in ("context", "both"):  # their own budgets, the 2.0 gates
        recipe = get_recipe(name)
        assert recipe.budget.max_substitutions == 30 and recipe.gate_reasons() == base.gate_reasons()
