"""SQuAD v1.1 rules in eval: detected per file, recorded in the signature and report.json, overridden by an
option; a v1.1 file beside a v2.0 one refused before any model loads; v1.1 scores the best non-null span."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from robustqa.cli import cli
from robustqa.errors import InputError
from robustqa.evaluation.inference import InferenceSettings
from robustqa.evaluation.run import EvalConfig, run_evaluation
from robustqa.metric import evaluate_v1_files
from robustqa.signature import Signature

from rqa_evalfakes import answerable_only, clean_document, perturbed_document, write_json

MODEL = "owner/fake-model"


def config(tmp_path: Path, clean: Path, perturbed: Path | None, **kwargs) -> EvalConfig:
    return EvalConfig(clean, perturbed, tmp_path / "run", InferenceSettings(), bootstrap=200, progress=False, **kwargs)


@pytest.fixture
def v1_files(tmp_path: Path) -> tuple[Path, Path]:
    return (
        write_json(tmp_path / "clean-v1.json", answerable_only(clean_document())),
        write_json(tmp_path / "perturbed-v1.json", answerable_only(perturbed_document())),
    )


def test_a_file_without_unanswerable_questions_is_scored_with_the_v1_rules(tmp_path, v1_files, fake_factory):
    clean, perturbed = v1_files
    result = run_evaluation([MODEL], config(tmp_path, clean, perturbed), runner_factory=fake_factory)
    report = result.report
    assert report["rules"] == "1.1" and report["settings"]["rules"] == "auto"
    signature = Signature.parse(report["signature"])
    assert [key for key, _ in signature.items][:5] == [
        "clean",
        "perturbed",
        "recipe",
        "rules",
        "models",
    ] and signature.get("rules") == "1.1"
    entry = report["models"][0]
    assert set(entry["clean"]) == {"exact", "f1", "total"} and set(entry["perturbed"]) == {"exact", "f1", "total"}
    # the fake model abstains on a1's perturbed question ("nation"): v1.1 scores its best span instead
    out = tmp_path / "run"
    predictions = json.loads((out / entry["files"]["perturbed_predictions"]).read_text())
    assert all(predictions.values())  # v1.1 never abstains
    assert evaluate_v1_files(clean, out / entry["files"]["clean_predictions"]) == entry["clean"]
    assert evaluate_v1_files(perturbed, out / entry["files"]["perturbed_predictions"]) == entry["perturbed"]
    scores = json.loads((out / entry["files"]["perturbed_scores"]).read_text())
    assert 100 * sum(s["f1"] for s in scores.values()) / len(scores) == pytest.approx(entry["perturbed"]["f1"])
    assert entry["worst_copy"] is None  # one copy per question: nothing beyond the plain pairing
    assert entry["clean_ci"]["f1"][0] <= entry["clean"]["f1"] <= entry["clean_ci"]["f1"][1]


def test_the_option_overrides_the_detection(tmp_path, v1_files, fake_factory):
    clean, perturbed = v1_files
    result = run_evaluation([MODEL], config(tmp_path, clean, perturbed, rules="2.0"), runner_factory=fake_factory)
    assert result.report["rules"] == "2.0" and "rules:" not in result.report["signature"]
    assert "HasAns_exact" in result.report["models"][0]["clean"]
    v2_clean = write_json(tmp_path / "v2.json", clean_document())
    with pytest.raises(
        InputError, match=r"the clean file has 2 unanswerable questions, which SQuAD v1.1 rules cannot score"
    ) as error:
        run_evaluation([MODEL], config(tmp_path / "x", v2_clean, None, rules="1.1"), runner_factory=fake_factory)
    assert error.value.where == "article 'Normans', question a3" and error.value.setting == "rules"


def test_a_limit_never_changes_the_rules(tmp_path, fake_factory):
    """The first two questions of the v2.0 file are answerable; the file is still scored with the v2.0 rules."""
    clean = write_json(tmp_path / "clean.json", clean_document())
    result = run_evaluation([MODEL], config(tmp_path, clean, None, limit=2), runner_factory=fake_factory)
    assert result.report["rules"] == "2.0" and "HasAns_exact" in result.report["models"][0]["clean"]


@pytest.mark.parametrize("v1_side", ["clean", "perturbed"])
def test_mixed_files_are_refused_in_one_line_before_any_model_loads(tmp_path, v1_side):
    files = {
        "clean": write_json(
            tmp_path / "clean.json", answerable_only(clean_document()) if v1_side == "clean" else clean_document()
        ),
        "perturbed": write_json(
            tmp_path / "perturbed.json",
            answerable_only(perturbed_document()) if v1_side == "perturbed" else perturbed_document(),
        ),
    }
    args = [
        "eval",
        MODEL,
        "--clean",
        str(files["clean"]),
        "--perturbed",
        str(files["perturbed"]),
        "--output-dir",
        str(tmp_path / "run"),
        "--quiet",
    ]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("robustqa: error: ")
    v2_side = "perturbed" if v1_side == "clean" else "clean"
    assert (
        f"the {v2_side} file has 2 unanswerable questions (SQuAD 2.0) but the {v1_side} file has none (SQuAD v1.1)"
        in lines[0]
    )
    assert "--rules v2.0" in lines[0] and not (tmp_path / "run").exists()


def test_v1_rules_need_the_best_span(tmp_path, v1_files):
    """A runner that reports no best span cannot be scored with the v1.1 rules: one error, nothing written."""
    from robustqa.evaluation.inference import Prediction

    class NoSpan:
        model_fingerprint = "fake:nospan"

        def predict(self, examples, *, on_progress=None):
            return {ex.id: Prediction(ex.id, "x", 0.0) for ex in examples}

    clean, _ = v1_files
    with pytest.raises(InputError, match="no best non-null span for question"):
        run_evaluation([MODEL], config(tmp_path, clean, None), runner_factory=lambda spec, settings: NoSpan())
    assert not (tmp_path / "run" / "report.json").exists()
