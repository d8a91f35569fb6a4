"""What the notebook shows of an attack: the attacked questions with their edits, success by part of speech,
the curve; and how the attack folder is found."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from robustqa.attack import findings
from robustqa.attack.attack_folder import write_attack
from robustqa.attack.driver import AttackConfig, run_attack
from robustqa.errors import InputError
from robustqa.evaluation.inference import InferenceSettings
from robustqa.reporting.charts import budget_figure, png_bytes
from robustqa.runs.load import Run


@pytest.fixture
def attack_dir(attack_input: Path, tmp_path: Path, fake_model) -> Path:
    out = tmp_path / "attack"
    config = AttackConfig(
        input_file=attack_input, output_dir=out, settings=InferenceSettings(), recipe="qads@1.1", progress=False
    )
    run = run_attack(str(tmp_path), config, scorer_factory=fake_model)
    assert run is not None
    write_attack(run)
    return out


def test_attacked_rows_mark_the_edits(attack_dir: Path) -> None:
    attack = findings.load_attack(attack_dir)
    rows = findings.attacked_rows(attack)
    assert [row["id"] for row in rows] == ["a1", "a2", "a3"]
    assert (
        rows[0]["question"] == "In what [country] is Normandy located?"
        and rows[0]["attacked question"] == "In what [land] is Normandy located?"
    )
    assert (
        rows[2]["gold"] == "(unanswerable)"
        and rows[2]["clean prediction"] == "(no answer)"
        and rows[2]["attacked prediction"] == "Normandy"
    )
    assert '<mark title="land">country</mark>' in findings.attacked_html(attack)
    assert "3 of 5 questions right on clean flipped" in findings.summary_line(attack)


def test_success_by_part_of_speech(attack_dir: Path) -> None:
    rows = {row["group"]: row for row in findings.success_by_pos(findings.load_attack(attack_dir))}
    # a1 (country), a2 (kind, buildings, build, city), a3 (largest, city, region), b1 (improved);
    # a4 has no word to change
    assert rows["noun"]["questions"] == 3 and rows["noun"]["succeeded"] == 3 and rows["noun"]["rate"] == 100.0
    assert rows["verb"]["questions"] == 2 and rows["verb"]["succeeded"] == 1
    assert rows["adjective"]["questions"] == 1 and rows["no word to change"]["questions"] == 1
    # land; edifices, urban center; part, urban center (the first flip in query order beats part + biggest)
    assert rows["noun"]["edits_in_flips"] == 5 and rows["adjective"]["edits_in_flips"] == 0
    low, high = rows["verb"]["rate_ci"]
    assert low < 50.0 < high


def test_finding_the_attack_folder(attack_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(findings.ATTACK_ENV, raising=False)
    run = Run(attack_dir.parent, {"models": [], "perturbed_file": str(attack_dir / "adversarial.json")})
    assert findings.find_attack(run)["folder"] == str(attack_dir)
    assert findings.find_attack(Run(attack_dir.parent / "elsewhere", {"models": [], "perturbed_file": None})) is None
    # an attack/ folder inside the run (where `robustqa demo` writes its attack) is found too
    assert findings.find_attack(Run(attack_dir.parent, {"models": [], "perturbed_file": None}))["folder"] == str(
        attack_dir
    )
    monkeypatch.setenv(findings.ATTACK_ENV, str(attack_dir))
    assert findings.find_attack(None)["succeeded"] == 3
    monkeypatch.setenv(findings.ATTACK_ENV, str(attack_dir.parent))
    with pytest.raises(InputError, match="not a finished attack folder"):
        findings.find_attack(None)


def test_a_damaged_attack_json(tmp_path: Path) -> None:
    (tmp_path / "attack.json").write_text("{", encoding="utf-8")
    with pytest.raises(InputError, match="cannot read attack.json"):
        findings.load_attack(tmp_path)
    (tmp_path / "attack.json").write_text(json.dumps({"succeeded": 1}), encoding="utf-8")
    with pytest.raises(InputError, match="no 'questions_detail' list"):
        findings.load_attack(tmp_path)


def test_the_curve_keeps_small_rates_readable(attack_dir: Path) -> None:
    attack = findings.load_attack(attack_dir)
    figure = budget_figure([findings.curve_of(attack)], references=[{"label": "static", "rate": 20.0}])
    ax = figure.axes[0]
    assert ax.get_ylim()[1] <= 100.0 and ax.get_ylim()[1] >= 60.0
    assert png_bytes(figure)[:8] == b"\x89PNG\r\n\x1a\n"
    small = budget_figure(
        [{"label": "x", "attempted": 100, "curve": [{"budget": 1, "succeeded": 1}, {"budget": 2, "succeeded": 2}]}]
    )
    assert small.axes[0].get_ylim()[1] < 20.0
