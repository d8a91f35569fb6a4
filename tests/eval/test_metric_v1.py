"""SQuAD v1.1 rules: hand-computed cases, and agreement with a small independent re-implementation of the
official `evaluate-v1.1.py` on a real SQuAD v1.1 file (the AddSent sample) with seeded synthetic predictions."""

from __future__ import annotations

import json
import random
import re
import string
from collections import Counter
from pathlib import Path

import pytest

from robustqa.errors import InputError
from robustqa.metric import (
    compute_exact,
    compute_f1,
    compute_f1_v1,
    evaluate,
    evaluate_hf_squad_format,
    evaluate_v1,
    evaluate_v1_files,
    score_questions_v1,
)

# --- an independent re-implementation of the official v1.1 script's rules (not the code under test) ---


def _ref_normalize(text: str) -> str:
    text = text.lower()
    text = "".join(ch for ch in text if ch not in set(string.punctuation))
    text = re.sub(r"\b(a|an|the)\b", " ", text)
    return " ".join(text.split())


def _ref_f1(prediction: str, truth: str) -> float:
    p, t = _ref_normalize(prediction).split(), _ref_normalize(truth).split()
    common = Counter(p) & Counter(t)
    shared = sum(common.values())
    if shared == 0:
        return 0.0
    precision, recall = shared / len(p), shared / len(t)
    return 2 * precision * recall / (precision + recall)


def _ref_evaluate(dataset: list, predictions: dict) -> dict:
    exact = f1 = total = 0.0
    for article in dataset:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                total += 1
                truths = [a["text"] for a in qa["answers"]]
                prediction = predictions[qa["id"]]
                exact += max(float(_ref_normalize(prediction) == _ref_normalize(t)) for t in truths)
                f1 += max(_ref_f1(prediction, t) for t in truths)
    return {"exact_match": 100.0 * exact / total, "f1": 100.0 * f1 / total}


# --- hand-computed cases ---


def test_empty_answers_score_zero_f1_under_v1_but_one_under_v2():
    assert compute_f1_v1("", "") == 0 and compute_f1("", "") == 1
    # "the" normalizes to nothing: v1.1 counts it as an exact match of "" but F1 0
    assert compute_exact("the", "") == 1 and compute_f1_v1("the", "") == 0


def test_overlap_f1_by_hand():
    assert compute_f1_v1("Denver Broncos", "the Denver Broncos!") == 1.0
    # one shared token of two on each side: precision 1/2, recall 1/2
    assert compute_f1_v1("Denver Broncos", "Broncos win") == pytest.approx(0.5)
    # gold 3 tokens, prediction 1 shared of 1: precision 1, recall 1/3 -> F1 0.5
    assert compute_f1_v1("Santa Clara California", "California") == pytest.approx(0.5)


def test_totals_are_the_maximum_over_all_gold_answers():
    gold = {"q1": ["Denver Broncos", "Broncos"], "q2": ["1781"], "q3": ["a region in France", "the"]}
    predictions = {"q1": "Broncos", "q2": "in 1781", "q3": ""}
    result = evaluate_v1(gold, predictions)
    # q1 exact 1, F1 1; q2 exact 0, F1 2*(1/2*1)/(1/2+1) = 2/3; q3: "" equals "the" once normalized: exact 1, F1 0
    assert result == {"exact": pytest.approx(200 / 3), "f1": pytest.approx(100 * (1 + 2 / 3) / 3), "total": 3}
    # the same predictions under v2.0 rules: q3's gold "the" is dropped, "" is then an abstention on an
    # answerable question (0), so the two rule sets give different totals here
    assert evaluate(gold, predictions)["exact"] == pytest.approx(100 / 3)


def test_scores_plug_into_the_drop_code_like_v2_scores():
    scores = score_questions_v1({"a": ["x"], "b": ["y z"]}, {"a": "x", "b": "z"})
    assert scores.has_answer == {"a": True, "b": True}
    assert scores.exact == scores.exact_raw == {"a": 1, "b": 0}
    assert scores.f1 == scores.f1_raw == {"a": 1.0, "b": pytest.approx(2 / 3)}


def test_a_question_without_gold_answer_or_prediction_is_an_error():
    with pytest.raises(InputError, match="question q2 has no gold answer"):
        evaluate_v1({"q1": ["x"], "q2": []}, {"q1": "x", "q2": ""})
    with pytest.raises(InputError, match="no prediction for question q2"):
        evaluate_v1({"q1": ["x"], "q2": ["y"]}, {"q1": "x"})
    with pytest.raises(InputError, match="no questions"):
        evaluate_v1({}, {})


# --- against the re-implementation, on a real v1.1 file ---


def _synthetic_predictions(data: dict, seed: int) -> dict[str, str]:
    """Exact answers, answers with articles/punctuation/case changed, partial overlaps, other context spans, ""."""
    rng = random.Random(seed)
    out = {}
    for article in data["data"]:
        for paragraph in article["paragraphs"]:
            context = paragraph["context"]
            for qa in paragraph["qas"]:
                answer = rng.choice(qa["answers"])["text"]
                words = answer.split()
                kind = rng.randrange(6)
                if kind == 0:
                    out[qa["id"]] = answer
                elif kind == 1:
                    out[qa["id"]] = f"The {answer.upper()}."
                elif kind == 2 and len(words) > 1:
                    out[qa["id"]] = " ".join(words[: rng.randrange(1, len(words))] + ["extra"])
                elif kind == 3:
                    start = rng.randrange(max(1, len(context) - 30))
                    out[qa["id"]] = context[start : start + rng.randrange(1, 30)]
                elif kind == 4:
                    out[qa["id"]] = ""
                else:
                    out[qa["id"]] = "an " + answer
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_matches_the_reimplementation_on_the_addsent_sample(shared_dir: Path, tmp_path: Path, seed: int):
    data_file = shared_dir / "adversarial" / "addsent-sample.json"
    data = json.loads(data_file.read_text(encoding="utf-8"))
    predictions = _synthetic_predictions(data, seed)
    expected = _ref_evaluate(data["data"], predictions)
    (tmp_path / "pred.json").write_text(json.dumps(predictions), encoding="utf-8")
    got = evaluate_v1_files(data_file, tmp_path / "pred.json")
    assert got["exact"] == pytest.approx(expected["exact_match"], abs=1e-9)
    assert got["f1"] == pytest.approx(expected["f1"], abs=1e-9)
    assert got["total"] == 190
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
    hf = evaluate_hf_squad_format([{"id": k, "prediction_text": v} for k, v in predictions.items()], references)
    assert hf == {
        "exact_match": pytest.approx(expected["exact_match"], abs=1e-9),
        "f1": pytest.approx(expected["f1"], abs=1e-9),
    }


def test_hf_squad_format_errors_name_the_missing_field():
    with pytest.raises(InputError, match="not evaluate's squad format"):
        evaluate_hf_squad_format([{"id": "a"}], [{"id": "a", "answers": {"text": ["x"], "answer_start": [0]}}])
