"""Worst-of-K and mean-of-K: recomputed from the run folder's prediction files by a re-implementation of
the official SQuAD scoring written here, independent of robustqa.metric and robustqa.stats."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from robustqa.errors import OutputError
from robustqa.evaluation.inference import InferenceSettings
from robustqa.evaluation.run import EvalConfig, run_evaluation
from robustqa.reporting.tables import MEAN_OF_K, PAIRED, WORST_OF_K, model_rows
from robustqa.runs.load import load_run

from rqa_evalfakes import clean_document, reference_score, write_json

MODEL = "owner/fake-model"

# source id -> its variants; the fake runner answers wrongly when a question holds "nation", "amended" or "devised"
VARIANTS = {
    "a1": [
        "In what nation is Normandy located?",
        "In what land is Normandy located?",
        "In what state is Normandy located?",
    ],
    "a4": ["What is Normandy, in short?", "What region is Normandy?"],
    "b1": ["Who amended the steam engine?", "Who bettered the steam engine?"],
    "b2": ["When did Watt better it?"],
    "b3": ["Who devised the jet engine?", "Who created the jet engine?"],
}


def variants_document() -> dict:
    """Only changed variants, ids <id>-v<k>, like the packaged certified set (clean questions without a
    variant are not in the file)."""
    doc = clean_document()
    doc["signature"] = "recipe:qads@1.1|variants:3|seed:13|robustqa:0.1.0"
    doc["robustqa"] = {"recipe": {"name": "qads", "version": "1.1"}}
    for article in doc["data"]:
        for paragraph in article["paragraphs"]:
            paragraph["qas"] = [
                dict(qa, id=f"{qa['id']}-v{k}", source_id=qa["id"], question=text, original_question=qa["question"])
                for qa in paragraph["qas"]
                for k, text in enumerate(VARIANTS.get(qa["id"], []), start=1)
            ]
    return doc


def _scores(document: dict, predictions: dict[str, str]) -> dict[str, tuple[float, float]]:
    """id -> (EM, F1) by the SQuAD 2.0 rules: the best over the gold answers; "" is right on no answer."""
    out = {}
    for article in document["data"]:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                out[qa["id"]] = reference_score([a["text"] for a in qa["answers"]], predictions[qa["id"]])
    return out


@pytest.fixture
def run(tmp_path: Path, fake_factory):
    clean = write_json(tmp_path / "clean.json", clean_document())
    perturbed = write_json(tmp_path / "variants.json", variants_document())
    config = EvalConfig(clean, perturbed, tmp_path / "run", InferenceSettings(), bootstrap=300, progress=False)
    run_evaluation([MODEL], config, runner_factory=fake_factory)
    return tmp_path, clean, perturbed, config


def test_worst_and_mean_of_k_match_a_recomputation_from_the_prediction_files(run):
    tmp_path, clean, perturbed, _ = run
    folder = tmp_path / "run"
    report = json.loads((folder / "report.json").read_text())
    entry = report["models"][0]
    files = entry["files"]
    clean_scores = _scores(clean_document(), json.loads((folder / files["clean_predictions"]).read_text()))
    perturbed_scores = _scores(variants_document(), json.loads((folder / files["perturbed_predictions"]).read_text()))
    by_source: dict[str, list[tuple[float, float]]] = {}
    for pid, score in perturbed_scores.items():
        by_source.setdefault(pid.rsplit("-v", 1)[0], []).append(score)
    n = len(by_source)
    clean_em = 100 * sum(clean_scores[s][0] for s in by_source) / n
    clean_f1 = 100 * sum(clean_scores[s][1] for s in by_source) / n
    worst_em = 100 * sum(min(em for em, _ in v) for v in by_source.values()) / n
    worst_f1 = 100 * sum(min(f1 for _, f1 in v) for v in by_source.values()) / n
    mean_em = 100 * sum(sum(em for em, _ in v) / len(v) for v in by_source.values()) / n
    mean_f1 = 100 * sum(sum(f1 for _, f1 in v) / len(v) for v in by_source.values()) / n

    variants = entry["variants"]
    assert variants["questions"] == n == 5 and variants["variants"] == 10
    for view, em, f1 in (("worst", worst_em, worst_f1), ("mean", mean_em, mean_f1)):
        part = variants[view]
        assert part["questions"] == n
        assert part["clean"]["exact"] == pytest.approx(clean_em) and part["clean"]["f1"] == pytest.approx(clean_f1)
        assert part["perturbed"]["exact"] == pytest.approx(em) and part["perturbed"]["f1"] == pytest.approx(f1)
        assert part["drop"]["exact"] == pytest.approx(em - clean_em) and part["drop"]["f1"] == pytest.approx(
            f1 - clean_f1
        )
        low, high = part["drop"]["f1_ci"]
        assert low <= part["drop"]["f1"] <= high
    # the fake model misses a1-v1, b1-v1 and b3-v1: three questions lost at worst, a third of each on average
    assert worst_em == pytest.approx(100 * 2 / 5) and mean_em == pytest.approx(100 * (2 + 2 / 3 + 1 / 2 + 1 / 2) / 5)
    assert variants["worst"]["flips"]["right_to_wrong"] == 3


def test_worst_of_k_is_the_headline_row(run):
    tmp_path, *_ = run
    rows = model_rows([load_run(tmp_path / "run")])
    assert [row.comparison for row in rows] == [WORST_OF_K, MEAN_OF_K, PAIRED]
    worst = rows[0].numbers()
    assert worst["changed"] == 5 and worst["drop_em"] == pytest.approx(-60.0)
    assert "worst of K" in rows[0].describe()
    markdown = (tmp_path / "run" / "report.md").read_text()
    assert markdown.index("worst of K") < markdown.index("mean of K") < markdown.index("paired: each perturbed")


def test_the_paired_row_scores_both_sides_over_its_pairs(run):
    """A file with variants of some questions only: the paired row's clean and perturbed scores are over the
    same pairs as its drop, so perturbed − clean is the drop (the official clean score covers every question)."""
    tmp_path, *_ = run
    path = tmp_path / "run" / "report.json"
    report = json.loads(path.read_text())
    entry = report["models"][0]
    assert entry["clean"]["total"] != entry["drop"]["pairs"]["questions"] == 10  # the official scores differ
    pairs = entry["drop"]["pairs"]
    assert pairs["perturbed"]["f1"] - pairs["clean"]["f1"] == pytest.approx(entry["drop"]["f1"])
    # the fake model gets every clean question right, so the official clean score happens to agree here: make it
    # differ, and the row must still read the pairs
    entry["clean"].update(exact=0.0, f1=0.0)
    path.write_text(json.dumps(report))
    paired = next(row for row in model_rows([load_run(tmp_path / "run")]) if row.comparison == PAIRED).numbers()
    assert paired["clean_f1"] == pytest.approx(pairs["clean"]["f1"])
    assert paired["perturbed_f1"] - paired["clean_f1"] == pytest.approx(paired["drop_f1"])
    assert paired["perturbed_em"] - paired["clean_em"] == pytest.approx(paired["drop_em"])


def test_a_folder_holding_a_different_run_is_refused_unless_overwritten(run, fake_factory):
    tmp_path, clean, perturbed, config = run
    again = run_evaluation([MODEL], config, runner_factory=fake_factory)  # the same run resumes
    assert again is not None
    other = write_json(
        tmp_path / "other.json",
        {**variants_document(), "signature": "recipe:qads@1.1|variants:2|seed:14|robustqa:0.1.0"},
    )
    different = EvalConfig(clean, other, tmp_path / "run", InferenceSettings(), bootstrap=300, progress=False)
    with pytest.raises(OutputError, match="holds a different run") as caught:
        run_evaluation([MODEL], different, runner_factory=fake_factory)
    assert "perturbed" in str(caught.value) and caught.value.setting == "overwrite"
    before = (tmp_path / "run" / "report.json").read_text()
    assert json.loads(before)["perturbed_file"].endswith("variants.json")  # nothing was written
    replaced = EvalConfig(
        clean, other, tmp_path / "run", InferenceSettings(), bootstrap=300, progress=False, overwrite=True
    )
    run_evaluation([MODEL], replaced, runner_factory=fake_factory)
    assert json.loads((tmp_path / "run" / "report.json").read_text())["perturbed_file"].endswith("other.json")
