"""`robustqa augment`: originals with their variants, span-safe, the same in SQuAD JSON and as a `datasets` folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from rqa_trainhelpers import SAMPLE

from perturbations.edit_kinds import edit_kind
from robustqa.cli import cli
from robustqa.hf_export import rows_to_document
from robustqa.squad import load_squad


def _certified_file() -> Path:
    from robustqa.packaged import get_set

    return get_set().perturbed_path


def _augment(*args: str):
    return CliRunner().invoke(cli, ["augment", *args], catch_exceptions=False)


def _questions(document: dict) -> list[tuple[str, dict, dict]]:
    return [(a["title"], p, q) for a in document["data"] for p in a["paragraphs"] for q in p["qas"]]


def _span_safe(document: dict) -> None:
    for _, paragraph, qa in _questions(document):
        for answer in qa["answers"] + qa.get("plausible_answers", []):
            start = answer["answer_start"]
            assert paragraph["context"][start : start + len(answer["text"])] == answer["text"], qa["id"]


@pytest.mark.parametrize(
    "source", [("--recipe", "qads", "--variants", "2"), ("--certified",), ("--variants-file", "certified@1")]
)
def test_augment_is_span_safe_and_the_same_in_both_formats(tmp_path, source):
    squad, hf = tmp_path / "augmented.json", tmp_path / "augmented-hf"
    first = _augment("--input", str(SAMPLE), "--output", str(squad), *source)
    assert first.exit_code == 0, first.output
    assert _augment("--input", str(SAMPLE), "--output", str(hf), *source, "--format", "hf").exit_code == 0
    document = json.loads(squad.read_text(encoding="utf-8"))
    _span_safe(document)
    original = json.loads(SAMPLE.read_text(encoding="utf-8"))
    originals = {q["id"]: q for _, _, q in _questions(original)}
    variants = [q for _, _, q in _questions(document) if q["id"] not in originals]
    assert variants, "the sample's questions have variants"
    for variant in variants:  # each variant names its source, records its edits and keeps its answers
        source_q = originals[variant["source_id"]]
        assert variant["id"].startswith(variant["source_id"] + "-")
        assert variant["original_question"] == source_q["question"] != variant["question"]
        assert variant["substitutions"]
        if source != ("--variants-file", "certified@1"):  # its records carry no kinds: copied as they are
            rules = "edit-kinds-1" if source == ("--certified",) else "edit-kinds-2"  # certified@2's, the recipe's
            for sub in variant["substitutions"]:  # the default recipe and certified@2 write each edit's kind
                assert sub["kind"] == edit_kind(sub["original"], sub["replacement"], rules).value
        assert [a["text"] for a in variant["answers"]] == [a["text"] for a in source_q["answers"]]
    assert {q["id"] for _, _, q in _questions(document)} >= set(originals)  # every original stays
    assert sum(1 for q in variants if q["source_id"]) == len(variants)
    if source[0] == "--recipe":
        assert "|kinds:edit-kinds-2|" in document["signature"]
        assert max(sum(1 for v in variants if v["source_id"] == s) for s in originals) <= 2

    from datasets import load_from_disk

    loaded = load_from_disk(str(hf))
    assert set(loaded.column_names) >= {"id", "title", "context", "question", "answers"}
    assert len(loaded) == len(_questions(document))
    back = rows_to_document(loaded)
    assert back["data"] == document["data"]
    row = loaded[0]
    assert set(row["answers"]) == {"text", "answer_start"}
    assert load_squad(squad).examples() == load_squad(squad).examples()


def test_build_dataset_writes_the_same_set_as_a_datasets_folder(tmp_path):
    squad, hf = tmp_path / "built.json", tmp_path / "built-hf"
    base = ["build-dataset", "--input", str(SAMPLE), "--variants", "2"]
    assert CliRunner().invoke(cli, [*base, "--output", str(squad)], catch_exceptions=False).exit_code == 0
    done = CliRunner().invoke(cli, [*base, "--output", str(hf), "--format", "hf"], catch_exceptions=False)
    assert done.exit_code == 0, done.output
    from datasets import load_from_disk

    document = json.loads(squad.read_text(encoding="utf-8"))
    assert rows_to_document(load_from_disk(str(hf)))["data"] == document["data"]
    assert (hf / "robustqa-signature.txt").read_text().strip() == document["signature"]


def test_augment_refuses_two_sources_and_an_existing_folder(tmp_path):
    both = CliRunner().invoke(cli, ["augment", "--input", str(SAMPLE), "--output", str(tmp_path / "x.json"),
                                    "--recipe", "qads", "--certified"])  # fmt: skip
    assert both.exit_code != 0 and "one source of variants" in both.output
    (tmp_path / "there").mkdir()
    again = CliRunner().invoke(
        cli, ["augment", "--input", str(SAMPLE), "--output", str(tmp_path / "there"), "--certified", "--format", "hf"]
    )
    assert again.exit_code != 0 and len(again.output.strip().splitlines()) == 1 and "already exists" in again.output


def test_certified_variants_come_only_for_the_input_questions(tmp_path):
    out = tmp_path / "aug.json"
    assert _augment("--input", str(SAMPLE), "--output", str(out), "--certified").exit_code == 0
    ids = {q["id"] for _, _, q in _questions(json.loads(SAMPLE.read_text()))}
    document = json.loads(out.read_text())
    assert {q.get("source_id", q["id"]) for _, _, q in _questions(document)} == ids
    certified = {
        q["id"] for _, _, q in _questions(json.loads(_certified_file().read_text())) if q.get("source_id") in ids
    }
    assert {q["id"] for _, _, q in _questions(document)} - ids <= certified
