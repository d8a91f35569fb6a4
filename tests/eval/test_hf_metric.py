"""The `evaluate` metric module shipped in robustqa: loaded offline from its local path, it gives robustqa's
own numbers (the metric reference files, the v1.1 rules, and a real `robustqa eval` run's report.json)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from robustqa.errors import InputError
from robustqa.hf_metric import compute, metric_path
from robustqa.metric import evaluate_v1_files

os.environ.setdefault("HF_EVALUATE_OFFLINE", "1")

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "eval"


@pytest.fixture(scope="module")
def squad_v2_metric():
    import evaluate

    return evaluate.load(metric_path())


def _references(document: dict) -> list[dict]:
    return [
        {
            "id": qa["id"],
            "answers": {
                "text": [a["text"] for a in qa["answers"]],
                "answer_start": [a["answer_start"] for a in qa["answers"]],
            },
        }
        for article in document["data"]
        for paragraph in article["paragraphs"]
        for qa in paragraph["qas"]
    ]


def _predictions(texts: dict[str, str], odds: dict[str, float] | None) -> list[dict]:
    """Predictions in the no-answer file's order: the official best-threshold sweep breaks ties by it."""
    if odds is None:
        return [{"id": k, "prediction_text": v} for k, v in texts.items()]
    return [{"id": k, "prediction_text": texts[k], "no_answer_probability": p} for k, p in odds.items()]


def test_the_module_is_a_local_folder_named_after_its_script():
    folder = Path(metric_path())
    assert (folder / "robustqa_squad.py").is_file() and (folder / "README.md").is_file()


@pytest.mark.parametrize("threshold", ["1.0", "0.0"])
def test_matches_the_reference_port_of_the_official_script(squad_v2_metric, squad_heldout_path, threshold):
    references = _references(json.loads(Path(squad_heldout_path).read_text()))
    texts = json.loads((GOLDEN / "metric_predictions.json").read_text())
    odds = json.loads((GOLDEN / "metric_na_probs.json").read_text())
    got = squad_v2_metric.compute(
        predictions=_predictions(texts, odds), references=references, no_answer_threshold=float(threshold)
    )
    expected = json.loads((GOLDEN / "metric_reference.json").read_text())["with_na_probs"][threshold]
    assert list(got) == list(expected)
    for key, value in expected.items():
        assert got[key] == pytest.approx(value, abs=1e-9), key


def test_squad_config_uses_the_v1_rules(shared_dir: Path, tmp_path: Path):
    import evaluate

    data_file = shared_dir / "adversarial" / "addsent-sample.json"
    document = json.loads(data_file.read_text())
    references = _references(document)
    texts = {
        r["id"]: (r["answers"]["text"][0] if i % 3 else "the " + r["answers"]["text"][-1][:4])
        for i, r in enumerate(references)
    }
    (tmp_path / "pred.json").write_text(json.dumps(texts))
    expected = evaluate_v1_files(data_file, tmp_path / "pred.json")
    got = evaluate.load(metric_path(), "squad").compute(predictions=_predictions(texts, None), references=references)
    assert got == {"exact_match": expected["exact"], "f1": expected["f1"], "total": expected["total"]}


def test_compute_metrics_and_batches_give_the_same_numbers(squad_v2_metric):
    """What a Trainer's compute_metrics does with post-processed predictions, and adding them in batches."""
    from transformers import EvalPrediction

    references = [
        {"id": "a", "answers": {"text": ["Denver Broncos"], "answer_start": [0]}},
        {"id": "b", "answers": {"text": [], "answer_start": []}},
        {"id": "c", "answers": {"text": ["1781", "in 1781"], "answer_start": [3, 0]}},
    ]
    predictions = _predictions({"a": "the Broncos", "b": "", "c": "1781"}, {"a": -2.0, "b": 3.5, "c": 0.5})

    def compute_metrics(eval_prediction: EvalPrediction) -> dict:
        return squad_v2_metric.compute(predictions=eval_prediction.predictions, references=eval_prediction.label_ids)

    whole = compute_metrics(EvalPrediction(predictions=predictions, label_ids=references))
    assert whole == compute(predictions, references)
    # by hand: a: EM 0, F1 2*(1/1*1/2)/(1+1/2) = 2/3; b abstains on an unanswerable question: 1, 1; c: 1, 1
    assert whole["exact"] == pytest.approx(200 / 3) and whole["f1"] == pytest.approx(100 * (2 / 3 + 2) / 3)
    for start in (0, 2):
        squad_v2_metric.add_batch(predictions=predictions[start : start + 2], references=references[start : start + 2])
    assert squad_v2_metric.compute() == whole


def test_perturbed_inputs_need_each_other_and_a_clean_question(squad_v2_metric):
    references = [{"id": "a", "answers": {"text": ["x"], "answer_start": [0]}}]
    predictions = _predictions({"a": "x"}, {"a": -1.0})
    with pytest.raises(InputError, match="give both"):
        compute(predictions, references, perturbed_predictions=predictions)
    with pytest.raises(InputError, match="perturbed question z matches no clean reference"):
        compute(
            predictions,
            references,
            perturbed_predictions=_predictions({"z": "x"}, {"z": -1.0}),
            perturbed_references=[{"id": "z", "answers": {"text": ["x"], "answer_start": [0]}}],
        )


def test_equals_report_json_of_a_real_run(squad_v2_metric, real_run: Path, squad_heldout_path: Path):
    """The shared model's run on the held-out file and its qads variant: clean, perturbed, drop with its
    intervals and flips, recomputed through `evaluate` from the prediction files the run wrote."""
    report = json.loads((real_run / "report.json").read_text())
    entry = report["models"][0]
    files = {key: json.loads((real_run / path).read_text()) for key, path in entry["files"].items()}
    rows = [json.loads(line) for line in (real_run / "examples.jsonl").read_text().splitlines()]
    clean_refs = _references(json.loads(Path(squad_heldout_path).read_text()))
    perturbed_refs = _references(json.loads(Path(report["perturbed_file"]).read_text()))
    by_id = {row["id"]: row for row in rows}
    for reference in perturbed_refs:
        reference.update(source_id=by_id[reference["id"]]["source_id"], changed=by_id[reference["id"]]["changed"])
    settings = report["settings"]
    got = squad_v2_metric.compute(
        predictions=_predictions(files["clean_predictions"], files["clean_null_odds"]),
        references=clean_refs,
        perturbed_predictions=_predictions(files["perturbed_predictions"], files["perturbed_null_odds"]),
        perturbed_references=perturbed_refs,
        no_answer_threshold=settings["na_prob_thresh"],
        bootstrap=settings["bootstrap"],
        seed=settings["seed"],
    )
    assert {key: got[key] for key in entry["clean"]} == entry["clean"]
    assert got["perturbed"] == entry["perturbed"]
    assert got["drop"] == entry["drop"]
    assert got["flips"] == entry["flips"]
