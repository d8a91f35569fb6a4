"""The substitution pass end to end: protection, multiword synonyms, budget, frozen spans,
consistency across texts, variants."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from perturbations import Perturbation, get_recipe

REPO = Path(__file__).resolve().parents[2]
AGGRESSIVE = {"threshold": 0.0, "rate": 1.0, "max_substitutions": 50}

QUESTIONS = [
    "Who was the king of France?",
    "Who ruled France after the long war?",
    "Who founded the oldest university in France?",
    "When did the Norse raiders reach the coast of France?",
    "What is the norse word for the sea?",
    "Where are the old houses located?",
    "Who was the first Byzantine mercenary to serve with the Normans?",
    "How many men were in the army of Robert?",
]


def test_who_and_france_are_never_replaced_in_any_variant() -> None:
    for recipe in (get_recipe("qads@1.1"), get_recipe("qads@1.1", **AGGRESSIVE)):
        for q in QUESTIONS:
            for variant in range(4):
                p = recipe.perturb(q, seed=3, key=q, variant=variant)
                for s in p.substitutions:
                    assert s.original.split()[-1] not in ("Who", "France", "Norse", "Normans", "Robert"), (q, s)
                assert p.perturbed.count("France") == q.count("France")
                assert p.perturbed.startswith("Who") == q.startswith("Who")


def test_no_word_is_replaced_by_itself_or_its_forms() -> None:
    recipe = get_recipe("qads@1.1", **AGGRESSIVE)
    for q in QUESTIONS:
        for variant in range(4):
            for s in recipe.perturb(q, seed=3, key=q, variant=variant).substitutions:
                orig, rep = s.original.split()[-1].lower(), s.replacement.split()[-1].lower()
                assert orig != rep and not rep.startswith(orig[:-2] if len(orig) > 4 else orig + "#"), s


def test_multiword_lemmas_are_rendered_with_spaces() -> None:
    p = get_recipe("qads@1.1").perturb(
        "Who was the first Byzantine mercenary to serve with the Normans?", seed=1, key="k"
    )
    assert "soldier of fortune" in p.perturbed
    assert all("_" not in s.replacement for s in p.substitutions)


def test_budget_caps_changed_words_and_min_leaves_short_texts_alone() -> None:
    text = "The angry farmers quickly sold their large houses and bought small boats near the beautiful lake."
    full = get_recipe("qads@1.1", **AGGRESSIVE).perturb(text, seed=1, key="k")
    capped = get_recipe("qads@1.1", threshold=0.0, rate=1.0, max_substitutions=2).perturb(text, seed=1, key="k")
    assert len(full.substitutions) > 2 and len(capped.substitutions) == 2
    assert capped.skipped_counts()["budget"] == len(full.substitutions) - 2
    by_rate = get_recipe("qads@1.1", threshold=0.0, rate=0.1, max_substitutions=50).perturb(text, seed=1, key="k")
    assert len(by_rate.substitutions) == 1  # floor(0.1 * 16 words)
    alone = get_recipe("qads@1.1", threshold=0.0, min_substitutions=40, max_substitutions=50).perturb(
        text, seed=1, key="k"
    )
    assert not alone.changed and alone.skipped_counts()["budget"] >= 1


def test_budget_keeps_the_most_confident_words() -> None:
    text = "The angry farmers quickly sold their large houses and bought small boats near the beautiful lake."
    full = get_recipe("qads@1.1", **AGGRESSIVE).perturb(text, seed=1, key="k")
    one = get_recipe("qads@1.1", threshold=0.0, rate=1.0, max_substitutions=1).perturb(text, seed=1, key="k")
    assert one.substitutions[0].confidence == max(s.confidence for s in full.substitutions)


def test_frozen_spans_are_never_edited() -> None:
    text = "The farmers sold their houses and bought boats."
    recipe = get_recipe("context@1.1", **AGGRESSIVE)
    free = recipe.perturb(text, seed=1, key="k")
    edited = [(s.start, s.end) for s in free.substitutions]
    assert edited
    frozen = recipe.perturb(text, seed=1, key="k", frozen_spans=edited)
    for s in frozen.substitutions:
        assert all(s.end <= a or b <= s.start for a, b in edited)
    assert frozen.skipped_counts()["frozen"] == len(edited)


def test_a_frozen_article_is_not_re_agreed() -> None:
    text = "He bought a car."
    start = text.index("a car")
    p = get_recipe("qads@1.1", rate=1.0).perturb(text, seed=1, key="k", frozen_spans=[(start, start + 1)])
    assert p.perturbed.endswith(" a motorcar.")  # "automobile" would need "an": the next-ranked synonym is used
    assert all(s.start > start or s.end <= start for s in p.substitutions)


def test_consistent_with_gives_the_same_replacement_reinflected() -> None:
    both = get_recipe("both@1.1", **AGGRESSIVE)
    context = both.perturb("The car hit the wall near the river.", seed=1, key="ctx")
    car = next(s for s in context.substitutions if s.original == "car")
    question = both.perturb("Which cars hit the wall?", seed=1, key="q", consistent_with=[context])
    cars = next(s for s in question.substitutions if s.original == "cars")
    assert cars.replacement == car.replacement + "s" and cars.synset == car.synset
    wall_kept = not any(s.original == "wall" for s in context.substitutions)
    assert wall_kept == (not any(s.original == "wall" for s in question.substitutions))


def test_same_word_twice_in_a_text_gets_the_same_synonym() -> None:
    recipe = get_recipe("context@1.1", **AGGRESSIVE)
    for variant in range(4):
        p = recipe.perturb("The car was fast, the cars were faster, and a car won.", seed=2, key="k", variant=variant)
        reps = {s.replacement.split()[-1].rstrip("s").lower() for s in p.substitutions if "car" in s.original}
        assert len(reps) == 1


def test_variants_differ_and_are_deterministic() -> None:
    recipe = get_recipe("qads@1.1")
    q = "What kind of buildings were built by the builders?"
    texts = [recipe.perturb(q, seed=5, key="id1", variant=k).perturbed for k in range(5)]
    assert len(set(texts)) >= 3
    assert texts == [recipe.perturb(q, seed=5, key="id1", variant=k).perturbed for k in range(5)]


def test_empty_and_unchangeable_texts() -> None:
    recipe = get_recipe("qads@1.1")
    for text in ("", "   ", "?!", "Who is he?"):
        p = recipe.perturb(text, seed=1, key="k")
        assert p.perturbed == text and not p.changed and p.substitutions == ()


def test_skip_reasons_are_the_documented_names() -> None:
    recipe = get_recipe("qads@1.1")
    for q in QUESTIONS:
        assert set(recipe.perturb(q, seed=1, key=q).skipped_counts()) <= set(recipe.reasons())


def test_json_record_matches_the_perturb_contract() -> None:
    p = get_recipe("qads@1.1").perturb("He bought a car.", seed=1, key="k")
    record = json.loads(json.dumps(p.to_dict()))
    assert record["text"] == "He bought a car." and record["perturbed"] == p.perturbed
    assert set(record["substitutions"][0]) == {
        "start",
        "end",
        "new_start",
        "new_end",
        "original",
        "replacement",
        "pos",
        "synset",
        "confidence",
    }
    assert p.recipe == "qads@1.1" and isinstance(p, Perturbation)


def test_result_does_not_depend_on_call_order_or_warm_caches() -> None:
    """A fresh process perturbing the questions in reverse order gives identical records."""
    script = (
        "import json, sys, perturbations\n"
        "qs = json.loads(sys.argv[1]); r = perturbations.get_recipe('qads@1.1', threshold=0.3)\n"
        "out = {q: r.perturb(q, seed=7, key=q, variant=v).to_dict() for q in reversed(qs) for v in (0, 1)}\n"
        "print(json.dumps(out, sort_keys=True))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, json.dumps(QUESTIONS)], cwd=REPO, capture_output=True, text=True, check=True
    )
    fresh = json.loads(done.stdout)
    r = get_recipe("qads@1.1", threshold=0.3)
    here = {q: r.perturb(q, seed=7, key=q, variant=v).to_dict() for q in QUESTIONS for v in (0, 1)}
    assert json.dumps(here, sort_keys=True) == json.dumps(fresh, sort_keys=True)
