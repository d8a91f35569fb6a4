"""The attack's search space is the recipe's: build-dataset's own edits are one point of it, and every
choice in it applies."""

from __future__ import annotations

from pathlib import Path

import perturbations
from robustqa.attack.attack_space import apply_choices, attack_slots
from robustqa.squad import load_squad


def test_the_static_variant_is_a_point_of_the_space(squad_heldout_path: Path) -> None:
    recipe = perturbations.get_recipe("qads@1.1")
    examples = load_squad(squad_heldout_path).examples()[:250]
    changed = 0
    for ex in examples:
        static = recipe.perturb(ex.question, seed=13, key=ex.id, wsd_context=ex.context)
        space = attack_slots(recipe, ex.question, wsd_context=ex.context)
        edited = [
            slot for slot in space.slots if any(s.start < slot.end and slot.start < s.end for s in static.substitutions)
        ]
        assert len(edited) <= space.limit
        if not static.changed:
            continue
        changed += 1
        rebuilt = apply_choices(space, [slot.choices[0] for slot in edited])
        assert rebuilt.perturbed == static.perturbed, ex.id
        assert rebuilt.substitutions == static.substitutions
    assert changed > 80


def test_every_choice_applies_alone_at_its_word() -> None:
    recipe = perturbations.get_recipe("qads@1.1")
    question = "What kind of buildings did the Normans build in a city?"
    space = attack_slots(recipe, question, wsd_context="The Normans built castles in every city.")
    assert [slot.word for slot in space.slots] == ["kind", "buildings", "build", "city"]
    assert space.limit == 2 and space.size == sum(len(slot.choices) for slot in space.slots) >= 6
    texts = set()
    for choice in space.choices:
        pert = apply_choices(space, [choice])
        slot = space.slots[choice.slot]
        assert len(pert.substitutions) == 1 and pert.substitutions[0].end >= slot.end
        texts.add(pert.perturbed)
    assert len(texts) == space.size
    # "a city" -> "an urban center": the article agrees, as build-dataset writes it
    urban = next(c for c in space.choices if c.form == "urban center")
    assert apply_choices(space, [urban]).perturbed.endswith("in an urban center?")


def test_a_word_that_occurs_twice_changes_everywhere() -> None:
    recipe = perturbations.get_recipe("qads@1.1", rate=1.0)
    space = attack_slots(recipe, "Which city is the largest city?")
    slot = next(s for s in space.slots if s.word == "city")
    pert = apply_choices(space, [slot.choices[0]])
    assert len(pert.substitutions) == 2 and "city" not in pert.perturbed


def test_edits_a_soft_rule_penalises_are_left_out(squad_heldout_path: Path) -> None:
    recipe = perturbations.get_recipe("qads@2.0")
    context = next(ex.context for ex in load_squad(squad_heldout_path).examples() if "Hastings" in ex.context)
    question = "Who was the duke in the battle of Hastings?"
    engine = perturbations.search_space(recipe, question, wsd_context=context)
    battle = next(p for p in engine.positions if p.word == "battle")
    penalised = {r.form for r in battle.candidates if r.penalty > 0}
    assert penalised and {r.form for r in battle.candidates if r.penalty == 0}
    space = attack_slots(recipe, question, wsd_context=context)
    forms = {c.form for c in space.slots[0].choices}
    assert forms == {r.form for r in battle.candidates} - penalised
    assert space.limit == 1  # qads@2.0 changes one word per question
    every = attack_slots(recipe, question, wsd_context=context, include_penalised=True)
    assert [c.form for c in every.slots[0].choices][-len(penalised) :] == [
        r.form for r in battle.candidates if r.penalty > 0
    ]
    assert {c.form for c in every.slots[0].choices} == {r.form for r in battle.candidates}
