"""The official SQuAD 2.0 metric: reference numbers, hand-computed cases, evaluate's input format.

The reference numbers in tests/golden/eval/metric_reference.json were produced once by
tests/golden/eval/make_metric_golden.py with transformers 4.57's `squad_metrics.squad_evaluate` (a port of the
official evaluate-v2.0.py), run from its own virtual environment on the held-out SQuAD file and the seeded
synthetic predictions and no-answer probabilities stored beside it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from robustqa.errors import InputError
from robustqa.metric import (
    compute_exact,
    compute_f1,
    evaluate,
    evaluate_files,
    evaluate_hf_format,
    normalize_answer,
)

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "eval"
OFFICIAL_KEYS = [
    "exact",
    "f1",
    "total",
    "HasAns_exact",
    "HasAns_f1",
    "HasAns_total",
    "NoAns_exact",
    "NoAns_f1",
    "NoAns_total",
]
BEST_KEYS = ["best_exact", "best_exact_thresh", "best_f1", "best_f1_thresh"]


@pytest.fixture(scope="module")
def reference() -> dict:
    return json.loads((GOLDEN / "metric_reference.json").read_text())


@pytest.mark.parametrize("threshold", ["1.0", "0.5", "0.0", "-1.5"])
def test_matches_the_reference_port_of_the_official_script(reference, squad_heldout_path, threshold):
    got = evaluate_files(
        squad_heldout_path, GOLDEN / "metric_predictions.json", GOLDEN / "metric_na_probs.json", float(threshold)
    )
    expected = reference["with_na_probs"][threshold]
    assert list(got) == OFFICIAL_KEYS + BEST_KEYS == list(expected)
    for key in expected:
        assert got[key] == pytest.approx(expected[key], abs=1e-9), key


def test_without_no_answer_file_there_are_no_best_keys(reference, squad_heldout_path):
    got = evaluate_files(squad_heldout_path, GOLDEN / "metric_predictions.json")
    assert list(got) == OFFICIAL_KEYS
    for key in OFFICIAL_KEYS:
        assert got[key] == pytest.approx(reference["without_na_probs"][key], abs=1e-9)


def test_evaluate_library_input_format_gives_the_same_numbers(reference, squad_heldout_path):
    data = json.loads(Path(squad_heldout_path).read_text())
    preds = json.loads((GOLDEN / "metric_predictions.json").read_text())
    na_probs = json.loads((GOLDEN / "metric_na_probs.json").read_text())
    references = [
        {
            "id": qa["id"],
            "answers": {
                "text": [a["text"] for a in qa["answers"]],
                "answer_start": [a["answer_start"] for a in qa["answers"]],
            },
        }
        for article in data["data"]
        for paragraph in article["paragraphs"]
        for qa in paragraph["qas"]
    ]
    predictions = [{"id": k, "prediction_text": preds[k], "no_answer_probability": p} for k, p in na_probs.items()]
    got = evaluate_hf_format(predictions, references)
    expected = reference["with_na_probs"]["1.0"]
    assert got == pytest.approx(expected, abs=1e-9)


def test_evaluate_format_errors_are_one_line():
    with pytest.raises(InputError, match="squad_v2 format"):
        evaluate_hf_format([{"id": "a", "prediction_text": "x"}], [{"id": "a", "answers": {"text": ["x"]}}])


@pytest.mark.parametrize(
    ("text", "normalized"),
    [
        ("The  Quick, brown fox!", "quick brown fox"),
        ("an apple a day", "apple day"),
        ("theory of the anomaly", "theory of anomaly"),  # articles only as whole words
        ("A.B.C.", "abc"),
        ("  Éclair\tau\ncafé ", "éclair au café"),
        ("the", ""),
    ],
)
def test_normalization(text, normalized):
    assert normalize_answer(text) == normalized


def test_exact_and_f1_by_hand():
    assert compute_exact("The Eiffel Tower", "eiffel tower.") == 1
    assert compute_exact("Eiffel Tower", "Tower") == 0
    # gold [cat, sat], prediction [cat, sat, down]: precision 2/3, recall 1
    assert compute_f1("the cat sat", "cat sat down") == pytest.approx(0.8)
    assert compute_f1("cat cat dog", "cat dog dog") == pytest.approx(2 / 3)  # multiset overlap: cat, dog
    assert compute_f1("", "") == 1 and compute_f1("", "x") == 0 and compute_f1("x", "") == 0
    assert compute_f1("red", "blue") == 0


def test_empty_gold_means_abstaining_is_right_and_split_uses_the_raw_list():
    gold = {"none": [], "article-only": ["The"], "two": ["Paris", "the city of Paris"]}
    preds = {"none": "", "article-only": "", "two": "city of paris"}
    result = evaluate(gold, preds)
    # "article-only" normalizes to nothing, so "" is right; it still counts as answerable (raw list non-empty)
    assert result == {
        "exact": 100.0,
        "f1": 100.0,
        "total": 3,
        "HasAns_exact": 100.0,
        "HasAns_f1": 100.0,
        "HasAns_total": 2,
        "NoAns_exact": 100.0,
        "NoAns_f1": 100.0,
        "NoAns_total": 1,
    }
    partial = evaluate({"q": ["Denver Broncos", "Broncos"]}, {"q": "the Denver team"})
    # best of: vs [denver, broncos] -> p=1/2 r=1/2 f1=.5 ; vs [broncos] -> 0
    assert partial["f1"] == pytest.approx(50.0) and partial["exact"] == 0.0
    assert "NoAns_total" not in partial


def test_threshold_and_best_threshold_by_hand():
    gold = {"q1": ["right"], "q2": [], "q3": ["right"], "q4": []}
    preds = {"q1": "right", "q2": "x", "q3": "wrong", "q4": ""}
    na = {"q1": -2.0, "q2": -1.0, "q3": 0.5, "q4": 3.0}
    result = evaluate(gold, preds, na)
    assert (result["exact"], result["HasAns_exact"], result["NoAns_exact"]) == (50.0, 50.0, 50.0)
    # sweep from "abstain everywhere" (2 right): q1 +1 -> 3 (thresh -2), q2 answers wrongly -1, q3 +0, q4 +0
    assert result["best_exact"] == 75.0 and result["best_exact_thresh"] == -2.0
    assert result["best_f1"] == 75.0 and result["best_f1_thresh"] == -2.0
    # a probability above the threshold scores the question as an abstention
    strict = evaluate(gold, preds, na, na_prob_thresh=-1.5)
    # q1 (-2) keeps its answer: 1; q2 (-1 > -1.5) abstains: right; q3 abstains: wrong; q4 abstains: right
    assert strict["exact"] == 75.0 and strict["NoAns_exact"] == 100.0


def test_missing_prediction_is_a_one_line_error():
    with pytest.raises(InputError, match="no prediction for question q2"):
        evaluate({"q1": ["a"], "q2": ["b"]}, {"q1": "a"})


def test_bad_prediction_file(tmp_path, squad_heldout_path):
    bad = tmp_path / "preds.json"
    bad.write_text('{"a": 3}')
    with pytest.raises(InputError, match="must map each question id to text"):
        evaluate_files(squad_heldout_path, bad)
    with pytest.raises(InputError, match="not found"):
        evaluate_files(squad_heldout_path, tmp_path / "nope.json")
