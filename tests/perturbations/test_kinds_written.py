"""Recipe versions published since edit kinds exist write each substitution's kind; older ones write what they
always wrote. The engine writes the kind (one place), so a budget's edits and an attack's carry the same."""

from __future__ import annotations

import dataclasses

import pytest

from perturbations import RecipeParameterError, apply_edits, get_recipe, list_recipes
from perturbations.builtin_recipes import with_kinds
from perturbations.edit_kinds import EDIT_KIND_RULES, RULES, edit_kind
from perturbations.records import Perturbation

QUESTIONS = (
    "What year did the colour of the castle walls change?",
    "Which vessel carried the largest cargo to the harbour?",
    "How many soldiers defended the old fortress during the siege?",
    "What did the organisation publish about the programme?",
)


def _stripped(done: Perturbation) -> Perturbation:
    return dataclasses.replace(done, substitutions=tuple(dataclasses.replace(s, kind="") for s in done.substitutions))


def _as_json(done: Perturbation) -> list[dict[str, object]]:
    return [s.to_dict() for s in done.substitutions]


@pytest.mark.parametrize("rules", sorted(RULES))
@pytest.mark.parametrize("spec", ["qads@2.0", "qads@1.1", "spelling@1"])
def test_a_twin_that_writes_kinds_writes_the_same_edits_each_with_its_kind(spec: str, rules: str) -> None:
    old = get_recipe(spec)
    new = with_kinds(old, "9", rules)
    edits = 0
    for k, question in enumerate(QUESTIONS):
        before = old.perturb(question, seed=13, key=f"q{k}", variant=1)
        after = new.perturb(question, seed=13, key=f"q{k}", variant=1)
        assert all(s.kind == "" and "kind" not in s.to_dict() for s in before.substitutions)
        assert dataclasses.replace(_stripped(after), recipe=old.ident) == before
        assert [{k: v for k, v in d.items() if k != "kind"} for d in _as_json(after)] == _as_json(before)
        for sub in after.substitutions:
            assert sub.kind == edit_kind(sub.original, sub.replacement, rules).value == sub.to_dict()["kind"]
            assert list(sub.to_dict())[-1] == "kind"  # after confidence, as FORMATS.md says
            edits += 1
    assert edits >= 2


def test_the_spelling_transformation_writes_spelling_kinds() -> None:
    done = get_recipe("spelling@2").perturb("Which colour did the organisation choose?", seed=1, key="q")
    assert [s.kind for s in done.substitutions] and {s.kind for s in done.substitutions} == {"spelling"}


def test_a_recipe_writes_kinds_by_its_own_rules_not_the_current_ones() -> None:
    """edit-kinds-1 calls enrolment/enrollment a synonym; a version that names it keeps writing that."""
    question = "When did the enrolment of the sceptics begin?"
    kinds = {}
    for rules in sorted(RULES):
        done = with_kinds(get_recipe("spelling@1"), "9", rules).perturb(question, seed=1, key="q")
        kinds[rules] = [(s.original, s.kind) for s in done.substitutions]
    assert kinds == {
        "edit-kinds-1": [("enrolment", "synonym"), ("sceptics", "synonym")],
        "edit-kinds-2": [("enrolment", "spelling"), ("sceptics", "spelling")],
    }


def test_edits_an_attack_chooses_carry_their_kinds_too() -> None:
    """`apply_edits` (what an attack writes through) writes kinds exactly when the recipe does."""
    old = get_recipe("qads@2.0")
    for recipe, writes in ((old, False), (with_kinds(old, "9", EDIT_KIND_RULES), True)):
        space = recipe.search_space(QUESTIONS[2])
        done = apply_edits(space, {p.index: p.candidates[0] for p in space.positions})
        assert done.substitutions
        for sub in done.substitutions:
            assert sub.kind == (edit_kind(sub.original, sub.replacement).value if writes else "")


def test_which_versions_write_kinds_is_a_property_of_the_recipe_named_in_its_parameters() -> None:
    writers = {r.ident for r in list_recipes() if r.writes_kinds}
    assert writers == {"qads@2.2", "qads-judge@2", "qads-judge@3", "spelling@2"}
    for recipe in list_recipes():
        parameters = recipe.parameters()
        if recipe.writes_kinds:  # all published while the rules were edit-kinds-2
            assert list(parameters)[-1] == "kinds" and parameters["kinds"] == "edit-kinds-2" == recipe.kind_rules
            assert recipe.signature_fields()["kinds"] == "edit-kinds-2"
            assert "edit kind" in recipe.citation and "with its kind" in recipe.description
        else:
            assert "kinds" not in parameters and recipe.kind_rules == ""
    assert all(get_recipe(name).writes_kinds for name in ("qads", "qads-judge", "spelling"))


@pytest.mark.parametrize(
    "twin, published", [("qads@2.2", "qads@2.1"), ("qads-judge@2", "qads-judge@1"), ("spelling@2", "spelling@1")]
)
def test_a_twin_differs_from_its_published_version_only_in_writing_kinds(twin: str, published: str) -> None:
    new, old = get_recipe(twin), get_recipe(published)
    same = dataclasses.replace(
        new, version=old.version, citation=old.citation, description=old.description, kind_rules=""
    )
    assert same == old and type(same) is type(old)
    assert {k: v for k, v in new.parameters().items() if k != "kinds"} == old.parameters()
    assert new.description.startswith(old.description)


def test_rules_the_engine_does_not_have_are_refused() -> None:
    with pytest.raises(
        RecipeParameterError,
        match="writes edit kinds by rules 'edit-kinds-0', but this engine has edit-kinds-1, edit-kinds-2;",
    ):
        dataclasses.replace(get_recipe("qads@2.2"), version="9", kind_rules="edit-kinds-0").validate()
    for rules in RULES:  # every version the engine has stays usable
        dataclasses.replace(get_recipe("qads@2.2"), version="9", kind_rules=rules).validate()
