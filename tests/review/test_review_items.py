"""What is reviewed and in which order: items of a built file and of a run folder, sentences, the page payload."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from robustqa.cli import cli
from robustqa.errors import InputError
from robustqa.review.items import (
    ORDER_FLIPS_FIRST,
    load_built,
    load_review_set,
    order_rank,
    sentence_around,
    sentence_bounds,
)
from robustqa.review.page import render_page

SAMPLE = Path(__file__).resolve().parents[2] / "robustqa" / "data" / "squad2-sample.json"


def test_sentences_split_at_ends_but_not_after_initials_or_abbreviations() -> None:
    context = 'The U.S. Army was founded in 1775. Mr. Smith led it! It grew (a lot). "Then" 1800 came. end'
    assert [context[a:b] for a, b in sentence_bounds(context)] == [
        "The U.S. Army was founded in 1775.",
        "Mr. Smith led it!",
        "It grew (a lot).",
        '"Then" 1800 came. end',
    ]
    start = context.index("Smith")
    assert context[slice(*sentence_around(context, start, start + 5))] == "Mr. Smith led it!"
    # an answer across a sentence end shows both sentences
    start = context.index("1775")
    end = context.index("Smith") + 5
    assert (
        context[slice(*sentence_around(context, start, end))] == "The U.S. Army was founded in 1775. Mr. Smith led it!"
    )


def test_the_variants_of_a_question_are_reviewed_one_after_another(tmp_path: Path) -> None:
    out = tmp_path / "variants.json"
    args = [
        "build-dataset",
        "--input",
        str(SAMPLE),
        "--output",
        str(out),
        "--recipe",
        "qads@1.1",
        "--set",
        "max_substitutions=1",
        "--variants",
        "3",
    ]
    assert CliRunner().invoke(cli, args).exit_code == 0
    items = load_built(out).items
    sources = [item.source_id for item in items]
    runs = [source for k, source in enumerate(sources) if k == 0 or sources[k - 1] != source]
    assert (
        len(runs) == len(set(sources)) < len(items)
    )  # each question's variants in one run, several with more than one
    assert runs == sorted(set(sources), key=order_rank)  # questions still in the seeded order
    assert all(item.id.startswith(item.source_id + "-v") for item in items)


def test_items_of_a_built_file(built_file: Path) -> None:
    review = load_built(built_file)
    document = json.loads(built_file.read_text(encoding="utf-8"))
    changed = {
        qa["id"]: qa for a in document["data"] for p in a["paragraphs"] for qa in p["qas"] if "original_question" in qa
    }
    assert len(changed) >= 10
    assert sorted(item.id for item in review.items) == sorted(changed)
    # seeded shuffle: ranked by sha256 of the seed and the id
    assert [item.id for item in review.items] == sorted(changed, key=order_rank)
    assert [item.id for item in review.items] != list(changed)
    for item in review.items:
        qa = changed[item.id]
        assert (item.original, item.perturbed) == (qa["original_question"], qa["question"])
        assert [s["pos"] for s in item.substitutions] == [s["pos"] for s in qa["substitutions"]]
        if qa["is_impossible"]:
            assert item.answers == ()
        else:
            assert item.answers[0] == qa["answers"][0]["text"]
            start, end = item.answer_span
            assert item.sentence[start:end] == qa["answers"][0]["text"]
            assert item.context[item.sentence_start : item.sentence_start + len(item.sentence)] == item.sentence


def test_order_does_not_depend_on_file_order(built_file: Path, tmp_path: Path) -> None:
    document = json.loads(built_file.read_text(encoding="utf-8"))
    document["data"].reverse()
    for article in document["data"]:
        article["paragraphs"].reverse()
    reordered = tmp_path / "reordered.json"
    reordered.write_text(json.dumps(document), encoding="utf-8")
    assert [i.id for i in load_built(reordered).items] == [i.id for i in load_built(built_file).items]


def test_page_payload_is_escaped_and_self_contained(built_file: Path) -> None:
    review = load_built(built_file)
    page = render_page(review, mode="file")
    assert page.count("<script") == 2 and "</script>" in page
    payload = page.split('<script type="application/json" id="payload">', 1)[1].split("</script>", 1)[0]
    assert "<" not in payload  # nothing in the data can close the script element
    data = json.loads(payload)
    assert data["dataset"]["sha256"] == review.sha256 and len(data["items"]) == len(review.items)
    assert all("<mark" in item["perturbed_html"] for item in data["items"])
    with pytest.raises(ValueError):
        render_page(review, mode="other")


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


def assert_one_line_error(result, code: int, text: str) -> None:
    assert result.exit_code == code, result.output
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("robustqa: error: "), result.stderr
    assert text in result.stderr, result.stderr


def test_bad_inputs_get_one_line(tmp_path: Path, built_file: Path, sample_path: Path) -> None:
    out = tmp_path / "review.html"
    not_squad = tmp_path / "not-squad.json"
    not_squad.write_text('{"questions": []}', encoding="utf-8")
    assert_one_line_error(
        run("review", str(not_squad), "--html", str(out)), 2, "not a SQuAD file: no top-level 'data' list"
    )
    not_json = tmp_path / "not.json"
    not_json.write_text("{", encoding="utf-8")
    assert_one_line_error(run("review", str(not_json), "--html", str(out)), 2, "not valid JSON")
    assert_one_line_error(
        run("review", str(sample_path), "--html", str(out)), 2, f"{sample_path}: no changed questions to review"
    )
    assert_one_line_error(run("review", str(tmp_path / "absent.json"), "--html", str(out)), 2, "file not found")
    no_examples = tmp_path / "run"
    no_examples.mkdir()
    (no_examples / "report.json").write_text('{"models": []}', encoding="utf-8")
    assert_one_line_error(
        run("review", str(no_examples), "--html", str(out)), 2, "not a run folder: examples.jsonl missing"
    )
    assert_one_line_error(
        run("review", str(built_file), "--html", str(tmp_path / "absent" / "review.html")), 5, "does not exist"
    )
    assert not out.exists()
    # usage mistakes are click's usage errors (exit 2)
    assert run("review", str(built_file)).exit_code == 2
    assert run("review", str(built_file), "--reviewer", "ann").exit_code == 2
    assert run("review", str(built_file), str(built_file), "--html", str(out)).exit_code == 2
    assert run("review", "--stats", "--reviewer", "ann", str(built_file)).exit_code == 2


def test_files_with_edited_contexts_are_refused(tmp_path: Path, sample_path: Path) -> None:
    both = tmp_path / "both.json"
    assert run("build-dataset", "--input", str(sample_path), "--output", str(both), "--recipe", "both").exit_code == 0
    assert_one_line_error(
        run("review", str(both), "--html", str(tmp_path / "r.html")),
        2,
        "this file's contexts were edited; review covers question edits only",
    )


def test_broken_substitution_records_are_refused(tmp_path: Path, built_file: Path) -> None:
    document = json.loads(built_file.read_text(encoding="utf-8"))
    qa = next(qa for a in document["data"] for p in a["paragraphs"] for qa in p["qas"] if "substitutions" in qa)
    qa["substitutions"][0]["new_start"] += 1
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(document), encoding="utf-8")
    assert_one_line_error(
        run("review", str(broken), "--html", str(tmp_path / "r.html")),
        2,
        f"question {qa['id']}: substitutions[0] does not match the question's text at its offsets",
    )


@pytest.fixture(scope="session")
def sample_path() -> Path:
    return Path(__file__).resolve().parents[2] / "robustqa" / "data" / "squad2-sample.json"


@pytest.mark.slow
def test_run_folder_puts_flipped_questions_first(real_run: Path, tmp_path: Path) -> None:
    review = load_review_set(real_run)
    report = json.loads((real_run / "report.json").read_text(encoding="utf-8"))
    assert review.path == Path(report["perturbed_file"]) and review.order == ORDER_FLIPS_FIRST
    flips = [item.flipped_by for item in review.items]
    assert flips[0] >= 1 and flips == sorted(flips, reverse=True)
    examples = {
        e["id"]: e for e in map(json.loads, (real_run / "examples.jsonl").read_text(encoding="utf-8").splitlines())
    }
    flipped_ids = {
        i for i, e in examples.items() if e["clean_exact"] == 1 and e["perturbed_exact"] == 0 and e["changed"]
    }
    assert {item.id for item in review.items if item.flipped_by} == flipped_ids
    leading = [item for item in review.items if item.flipped_by]
    assert [i.id for i in leading] == sorted((i.id for i in leading), key=order_rank)
    for item in review.items:  # one model: each item carries its line's two predictions
        (note,) = item.notes
        example = examples[item.id]
        assert (note.model, note.clean_prediction, note.perturbed_prediction) == (
            example["model"],
            example["clean_prediction"],
            example["perturbed_prediction"],
        )
    # decisions made through the run folder are for its perturbed file
    assert review.sha256 == load_built(review.path).sha256
    result = run("review", str(real_run), "--html", str(tmp_path / "run.html"))
    assert result.exit_code == 0, result.output
    assert "flips-first order" in result.stdout
    # the perturbed file moved: named with --dataset; another file is refused
    moved = tmp_path / "moved.json"
    shutil.copy(review.path, moved)
    assert load_review_set(real_run, dataset=moved).sha256 == review.sha256
    other = tmp_path / "other.json"
    document = json.loads(moved.read_text(encoding="utf-8"))
    document["data"] = document["data"][:1]
    other.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(InputError, match="is not the perturbed file this run evaluated"):
        load_review_set(real_run, dataset=other)
    with pytest.raises(InputError, match="the perturbed file this run evaluated is not at"):
        load_review_set(real_run, dataset=tmp_path / "gone.json")
