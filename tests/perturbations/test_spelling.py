"""The second family of transformations: British/American spelling variants, with no WordNet, through the
same engine (search space, budget, consistency, edit records) as the synonyms."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from perturbations import RecipeParameterError, get_recipe
from perturbations.spelling import SpellingVariants, spelling_table

REPO = Path(__file__).resolve().parents[2]


def test_both_directions_every_form_case_kept_and_names_left_alone() -> None:
    recipe = get_recipe("spelling@1")
    result = recipe.perturb("What colour is the theatre in the centre of Labour town?", seed=13, key="q1")
    assert result.perturbed == "What color is the theater in the center of Labour town?"  # a party's name stays
    assert [s.synset for s in result.substitutions] == ["spelling-1:en-GB>en-US"] * 3
    assert dict(result.skipped)["proper-noun"] == 1
    result = recipe.perturb("Colors organized by travelers", seed=13, key="q2")
    assert result.perturbed == "Colours organised by travellers"
    for sub in result.substitutions:  # offsets in both strings
        assert result.original[sub.start : sub.end] == sub.original
        assert result.perturbed[sub.new_start : sub.new_end] == sub.replacement


def test_a_word_without_another_spelling_stays_and_analyses_is_not_a_verb_only() -> None:
    result = get_recipe("spelling@1").perturb("Which analyses did the committee publish?", seed=13, key="q")
    assert result.perturbed == result.original and dict(result.skipped)["no-variant"] >= 4


def test_one_direction_only() -> None:
    to_us = get_recipe("spelling@1", direction="to-american")
    assert to_us.perturb("colour and color", seed=1, key="k").perturbed == "color and color"
    to_gb = get_recipe("spelling@1", direction="to-british")
    assert to_gb.perturb("colour and color", seed=1, key="k").perturbed == "colour and colour"
    with pytest.raises(RecipeParameterError, match="direction must be one of both, to-american, to-british"):
        get_recipe("spelling@1", direction="sideways")
    with pytest.raises(RecipeParameterError, match="no spelling table 'spelling-0'; tables: spelling-1"):
        SpellingVariants(table="spelling-0").validate()


def test_a_context_keeps_the_spelling_its_question_got() -> None:
    """`consistent_with` reads an earlier record back through the transformation (`name_in`, `carry`)."""
    question = get_recipe("spelling@1", direction="to-american").perturb("Which colour is the flag?", seed=1, key="q")
    to_gb = get_recipe("spelling@1", direction="to-british")
    context = "The flag's colour is red."
    assert to_gb.perturb(context, seed=1, key="c").perturbed == context  # already British: nothing to change
    assert to_gb.perturb(context, seed=1, key="c", consistent_with=(question,)).perturbed == "The flag's color is red."
    kept = get_recipe("spelling@1", protected_words=("colour",)).perturb("Which colour?", seed=1, key="q")
    unchanged = get_recipe("spelling@1").perturb(context, seed=1, key="c", consistent_with=(kept,))
    assert unchanged.perturbed == context and dict(unchanged.skipped)["consistency"] == 1
    transformation = to_gb.transformation
    assert transformation.name_in("spelling-1:en-GB>en-US", "NN", "color") == "color"
    assert transformation.name_in("spelling-1:en-GB>en-US", "NN", "colour") is None
    assert transformation.name_in("city.n.01", "NN", "color") is None


def test_the_table_is_what_the_tool_writes_and_one_to_one() -> None:
    spec = importlib.util.spec_from_file_location("tools_spelling_table", REPO / "tools" / "spelling_table.py")
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    path = REPO / "perturbations" / "data" / "spelling_variants-1.json"
    assert path.read_text(encoding="utf-8") == tool.document_text()
    table = spelling_table("spelling-1")
    assert len(set(table.british.values())) == len(table.british)
    assert table.other("colour", "both") == ("color", "en-GB>en-US")
    assert table.other("color", "to-american") is None
