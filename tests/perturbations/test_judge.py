"""The learned judge: it never learned from a held-out question, it scores deterministically and offline, its
calibration is monotone, and it rejects a file that is not a judge."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from perturbations.judge import FEATURES, JUDGE_FILE, Edit, JudgeError, judge_from_dict, load_judge
from perturbations.text import tag

REPO = Path(__file__).resolve().parents[2]
HELD_OUT = {"Normans", "Computational_complexity_theory", "Huguenot", "Steam_engine"}


def test_the_judge_never_learned_from_a_held_out_question(squad_heldout_path: Path) -> None:
    data = json.loads(JUDGE_FILE.read_text(encoding="utf-8"))
    heldout = json.loads(squad_heldout_path.read_text(encoding="utf-8"))
    assert {a["title"] for a in heldout["data"]} == HELD_OUT
    held_ids = {qa["id"] for a in heldout["data"] for p in a["paragraphs"] for qa in p["qas"]}
    assert not set(data["training_articles"]) & HELD_OUT
    assert len(data["training_articles"]) == 12
    assert not set(data["training_questions"]) & held_ids
    # every count of the pair tables comes from the training edits: none from a held-out question
    for table in data["tables"].values():
        assert sum(judged for judged, _ in table.values()) == data["training_edits"]


def test_the_training_split_drops_every_held_out_row() -> None:
    sys.path.insert(0, str(REPO / "tools"))
    try:
        import train_judge
    finally:
        sys.path.remove(str(REPO / "tools"))
    assert set(train_judge.HELD_OUT) == HELD_OUT
    rows = [
        train_judge.Row(f"q{k}-v1", f"q{k}", article, "What is it?", 8, 10, "that", True)
        for k, article in enumerate(sorted(HELD_OUT | {"Warsaw", "Force"}))
    ]
    assert {r.article for r in train_judge.training_rows(rows)} == {"Warsaw", "Force"}


def _edits() -> list[Edit]:
    tokens = tag("Which committees do not reflect the balance of parties across Parliament?")
    word = {t.text: i for i, t in enumerate(tokens)}
    return [
        Edit(tokens, word["balance"], "equilibrium"),
        Edit(tokens, word["parties"], "companies"),
        Edit(tokens, word["reflect"], "muse"),
        Edit(tokens, word["committees"], "commissions"),
    ]


def test_the_judge_is_deterministic_and_calibrated() -> None:
    judge = load_judge()
    first = judge.probability(_edits())
    load_judge.cache_clear()
    again = load_judge().probability(_edits())
    assert np.array_equal(first, again)
    assert ((first >= 0) & (first <= 1)).all()
    assert np.all(np.diff(judge.calibration_x) >= 0) and np.all(np.diff(judge.calibration_y) >= 0)
    assert judge.identity.startswith("judge-1#") and len(judge.data_hash) == 16
    # a right sense ranks above a wrong one ("parties" -> "companies", "reflect" -> "muse")
    assert first[0] > first[1] and first[0] > first[2]


def test_a_file_that_is_not_a_judge_is_refused(tmp_path: Path) -> None:
    with pytest.raises(JudgeError, match="not a judge-1 file"):
        judge_from_dict({"format": "robustqa-judge-1", "features": list(FEATURES)[:-1]}, "x")
    with pytest.raises(JudgeError, match="cannot read"):
        load_judge(tmp_path / "missing.json")


def test_the_vetted_table_candidate_reads_the_default_recipes_table() -> None:
    """`train_judge.py compare`'s candidate (not shipped): the word has vetted synonyms; this is one of them."""
    sys.path.insert(0, str(REPO / "tools"))
    try:
        import train_judge
    finally:
        sys.path.remove(str(REPO / "tools"))
    tokens = tag("How did the engine affect the region?")
    word = {t.text: i for i, t in enumerate(tokens)}
    edits = [
        Edit(tokens, word["affect"], "impact"),  # affect.v -> impact is in vetted-1
        Edit(tokens, word["affect"], "touch"),
        Edit(tokens, word["engine"], "locomotive"),
    ]
    assert train_judge.vetted_features(edits).tolist() == [[1.0, 1.0], [1.0, 0.0], [0.0, 0.0]]
