"""`robustqa demo`: the packaged sample end to end with the shared model, and the offline message."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

from robustqa.edits import highlight_text
from robustqa.reporting import analysis
from robustqa.runs import load_run


def test_packaged_sample_is_squad_with_both_kinds_of_question() -> None:
    data = json.loads(resources.files("robustqa").joinpath("data", "squad2-sample.json").read_text(encoding="utf-8"))
    questions = [q for a in data["data"] for p in a["paragraphs"] for q in p["qas"]]
    assert 20 <= len(questions) <= 40
    assert {q["is_impossible"] for q in questions} == {True, False}
    for article in data["data"]:
        for paragraph in article["paragraphs"]:
            for q in paragraph["qas"]:
                for answer in q["answers"]:
                    assert paragraph["context"][answer["answer_start"] :].startswith(answer["text"])
    attribution = resources.files("robustqa").joinpath("data", "ATTRIBUTION.md").read_text(encoding="utf-8")
    assert "CC BY-SA 4.0" in attribution and "Rajpurkar" in attribution


def test_demo_with_a_local_model(demo_run: tuple[Path, str]) -> None:
    out, output = demo_run
    run = load_run(out)
    assert run.report["perturbed_signature"].startswith("recipe:qads@")
    assert len({e["source_id"] for e in run.examples}) == 30
    assert run.report["perturbed_signature"].startswith("recipe:qads@2.0")
    flips = analysis.flipped(run, changed_only=True)
    if flips:
        assert f"[3/4] {len(flips)} questions flipped from right to wrong" in output
        assert flips[0].perturbed_text in output
    else:  # the sample was drawn at random among reviewed-valid paragraphs, not where the model fails
        assert "[3/4] no question flipped from right to wrong on this sample" in output
        changed = [e for e in analysis.compared(run) if e["changed"]]
        assert changed and highlight_text(changed[0]["perturbed_question"], changed[0]["substitutions"]) in output
    assert "Clean\nF1" not in output and "Clean" in output and "ΔF1" in output  # the table
    assert f"ROBUSTQA_RUN={out} jupyter notebook notebooks/failure_analysis.ipynb" in output
    assert f"robustqa analyze {out}" in output


def test_the_demo_attacks_and_shows_what_the_search_found(demo_run: tuple[Path, str]) -> None:
    """A measurement, not only zeros: the attack's flips, else the edit that moved the margin most (numbers
    taken from the attack's own record), and what 30 questions cannot show."""
    out, output = demo_run
    record = json.loads((out / "attack" / "attack.json").read_text(encoding="utf-8"))
    searched = [q for q in record["questions_detail"] if q["status"] in ("succeeded", "failed")]
    flipped = [q for q in searched if q["status"] == "succeeded"]
    assert "[4/4] attacking" in output
    assert f"{len(searched)} questions searched" in output and f"{len(flipped)} flipped" in output
    if flipped:
        assert "flipped: margin" in output
    else:
        assert "the edit that lowered the model's margin" in output and "closest: margin" in output
    assert "cannot rank models or measure a drop" in output
    from robustqa.attack.findings import find_attack

    found = find_attack(load_run(out))  # the notebook's attack section finds the demo's attack folder
    assert found is not None and found["attempted"] == len(searched)


@pytest.mark.parametrize(
    ("offline", "reason"),
    [("1", "is switched off (HF_HUB_OFFLINE)"), ("0", "cannot be reached")],
)
def test_demo_offline_without_model_says_how_to_pass_one(tmp_path: Path, offline: str, reason: str) -> None:
    """Offline flag set, or a hub that does not answer (a closed local port stands in for it): one line, fast."""
    env = dict(
        os.environ, HF_HUB_OFFLINE=offline, HF_HOME=str(tmp_path / "empty-hf-cache"), HF_ENDPOINT="http://127.0.0.1:9"
    )
    env.pop("TRANSFORMERS_OFFLINE", None)
    out = tmp_path / "demo"
    done = subprocess.run(
        [sys.executable, "-c", "from robustqa.cli import main; main()", "demo", "--output-dir", str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 4
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("robustqa: error: the demo model 'electra-small'")
    assert reason in lines[0]
    assert "robustqa demo --model PATH" in lines[0]
    assert not out.exists()
