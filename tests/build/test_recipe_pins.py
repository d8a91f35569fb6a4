"""Published recipe versions never change what they build (a changed recipe is a new version).

The fingerprints below were computed from builds of the shared SQuAD half set made before the engine was
restructured around constraint objects (issue 10), with `robustqa build-dataset --seed 13`. Any change to
what a 1.1 recipe writes (a question, a context, an edit record, an answer offset, a skip count) fails here.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

import perturbations
from robustqa.build import build_dataset
from robustqa.squad import load_squad

QADS_1_1_HALF = "f601dacb23bc899e69248927b4f16822d32710654c9762eaa498ff49b0c7e4fa"
QADS_1_1_SUMMARY = {
    "questions": 6078,
    "changed": 3828,
    "substitutions": 5562,
    "skipped": {
        "auxiliary": 6395, "budget": 503, "date": 41, "determiner": 6304, "inflection": 214, "low-confidence": 6106,
        "no-candidate": 8908, "no-sense": 1273, "number": 1078, "pos": 23, "preposition": 8691, "pronoun": 691,
        "proper-noun": 7546, "stopword": 1457, "wh-word": 6413,
    },
}
# the first two articles (626 questions) of the half set, every 1.1 recipe
FIRST_TWO_ARTICLES = {
    "qads@1.1": "7b4420fba6b1c68e149a7432db66675caa069bd1c7194d8aec7f040f56e3ce17",
    "qads-nouns@1.1": "c64309c206dddc200ad8660fa2527b9fb7f6795015aa7d23afc438e4cf3daf6a",
    "context@1.1": "f1042e9646590b5b99e68f65ce0f4b8d8564fca6d36a743d0d9ff2eada278eb9",
    "both@1.1": "3378dd5287781e688d11aee6ef2f91ba6d66f9dacd58e2185d1b7b8e95b4deef",
}


def fingerprint(data: list[dict[str, Any]]) -> str:
    """sha256 over every context with its edits and every question id, question, edits and answers, in order."""
    digest = hashlib.sha256()
    for article in data:
        for paragraph in article["paragraphs"]:
            context = [paragraph["context"], paragraph.get("context_substitutions", [])]
            digest.update(json.dumps(context, ensure_ascii=False).encode() + b"\n")
            for qa in paragraph["qas"]:
                record = [qa["id"], qa["question"], qa.get("substitutions", []), qa["answers"]]
                digest.update(json.dumps(record, ensure_ascii=False).encode() + b"\n")
    return digest.hexdigest()


def test_qads_1_1_builds_exactly_the_published_questions(squad_half_path: Path) -> None:
    dataset = load_squad(squad_half_path, check_answers=True)
    result = build_dataset(dataset, perturbations.get_recipe("qads@1.1"), seed=13)
    assert result.document["robustqa"]["summary"] == QADS_1_1_SUMMARY
    assert fingerprint(result.document["data"]) == QADS_1_1_HALF
    assert result.signature.format().startswith(
        "recipe:qads@1.1|wsd:enhanced-lesk|threshold:0.8|pos:n,v,a,r|context:yes|rate:0.25|min_subs:1|max_subs:3|protected:0|variants:none|seed:13|"
    )


@pytest.mark.parametrize("recipe", sorted(FIRST_TWO_ARTICLES))
def test_every_1_1_recipe_builds_exactly_the_published_data(squad_half_path: Path, recipe: str) -> None:
    dataset = load_squad(squad_half_path, check_answers=True)
    first_two = dataclasses.replace(dataset, articles=dataset.articles[:2])
    result = build_dataset(first_two, perturbations.get_recipe(recipe), seed=13)
    assert fingerprint(result.document["data"]) == FIRST_TWO_ARTICLES[recipe]
