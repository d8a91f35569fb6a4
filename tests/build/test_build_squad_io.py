"""SQuAD 2.0 reading, validation and atomic writing (robustqa.squad)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from robustqa.errors import InputError, OutputError
from robustqa.squad import (
    Answer,
    RepairWarning,
    check_answer_offsets,
    check_unique_ids,
    dataset_to_dict,
    dumps_squad,
    load_squad,
    load_squad_hub,
    parse_squad,
    squad_from_rows,
    write_squad,
    write_text_atomic,
)


def tiny(context: str = "Normandy is a region in France.", start: int = 24, text: str = "France") -> dict:
    return {
        "version": "v2.0",
        "data": [
            {
                "title": "Normans",
                "paragraphs": [
                    {
                        "context": context,
                        "qas": [
                            {
                                "question": "In what country is Normandy located?",
                                "id": "q1",
                                "answers": [{"text": text, "answer_start": start}],
                                "is_impossible": False,
                            },
                            {
                                "plausible_answers": [{"text": "region", "answer_start": 14}],
                                "question": "What is Paris?",
                                "id": "q2",
                                "answers": [],
                                "is_impossible": True,
                            },
                        ],
                    }
                ],
            }
        ],
    }


def test_round_trip_keeps_every_field_in_canonical_order(tmp_path: Path) -> None:
    src = tmp_path / "in.json"
    src.write_text(json.dumps(tiny()), encoding="utf-8")
    dataset = load_squad(src, check_answers=True)
    document = dataset_to_dict(dataset)
    assert document == tiny()
    q2 = document["data"][0]["paragraphs"][0]["qas"][1]
    assert list(q2) == ["id", "question", "answers", "plausible_answers", "is_impossible"]
    out = tmp_path / "out.json"
    write_squad(dataset, out)
    assert out.read_text(encoding="utf-8") == dumps_squad(document)
    assert load_squad(out).examples() == dataset.examples()


def test_real_half_file_round_trips(squad_half_path: Path) -> None:
    dataset = load_squad(squad_half_path, check_answers=True)
    assert len(dataset) == 6078
    assert dataset_to_dict(dataset) == json.loads(squad_half_path.read_text(encoding="utf-8"))


def test_dumps_is_utf8_and_stable() -> None:
    text = dumps_squad({"version": "v2.0", "data": [{"title": "Zürich", "paragraphs": []}]})
    assert "Zürich" in text and text.endswith("\n")
    assert text == dumps_squad(json.loads(text))


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "file is empty"),
        (b"  \n", "file is empty"),
        (b"{not json", "not valid JSON"),
        (b"\xff\xfe\x00", "not UTF-8"),
        (b"[1, 2]", "no top-level 'data' list"),
        (b'{"data": [{"title": "T"}]}', "article 'T': article has no 'paragraphs' list"),
        (b'{"data": [{"title": "T", "paragraphs": [{"qas": []}]}]}', "paragraph 0: paragraph needs a 'context'"),
        (
            b'{"data": [{"title": "T", "paragraphs": [{"context": "c", "qas": [{"question": "q"}]}]}]}',
            "question without an 'id'",
        ),
        (
            b'{"data": [{"title": "T", "paragraphs": [{"context": "c", "qas": [{"id": "x1"}]}]}]}',
            "question x1: question has no 'question' text",
        ),
        (
            b'{"data": [{"title": "T", "paragraphs": [{"context": "c", "qas": [{"id": "x2", "question": "q", '
            b'"answers": [{"text": "c"}]}]}]}]}',
            "question x2: each of 'answers' needs 'text' and 'answer_start'",
        ),
        (
            b'{"data": [{"title": "T", "paragraphs": [{"context": "c", "qas": [{"id": "x3", "question": "q", '
            b'"answers": [{"text": "c", "answer_start": "0"}]}]}]}]}',
            "question x3: 'answers' needs a 'text' string and an integer",
        ),
    ],
)
def test_bad_files_name_file_and_place(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    with pytest.raises(InputError) as info:
        load_squad(path)
    assert str(path) in str(info.value) and message in str(info.value)
    assert "\n" not in str(info.value)


def test_missing_and_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="file not found"):
        load_squad(tmp_path / "absent.json")
    with pytest.raises(InputError, match="is a folder"):
        load_squad(tmp_path)


def test_misaligned_answer_is_an_error_naming_the_question(tmp_path: Path) -> None:
    path = tmp_path / "shifted.json"
    path.write_text(json.dumps(tiny(start=20)), encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_squad(path, check_answers=True)
    text = str(info.value)
    assert str(path) in text and "article 'Normans', question q1" in text and "--" not in text
    assert info.value.setting == "repair"  # the command line names its --repair-answers flag


def test_misaligned_answer_through_the_command_names_the_flag(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from robustqa.cli import cli

    path = tmp_path / "shifted.json"
    path.write_text(json.dumps(tiny(start=20)), encoding="utf-8")
    result = CliRunner().invoke(cli, ["build-dataset", "--input", str(path), "--output", str(tmp_path / "out.json")])
    assert result.exit_code == 2
    assert result.stderr.endswith(
        "fix its answer_start, or pass --repair-answers to move it to the nearest occurrence of its text\n"
    )


def test_repair_moves_answer_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "shifted.json"
    path.write_text(json.dumps(tiny(start=20)), encoding="utf-8")
    with pytest.warns(RepairWarning, match="question q1.*repaired to answer_start 24"):
        dataset = load_squad(path, check_answers=True, repair=True)
    assert dataset.articles[0].paragraphs[0].qas[0].answers == (Answer("France", 24),)


def test_answer_text_absent_from_context_cannot_be_repaired() -> None:
    dataset = parse_squad(tiny(text="Spain"), path="x.json")
    with pytest.raises(InputError, match="does not occur in the context"):
        check_answer_offsets(dataset, repair=True)


def test_misaligned_plausible_answer_is_checked_too() -> None:
    raw = tiny()
    raw["data"][0]["paragraphs"][0]["qas"][1]["plausible_answers"][0]["answer_start"] = 3
    with pytest.raises(InputError, match=r"question q2: plausible_answers\[0\] 'region'"):
        check_answer_offsets(parse_squad(raw, path="x.json"))


def test_duplicate_ids_are_rejected() -> None:
    raw = tiny()
    raw["data"][0]["paragraphs"][0]["qas"][1]["id"] = "q1"
    with pytest.raises(InputError, match="question id q1 appears twice"):
        check_unique_ids(parse_squad(raw, path="x.json"))


def test_atomic_write_leaves_nothing_on_failure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "out.json"

    def broken_replace(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OutputError, match="No space left"):
        write_text_atomic(target, "{}")
    assert list(tmp_path.iterdir()) == []


def test_write_into_missing_folder_fails_cleanly(tmp_path: Path) -> None:
    with pytest.raises(OutputError, match="does not exist; create it first"):
        write_text_atomic(tmp_path / "missing" / "out.json", "{}")
    assert not (tmp_path / "missing").exists()


def test_write_replaces_existing_file_with_normal_permissions(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    target.write_text("old", encoding="utf-8")
    write_text_atomic(target, "new")
    assert target.read_text(encoding="utf-8") == "new"
    assert target.stat().st_mode & 0o644 == 0o644
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_hub_rows_are_grouped_into_articles_and_paragraphs() -> None:
    rows = [
        {"id": "a", "title": "T", "context": "c1 x", "question": "q?", "answers": {"text": ["x"], "answer_start": [3]}},
        {"id": "b", "title": "T", "context": "c1 x", "question": "r?", "answers": {"text": [], "answer_start": []}},
        {"id": "c", "title": "U", "context": "c2", "question": "s?", "answers": {"text": ["c2"], "answer_start": [0]}},
    ]
    dataset = check_answer_offsets(squad_from_rows(rows, path="hub"))
    assert [a.title for a in dataset.articles] == ["T", "U"]
    assert [q.id for q in dataset.articles[0].paragraphs[0].qas] == ["a", "b"]
    assert dataset.articles[0].paragraphs[0].qas[1].is_impossible


def test_hub_offline_is_one_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(InputError) as info:
        load_squad_hub("validation", name="robustqa-test/absent-dataset")
    assert info.value.setting == "input" and "--" not in str(info.value) and "\n" not in str(info.value)


def test_an_unreachable_hub_reads_the_datasets_cache_at_once(tmp_path: Path) -> None:
    """No network and no offline switch: `datasets` is told to read its cache (one connection attempt says the
    hub does not answer) instead of retrying for half a minute. A stand-in `datasets` records the switch it saw;
    the switch is set for the load only. Run as a process, as `datasets` reads the switch when imported."""
    import subprocess
    import sys

    fake = tmp_path / "fake" / "datasets"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text(
        "import os\n"
        "def load_dataset(name, split):\n"
        "    raise RuntimeError('switch ' + os.environ.get('HF_DATASETS_OFFLINE', 'unset'))\n",
        encoding="utf-8",
    )
    script = (
        "import os\n"
        "from robustqa.errors import InputError\n"
        "from robustqa.squad import load_squad_hub\n"
        "try:\n"
        "    load_squad_hub('validation')\n"
        "except InputError as error:\n"
        "    print(error, '|', os.environ.get('HF_DATASETS_OFFLINE', 'unset'))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("HF_") and "proxy" not in k.lower()}
    env.update(HF_ENDPOINT="http://127.0.0.1:9", PYTHONPATH=str(fake.parent))  # a closed port: no answer
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert "(switch 1)" in done.stdout and done.stdout.strip().endswith("| unset"), done.stdout + done.stderr
