"""The transfer matrix: two fake models, each attacked, each evaluated on both adversarial sets, shown by
`robustqa report` as one table (white-box cells marked)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from rqa_attackfakes import FRAGILE, FakeQA

from robustqa.attack.attack_folder import ADVERSARIAL_JSON, write_attack
from robustqa.attack.driver import AttackConfig, run_attack
from robustqa.cli import cli
from robustqa.evaluation.inference import InferenceSettings
from robustqa.evaluation.run import EvalConfig, run_evaluation
from robustqa.reporting.transfer import transfer_table
from robustqa.runs import load_run

# model b is fragile to other words than model a: only "land" breaks both
FRAGILE_B = {"land": 3.0, "metropolis": 2.5, "part": 0.5}


def _fake(spec, settings) -> FakeQA:
    if Path(spec.model_id).name == "model-b":
        return FakeQA(fingerprint="fake:b", model_fingerprint="fake:b", fragile=FRAGILE_B)
    return FakeQA(fingerprint="fake:a", model_fingerprint="fake:a", fragile=FRAGILE)


def _attack_and_evaluate(attack_input: Path, tmp_path: Path) -> list[Path]:
    models = [tmp_path / "model-a", tmp_path / "model-b"]
    for folder in models:
        folder.mkdir()
    runs = []
    for target in models:
        out = tmp_path / f"attack-{target.name}"
        config = AttackConfig(
            input_file=attack_input, output_dir=out, settings=InferenceSettings(), recipe="qads@1.1", progress=False
        )
        run = run_attack(str(target), config, scorer_factory=_fake)
        assert run is not None
        write_attack(run)
        eval_dir = tmp_path / f"eval-on-{target.name}"
        config_eval = EvalConfig(
            attack_input, out / ADVERSARIAL_JSON, eval_dir, InferenceSettings(), progress=False, bootstrap=20
        )
        assert run_evaluation([str(m) for m in models], config_eval, runner_factory=_fake) is not None
        runs.append(eval_dir)
    return runs


def test_each_model_on_each_adversarial_set(attack_input: Path, tmp_path: Path) -> None:
    runs = _attack_and_evaluate(attack_input, tmp_path)
    columns, rows = transfer_table([load_run(r) for r in runs])
    assert columns == ["Model", "vs model-a (qads@1.1)", "vs model-b (qads@1.1)"]
    assert [row["Model"] for row in rows] == [str(tmp_path / "model-a"), str(tmp_path / "model-b")]
    a_on_a, b_on_a = rows[0]["vs model-a (qads@1.1)"], rows[1]["vs model-a (qads@1.1)"]
    assert a_on_a.endswith(" *") and "3 R→W" in a_on_a  # the white-box cell: the attack's own three flips
    assert not b_on_a.endswith("*") and "1 R→W" in b_on_a  # of a's flips only "land" breaks b
    assert rows[1]["vs model-b (qads@1.1)"].endswith(" *") and not rows[0]["vs model-b (qads@1.1)"].endswith("*")


def test_report_shows_the_matrix_in_every_format(attack_input: Path, tmp_path: Path) -> None:
    runs = [str(r) for r in _attack_and_evaluate(attack_input, tmp_path)]
    markdown = CliRunner().invoke(cli, ["report", *runs, "--format", "md"], catch_exceptions=False)
    assert markdown.exit_code == 0, markdown.output
    assert (
        "## Transfer" in markdown.output
        and "| Model | vs model-a (qads@1.1) | vs model-b (qads@1.1) |" in markdown.output
    )
    document = json.loads(CliRunner().invoke(cli, ["report", *runs, "--format", "json"], catch_exceptions=False).output)
    assert len(document["transfer"]) == 4 and sum(c["white_box"] for c in document["transfer"]) == 2
    page = CliRunner().invoke(cli, ["report", *runs, "--format", "html"], catch_exceptions=False).output
    assert "<h2>Transfer</h2>" in page


def test_no_matrix_without_adversarial_sets(tmp_path: Path) -> None:
    import sys

    sys.path.insert(0, str(Path(__file__).parents[1] / "analysis"))
    from rqa_synthetic import write_run

    run = write_run(tmp_path / "plain", ["tiny-a"])
    assert transfer_table([load_run(run)]) == ([], [])
    output = CliRunner().invoke(cli, ["report", str(run)], catch_exceptions=False).output
    assert "Transfer" not in output
