"""`robustqa attack` on bad input: one line naming the problem, a non-zero exit, no traceback, no files."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from robustqa.cli import cli
from robustqa.cli.attack_cmd import attack_summary


def _invoke(*args: str):
    return CliRunner().invoke(cli, ["attack", *args])


def test_a_missing_input_file(tmp_path: Path) -> None:
    result = _invoke(str(tmp_path), "--input", str(tmp_path / "none.json"), "--output-dir", str(tmp_path / "out"))
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert (
        result.output.strip().splitlines()[-1].startswith("robustqa: error: ")
        and "none.json: file not found" in result.output
    )
    assert not (tmp_path / "out").exists()


def test_a_recipe_that_edits_contexts(attack_input: Path, tmp_path: Path) -> None:
    result = _invoke(
        str(tmp_path), "--input", str(attack_input), "--output-dir", str(tmp_path / "out"), "--recipe", "both"
    )
    assert result.exit_code == 2 and "edits context, question; the attack searches question edits only" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_an_unknown_recipe_and_a_zero_budget(attack_input: Path, tmp_path: Path) -> None:
    result = _invoke(
        str(tmp_path), "--input", str(attack_input), "--output-dir", str(tmp_path / "out"), "--recipe", "nope"
    )
    assert result.exit_code == 2 and "nope" in result.output and "Traceback" not in result.output
    result = _invoke(
        str(tmp_path), "--input", str(attack_input), "--output-dir", str(tmp_path / "out"), "--budget", "0"
    )
    assert result.exit_code == 2 and "--budget" in result.output


def test_an_output_folder_that_is_a_file(attack_input: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    result = _invoke(str(tmp_path), "--input", str(attack_input), "--output-dir", str(blocker))
    assert result.exit_code == 2 and "--output-dir" in result.output and "is a file" in result.output


def test_the_summary_lines() -> None:
    record = {
        "model": "m",
        "recipe": {"name": "qads", "version": "2.0"},
        "settings": {"budget": 50},
        "questions": 10,
        "not_attacked": {"wrong-on-clean": ["a"] * 4, "right-by-a-hair": []},
        "attempted": 6,
        "no_valid_edit": 2,
        "succeeded": 3,
        "success_rate": 50.0,
        "success_rate_ci": [18.8, 81.2],
        "edits_per_success": 1.0,
        "queries_per_success": 2.5,
        "queries_per_success_median": 2.0,
        "cost": {"model_queries": 30, "from_cache": 0, "seconds": 3.0, "queries_per_second": 10.0},
        "signature": "attack:qads@2.0|robustqa:0.1.0",
    }
    text = attack_summary(record)
    assert (
        "succeeded          3: 50.0% [95% CI 18.8, 81.2]" in text
        and "4 wrong on clean" in text
        and "10.0 queries/s" in text
    )


def test_a_model_rule_option_the_recipe_cannot_take(attack_input: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = _invoke(
        str(tmp_path),
        "--input",
        str(attack_input),
        "--output-dir",
        str(out),
        "--recipe",
        "qads@2.0",
        "--meaning-threshold",
        "0.9",
    )
    assert result.exit_code == 2 and "recipe 'qads' has no parameter 'meaning_threshold'" in result.output
    result = _invoke(
        str(tmp_path),
        "--input",
        str(attack_input),
        "--output-dir",
        str(out),
        "--recipe",
        "qads-lm@2.1",
        "--meaning-threshold",
        "2",
    )
    assert (
        result.exit_code == 2 and "meaning_threshold is a cosine similarity between -1 and 1, not 2.0" in result.output
    )
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1 and not out.exists()


def test_set_reaches_the_searched_recipe_and_refuses_an_unknown_parameter(
    attack_input: Path, tmp_path: Path, monkeypatch
) -> None:
    import robustqa.attack.driver as driver

    seen = []
    monkeypatch.setattr(
        driver, "run_attack", lambda model, config: seen.append(config)
    )  # returns None: as a launcher's other process
    out = tmp_path / "out"
    result = _invoke(
        str(tmp_path),
        "--input",
        str(attack_input),
        "--output-dir",
        str(out),
        "--recipe",
        "qads@2.0",
        "--set",
        "threshold=0.5",
        "--set",
        "max_substitutions=2",
    )
    assert result.exit_code == 0, result.output
    assert seen[0].recipe_overrides == (("threshold", 0.5), ("max_substitutions", 2))
    assert driver.load_recipe(seen[0].recipe, seen[0].recipe_overrides).parameters()["threshold"] == 0.5
    monkeypatch.undo()  # the real driver checks the recipe before it loads anything
    result = _invoke(str(tmp_path), "--input", str(attack_input), "--output-dir", str(out), "--set", "beam=3")
    assert result.exit_code == 2 and not out.exists() and "Traceback" not in result.output
    assert result.output.strip().startswith(
        "robustqa: error: recipe 'qads' has no parameter 'beam'; parameters: max_substitutions, "
    )


def test_eval_and_attack_read_the_inference_flags_into_the_same_settings(
    attack_input: Path, tmp_path: Path, monkeypatch
) -> None:
    """One `InferenceSettings` from the shared options: every flag reaches attack as it reaches eval (attack
    used to drop --int8)."""
    import robustqa.attack.driver as driver
    import robustqa.evaluation.run as run
    from robustqa.evaluation.inference import InferenceSettings

    attacked, evaluated = [], []
    monkeypatch.setattr(driver, "run_attack", lambda model, config: attacked.append(config))
    monkeypatch.setattr(run, "run_evaluation", lambda models, config: evaluated.append(config))
    flags = ["--batch-size", "4", "--device", "cpu", "--max-seq-length", "128", "--doc-stride", "32"]
    flags += ["--null-threshold", "0.5", "--int8"]
    common = ["--output-dir", str(tmp_path / "out"), *flags]
    _invoke(str(tmp_path), "--input", str(attack_input), *common)
    CliRunner().invoke(cli, ["eval", str(tmp_path), "--clean", str(attack_input), *common])
    expected = InferenceSettings(
        max_seq_length=128, doc_stride=32, batch_size=4, device="cpu", null_threshold=0.5, int8=True
    )
    assert attacked and evaluated
    assert attacked[0].settings == evaluated[0].settings == expected
