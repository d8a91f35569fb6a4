"""Acceptance on a real published shift: the AddSent sample (SQuAD v1.1, several adversarial copies per
question) imported and evaluated with the shared MiniLM model, then reported beside the qads run.

The EM/F1 under SQuAD v1.1 rules and the authors' worst-copy protocol are recomputed here from the files the
run wrote, by a small re-implementation of the authors' rules (the official evaluate-v1.1.py and Jia & Liang's
evaluate-adversarial.py), not by robustqa's code. Nothing here depends on the sample's size or its articles:
every count comes from the imported files, so the full AddSent set (1,000 originals, 2,560 copies) reads the same.
"""

from __future__ import annotations

import json
import re
import string
from collections import Counter
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow


# ---------------------------------------------------------------- the authors' rules, re-implemented


def _normalize(text: str) -> str:
    text = "".join(ch for ch in text.lower() if ch not in set(string.punctuation))
    return " ".join(re.sub(r"\b(a|an|the)\b", " ", text).split())


def _exact(prediction: str, gold: str) -> float:
    return float(_normalize(prediction) == _normalize(gold))


def _f1(prediction: str, gold: str) -> float:
    predicted, expected = _normalize(prediction).split(), _normalize(gold).split()
    common = sum((Counter(predicted) & Counter(expected)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(predicted), common / len(expected)
    return 2 * precision * recall / (precision + recall)


def _questions(path: str | Path) -> list[dict]:
    document = json.loads(Path(path).read_text(encoding="utf-8"))
    return [qa for article in document["data"] for paragraph in article["paragraphs"] for qa in paragraph["qas"]]


def _v1_scores(path: str | Path, predictions: dict[str, str]) -> dict[str, tuple[float, float]]:
    """evaluate-v1.1.py per question: the best EM and F1 over the gold answers."""
    return {
        qa["id"]: (
            max(_exact(predictions[qa["id"]], a["text"]) for a in qa["answers"]),
            max(_f1(predictions[qa["id"]], a["text"]) for a in qa["answers"]),
        )
        for qa in _questions(path)
    }


def _adversarial(
    originals: list[dict], copies: list[dict], scores: dict[str, tuple[float, float]]
) -> tuple[float, float, int]:
    """evaluate-adversarial.py: every original is scored by its adversary, the first copy (in file order)
    with the lowest F1, by itself when it has no copy; an original's id is its copy's id up to the first '-'."""
    adversary: dict[str, str] = {qa["id"]: qa["id"] for qa in originals}
    for qa in copies:
        original = qa["id"].split("-")[0]
        if adversary[original] == original or scores[adversary[original]][1] > scores[qa["id"]][1]:
            adversary[original] = qa["id"]
    n = len(adversary)
    with_copy = sum(1 for original, chosen in adversary.items() if chosen != original)
    return (
        100 * sum(scores[a][0] for a in adversary.values()) / n,
        100 * sum(scores[a][1] for a in adversary.values()) / n,
        with_copy,
    )


# ---------------------------------------------------------------- the run


@pytest.fixture(scope="module")
def report(addsent_run: Path) -> dict:
    return json.loads((addsent_run / "report.json").read_text())


def _files(run: Path, entry: dict, name: str) -> dict:
    return json.loads((run / entry["files"][name]).read_text())


def test_v1_rules_and_the_worst_copy_protocol_equal_the_authors_rules(addsent_run: Path, report: dict):
    (entry,) = report["models"]
    assert report["rules"] == "1.1" and "|rules:1.1|" in report["signature"] and report["shift"] == "addsent@1"
    clean_predictions, copy_predictions = (
        _files(addsent_run, entry, "clean_predictions"),
        _files(addsent_run, entry, "perturbed_predictions"),
    )
    assert all(clean_predictions.values()) and all(copy_predictions.values())  # v1.1: the model always answers
    originals, copies = _questions(report["clean_file"]), _questions(report["perturbed_file"])
    scores = {
        **_v1_scores(report["clean_file"], clean_predictions),
        **_v1_scores(report["perturbed_file"], copy_predictions),
    }
    for role, questions in (("clean", originals), ("perturbed", copies)):
        expected_em = 100 * sum(scores[qa["id"]][0] for qa in questions) / len(questions)
        expected_f1 = 100 * sum(scores[qa["id"]][1] for qa in questions) / len(questions)
        assert entry[role]["exact"] == pytest.approx(expected_em, abs=1e-9) and entry[role]["f1"] == pytest.approx(
            expected_f1, abs=1e-9
        )
        assert entry[role]["total"] == len(questions)
    adversarial_em, adversarial_f1, with_copy = _adversarial(originals, copies, scores)
    worst = entry["worst_copy"]
    assert worst["exact"] == pytest.approx(adversarial_em, abs=1e-9) and worst["f1"] == pytest.approx(
        adversarial_f1, abs=1e-9
    )
    assert (worst["questions"], worst["with_copies"]) == (len(originals), with_copy)
    for key in ("exact", "f1"):
        assert worst["drop"][key] == pytest.approx(worst[key] - entry["clean"][key], abs=1e-9)
        lo, hi = worst["drop"][f"{key}_ci"]
        assert lo <= worst["drop"][key] <= hi and lo < hi
    # AddSent costs this model F1 on the questions it answered: the interval excludes 0
    assert worst["drop"]["f1_ci"][1] < 0
    assert entry["coverage"]["matched"] == len(copies) and entry["coverage"]["clean_questions"] == len(originals)


def test_cost_figures_were_measured_in_the_run(addsent_run: Path, report: dict, shared_model_path: Path):
    from transformers import AutoModelForQuestionAnswering

    (entry,) = report["models"]
    cost = entry["cost"]
    model = AutoModelForQuestionAnswering.from_pretrained(shared_model_path)
    assert cost["parameters"] == sum(p.numel() for p in model.parameters())
    assert (cost["device"], cost["precision"], cost["processes"]) == ("cpu", "fp32", 1) and "threads" in cost[
        "device_name"
    ]
    assert (
        cost["questions"] == entry["coverage"]["clean_questions"] + entry["coverage"]["changed"]
    )  # every copy changed its context
    assert cost["windows"] >= cost["questions"] and 0 < cost["forward_seconds"] <= cost["predict_seconds"]
    assert cost["windows_per_second"] == pytest.approx(cost["windows"] / cost["forward_seconds"])
    assert cost["ms_per_question"] == pytest.approx(1000 * cost["predict_seconds"] / cost["questions"])
    stderr = (addsent_run.parent / "eval.stderr").read_text()
    assert f"cost: 22.6M parameters; {cost['questions']} questions ({cost['windows']} windows)" in stderr


def test_evaluate_module_matches_report_json_under_v1_rules(addsent_run: Path, report: dict):
    import os

    import evaluate

    from robustqa.hf_metric import metric_path

    os.environ.setdefault("HF_EVALUATE_OFFLINE", "1")
    (entry,) = report["models"]

    def references(path: str, paired: bool) -> list[dict]:
        refs = []
        for qa in _questions(path):
            ref = {
                "id": qa["id"],
                "answers": {
                    "text": [a["text"] for a in qa["answers"]],
                    "answer_start": [a["answer_start"] for a in qa["answers"]],
                },
            }
            if paired:
                ref["source_id"] = qa["source_id"]
            refs.append(ref)
        return refs

    def predictions(name: str) -> list[dict]:
        return [{"id": k, "prediction_text": v} for k, v in _files(addsent_run, entry, name).items()]

    settings = report["settings"]
    got = evaluate.load(metric_path(), "squad").compute(
        predictions=predictions("clean_predictions"),
        references=references(report["clean_file"], False),
        perturbed_predictions=predictions("perturbed_predictions"),
        perturbed_references=references(report["perturbed_file"], True),
        bootstrap=settings["bootstrap"],
        seed=settings["seed"],
    )
    for role, result in (("clean", got), ("perturbed", got["perturbed"])):
        assert (result["exact_match"], result["f1"], result["total"]) == (
            entry[role]["exact"],
            entry[role]["f1"],
            entry[role]["total"],
        )
    assert got["drop"] == entry["drop"] and got["worst_copy"] == entry["worst_copy"] and got["flips"] == entry["flips"]


def test_report_shows_qads_and_addsent_in_one_table_and_one_chart(real_run: Path, addsent_run: Path, tmp_path: Path):
    from click.testing import CliRunner

    from robustqa.cli import cli
    from robustqa.reporting.charts import headline_figure
    from robustqa.reporting.tables import model_rows
    from robustqa.runs import load_run

    out = tmp_path / "shifts.md"
    result = CliRunner().invoke(
        cli,
        ["report", str(real_run), str(addsent_run), "--output", str(out), "--cost-chart", str(tmp_path / "cost.png")],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    lines = out.read_text().splitlines()

    def cells(line: str) -> list[str]:
        return [cell.strip() for cell in line.strip().strip("|").split("|")]

    def table(first: str) -> tuple[list[str], list[list[str]]]:
        start = next(i for i, line in enumerate(lines) if line.startswith(first))
        found = [line for line in lines[start:] if line.startswith("|")]
        found = found[: next((i for i, line in enumerate(found) if i and line.startswith("| Model |")), len(found))]
        return cells(found[0]), [cells(line) for line in found if line.startswith(("| run: ", "| addsent: "))]

    # the official all-question table, in two parts row for row (after the headline, which has no Shift column)
    scores_header, scores = table("| Model | Questions |")
    header, rows = table("| Model | Shift |")
    assert [row[0] for row in scores] == [row[0] for row in rows] and len(rows) == 3
    shifts = [row[header.index("Shift")] for row in rows]
    assert shifts == ["qads@1.1 (SQuAD 2.0; not reviewed)", "addsent@1 (SQuAD v1.1)", "addsent@1 (SQuAD v1.1)"]
    assert [row[header.index("Comparison")].split(":")[0] for row in rows] == ["paired", "paired", "paired"]
    assert "worst copy" in rows[2][header.index("Comparison")]
    signed = r"(?:[+−]\d+\.\d\d|0\.00)"  # one minus sign (U+2212); zero unsigned
    for score in scores:
        assert re.fullmatch(rf"{signed} \[{signed}, {signed}\]", score[scores_header.index("ΔF1 [95% CI]")])
    for row in rows:
        assert row[header.index("Params")] == "22.6M" and float(row[header.index("ms/question")]) > 0
        assert row[header.index("Device")].endswith("threads (cpu, fp32)")
    assert "official SQuAD EM/F1, each run under its own rules" in out.read_text()
    assert out.with_suffix(".png").stat().st_size > 0 and (tmp_path / "cost.png").stat().st_size > 0
    figure = headline_figure(model_rows([load_run(real_run), load_run(addsent_run)]))
    ticks = [label.get_text().splitlines()[-1] for label in figure.axes[0].get_yticklabels()]
    assert ticks == ["qads@1.1, all pairs", "addsent@1, all pairs", "addsent@1, worst copy"]
    (bars,) = [c for c in figure.axes[1].containers if getattr(c, "has_xerr", False)]
    assert len(bars.lines[2][0].get_segments()) == 3  # the interval of every difference


def test_a_rerun_takes_everything_from_the_cache_and_says_so(
    addsent_run: Path, report: dict, shared_model_path: Path, tmp_path: Path
):
    import shutil

    from click.testing import CliRunner

    from robustqa.cli import cli

    again = tmp_path / "again"
    shutil.copytree(addsent_run, again)
    args = [
        "eval",
        str(shared_model_path),
        "--clean",
        report["clean_file"],
        "--perturbed",
        report["perturbed_file"],
        "--output-dir",
        str(again),
        "--quiet",
    ]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "every prediction came from the cache, so nothing was timed" in result.stderr
    rerun = json.loads((again / "report.json").read_text())
    cost = rerun["models"][0]["cost"]
    assert cost["questions"] == 0 and cost["windows_per_second"] is None and cost["ms_per_question"] is None
    assert rerun["models"][0]["worst_copy"] == report["models"][0]["worst_copy"]
