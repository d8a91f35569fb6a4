"""The packaged certified set: exactly what the committed judgments make it, valid SQuAD 2.0 whose every
variant two reviewers kept, with the coverage and diversity its card states."""

from __future__ import annotations

import importlib.util
import json
import sys
from collections import Counter
from pathlib import Path

import pytest

from robustqa.packaged import get_set
from robustqa.squad import load_squad

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def document() -> dict:
    return json.loads(get_set("certified@1").perturbed_path.read_text(encoding="utf-8"))


def test_the_packaged_file_is_what_the_committed_judgments_make(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = importlib.util.spec_from_file_location("tools_certify", REPO / "tools" / "certify.py")
    assert spec is not None and spec.loader is not None
    certify = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "tools_certify", certify)
    spec.loader.exec_module(certify)
    text, summary = certify.assembled()
    assert text == get_set("certified@1").perturbed_path.read_text(encoding="utf-8")
    assert json.loads(json.dumps(summary)) == json.loads(
        (REPO / "studies" / "certified-1" / "summary.json").read_text(encoding="utf-8")
    )


def test_every_variant_was_kept_by_both_reviewers_and_its_edit_is_where_it_says(document: dict) -> None:
    clean = {ex.id: ex for ex in load_squad(get_set("certified@1").clean_path).examples()}
    per_question: Counter[str] = Counter()
    for article in document["data"]:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                source = clean[qa["source_id"]]
                assert qa["original_question"] == source.question and paragraph["context"] == source.context
                reviews = qa["review"]
                assert len({r["reviewer"] for r in reviews}) == 2
                assert all(r["same_meaning"] and r["fluency"] >= 2 for r in reviews), qa["id"]
                subs = qa["substitutions"]  # one word: every occurrence of its lemma, as the engine edits a word
                assert subs and len({s["synset"] for s in subs}) == 1, qa["id"]
                for sub in subs:
                    assert qa["original_question"][sub["start"] : sub["end"]] == sub["original"]
                    assert qa["question"][sub["new_start"] : sub["new_end"]] == sub["replacement"]
                per_question[qa["source_id"]] += 1
    assert max(per_question.values()) <= 3
    load_squad(get_set("certified@1").perturbed_path, check_answers=True)  # every answer at its offset


def test_coverage_diversity_and_review_figures(document: dict) -> None:
    figures = document["robustqa"]["set"]
    assert figures["questions_certified"] / figures["source_questions"] >= 0.60
    pairs = Counter(
        (s["original"].lower(), s["replacement"].lower())
        for a in document["data"]
        for p in a["paragraphs"]
        for qa in p["qas"]
        for s in qa["substitutions"]
    )
    assert len(pairs) == figures["distinct_pairs"] and pairs.most_common(1)[0][1] / sum(pairs.values()) <= 0.04
    assert document["signature"].startswith("shift:certified@1|") and "language-model agents" in document["signature"]
    card = get_set("certified@1").card_path.read_text(encoding="utf-8")
    assert f"{figures['questions_certified']:,} of {figures['source_questions']:,} questions" in card
    assert "language-model agents" in card and "not people" in card


def _tool(name: str, monkeypatch: pytest.MonkeyPatch):
    spec = importlib.util.spec_from_file_location(f"tools_{name}", REPO / "tools" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, f"tools_{name}", module)
    spec.loader.exec_module(module)
    return module


def _without_kinds(document: dict) -> dict:
    for article in document["data"]:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                for sub in qa["substitutions"]:
                    sub.pop("kind")
    document.pop("signature")
    document["robustqa"]["set"].pop("edit_kinds")
    document["robustqa"]["set"].pop("name")
    return document


def test_certified_2_is_certified_1_with_kinds(monkeypatch: pytest.MonkeyPatch, document: dict) -> None:
    tool = _tool("certify_kinds", monkeypatch)
    first = get_set("certified@1").perturbed_path.read_bytes()
    second = get_set("certified@2")
    assert tool.reclassified(first) == second.perturbed_path.read_text(encoding="utf-8")
    new = json.loads(second.perturbed_path.read_text(encoding="utf-8"))
    assert (
        new["signature"].startswith("shift:certified@2|from:certified@1#")
        and "|kinds:edit-kinds-1|" in new["signature"]
    )
    kinds = new["robustqa"]["set"]["edit_kinds"]
    assert sum(kinds["variants"].values()) == document["robustqa"]["set"]["variants_certified"]
    assert _without_kinds(new) == _without_kinds_from_v1(document)
    assert second.clean_path == get_set("certified@1").clean_path
    assert get_set().ident == "certified@2" and second.headline_kinds == ("synonym", "rare")
    assert "certified@1" in second.card_path.read_text(encoding="utf-8")


def _without_kinds_from_v1(document: dict) -> dict:
    copy = json.loads(json.dumps(document))
    copy.pop("signature")
    copy["robustqa"]["set"].pop("name")
    return copy


def test_the_issue_s_examples_have_their_kinds() -> None:
    found = {
        (s.original, s.replacement): s.kind
        for ex in load_squad(get_set("certified@2").perturbed_path).iter_examples()
        for s in ex.substitutions
    }
    assert found[("year", "twelvemonth")] == "rare" and found[("year", "yr")] == "abbreviation"
    assert found[("organization", "organisation")] == "spelling" and found[("used", "utilised")] == "spelling"
    assert found[("country", "nation")] == "synonym" and found[("electric", "electrical")] == "morphology"
