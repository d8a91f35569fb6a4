"""Published recipe versions never change what they build (a changed recipe is a new version).

The 1.1 fingerprints below were computed from builds of the shared SQuAD half set made before the engine
was restructured around constraint objects (issue 10), with `robustqa build-dataset --seed 13`; the 2.0 ones
when 2.0 was published (after its gates were checked to reproduce the prototypes they came from on all
6,078 questions). Any change to what a published recipe writes (a question, a context, an edit record, an
answer offset, a skip or gate count) fails here.
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
        "auxiliary": 6395,
        "budget": 503,
        "date": 41,
        "determiner": 6304,
        "inflection": 214,
        "low-confidence": 6106,
        "no-candidate": 8908,
        "no-sense": 1273,
        "number": 1078,
        "pos": 23,
        "preposition": 8691,
        "pronoun": 691,
        "proper-noun": 7546,
        "stopword": 1457,
        "wh-word": 6413,
    },
}
# the first two articles (626 questions) of the half set, every 1.1 recipe
FIRST_TWO_ARTICLES = {
    "qads@1.1": "7b4420fba6b1c68e149a7432db66675caa069bd1c7194d8aec7f040f56e3ce17",
    "qads-nouns@1.1": "c64309c206dddc200ad8660fa2527b9fb7f6795015aa7d23afc438e4cf3daf6a",
    "context@1.1": "f1042e9646590b5b99e68f65ce0f4b8d8564fca6d36a743d0d9ff2eada278eb9",
    "both@1.1": "3378dd5287781e688d11aee6ef2f91ba6d66f9dacd58e2185d1b7b8e95b4deef",
    "qads@2.0": "e7e5d7a7d2da47185b5fdaa0d3b059614f9ba3236e09dc60afbbd08df8f3c3cc",
    "qads-strict@2.0": "7f289a78542bced0acc72c63e863b65c29f14ed5f063989fb35646dd7622b3d3",
    "qads-strictest@2.0": "96ac92f150de555cb3542e8d96994ec5cab905f4b63b4cfb8d933fd57838de8e",
    "qads-loose@2.0": "ea2694cd7dee6bd4707dcfb44d4b54f029efbe9b5bf0579a6829553ab9b38eed",
    "qads-nouns@2.0": "43d5b63c916712842911d8c926ab7b830b4ae8e0158591851300374217fb7df3",
    "context@2.0": "30412faa65cf79b0eec23b0b8516aacce6360cef5f3985efccef0e75b1e84e0a",
    "both@2.0": "fd5a4d5812b7aee85c3bbf8343cf1263b4c12c5af88dababbfb3d34bab780799",
    "qads@2.1": "6c1e6b899b38ca21d0659efaa968eb5a6b0bbc30ef9bc32ad43f3ef6d2c66ec8",
    "qads@2.2": "4c419b64bd1c13ab9672366080fe32694a2709f5cc93f3862a75f1f3e0b77d3d",
    "spelling@1": "b216e0cd833be04589e17124edfd08656370ec9adfe83935f854348b3ed20a71",
    "spelling@2": "b0d63c74c06f63b4d35d3a32bee7ca67e2662a363acde37a77f9f46131adfdf7",
}
QADS_2_1_HALF = "107520e11178822d8b6a9776a130582fa640bc0a16b09a8966b1f2b6c2bb35b0"
QADS_2_2_HALF = "dc3836b1acf44b0b2aa8cc44403db4b93310282f6e379254bfee767c2935fd3d"
QADS_2_0_HALF = "29715c119a93109f41a65a98b21df63bf3f746de60e2ca21dc86098ebaf6b39d"
QADS_2_0_SUMMARY = {
    "questions": 6078,
    "changed": 3056,
    "substitutions": 3068,
    "skipped": {
        "abbreviation": 179,
        "agreement": 17,
        "auxiliary": 6395,
        "budget": 1199,
        "compound": 2574,
        "countability": 34,
        "date": 41,
        "determiner": 6304,
        "fixed-term": 1408,
        "frame": 118,
        "function-word": 35,
        "general-verb": 1144,
        "inflection": 214,
        "low-confidence": 3521,
        "multiword": 344,
        "no-candidate": 6335,
        "no-sense": 1273,
        "number": 1078,
        "phrasal": 2,
        "pos": 23,
        "pos-noun-verb": 207,
        "pos-uncertain": 249,
        "preposition": 8691,
        "pronoun": 691,
        "proper-noun": 7546,
        "quoted": 39,
        "rare": 485,
        "register": 21,
        "relational-adjective": 100,
        "stopword": 1457,
        "wh-word": 6413,
    },
    "gates": {
        "rejected": {
            "quoted": 39,
            "fixed-term": 1408,
            "compound": 2574,
            "phrasal": 2,
            "pos-uncertain": 249,
            "pos-noun-verb": 207,
            "general-verb": 1144,
            "relational-adjective": 100,
            "multiword": 344,
            "register": 21,
            "abbreviation": 179,
            "function-word": 35,
            "agreement": 17,
            "countability": 34,
            "frame": 118,
            "rare": 485,
        },
        "penalised": {"complement": 162, "weak-sense": 1343, "dominant-sense": 998, "rare": 231},
    },
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
    assert result.document["robustqa"]["summary"] == QADS_1_1_SUMMARY  # no "gates" record: 1.1 files are unchanged
    assert fingerprint(result.document["data"]) == QADS_1_1_HALF
    assert result.signature.format().startswith(
        "recipe:qads@1.1|wsd:enhanced-lesk|threshold:0.8|pos:n,v,a,r|context:yes|rate:0.25|min_subs:1|max_subs:3|protected:0|variants:none|seed:13|"
    )


def test_qads_2_0_builds_exactly_the_published_questions(squad_half_path: Path) -> None:
    dataset = load_squad(squad_half_path, check_answers=True)
    result = build_dataset(dataset, perturbations.get_recipe("qads@2.0"), seed=13)
    summary = result.document["robustqa"]["summary"]
    assert summary == QADS_2_0_SUMMARY
    assert list(summary["gates"]["rejected"]) == list(QADS_2_0_SUMMARY["gates"]["rejected"])  # the recipe's order
    assert fingerprint(result.document["data"]) == QADS_2_0_HALF
    assert result.signature.format().startswith(
        "recipe:qads@2.0|wsd:enhanced-lesk|threshold:0.7|pos:n,v,a,r|context:yes|rate:0.25|min_subs:1|max_subs:1|protected:0|gates:quoted,"
    )


def test_qads_2_1_builds_exactly_the_published_questions(squad_half_path: Path) -> None:
    """2.1 reads its vetted table: the table is part of the published version (its digest is in the signature)."""
    dataset = load_squad(squad_half_path, check_answers=True)
    result = build_dataset(dataset, perturbations.get_recipe("qads@2.1"), seed=13)
    summary = result.document["robustqa"]["summary"]
    assert (summary["questions"], summary["changed"], summary["substitutions"]) == (6078, 1193, 1197)
    assert fingerprint(result.document["data"]) == QADS_2_1_HALF
    assert "|table:vetted-1|table_sha256:7abbb0dd6fd4|" in result.signature.format()


def without_kinds(data: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A built file's articles with the `kind` of every edit record taken out."""
    out = json.loads(json.dumps(data))
    for article in out:
        for paragraph in article["paragraphs"]:
            for record in paragraph.get("context_substitutions", []):
                del record["kind"]
            for qa in paragraph["qas"]:
                for record in qa.get("substitutions", []):
                    del record["kind"]
    return out


def test_qads_2_2_is_qads_2_1_with_each_edit_kind_written(squad_half_path: Path) -> None:
    """2.2 writes 2.1's variants byte for byte, with `kind` added to every edit record: without it, the data are
    2.1's, and the file differs only in naming the recipe and the kind rules, and in counting the kinds."""
    dataset = load_squad(squad_half_path, check_answers=True)
    new = build_dataset(dataset, perturbations.get_recipe("qads@2.2"), seed=13)
    old = build_dataset(dataset, perturbations.get_recipe("qads@2.1"), seed=13)
    assert fingerprint(new.document["data"]) == QADS_2_2_HALF
    assert fingerprint(old.document["data"]) == QADS_2_1_HALF
    assert without_kinds(new.document["data"]) == old.document["data"]
    summary = dict(new.document["robustqa"]["summary"])
    assert summary.pop("kinds") == {"synonym": 1195, "rare": 0, "spelling": 0, "abbreviation": 2, "morphology": 0}
    assert summary == old.document["robustqa"]["summary"]
    record = new.document["robustqa"]["recipe"]
    assert record["parameters"].pop("kinds") == "edit-kinds-2"
    assert {**record, "version": "2.1"} == {**old.document["robustqa"]["recipe"], "citation": record["citation"]}
    new_signature = new.signature.format().replace("|kinds:edit-kinds-2|", "|")
    assert new_signature == old.signature.format().replace("recipe:qads@2.1|", "recipe:qads@2.2|")


SPELLING_1_HALF = "edb65ea963b7c6f9c46ad4971c47bb3e02f0b670f8123884c3aae327661f111b"


def test_spelling_1_builds_exactly_the_published_questions(squad_half_path: Path) -> None:
    """spelling@1 (the second family of transformations, no WordNet) reads its spelling table: the table is
    part of the published version (its digest is in the signature)."""
    dataset = load_squad(squad_half_path, check_answers=True)
    result = build_dataset(dataset, perturbations.get_recipe("spelling@1"), seed=13)
    assert result.document["robustqa"]["summary"] == {
        "questions": 6078,
        "changed": 243,
        "substitutions": 250,
        "skipped": {"no-variant": 52988, "proper-noun": 7967},
    }
    assert fingerprint(result.document["data"]) == SPELLING_1_HALF
    assert "|table:spelling-1|direction:both|table_sha256:dfa50666f6af|" in result.signature.format()


SPELLING_2_HALF = "7a777436304abffa7ecfb559cd3e5b2b7d0ca817d1ba6516738f575a8b544f0f"


def test_spelling_2_is_spelling_1_with_each_edit_kind_written(squad_half_path: Path) -> None:
    """spelling@2 writes spelling@1's variants byte for byte, each edit record with its kind by edit-kinds-2,
    whose rules call every pair of the spelling table a spelling (edit-kinds-1 did not: see test_edit_kinds)."""
    dataset = load_squad(squad_half_path, check_answers=True)
    new = build_dataset(dataset, perturbations.get_recipe("spelling@2"), seed=13)
    old = build_dataset(dataset, perturbations.get_recipe("spelling@1"), seed=13)
    assert fingerprint(new.document["data"]) == SPELLING_2_HALF
    assert without_kinds(new.document["data"]) == old.document["data"]
    summary = dict(new.document["robustqa"]["summary"])
    assert summary.pop("kinds") == {"synonym": 0, "rare": 0, "spelling": 250, "abbreviation": 0, "morphology": 0}
    assert summary == old.document["robustqa"]["summary"]
    new_signature = new.signature.format().replace("|kinds:edit-kinds-2|", "|")
    assert new_signature == old.signature.format().replace("recipe:spelling@1|", "recipe:spelling@2|")


@pytest.mark.parametrize("recipe", sorted(FIRST_TWO_ARTICLES))
def test_every_published_recipe_builds_exactly_the_published_data(squad_half_path: Path, recipe: str) -> None:
    dataset = load_squad(squad_half_path, check_answers=True)
    first_two = dataclasses.replace(dataset, articles=dataset.articles[:2])
    result = build_dataset(first_two, perturbations.get_recipe(recipe), seed=13)
    assert fingerprint(result.document["data"]) == FIRST_TWO_ARTICLES[recipe]


def test_builds_protecting_different_words_have_different_signatures() -> None:
    """The signature names the protected words (sorted; their count and a digest when many), so two builds
    that kept different words never pass for one another; none reads "0", as every published signature does."""
    import perturbations
    from robustqa.build import build_signature

    def field(*words: str) -> str | None:
        return build_signature(perturbations.get_recipe("qads", protected_words=words), seed=13, variants=None).get(
            "protected"
        )

    assert field() == "0"
    assert field("King", "castle") == "castle,king" != field("castle", "queen")
    many = field(*(f"w{i}" for i in range(20)))
    assert many is not None and many.startswith("20#") and many != field(*(f"w{i}" for i in range(1, 21)))
