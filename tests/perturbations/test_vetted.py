"""Vetted synonym tables and the transformation that draws from them (qads@2.1)."""

from __future__ import annotations

import hashlib
import json
from importlib import resources
from pathlib import Path

import pytest

import perturbations.synonyms as transformation_module
from perturbations import RecipeParameterError, get_recipe
from perturbations.lexicon import lemma_of, wn_pos
from perturbations.vetted import VettedTable, table_names, vetted_table


def _stand_in(monkeypatch: pytest.MonkeyPatch, pairs: dict[str, tuple[str, ...]]) -> None:
    """Make every VettedSynonyms read a small table instead of the packaged one (validation included)."""
    table = VettedTable("vetted-1", "0" * 64, "test", pairs)
    monkeypatch.setattr(transformation_module, "vetted_table", lambda name: table)


def _word(phrase: str) -> str:
    """The word of a substitution record, without a re-agreed "a"/"an" before it or a possessive after it."""
    return phrase.lower().split()[-1].removesuffix("'s").removesuffix("'")


def test_packaged_table_is_named_hashed_and_lists_single_lowercase_words() -> None:
    assert "vetted-1" in table_names()
    table = vetted_table("vetted-1")
    raw = (resources.files("perturbations") / "data" / "vetted_synonyms-1.json").read_bytes()
    assert table.sha256 == hashlib.sha256(raw).hexdigest()
    assert table.pairs, "the table lists no pair"
    for key, names in table.pairs.items():
        lemma, _, pos = key.rpartition(".")
        assert pos in "nvar" and lemma and names
        assert all(n.isalpha() and n == n.lower() and n != lemma for n in names), key


def test_unknown_table_is_a_parameter_error_that_names_the_tables() -> None:
    with pytest.raises(RecipeParameterError, match="no vetted synonym table 'vetted-0'; tables: vetted-1"):
        get_recipe("qads@2.1", table="vetted-0")


def test_signature_and_description_name_the_table_and_its_digest() -> None:
    recipe = get_recipe("qads@2.1")
    digest = vetted_table("vetted-1").sha256[:12]
    fields = recipe.signature_fields()
    assert (fields["table"], fields["table_sha256"]) == ("vetted-1", digest)
    assert "VettedSynonyms(table=vetted-1 (" in repr(recipe) and f"sha256 {digest}" in repr(recipe)
    assert "not-vetted" in recipe.reasons() and "not-vetted" not in get_recipe("qads@2.0").reasons()


def test_only_vetted_synonyms_are_written(monkeypatch: pytest.MonkeyPatch) -> None:
    _stand_in(monkeypatch, {"happen.v": ("occur",)})
    recipe = get_recipe("qads@2.1")
    done = recipe.perturb("What happened in the valley?", seed=13, key="q1")
    assert done.perturbed == "What occurred in the valley?"
    left = recipe.perturb("What was built in the valley?", seed=13, key="q2")
    assert left.perturbed == "What was built in the valley?"
    assert left.skipped_counts()["not-vetted"] >= 1


def test_a_vetted_synonym_of_a_sense_wsd_did_not_pick_is_still_offered(monkeypatch: pytest.MonkeyPatch) -> None:
    """WSD's pick decides nothing: the pair stands for every common sense of the word."""
    from nltk.corpus import wordnet as wn

    from perturbations.text import tag
    from perturbations.wsd import bag, choose, posterior_names

    text = "Which vessel carried the largest cargo?"
    chosen = choose("enhanced-lesk", posterior_names("enhanced-lesk", "vessel", "n", bag(t.text for t in tag(text))))[0]
    in_chosen = {name.name() for name in wn.synset(chosen).lemmas()}
    other = next(
        lemma.name()
        for s in wn.synsets("vessel", "n")
        if s.name() != chosen
        for lemma in s.lemmas()
        if lemma.name().isalpha() and lemma.name() not in in_chosen
    )
    _stand_in(monkeypatch, {"vessel.n": (other,)})
    position = next(p for p in get_recipe("qads@2.1").search_space(text).all_positions if p.word == "vessel")
    assert [r.name for r in position.replacements] == [other]
    assert position.synset != chosen and other in {name.name() for name in wn.synset(position.synset).lemmas()}


def test_every_edit_of_the_real_table_is_a_listed_pair(squad_half_path: Path) -> None:
    recipe = get_recipe("qads@2.1")
    table = vetted_table("vetted-1")
    document = json.loads(squad_half_path.read_text(encoding="utf-8"))
    questions = [qa["question"] for a in document["data"] for p in a["paragraphs"] for qa in p["qas"]][:400]
    changed = 0
    for k, question in enumerate(questions):
        for sub in recipe.perturb(question, seed=13, key=str(k)).substitutions:
            changed += 1
            pos = wn_pos(sub.pos) or ""
            lemma = lemma_of(_word(sub.original), pos) or ""
            assert lemma_of(_word(sub.replacement), pos) in table.allowed(lemma, pos), (question, sub)
    assert changed > 0
