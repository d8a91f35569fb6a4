"""Dataset building (robustqa.build): validity, determinism, variants, workers, what the engine is asked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import perturbations
from perturbations.builtin_recipes import with_kinds
from perturbations.edit_kinds import EDIT_KIND_RULES, EDIT_KINDS, edit_kind
from perturbations.records import Substitution
from robustqa.build import BuildSummary, build_dataset, context_key
from robustqa.errors import InputError, SpanIntegrityError
from robustqa.rewrite import apply_substitutions
from robustqa.squad import Article, Paragraph, SquadDataset, dumps_squad, load_squad, parse_squad


def qas(document: dict[str, Any]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    return [(p, q) for a in document["data"] for p in a["paragraphs"] for q in p["qas"]]


def assert_valid(document: dict[str, Any]) -> None:
    """Every answer sits at its offset; every recorded edit turns the original into the new text."""
    for paragraph, q in qas(document):
        context = paragraph["context"]
        for answer in q["answers"] + q.get("plausible_answers", []):
            assert context[answer["answer_start"] : answer["answer_start"] + len(answer["text"])] == answer["text"]
        if "original_question" in q:
            subs = [Substitution.from_dict(s) for s in q["substitutions"]]
            assert subs and apply_substitutions(q["original_question"], subs).text == q["question"]
            for s in subs:
                assert q["original_question"][s.start : s.end] == s.original
                assert q["question"][s.new_start : s.new_end] == s.replacement
        else:
            assert "substitutions" not in q
        if "original_context" in paragraph:
            subs = [Substitution.from_dict(s) for s in paragraph["context_substitutions"]]
            assert apply_substitutions(paragraph["original_context"], subs).text == context


@pytest.fixture(scope="module")
def sample(sample_path: Path) -> SquadDataset:
    return load_squad(sample_path, check_answers=True)


@pytest.fixture(scope="module")
def qads_sample(sample: SquadDataset) -> Any:
    return build_dataset(sample, perturbations.get_recipe("qads"), seed=13, source="squad2-sample.json")


def test_qads_build_is_valid_and_documented(qads_sample: Any, sample: SquadDataset) -> None:
    document = qads_sample.document
    assert_valid(document)
    assert list(document) == ["version", "signature", "robustqa", "data"]
    assert document["signature"] == qads_sample.signature.format()
    assert document["signature"].startswith("recipe:qads@")
    assert "|seed:13|wordnet:3.0|robustqa:" in document["signature"]
    meta = document["robustqa"]
    assert meta["recipe"]["name"] == "qads" and meta["recipe"]["fields"] == ["question"]
    assert meta["source"] == "squad2-sample.json"
    pairs = qas(document)
    assert [q["id"] for _, q in pairs] == [e.id for e in sample.examples()]
    changed = [q for _, q in pairs if "original_question" in q]
    assert meta["summary"] == {
        "questions": len(sample),
        "changed": len(changed),
        "substitutions": sum(len(q["substitutions"]) for q in changed),
        "skipped": dict(qads_sample.summary.skipped),
        "gates": qads_sample.summary.gate_counts(),
        "kinds": qads_sample.summary.kind_counts(),
    }
    recipe = perturbations.get_recipe("qads")
    assert list(meta["summary"]["gates"]["rejected"]) == list(recipe.gate_reasons())  # every gate, zeros too
    assert list(meta["summary"]["gates"]["penalised"]) == list(recipe.penalty_reasons())
    for reason, count in meta["summary"]["gates"]["rejected"].items():
        assert count == meta["summary"]["skipped"].get(reason, 0)
    written = sum(meta["summary"]["gates"]["penalised"].values())
    assert 0 < written <= len(recipe.penalty_reasons()) * meta["summary"]["substitutions"]
    assert len(changed) >= 8  # the recipe edits most questions; a builder that drops edits fails here
    # contexts untouched, non-question fields kept
    for (paragraph, q), example in zip(pairs, sample.examples()):
        assert paragraph["context"] == example.context and "original_context" not in paragraph
        assert q["answers"] == [a.to_dict() for a in example.answers]
        assert q["is_impossible"] == example.is_impossible


def test_same_input_same_bytes(sample: SquadDataset, qads_sample: Any) -> None:
    again = build_dataset(sample, perturbations.get_recipe("qads"), seed=13, source="squad2-sample.json")
    assert dumps_squad(again.document) == dumps_squad(qads_sample.document)
    other_seed = build_dataset(sample, perturbations.get_recipe("qads"), seed=14, source="squad2-sample.json")
    assert "|seed:14|" in other_seed.document["signature"]


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_property_subset_gives_the_same_questions(data: st.DataObject, sample: SquadDataset, qads_sample: Any) -> None:
    full = {q["id"]: q for _, q in qas(qads_sample.document)}
    articles = []
    for article in reversed(sample.articles):  # other order, other neighbours
        paragraphs = []
        for paragraph in article.paragraphs:
            keep = data.draw(st.lists(st.sampled_from(paragraph.qas), unique_by=lambda q: q.id, max_size=4))
            if keep:
                paragraphs.append(Paragraph(paragraph.context, tuple(keep), paragraph.extra))
        if paragraphs:
            articles.append(Article(article.title, tuple(paragraphs), article.extra))
    if not articles:
        articles = [
            Article(
                "A", (Paragraph(sample.articles[0].paragraphs[0].context, sample.articles[0].paragraphs[0].qas[:1]),)
            )
        ]
    subset = SquadDataset(tuple(articles), path="subset.json")
    built = build_dataset(subset, perturbations.get_recipe("qads"), seed=13)
    for _, q in qas(built.document):
        assert q == full[q["id"]]


def test_context_recipe_edits_each_context_once_with_answers_frozen(sample: SquadDataset, recording: Any) -> None:
    recipe = recording("context")
    built = build_dataset(sample, recipe, seed=13)
    assert_valid(built.document)
    contexts = [c for c in recipe.calls if c["text"] in {p.context for a in sample.articles for p in a.paragraphs}]
    assert len(contexts) == len(recipe.calls) == 3  # one call per paragraph, none per question
    for call in contexts:
        assert call["key"] == context_key(call["text"]) and call["frozen_spans"]
    changed = [p for a in built.document["data"] for p in a["paragraphs"] if "original_context" in p]
    assert changed, "the context recipe changed no paragraph"
    for paragraph in changed:
        for q in paragraph["qas"]:
            assert q["question"] == next(e.question for e in sample.examples() if e.id == q["id"])
    assert built.summary.changed == sum(len(p["qas"]) for p in changed)


def test_question_gets_its_paragraph_as_wsd_context(sample: SquadDataset, recording: Any) -> None:
    recipe = recording("qads")
    build_dataset(sample, recipe, seed=13)
    by_text = {e.question: e for e in sample.examples()}
    assert len(recipe.calls) == len(sample)
    for call in recipe.calls:
        example = by_text[call["text"]]
        assert call["key"] == example.id and call["wsd_context"] == example.context and call["seed"] == 13


def test_both_recipe_passes_the_context_edit_to_its_questions(sample: SquadDataset, recording: Any) -> None:
    recipe = recording("both")
    built = build_dataset(sample, recipe, seed=13)
    assert_valid(built.document)
    question_calls = [c for c in recipe.calls if "frozen_spans" not in c or not c["frozen_spans"]]
    assert question_calls and all(len(c["consistent_with"]) == 1 for c in question_calls)


def test_variants_have_suffixed_ids_source_ids_and_no_duplicates(sample: SquadDataset) -> None:
    built = build_dataset(sample, perturbations.get_recipe("qads@2.0"), seed=13, variants=3)
    assert_valid(built.document)
    by_source: dict[str, list[dict[str, Any]]] = {}
    for _, q in qas(built.document):
        by_source.setdefault(q["source_id"], []).append(q)
    assert list(by_source) == [e.id for e in sample.examples()]
    more_than_one = 0
    for source, variants in by_source.items():
        assert [q["id"] for q in variants] == [f"{source}-v{i}" for i in range(1, len(variants) + 1)]
        assert len({q["question"] for q in variants}) == len(variants) <= 3
        more_than_one += len(variants) > 1
    assert more_than_one >= 5
    assert built.summary.written == sum(len(v) for v in by_source.values()) > built.summary.questions == len(sample)
    assert "|variants:3|" in built.document["signature"]


def test_variants_of_a_context_recipe_get_their_own_paragraphs(sample: SquadDataset) -> None:
    built = build_dataset(sample, perturbations.get_recipe("context"), seed=13, variants=2)
    assert_valid(built.document)
    for article in built.document["data"]:
        contexts = [p["context"] for p in article["paragraphs"]]
        assert len(contexts) == len(set(contexts))


def test_two_workers_write_the_same_bytes(sample: SquadDataset) -> None:
    recipe = perturbations.get_recipe("both")
    one = build_dataset(sample, recipe, seed=13, variants=2, workers=1)
    two = build_dataset(sample, recipe, seed=13, variants=2, workers=2)
    assert dumps_squad(two.document) == dumps_squad(one.document)
    assert two.summary.to_file_dict() == one.summary.to_file_dict()


def test_an_edit_inside_an_answer_raises(sample: SquadDataset, answer_breaking: Any) -> None:
    with pytest.raises(SpanIntegrityError, match="falls inside the answer"):
        build_dataset(sample, answer_breaking, seed=13)


def test_unbuildable_datasets_raise_input_errors(sample: SquadDataset) -> None:
    recipe = perturbations.get_recipe("qads")
    with pytest.raises(InputError, match="no questions"):
        build_dataset(parse_squad({"version": "v2.0", "data": []}, path="empty.json"), recipe)
    raw = json.loads(Path(sample.path or "").read_text(encoding="utf-8"))
    paragraph = raw["data"][0]["paragraphs"][0]
    paragraph["qas"][1]["id"] = paragraph["qas"][0]["id"]
    with pytest.raises(InputError, match="appears twice"):
        build_dataset(parse_squad(raw, path="dup.json"), recipe)


def test_summary_merges_counts() -> None:
    a = BuildSummary(2, 3, 1, 4, (("stopword", 2), ("number", 1)), 0.5)
    b = BuildSummary(1, 1, 1, 1, (("stopword", 1),), 0.25)
    assert a.merge(b) == BuildSummary(3, 4, 2, 5, (("number", 1), ("stopword", 3)), 0.75)
    assert a.merge(b).to_file_dict() == {
        "questions": 3,
        "changed": 2,
        "substitutions": 5,
        "skipped": {"number": 1, "stopword": 3},
    }


def test_the_default_recipe_writes_each_edits_kind_and_counts_the_kinds(qads_sample: Any, sample: SquadDataset) -> None:
    """Every edit record of a build with the default recipe carries its kind, the rules' verdict on its two words;
    the summary counts them; a published version that wrote none still writes none."""
    document = qads_sample.document
    records = [s for _, q in qas(document) for s in q.get("substitutions", [])]
    assert records and all(list(record)[9] == "kind" for record in records)  # after confidence
    for record in records:
        assert record["kind"] == edit_kind(record["original"], record["replacement"]).value
    counts = document["robustqa"]["summary"]["kinds"]
    assert list(counts) == list(EDIT_KINDS) and sum(counts.values()) == len(records)
    assert counts == {kind: sum(r["kind"] == kind for r in records) for kind in EDIT_KINDS}
    assert document["robustqa"]["recipe"]["parameters"]["kinds"] == EDIT_KIND_RULES
    assert f"|kinds:{EDIT_KIND_RULES}|" in document["signature"]
    old = build_dataset(sample, perturbations.get_recipe("qads@2.1"), seed=13).document
    assert "kinds" not in old["robustqa"]["summary"] and "kinds" not in old["robustqa"]["recipe"]["parameters"]
    assert all("kind" not in s for _, q in qas(old) for s in q.get("substitutions", []))


def test_variants_and_context_edits_carry_kinds_when_the_recipe_writes_them(sample: SquadDataset) -> None:
    both = with_kinds(perturbations.get_recipe("both@2.0"), "9", EDIT_KIND_RULES)
    document = build_dataset(sample, both, seed=13, variants=2).document
    contexts = [s for a in document["data"] for p in a["paragraphs"] for s in p.get("context_substitutions", [])]
    questions = [s for _, q in qas(document) for s in q.get("substitutions", [])]
    assert contexts and questions
    for record in contexts + questions:
        assert record["kind"] == edit_kind(record["original"], record["replacement"]).value
    assert sum(document["robustqa"]["summary"]["kinds"].values()) == document["robustqa"]["summary"]["substitutions"]


def test_summary_counts_kinds_only_for_recipes_that_write_them() -> None:
    a = BuildSummary(1, 1, 1, 2, kinds=(("spelling", 1), ("synonym", 1)), kind_rules="edit-kinds-1")
    b = BuildSummary(1, 1, 1, 1, kinds=(("synonym", 1),))
    merged = a.merge(b)
    assert merged.kinds == (("spelling", 1), ("synonym", 2)) and merged.kind_rules == "edit-kinds-1"
    assert merged.to_file_dict()["kinds"] == dict.fromkeys(EDIT_KINDS, 0) | {"synonym": 2, "spelling": 1}
    assert "kinds" not in BuildSummary(1, 1, 0, 0).to_file_dict()


def test_summary_gives_what_each_gate_did_only_for_recipes_with_gates() -> None:
    gates, ranks = ("compound", "rare"), ("weak-sense", "rare")
    a = BuildSummary(2, 2, 1, 1, (("compound", 3), ("stopword", 2)), penalised=(("rare", 1),), gates=gates, ranks=ranks)
    b = BuildSummary(1, 1, 1, 2, (("rare", 2),), penalised=(("rare", 1), ("weak-sense", 2)), gates=gates, ranks=ranks)
    merged = a.merge(b)
    assert merged.penalised == (("rare", 2), ("weak-sense", 2))
    assert merged.to_file_dict()["gates"] == {
        "rejected": {"compound": 3, "rare": 2},  # words each hard gate left alone, zeros included, recipe order
        "penalised": {"weak-sense": 2, "rare": 2},  # substitutions written although a soft rule penalised them
    }
    assert "gates" not in BuildSummary(1, 1, 0, 0, (("stopword", 2),)).to_file_dict()
