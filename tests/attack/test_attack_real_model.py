"""The shared real model, attacked and then evaluated on its adversarial set by the console scripts: eval
finds exactly the right-to-wrong flips attack.json claims."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow


def test_eval_confirms_the_flips_the_attack_claims(real_attack: dict[str, Path]) -> None:
    record = json.loads((real_attack["attack"] / "attack.json").read_text())
    claimed = {q["id"] for q in record["questions_detail"] if q["status"] == "succeeded"}
    assert len(claimed) >= 3 and record["attempted"] >= 5
    report = json.loads((real_attack["eval"] / "report.json").read_text())
    entry = report["models"][0]
    lines = [json.loads(line) for line in (real_attack["eval"] / "examples.jsonl").read_text().splitlines()]
    confirmed = {e["source_id"] for e in lines if e["clean_exact"] == 1 and e["perturbed_exact"] == 0}
    assert confirmed == claimed
    assert entry["flips"] == {**entry["flips"], "right_to_wrong": len(claimed), "wrong_to_right": 0}
    assert report["shift"] == "attack:qads@1.1" and report["perturbed_signature"] == record["signature"]
    # the questions wrong on clean are exactly those eval scores wrong on clean
    wrong = {e["source_id"] for e in lines if e["clean_exact"] == 0}
    assert wrong == set(record["not_attacked"]["wrong-on-clean"])
    # what the attack predicted for each flip is what eval predicted
    predicted = {e["source_id"]: e["perturbed_prediction"] for e in lines}
    for q in record["questions_detail"]:
        if q["status"] == "succeeded":
            assert predicted[q["id"]] == q["prediction"]


def test_the_command_prints_its_summary(real_attack: dict[str, Path]) -> None:
    text = real_attack["stdout"].read_text()
    assert (
        "robustqa attack:" in text
        and "succeeded" in text
        and "signature          attack:qads@1.1|wsd:enhanced-lesk|" in text
        and "|target:" in text
    )
