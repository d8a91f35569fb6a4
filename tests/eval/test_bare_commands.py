"""The mission's commands as written: `robustqa eval MODEL` with no data option evaluates on the packaged
certified set; `robustqa build-dataset` with no argument builds the default recipe's variant of SQuAD 2.0 dev."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from robustqa.cli import cli
from robustqa.packaged import get_set
from robustqa.signature import Signature


def _in(folder: Path, args: list[str]):
    old = os.getcwd()
    os.chdir(folder)
    try:
        return CliRunner().invoke(cli, args)
    finally:
        os.chdir(old)


def test_eval_with_no_data_option_uses_the_packaged_certified_set(tmp_path: Path, shared_model_path: Path) -> None:
    args = ["eval", str(shared_model_path), "--limit", "12", "--quiet", "--bootstrap", "200"]
    result = _in(tmp_path, args)
    assert result.exit_code == 0, result.output
    (folder,) = (tmp_path / "runs").iterdir()  # runs/<model>-certified-v2 (a folder's name plus a hash of the model)
    assert folder.name.startswith(shared_model_path.name) and folder.name.endswith("-certified-v2")
    report = json.loads((folder / "report.json").read_text())
    packaged = get_set()
    assert report["shift"] == "certified@2"
    assert (
        Path(report["clean_file"]) == packaged.clean_path.resolve()
        and Path(report["perturbed_file"]) == packaged.perturbed_path.resolve()
    )
    assert report["review"]["kind"] == "filtered" and "language-model agents" in report["review"]["reviewers"][0]
    # the headline table: the answerable worst-of-K drop, the flip rate, the abstention change, in that order
    assert "ΔF1 worst of K" in result.output and "Flip rate" in result.output and "Abstention Δ" in result.output
    assert result.output.index("ΔF1 worst of K") < result.output.index("Flip rate") < result.output.index("Abstention")
    assert report["models"][0]["estimands"]["answerable"]["questions"] > 0
    assert "reviewed by two language-model agents per variant (not people)" in result.output
    assert Signature.parse(report["signature"]).get("recipe") == "certified@2"
    # the set's default: every variant evaluated, the headline on synonyms (common and rare)
    signature = Signature.parse(report["signature"])
    assert signature.get("kinds") is None and signature.get("headline_kinds") == "synonym,rare"
    assert report["settings"]["headline_kinds"] == ["synonym", "rare"] and "kinds" not in report["settings"]
    assert report["models"][0]["estimands"]["kinds"] == ["synonym", "rare"]
    assert "The headline counts synonym and rare edits only" in result.output
    again = _in(tmp_path, args)  # the same run resumes from its caches
    assert again.exit_code == 0 and "0 predicted" in again.output
    other = _in(tmp_path, [*args[:-2], "--bootstrap", "300"])  # another run into the same folder is refused
    assert other.exit_code == 5
    assert "holds a different run (bootstrap 200 -> 300)" in other.output and "--overwrite" in other.output


def test_packaged_set_files_and_card_are_in_the_package() -> None:
    packaged = get_set()
    card = packaged.card_path.read_text(encoding="utf-8")
    assert "language-model agents" in card and "not people" in card and "CC BY-SA 4.0" in card
    assert packaged.clean_path.stat().st_size > 1_000_000 and packaged.perturbed_path.stat().st_size > 1_000_000


def _hub_rows(sample: Path) -> list[dict]:
    """The flat rows `datasets` gives for squad_v2, made from a local SQuAD file."""
    data = json.loads(sample.read_text(encoding="utf-8"))
    return [
        {
            "id": qa["id"],
            "title": a["title"],
            "context": p["context"],
            "question": qa["question"],
            "answers": {
                "text": [x["text"] for x in qa["answers"]],
                "answer_start": [x["answer_start"] for x in qa["answers"]],
            },
        }
        for a in data["data"]
        for p in a["paragraphs"]
        for qa in p["qas"]
    ]


def test_build_dataset_with_no_argument_builds_the_dev_split_into_a_file_it_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from importlib import resources

    import datasets

    sample = Path(str(resources.files("robustqa") / "data" / "squad2-sample.json"))
    calls = []

    def local_load_dataset(name: str, split: str | None = None, **_: object):
        calls.append((name, split))
        return datasets.Dataset.from_list(_hub_rows(sample))

    monkeypatch.setattr(datasets, "load_dataset", local_load_dataset)
    result = _in(tmp_path, ["build-dataset"])
    assert result.exit_code == 0, result.output
    assert calls == [("rajpurkar/squad_v2", "validation")] or calls[0][1] == "validation"
    written = tmp_path / "squad2-dev-qads@2.2.json"
    assert written.is_file() and result.output.startswith(f"wrote {written.name}")
    document = json.loads(written.read_text())
    assert document["signature"].startswith("recipe:qads@2.2")
    assert sum(len(p["qas"]) for a in document["data"] for p in a["paragraphs"]) == 30


def test_build_dataset_with_no_argument_offline_is_one_line_naming_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import datasets

    def offline(*_: object, **__: object):
        raise ConnectionError("Couldn't reach 'rajpurkar/squad_v2' on the Hub (LocalEntryNotFoundError)")

    monkeypatch.setattr(datasets, "load_dataset", offline)
    result = _in(tmp_path, ["build-dataset"])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "you may be offline" in lines[0] and "--input FILE" in lines[0]
    assert list(tmp_path.iterdir()) == []
