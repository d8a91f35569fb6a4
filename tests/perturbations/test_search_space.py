"""The search-space API: `search_space` lists every word a recipe may edit with every replacement it
allows, `apply_edits` writes chosen edits; `Recipe.perturb` is exactly search space -> budget -> apply, so
an attack that searches the space writes the edits a build would write."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import perturbations
from perturbations import (
    EditPosition,
    InvalidEditError,
    Perturbation,
    Replacement,
    SearchSpace,
    Substitution,
    apply_edits,
    get_recipe,
    search_space,
)

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "robustqa" / "data" / "squad2-sample.json"
QUESTION = "What kind of buildings did the Normans build in a city?"


def sample() -> list[tuple[str, str, str, tuple[tuple[int, int], ...]]]:
    """(id, question, context, answer spans) of the packaged sample's questions."""
    data = json.loads(SAMPLE.read_text(encoding="utf-8"))
    out = []
    for article in data["data"]:
        for paragraph in article["paragraphs"]:
            spans = tuple(
                sorted(
                    {
                        (a["answer_start"], a["answer_start"] + len(a["text"]))
                        for q in paragraph["qas"]
                        for a in q["answers"] + q.get("plausible_answers", [])
                    }
                )
            )
            for q in paragraph["qas"]:
                out.append((q["id"], q["question"], paragraph["context"], spans))
    return out


def chosen_edits(space: SearchSpace, result: Perturbation) -> dict[int, Replacement]:
    """The (position, replacement) of each substitution `perturb` wrote, read back from its records."""
    edits: dict[int, Replacement] = {}
    for sub in result.substitutions:
        inside = [p for p in space.positions if sub.start <= p.start and p.end <= sub.end]
        assert len(inside) == 1, sub
        written = sub.replacement.lower()
        forms = [r for r in inside[0].candidates if r.form in written]
        edits[inside[0].index] = max(forms, key=lambda r: len(r.form))
    return edits


@pytest.mark.parametrize("spec", ["qads@1.1", "qads-nouns@1.1", "qads"])
def test_perturb_writes_what_apply_edits_writes_for_its_choices(spec: str) -> None:
    recipe = get_recipe(spec)
    checked = 0
    for qid, question, context, _ in sample():
        for variant in (0, 1):
            result = recipe.perturb(question, seed=13, key=qid, wsd_context=context, variant=variant)
            space = recipe.search_space(question, wsd_context=context)
            replay = apply_edits(space, chosen_edits(space, result))
            assert (replay.perturbed, replay.substitutions) == (result.perturbed, result.substitutions), question
            assert replay.recipe == result.recipe == recipe.ident
            checked += bool(result.substitutions)
    assert checked >= 20  # most sample questions change, so the comparison is not empty


def test_contexts_with_frozen_answers_too() -> None:
    recipe = get_recipe("context@1.1")
    for _, _, context, spans in sample()[:10]:
        result = recipe.perturb(context, seed=13, key="c", frozen_spans=spans)
        space = recipe.search_space(context, frozen_spans=spans)
        assert result.substitutions
        replay = apply_edits(space, chosen_edits(space, result))
        assert (replay.perturbed, replay.substitutions) == (result.perturbed, result.substitutions)
        for position in space.positions:  # no candidate touches an answer
            assert not any(s < position.end and position.start < e for s, e in spans)


def test_every_word_the_budget_may_choose_is_in_the_space() -> None:
    """A recipe that edits every allowed word edits exactly the space's positions, each with its first
    candidate."""
    everything = get_recipe("qads@1.1", rate=1.0, max_substitutions=50)
    for qid, question, context, _ in sample():
        space = everything.search_space(question, wsd_context=context)
        result = everything.perturb(question, seed=13, key=qid, wsd_context=context)
        firsts = {}
        for p in space.positions:  # the first candidate of each word, the same synonym for every occurrence
            firsts.setdefault(p.group, p.candidates[0])
        assert len(result.substitutions) == len(space.positions)
        expected = apply_edits(
            space, {p.index: firsts[p.group] for p in space.positions if firsts[p.group] in p.candidates}
        )
        assert result.perturbed == expected.perturbed


def test_the_space_lists_positions_and_ranked_candidates() -> None:
    space = search_space("qads@1.1", QUESTION)
    assert isinstance(space, SearchSpace) and space.recipe == "qads@1.1" and space.words == 11
    by_word = {p.word: p for p in space.positions}
    assert set(by_word) == {"kind", "buildings", "build", "city"}
    kind = by_word["kind"]
    assert isinstance(kind, EditPosition) and QUESTION[kind.start : kind.end] == "kind" and kind.index == 1
    assert kind.synset == "kind.n.01" and [r.form for r in kind.candidates] == ["sort", "form", "variety"]
    assert all(r.penalty == 0.0 and r.blocked is None for r in kind.candidates)  # 1.1 has no soft rules
    assert kind.senses and abs(sum(p for _, p in kind.senses) - 1.0) < 1e-9
    assert space.skipped_counts() == {"auxiliary": 1, "determiner": 2, "preposition": 2, "proper-noun": 1, "wh-word": 1}
    # every word of the text is either a position or counted under a reason
    assert len(space.all_positions) + sum(space.skipped_counts().values()) == space.words


def test_apply_edits_writes_any_allowed_combination() -> None:
    space = search_space("qads@1.1", QUESTION)
    city = next(p for p in space.positions if p.word == "city")
    result = apply_edits(space, [(1, "variety"), (city.index, city.candidates[0])])
    assert result.perturbed == "What variety of buildings did the Normans build in a metropolis?"
    assert [s.original for s in result.substitutions] == ["kind", "city"]
    assert result.substitutions[0] == Substitution(5, 9, 5, 12, "kind", "variety", "NN", "kind.n.01", 1.0)
    assert result.skipped_counts()["budget"] == 2  # the two positions left alone
    assert apply_edits(space, {}).perturbed == QUESTION
    assert apply_edits(space, {1: "sort"}) == apply_edits(space, {1: space.position(1).candidates[0]})


def test_an_article_before_the_word_is_re_agreed() -> None:
    space = search_space("qads@1.1", "Who built a car for the king?")
    car = next(p for p in space.positions if p.word == "car")
    result = apply_edits(space, {car.index: "automobile"})
    assert result.perturbed == "Who built an automobile for the king?"
    assert result.substitutions[0].original == "a car"


def test_edits_the_recipe_does_not_allow_are_refused() -> None:
    space = search_space("qads@1.1", QUESTION)
    with pytest.raises(InvalidEditError, match="word 6 .* not one qads@1.1 may edit"):
        apply_edits(space, {6: "Vikings"})  # "Normans": a proper noun
    with pytest.raises(InvalidEditError, match="does not allow 'castle' for 'kind'.*allowed: sort, form, variety"):
        apply_edits(space, {1: "castle"})
    with pytest.raises(InvalidEditError, match="edited twice"):
        apply_edits(space, [(1, "sort"), (1, "form")])
    assert issubclass(InvalidEditError, perturbations.PerturbationError)


def test_the_space_depends_on_the_recipe_and_the_caller_arguments_only() -> None:
    a = search_space("qads@1.1", QUESTION)
    b = get_recipe("qads@1.1").search_space(QUESTION)
    assert a == b
    frozen = search_space("qads@1.1", QUESTION, frozen_spans=((5, 9),))
    assert "kind" not in {p.word for p in frozen.positions} and frozen.skipped_counts()["frozen"] == 1
    assert search_space("qads@1.1", "").all_positions == () and search_space("qads@1.1", "").words == 0
