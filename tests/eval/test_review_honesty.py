"""Eval honesty: the run says whether people reviewed the perturbed set, and scores the reviewed-valid
questions alone when review decisions are given."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from robustqa.errors import InputError
from robustqa.evaluation.inference import InferenceSettings
from robustqa.evaluation.run import EvalConfig, run_evaluation
from robustqa.reporting.report import render_markdown
from robustqa.review.decisions import Decision, DecisionsFile
from robustqa.runs.load import load_run
from robustqa.signature import Signature

from rqa_evalfakes import perturbed_document, write_json

MODEL = "owner/fake-model"


def decisions_file(path: Path, perturbed: Path, reviewer: str, verdicts: dict[str, tuple[str, str | None]]) -> Path:
    """A decisions file made on `perturbed`'s bytes, as the review page writes it."""
    decisions = tuple(
        Decision(qid, decision, reason, "orig", "pert", (), "2026-01-01T00:00:00Z")
        for qid, (decision, reason) in verdicts.items()
    )
    sha = hashlib.sha256(perturbed.read_bytes()).hexdigest()
    document = DecisionsFile(reviewer, perturbed.name, sha, "", 3, "shuffled", decisions, "2026-01-01T00:00:00Z")
    path.write_text(document.to_json(), encoding="utf-8")
    return path


def run(tmp_path: Path, clean: Path, perturbed: Path, fake_factory, decisions: tuple[Path, ...] = ()):
    config = EvalConfig(
        clean, perturbed, tmp_path / "run", InferenceSettings(), bootstrap=200, progress=False, decisions=decisions
    )
    return run_evaluation([MODEL], config, runner_factory=fake_factory)


def test_an_unreviewed_built_set_says_so(tmp_path, squad_files, fake_factory):
    clean, perturbed = squad_files
    result = run(tmp_path, clean, perturbed, fake_factory)
    assert result.report["review"] == {
        "reviewed": False,
        "kind": "not reviewed",
        "accepted": 0,
        "rejected": 0,
        "unreviewed": 0,
        "decisions": [],
        "reviewers": [],
    }
    assert result.report["models"][0]["valid"] is None
    assert "(SQuAD 2.0; not reviewed)" in render_markdown([load_run(tmp_path / "run")])


def test_decisions_score_the_reviewed_valid_questions_alone(tmp_path, squad_files, fake_factory):
    clean, perturbed = squad_files  # changed: a1, b1, b3, all flipped right -> wrong by the fake model
    ann = decisions_file(
        tmp_path / "ann.json",
        perturbed,
        "ann",
        {"a1": ("accepted", None), "b1": ("rejected", "meaning_changed"), "b3": ("skipped", None)},
    )
    result = run(tmp_path, clean, perturbed, fake_factory, (ann,))
    review = result.report["review"]
    assert (review["kind"], review["accepted"], review["rejected"], review["unreviewed"], review["reviewers"]) == (
        "decisions",
        1,
        1,
        1,
        ["ann"],
    )
    entry = result.report["models"][0]
    valid = entry["valid"]
    # the 5 unchanged questions and the one accepted edit; the rejected and the skipped one are set aside
    assert (valid["questions"], valid["changed"]) == (6, 1)
    assert valid["drop"]["exact"] == pytest.approx(-100.0 / 6)
    assert valid["drop"]["changed"]["exact"] == pytest.approx(-100.0)
    assert valid["flips"]["right_to_wrong"] == 1
    assert valid["clean"]["exact"] == pytest.approx(100.0) and valid["perturbed"]["exact"] == pytest.approx(500.0 / 6)
    assert entry["drop"]["exact"] == pytest.approx(-37.5)  # the whole set is still scored as before
    sha12 = hashlib.sha256(ann.read_bytes()).hexdigest()[:12]
    assert Signature.parse(result.report["signature"]).get("validated") == sha12
    table = render_markdown([load_run(tmp_path / "run")])
    assert (
        "paired, reviewed-valid" in table and "1 accepted of 3 changed" in table and "reviewed, 1/3 accepted" in table
    )


def test_two_reviewers_keep_only_questions_both_accepted(tmp_path, squad_files, fake_factory):
    clean, perturbed = squad_files
    ann = decisions_file(tmp_path / "ann.json", perturbed, "ann", {"a1": ("accepted", None), "b1": ("accepted", None)})
    bob = decisions_file(
        tmp_path / "bob.json", perturbed, "bob", {"a1": ("accepted", None), "b1": ("rejected", "ungrammatical")}
    )
    result = run(tmp_path, clean, perturbed, fake_factory, (ann, bob))
    review = result.report["review"]
    assert (review["accepted"], review["rejected"], review["unreviewed"], review["reviewers"]) == (
        1,
        1,
        1,
        ["ann", "bob"],
    )


def test_decisions_made_on_another_file_are_refused(tmp_path, squad_files, fake_factory):
    clean, perturbed = squad_files
    other = write_json(tmp_path / "other.json", perturbed_document(variants=True))
    stale = decisions_file(tmp_path / "ann.json", other, "ann", {"a1-v1": ("accepted", None)})
    with pytest.raises(InputError, match="made for another dataset"):
        run(tmp_path, clean, perturbed, fake_factory, (stale,))
    assert not (tmp_path / "run" / "report.json").exists()


def test_a_filtered_file_reports_its_review(tmp_path, squad_files, fake_factory):
    from robustqa.review.decisions import read_decisions
    from robustqa.review.validate import apply_decisions

    clean, perturbed = squad_files
    ann = decisions_file(
        tmp_path / "ann.json", perturbed, "ann", {"a1": ("accepted", None), "b1": ("rejected", "meaning_changed")}
    )
    document = json.loads(perturbed.read_text())
    sha = hashlib.sha256(perturbed.read_bytes()).hexdigest()
    filtered, _ = apply_decisions(document, [read_decisions(ann)], dataset_sha256=sha, dataset_name=perturbed.name)
    filtered_path = write_json(tmp_path / "filtered.json", filtered)
    result = run(tmp_path, clean, filtered_path, fake_factory)
    review = result.report["review"]
    assert (review["kind"], review["accepted"], review["rejected"], review["unreviewed"]) == ("filtered", 1, 1, 1)
    assert result.report["models"][0]["coverage"]["changed"] == 1  # only the accepted question stays perturbed
    # the counts are the whole filtered set's, which a newcomer read as the run's own variants
    markdown = render_markdown([load_run(result.output_dir)])
    counts = "1 accepted, 1 rejected, 1 not reviewed in the whole reviewed set (not only the questions this run"
    assert counts in markdown
    assert "reviewed, 1 accepted kept in the whole set" in markdown


def test_the_eval_summary_says_whether_the_set_was_reviewed(tmp_path, squad_files, fake_factory, capsys):
    from robustqa.cli.console import print_eval_result

    clean, perturbed = squad_files
    print_eval_result(run(tmp_path / "plain", clean, perturbed, fake_factory))
    assert "perturbed set: not reviewed by people" in capsys.readouterr().err
    ann = decisions_file(
        tmp_path / "ann.json", perturbed, "ann", {"a1": ("accepted", None), "b1": ("rejected", "meaning_changed")}
    )
    print_eval_result(run(tmp_path / "reviewed", clean, perturbed, fake_factory, (ann,)))
    assert "perturbed set: reviewed by ann: 1 accepted, 1 rejected, 1 not reviewed" in capsys.readouterr().err


def test_the_eval_command_takes_decisions_files(tmp_path, squad_files, monkeypatch):
    from robustqa.cli import cli

    clean, perturbed = squad_files
    ann = decisions_file(tmp_path / "ann.json", perturbed, "ann", {"a1": ("accepted", None)})
    calls = {}

    def fake_run_evaluation(models, config):
        calls["decisions"] = config.decisions

    monkeypatch.setattr("robustqa.evaluation.run.run_evaluation", fake_run_evaluation)
    result = CliRunner().invoke(
        cli,
        [
            "eval",
            MODEL,
            "--clean",
            str(clean),
            "--perturbed",
            str(perturbed),
            "--output-dir",
            str(tmp_path / "r"),
            "--validated",
            str(ann),
            "--quiet",
        ],
    )
    assert result.exit_code == 0, result.output
    assert calls["decisions"] == (ann,)


def test_nothing_accepted_gives_no_reviewed_valid_row_but_a_line_saying_so(tmp_path, squad_files, fake_factory):
    from robustqa.reporting.charts import headline_figure
    from robustqa.reporting.tables import REVIEWED_VALID, model_rows

    clean, perturbed = squad_files
    ann = decisions_file(
        tmp_path / "ann.json",
        perturbed,
        "ann",
        {"a1": ("rejected", "meaning_changed"), "b1": ("rejected", "ungrammatical")},
    )
    result = run(tmp_path, clean, perturbed, fake_factory, (ann,))
    assert result.report["models"][0]["valid"]["changed"] == 0
    runs = [load_run(tmp_path / "run")]
    assert REVIEWED_VALID not in [row.comparison for row in model_rows(runs)]
    table = render_markdown(runs)
    assert "reviewed-valid" not in table.split("\n\n")[2]  # the table itself
    assert "accepted none of the changed questions, so there is no reviewed-valid row" in table
    labels = [
        text.get_text()
        for axis in headline_figure(model_rows(runs)).axes
        for text in axis.get_yticklabels() + axis.get_xticklabels()
    ]
    assert not any("reviewed-valid" in label for label in labels)
