"""Acceptance on real data: the shared MiniLM model on the held-out SQuAD file and its `qads` variant.

report.json must equal the official rules recomputed on the prediction files the run wrote (robustqa.metric
was itself checked against transformers 4.x's port of evaluate-v2.0.py to 1e-9 in test_metric.py), the files
must follow docs/FORMATS.md, and the synonym substitutions must cost the model a clear, significant drop on
the questions it should answer.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from robustqa.metric import evaluate_files
from robustqa.squad import load_squad

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def report(real_run: Path) -> dict:
    return json.loads((real_run / "report.json").read_text())


def test_report_equals_the_official_rules_on_the_written_files(real_run, report, squad_heldout_path):
    (entry,) = report["models"]
    files = entry["files"]
    thresh = report["settings"]["na_prob_thresh"]
    clean = evaluate_files(
        squad_heldout_path, real_run / files["clean_predictions"], real_run / files["clean_null_odds"], thresh
    )
    perturbed = evaluate_files(
        report["perturbed_file"],
        real_run / files["perturbed_predictions"],
        real_run / files["perturbed_null_odds"],
        thresh,
    )
    for key, value in clean.items():
        assert entry["clean"][key] == pytest.approx(value, abs=1e-9), key
    for key, value in perturbed.items():
        assert entry["perturbed"][key] == pytest.approx(value, abs=1e-9), key
    assert entry["clean"]["total"] == 1494 and entry["perturbed"]["total"] == 1494
    # all questions pair up one to one, so the drop is exactly the difference of the totals
    assert entry["drop"]["exact"] == pytest.approx(entry["perturbed"]["exact"] - entry["clean"]["exact"], abs=1e-9)
    assert entry["drop"]["f1"] == pytest.approx(entry["perturbed"]["f1"] - entry["clean"]["f1"], abs=1e-9)


def test_a_clear_drop_with_its_interval(real_run, report):
    """Synonyms cost the model answers: a drop on answerable questions whose interval excludes 0.

    This model rarely abstains; perturbed questions make it abstain more often, which is right on unanswerable
    questions, so the overall EM/F1 does not fall with it (the NoAns gain offsets the HasAns loss). The drop
    that shows whether it understands the words is the one on answerable questions.
    """
    (entry,) = report["models"]
    drop, coverage = entry["drop"], entry["coverage"]
    assert entry["perturbed"]["HasAns_f1"] < entry["clean"]["HasAns_f1"]
    assert entry["perturbed"]["HasAns_exact"] < entry["clean"]["HasAns_exact"]
    changed = drop["changed"]
    assert changed["questions"] == coverage["changed"] > 0
    assert changed["HasAns_questions"] + changed["NoAns_questions"] == changed["questions"]
    assert changed["HasAns_f1_ci"][0] <= changed["HasAns_f1"] <= changed["HasAns_f1_ci"][1] < 0  # excludes 0
    assert changed["HasAns_exact_ci"][1] < 0 and drop["HasAns_f1_ci"][1] < 0
    for key in ("exact", "f1"):
        assert drop[f"{key}_ci"][0] <= drop[key] <= drop[f"{key}_ci"][1]
    # every flip is on a changed question: unchanged questions reuse the clean prediction
    flips = entry["flips"]
    assert (
        flips["right_to_wrong"] == flips["changed_right_to_wrong"]
        and flips["wrong_to_right"] == flips["changed_wrong_to_right"]
    )
    assert coverage["reused_predictions"] == coverage["matched"] - coverage["changed"]
    assert coverage["matched"] == coverage["clean_questions"] == coverage["perturbed_questions"] == 1494
    rows = [json.loads(line) for line in (real_run / "examples.jsonl").read_text().splitlines()]
    lost = sum(1 for r in rows if r["answerable"] and r["clean_exact"] == 1 and r["perturbed_exact"] == 0)
    gained = sum(1 for r in rows if r["answerable"] and r["clean_exact"] == 0 and r["perturbed_exact"] == 1)
    assert lost > 2 * gained


def test_run_folder_contents(real_run, report):
    (entry,) = report["models"]
    for name in ("report.md", "clean_vs_perturbed.png", "examples.jsonl"):
        assert (real_run / name).is_file()
    rows = [json.loads(line) for line in (real_run / "examples.jsonl").read_text().splitlines()]
    assert len(rows) == 1494
    changed_rows = [r for r in rows if r["changed"]]
    assert len(changed_rows) == entry["coverage"]["changed"]
    assert all(r["substitutions"] and r["perturbed_question"] != r["question"] for r in changed_rows)
    flips = sum(1 for r in rows if r["clean_exact"] == 1 and r["perturbed_exact"] == 0)
    assert flips == entry["flips"]["right_to_wrong"]
    perturbed_ids = {ex.id for ex in load_squad(report["perturbed_file"]).iter_examples()}
    predictions = json.loads((real_run / entry["files"]["perturbed_predictions"]).read_text())
    assert set(predictions) == perturbed_ids
    assert report["signature"].startswith("clean:") and "|recipe:qads@" in report["signature"]
