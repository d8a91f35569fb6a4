"""`robustqa report` on runs of different shifts (made here with a fake model): a paired set with several
copies per question (its worst-copy row), a clean-only set beside the same model's clean SQuAD run
(unpaired interval) or alone (its own interval), the cost columns and the cost chart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from robustqa.cli import cli
from robustqa.evaluation.inference import InferenceSettings
from robustqa.evaluation.run import EvalConfig, run_evaluation
from robustqa.reporting.charts import headline_figure
from robustqa.reporting.tables import ALONE, PAIRED, UNPAIRED, WORST_COPY, model_rows
from robustqa.runs import load_run
from robustqa.stats import unpaired_difference_intervals

from rqa_evalfakes import TimedFakeRunner, answerable_only, clean_document, perturbed_document, write_json

MODEL = "owner/fake-model"


def evaluate(folder: Path, clean: Path, perturbed: Path | None) -> Path:
    config = EvalConfig(clean, perturbed, folder, InferenceSettings(), bootstrap=300, progress=False)
    run_evaluation([MODEL], config, runner_factory=lambda spec, settings: TimedFakeRunner())
    return folder


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("shifts")
    clean = write_json(root / "clean.json", answerable_only(clean_document()))
    copies = answerable_only(perturbed_document(variants=True))
    copies["data"][1]["paragraphs"][0]["qas"] = [
        qa for qa in copies["data"][1]["paragraphs"][0]["qas"] if qa["source_id"] != "b4"
    ]
    copies.pop("robustqa")
    copies["signature"] = "shift:addsent@1|input:000000000000|robustqa:0.1.0"
    new_questions = answerable_only(clean_document())
    for article in new_questions["data"]:
        for paragraph in article["paragraphs"]:
            paragraph["qas"] = [dict(qa, id=f"new-{qa['id']}") for qa in paragraph["qas"]][:2]
    new_questions["signature"] = "shift:squad-shifts@1|input:111111111111|robustqa:0.1.0"
    return {
        "addsent": evaluate(root / "addsent", clean, write_json(root / "copies.json", copies)),
        "nyt": evaluate(root / "nyt", write_json(root / "nyt.json", new_questions), None),
        "qads": evaluate(
            root / "qads",
            write_json(root / "v2.json", clean_document()),
            write_json(root / "v2-qads.json", perturbed_document()),
        ),
    }


def test_a_clean_only_set_beside_the_clean_run_of_the_same_model(runs):
    addsent, nyt = load_run(runs["addsent"]), load_run(runs["nyt"])
    assert (
        nyt.report["shift"] == "squad-shifts@1"
        and nyt.report["perturbed_file"] is None
        and addsent.report["shift"] == "addsent@1"
    )
    rows = model_rows([addsent, nyt])
    assert [(row.recipe, row.comparison) for row in rows] == [
        ("addsent@1", PAIRED),
        ("addsent@1", WORST_COPY),
        ("squad-shifts@1", UNPAIRED),
    ]
    unpaired = rows[2].numbers()
    reference, shifted = addsent.report["models"][0]["clean"], nyt.report["models"][0]["clean"]
    assert unpaired["clean_f1"] == reference["f1"] and unpaired["perturbed_f1"] == shifted["f1"]
    assert (
        unpaired["drop_f1"] == pytest.approx(shifted["f1"] - reference["f1"])
        and unpaired["reference"] == f"addsent: {MODEL}"
    )
    # the interval is the two-sample bootstrap of the two runs' per-question scores
    scores = [
        json.loads((run.path / run.report["models"][0]["files"]["clean_scores"]).read_text()) for run in (nyt, addsent)
    ]
    em_ci, f1_ci = unpaired_difference_intervals(
        [[s["exact"] for s in scores[0].values()], [s["f1"] for s in scores[0].values()]],
        [[s["exact"] for s in scores[1].values()], [s["f1"] for s in scores[1].values()]],
        resamples=300,
        seed=13,
    )
    assert unpaired["drop_f1_ci"] == tuple(f1_ci) and unpaired["drop_em_ci"] == tuple(em_ci)
    worst = rows[1].numbers()
    entry = addsent.report["models"][0]
    assert (worst["perturbed_f1"], worst["drop_f1"]) == (entry["worst_copy"]["f1"], entry["worst_copy"]["drop"]["f1"])
    assert entry["worst_copy"]["questions"] == 6 and entry["worst_copy"]["with_copies"] == 5  # b4 has no copy


def test_a_clean_only_set_alone_gives_its_own_interval(runs):
    """Alone, or beside a run under other rules (SQuAD 2.0): never compared across rule sets."""
    for given in (["nyt"], ["qads", "nyt"]):
        rows = model_rows([load_run(runs[name]) for name in given])
        row = rows[-1]
        assert row.comparison == ALONE and row.reference is None
        numbers = row.numbers()
        own = load_run(runs["nyt"]).report["models"][0]["clean_ci"]
        assert numbers["perturbed_f1_ci"] == tuple(own["f1"]) and numbers["drop_f1"] is None
        assert row.cells()["Pert. F1"] == f"{numbers['perturbed_f1']:.2f} [{own['f1'][0]:.2f}, {own['f1'][1]:.2f}]"
        assert "no clean SQuAD run of this model under v1.1 rules given" in row.cells()["Comparison"]


def test_report_puts_every_shift_in_one_table_and_one_chart_with_cost(runs, tmp_path):
    out = tmp_path / "shifts.md"
    cost_chart = tmp_path / "cost.png"
    args = [
        "report",
        str(runs["qads"]),
        str(runs["addsent"]),
        str(runs["nyt"]),
        "--output",
        str(out),
        "--cost-chart",
        str(cost_chart),
    ]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    text = out.read_text().split("## Official SQuAD EM/F1")[1]  # the official table, after the three answers
    assert "official SQuAD EM/F1, each run under its own rules (in the Shift column)" in text
    # the scores, then (row for row) what each row compares and its cost
    scores, compared = text.split("What each row compares, and what running the model cost")[:2]
    header = next(line for line in compared.splitlines() if line.startswith("| Model |"))
    assert header == "| Model | Shift | Comparison | Params | Windows/s | ms/question | Device |"
    assert "| Shift |" not in next(line for line in scores.splitlines() if line.startswith("| Model |"))
    rows = [
        line
        for line in compared.splitlines()
        if line.startswith(f"| qads: {MODEL}")
        or line.startswith(f"| addsent: {MODEL}")
        or line.startswith(f"| nyt: {MODEL}")
    ]
    assert len(rows) == 4
    assert (
        "| qads@1.0 (SQuAD 2.0; not reviewed) | paired: each perturbed question vs its clean question | 1.2M | 125.0 "
        "| 10.0 | Fake CPU, 1 threads (cpu, fp32) |"
    ) in rows[0]
    assert "| addsent@1 (SQuAD v1.1) | paired: each clean question's worst copy (authors' protocol) |" in rows[2]
    assert f"| squad-shifts@1 (SQuAD v1.1) | unpaired: new questions vs clean SQuAD of addsent: {MODEL} |" in rows[3]
    score_rows = [line for line in scores.splitlines() if line.startswith(("| qads: ", "| addsent: ", "| nyt: "))]
    assert len(score_rows) == 4 and all(" [" in row.split("|")[8] for row in score_rows)  # each ΔF1 has its interval
    for png in (out.with_suffix(".png"), cost_chart):
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    figure = headline_figure(model_rows([load_run(runs[name]) for name in ("qads", "addsent", "nyt")]))
    ticks = [label.get_text() for label in figure.axes[0].get_yticklabels()]
    assert [tick.splitlines()[-1] for tick in ticks] == [
        "qads@1.0, all pairs",
        "addsent@1, all pairs",
        "addsent@1, worst copy",
        "squad-shifts@1, unpaired",
    ]
    error_bars = [c for c in figure.axes[1].containers if getattr(c, "has_xerr", False)]
    assert (
        len(error_bars) == 1 and len(error_bars[0].lines[2][0].get_segments()) == 4
    )  # an interval on every difference
    document = json.loads(
        CliRunner().invoke(cli, ["report", str(runs["addsent"]), str(runs["nyt"]), "--format", "json"]).output
    )
    assert [(r["shift"], r["comparison"]) for r in document["table"]] == [
        ("addsent@1", "paired"),
        ("addsent@1", "worst-copy"),
        ("squad-shifts@1", "unpaired"),
    ]
    assert (
        document["table"][0]["ms_per_question"] == pytest.approx(10.0)
        and document["table"][0]["parameters"] == 1_234_567
    )


def test_a_run_served_from_the_cache_says_so(runs, tmp_path):
    again = evaluate(runs["nyt"], Path(load_run(runs["nyt"]).report["clean_file"]), None)
    cost = load_run(again).report["models"][0]["cost"]
    assert cost["questions"] == 0 and cost["windows_per_second"] is None and cost["ms_per_question"] is None
    cells = model_rows([load_run(again)])[0].cells()
    assert (cells["Windows/s"], cells["ms/question"], cells["Params"]) == ("from cache", "from cache", "1.2M")
    result = CliRunner().invoke(
        cli, ["report", str(again), "--cost-chart", str(tmp_path / "c.png")], catch_exceptions=False
    )
    assert result.exit_code == 0 and (tmp_path / "c.png").is_file()


def test_a_damaged_scores_file_is_one_line(runs, tmp_path):
    import shutil

    copy = tmp_path / "nyt"
    shutil.copytree(runs["nyt"], copy)
    scores = copy / load_run(copy).report["models"][0]["files"]["clean_scores"]
    scores.write_text('{"q": {"exact": 1}}')
    result = CliRunner().invoke(cli, ["report", str(runs["addsent"]), str(copy)])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        f"robustqa: error: {scores}: cannot read the per-question scores (KeyError"
    )
