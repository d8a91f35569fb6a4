"""`robustqa import`: each format end to end (the real AddSent sample, synthetic files for the others), the
files it writes as eval reads them, and one-line errors that write nothing for every kind of bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from rqa_importfakes import CONTEXT_A, adversarial_document, plain_document, qa, write

from robustqa.cli import cli
from robustqa.evaluation.run import load_eval_data
from robustqa.importers import IMPORTERS, get_importer
from robustqa.squad import load_squad


def run(*args: str):
    return CliRunner().invoke(cli, ["import", *args], catch_exceptions=False)


def _questions(path: Path) -> dict[str, dict]:
    document = json.loads(path.read_text(encoding="utf-8"))
    return {
        q["id"]: {**q, "context": p["context"], "paragraph": p, "title": a["title"]}
        for a in document["data"]
        for p in a["paragraphs"]
        for q in p["qas"]
    }


def test_addsent_sample_is_split_into_originals_and_paired_copies(addsent_sample: Path, tmp_path: Path):
    out = tmp_path / "addsent"
    result = run("addsent", str(addsent_sample), "--output-dir", str(out))
    assert result.exit_code == 0, result.output
    assert f"wrote {out / 'clean.json'} (55 questions)" in result.output
    assert f"wrote {out / 'perturbed.json'} (135 questions, each with the source_id of its original)" in result.output
    assert "originals without a copy     10" in result.output
    clean, perturbed = _questions(out / "clean.json"), _questions(out / "perturbed.json")
    raw = _questions(addsent_sample)
    assert len(clean) + len(perturbed) == len(raw) == 190
    for pid, copy in perturbed.items():
        original = clean[copy["source_id"]]
        assert pid.startswith(copy["source_id"] + "-") and pid not in clean
        assert copy["question"] == original["question"] and copy["answers"] == raw[pid]["answers"]
        assert copy["context"] == raw[pid]["context"] != original["context"]
        assert copy["paragraph"]["original_context"] == original["context"]
        assert copy["is_impossible"] is False
    for qid, question in clean.items():
        assert question["context"] == raw[qid]["context"] and "source_id" not in question
    for name in ("clean.json", "perturbed.json"):
        document = json.loads((out / name).read_text())
        assert document["source"]["name"] == "addsent" and document["source"]["role"] == name.removesuffix(".json")
        assert "Jia & Liang" in document["source"]["citation"] and document["source"]["licence"]
        assert document["signature"].startswith("shift:addsent@1|input:") and document["version"] == "1.1"
        load_squad(out / name, check_answers=True)  # a valid SQuAD file, every answer at its offset
    # eval's own data checks pair every copy with its original through source_id
    data = load_eval_data(out / "clean.json", out / "perturbed.json")
    assert data.mapping == {pid: copy["source_id"] for pid, copy in perturbed.items()}
    assert all(data.changed.values()) and all(data.context_changed.values())


def test_pairing_depends_on_ids_only_not_on_names_order_or_size(tmp_path: Path):
    """Copies before their originals, another article's names, many copies: the same pairing."""
    document = adversarial_document({"n1": 3, "s1": 1, "s2": 2}, copies_first=True)
    document["data"][0]["title"] = "Anything at all"
    result = run("addsent", str(write(tmp_path / "in.json", document)), "--output-dir", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    perturbed = _questions(tmp_path / "out" / "perturbed.json")
    assert {pid: q["source_id"] for pid, q in perturbed.items()} == {
        "n1-high-conf-turk0": "n1",
        "n1-high-conf-turk1": "n1",
        "n1-high-conf-turk2": "n1",
        "s1-high-conf-turk0": "s1",
        "s2-high-conf-turk0": "s2",
        "s2-high-conf-turk1": "s2",
    }
    assert set(_questions(tmp_path / "out" / "clean.json")) == {"n1", "n2", "s1", "s2"}


def test_full_size_set_reads_like_the_sample(tmp_path: Path):
    """1,000 originals with 2,560 copies (the full AddSent set's counts) in one synthetic file."""
    paragraphs, copies_left = [], 2560
    for i in range(1000):
        context = f"Item {i} was made in {1000 + i}."
        qas = [qa(f"q{i:04d}", f"When was item {i} made?", str(1000 + i), context)]
        paragraphs.append({"context": context, "qas": qas})
        for k in range(min(copies_left, 3 if i < 560 else 2)):
            adversarial = f"{context} Item {i + 1} was made in 1.{k}"
            paragraphs.append(
                {
                    "context": adversarial,
                    "qas": [qa(f"q{i:04d}-high-conf-turk{k}", qas[0]["question"], str(1000 + i), adversarial)],
                }
            )
            copies_left -= 1
    assert copies_left == 0
    source = write(tmp_path / "full.json", {"version": "1.1", "data": [{"title": "T", "paragraphs": paragraphs}]})
    imported = get_importer("addsent").read(str(source))
    assert imported.counts["original questions"] == 1000 and imported.counts["adversarial copies"] == 2560
    assert imported.counts["most copies of one question"] == 3


def test_addonesent_takes_one_copy_per_question_and_refuses_addsent(addsent_sample: Path, tmp_path: Path):
    source = write(tmp_path / "one.json", adversarial_document({"n1": 1, "s2": 1}))
    assert run("addonesent", str(source), "--output-dir", str(tmp_path / "ok")).exit_code == 0
    assert json.loads((tmp_path / "ok" / "perturbed.json").read_text())["source"]["name"] == "addonesent"
    result = CliRunner().invoke(
        cli, ["import", "addonesent", str(addsent_sample), "--output-dir", str(tmp_path / "bad")]
    )
    assert result.exit_code == 2
    assert "adversarial copies" in result.output and "AddOneSent has at most 1 per question" in result.output
    assert "question 5730982f396df919000961e2" in result.output and not (tmp_path / "bad").exists()


@pytest.mark.parametrize("name", ["squad-shifts", "adversarial-qa"])
def test_clean_only_sets_write_only_clean_json(tmp_path: Path, name: str):
    out = tmp_path / "out"
    result = run(name, str(write(tmp_path / "new_wiki_v1.0.json", plain_document())), "--output-dir", str(out))
    assert result.exit_code == 0, result.output
    assert "no paired original questions: a clean-only set" in result.output
    assert sorted(p.name for p in out.iterdir()) == ["clean.json"]
    document = json.loads((out / "clean.json").read_text())
    assert document["source"]["name"] == name and document["source"]["role"] == "clean"
    assert len(load_squad(out / "clean.json", check_answers=True)) == 4
    assert load_eval_data(out / "clean.json", None).perturbed is None


def test_clean_only_import_refuses_a_folder_with_a_perturbed_file(tmp_path: Path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "perturbed.json").write_text("{}")
    result = CliRunner().invoke(
        cli, ["import", "squad-shifts", str(write(tmp_path / "in.json", plain_document())), "--output-dir", str(out)]
    )
    assert result.exit_code == 5 and "clean-only set" in result.output
    assert sorted(p.name for p in out.iterdir()) == ["perturbed.json"]


def test_adversarial_qa_through_datasets(monkeypatch, tmp_path: Path):
    """The hub path with `datasets.load_dataset` standing in (no network in tests): rows become records."""
    import datasets

    rows = [
        {
            "id": "x1",
            "title": "Normans",
            "context": CONTEXT_A,
            "question": "Where is Normandy?",
            "answers": {"text": ["France"], "answer_start": [CONTEXT_A.index("France")]},
            "metadata": {"split": "validation"},
        },
        {
            "id": "x2",
            "title": "Normans",
            "context": CONTEXT_A,
            "question": "Who named it?",
            "answers": {"text": ["The Normans"], "answer_start": [CONTEXT_A.index("The Normans")]},
            "metadata": {"split": "validation"},
        },
    ]
    calls = []
    monkeypatch.setattr(datasets, "load_dataset", lambda *args, **kwargs: calls.append((args, kwargs)) or rows)
    result = run("adversarial-qa", "dbert", "--output-dir", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    assert calls == [(("UCLNLP/adversarial_qa", "dbert"), {"split": "validation"})]
    assert set(_questions(tmp_path / "out" / "clean.json")) == {"x1", "x2"}
    assert "UCLNLP/adversarial_qa:dbert:validation" in result.output
    # the test split has no public answers: refused
    rows_without_answers = [dict(rows[0], answers={"text": [], "answer_start": []})]
    monkeypatch.setattr(datasets, "load_dataset", lambda *args, **kwargs: rows_without_answers)
    result = CliRunner().invoke(cli, ["import", "adversarial-qa", "dbert:test", "--output-dir", str(tmp_path / "test")])
    assert result.exit_code == 2 and "answers are not public" in result.output and not (tmp_path / "test").exists()


def test_adversarial_qa_offline_is_one_line(monkeypatch, tmp_path: Path):
    import datasets

    def offline(*args, **kwargs):
        raise ConnectionError("Couldn't reach the Hugging Face Hub")

    monkeypatch.setattr(datasets, "load_dataset", offline)
    result = CliRunner().invoke(
        cli, ["import", "adversarial-qa", "adversarialQA", "--output-dir", str(tmp_path / "out")]
    )
    assert result.exit_code == 2
    assert result.output.startswith(
        "robustqa: error: UCLNLP/adversarial_qa:adversarialQA:validation: cannot load it through `datasets`"
    )
    assert "give the released SQuAD-style JSON file" in result.output and len(result.output.strip().splitlines()) == 1


def _with(document: dict, change) -> dict:
    change(document)
    return document


def _first_copy(document: dict) -> dict:
    return next(q for a in document["data"] for p in a["paragraphs"] for q in p["qas"] if "-" in q["id"])


def _copy_paragraph(document: dict) -> dict:
    return next(p for a in document["data"] for p in a["paragraphs"] if "-" in p["qas"][0]["id"])


BAD_INPUTS = [
    ("addsent", plain_document(), "no adversarial copy: no question id has the form <original id>-<suffix>"),
    ("squad-shifts", adversarial_document({"n1": 1}), "question n1-high-conf-turk0 is a copy of question n1"),
    ("adversarial-qa", adversarial_document({"s1": 2}), "is a copy of question s1"),
    (
        "addsent",
        _with(adversarial_document({"n1": 1}), lambda d: d["data"][0]["paragraphs"][0]["qas"].pop()),
        "article 'Normans', question n1-high-conf-turk0: the id has the form <original id>-<suffix> "
        "of an adversarial copy, but no question with id n1",
    ),
    (
        "addsent",
        _with(adversarial_document({"n1": 1}), lambda d: d["data"][0]["paragraphs"][0]["qas"][0].update(answers=[])),
        "article 'Normans', question n1: question has no answer, but every AddSent question has one",
    ),
    (
        "squad-shifts",
        _with(plain_document(), lambda d: d["data"][1]["paragraphs"][0]["qas"][0]["answers"][0].update(answer_start=3)),
        "article 'Steam', question s1: answers[0] 'James Watt' is not at answer_start 3 of its context",
    ),
    (
        "addsent",
        _with(adversarial_document({"n1": 1}), lambda d: d["data"][1]["paragraphs"][0]["qas"][0].update(id="n2")),
        "question id n2 appears twice",
    ),
    (
        "addsent",
        _with(adversarial_document({"n1": 1}), lambda d: _first_copy(d).update(question="Where is France?")),
        "question n1-high-conf-turk0: adversarial copy of question n1: its question differs from its original's",
    ),
    (
        "addsent",
        _with(
            adversarial_document({"n1": 1}),
            lambda d: _first_copy(d).update(answers=[{"text": "Normandy", "answer_start": 0}]),
        ),
        "its answers differ from its original's",
    ),
    (
        "addsent",
        _with(adversarial_document({"n1": 1}), lambda d: _copy_paragraph(d).update(context=CONTEXT_A)),
        "its context equals its original's (no sentence was added)",
    ),
    ("addsent", "{not json", "not valid JSON"),
    ("squad-shifts", {"version": "1.1"}, "not a SQuAD file: no top-level 'data' list"),
]


@pytest.mark.parametrize(
    ("name", "document", "message"), BAD_INPUTS, ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(BAD_INPUTS)]
)
def test_bad_input_is_one_line_and_writes_nothing(tmp_path: Path, name: str, document, message: str):
    source = write(tmp_path / "input.json", document)
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["import", name, str(source), "--output-dir", str(out)])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"robustqa: error: {source}: ")
    assert message in lines[0]
    assert not out.exists()


def test_missing_file_unknown_format_and_bad_output_folder(tmp_path: Path):
    result = CliRunner().invoke(
        cli, ["import", "addsent", str(tmp_path / "nope.json"), "--output-dir", str(tmp_path / "o")]
    )
    assert result.exit_code == 2 and "nope.json: file not found" in result.output
    result = CliRunner().invoke(cli, ["import", "newsqa", "x.json", "--output-dir", str(tmp_path / "o")])
    assert result.exit_code == 2 and "'newsqa' is not one of" in result.output
    blocker = write(tmp_path / "file", "x")
    result = CliRunner().invoke(
        cli,
        ["import", "squad-shifts", str(write(tmp_path / "in.json", plain_document())), "--output-dir", str(blocker)],
    )
    assert result.exit_code != 0 and not (tmp_path / "o").exists()


def test_help_lists_every_importer_from_its_object():
    result = CliRunner().invoke(cli, ["import", "--help"])
    for name, importer in IMPORTERS.items():
        assert name in result.output and importer.title in result.output


def test_imported_addsent_runs_through_eval_with_a_tiny_albert(addsent_sample: Path, tmp_path: Path):
    """Import, then `robustqa eval` on the two files (the first 12 originals and their copies): every copy
    paired with its original, the several copies of a question giving the worst-case drop."""
    from tiny import build_tiny_model

    model = build_tiny_model(tmp_path / "albert", "albert")
    assert run("addsent", str(addsent_sample), "--output-dir", str(tmp_path / "in")).exit_code == 0
    first = list(_questions(tmp_path / "in" / "clean.json"))[:12]
    copies = {
        pid: q["source_id"]
        for pid, q in _questions(tmp_path / "in" / "perturbed.json").items()
        if q["source_id"] in first
    }
    args = [
        "eval",
        str(model),
        "--clean",
        str(tmp_path / "in" / "clean.json"),
        "--perturbed",
        str(tmp_path / "in" / "perturbed.json"),
        "--output-dir",
        str(tmp_path / "run"),
        "--quiet",
        "--bootstrap",
        "50",
        "--device",
        "cpu",
        "--limit",
        "12",
    ]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "run" / "report.json").read_text())
    entry = report["models"][0]
    assert entry["coverage"]["clean_questions"] == 12 and entry["coverage"]["matched"] == len(copies) > 12
    assert entry["coverage"]["changed"] == len(copies) and entry["drop"]["worst_case"]["questions"] == len(
        set(copies.values())
    )
    assert report["perturbed_signature"].startswith("shift:addsent@1|")
    rows = [json.loads(line) for line in (tmp_path / "run" / "examples.jsonl").read_text().splitlines()]
    assert {row["id"]: row["source_id"] for row in rows} == copies
    assert all(row["context_changed"] for row in rows)
