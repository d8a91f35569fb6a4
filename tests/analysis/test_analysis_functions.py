"""robustqa.reporting.analysis (and the run loader, tables and charts it uses) on a synthetic run folder whose every
number is known by hand."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import pytest

from robustqa import render
from robustqa.errors import InputError
from robustqa.reporting import analysis, charts, tables
from robustqa.runs import RUN_ENV, find_run, load_run

from rqa_synthetic import write_run


def test_find_run_prefers_argument_then_env_then_newest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    old = write_run(tmp_path / "runs" / "old", ["tiny-a"])
    new = write_run(tmp_path / "runs" / "new", ["tiny-b"])
    os.utime(old / "report.json", (1_000_000, 1_000_000))
    monkeypatch.delenv(RUN_ENV, raising=False)
    assert find_run(runs_root=tmp_path / "runs") == new
    monkeypatch.setenv(RUN_ENV, str(old))
    assert find_run(runs_root=tmp_path / "runs") == old
    assert find_run(new, runs_root=tmp_path / "runs") == new


def test_relative_run_found_from_a_subfolder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run = write_run(tmp_path / "runs" / "x", ["tiny-a"])
    (tmp_path / "notebooks").mkdir()
    monkeypatch.chdir(tmp_path / "notebooks")
    monkeypatch.setenv(RUN_ENV, "runs/x")
    assert find_run().resolve() == run.resolve()
    assert load_run(find_run()).models == ["tiny-a"]


def test_find_run_without_runs_says_what_to_do(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(RUN_ENV, raising=False)
    with pytest.raises(InputError, match="ROBUSTQA_RUN"):
        find_run(runs_root=tmp_path / "nothing")


def test_load_run_rejects_folder_without_examples(synthetic_run: Path) -> None:
    (synthetic_run / "examples.jsonl").unlink()
    run = load_run(synthetic_run)  # report.json alone is enough to compare runs
    assert run.models == ["tiny-a", "tiny-b"]
    with pytest.raises(InputError, match="examples.jsonl missing"):
        _ = run.examples


def test_load_run_names_the_bad_line(synthetic_run: Path) -> None:
    lines = (synthetic_run / "examples.jsonl").read_text().splitlines()
    lines[2] = json.dumps({"model": "tiny-a", "id": "x"})
    (synthetic_run / "examples.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match=r"line 3: missing question"):
        _ = load_run(synthetic_run).examples


def test_clean_only_run_is_refused(synthetic_run: Path) -> None:
    lines = [json.loads(line) for line in (synthetic_run / "examples.jsonl").read_text().splitlines()]
    for line in lines:
        line.update(
            perturbed_question=None,
            perturbed_prediction=None,
            perturbed_exact=None,
            perturbed_f1=None,
            substitutions=[],
        )
    (synthetic_run / "examples.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    with pytest.raises(InputError, match="no perturbed set.*perturbed file from `robustqa build-dataset`"):
        analysis.flipped(load_run(synthetic_run))


def test_headline_reads_report(synthetic_run: Path) -> None:
    rows = [row.numbers() for row in tables.model_rows([load_run(synthetic_run)])]
    assert [r["model"] for r in rows] == ["tiny-a", "tiny-b"]
    a = rows[0]
    # tiny-a: clean EM 5/6, perturbed EM 3/6
    assert a["clean_em"] == pytest.approx(83.3333)
    assert a["perturbed_em"] == pytest.approx(50.0)
    assert a["drop_em"] == pytest.approx(-33.3333)
    assert a["drop_f1_ci"] == pytest.approx((a["drop_f1"] - 9.0, a["drop_f1"] + 9.0))
    assert a["right_to_wrong"] == 3 and a["wrong_to_right"] == 1
    assert a["changed"] == 5


def test_flips_are_right_to_wrong_only(synthetic_run: Path) -> None:
    run = load_run(synthetic_run)
    assert [f.id for f in analysis.flipped(run)] == ["q1", "q3", "q4"]
    assert [f.id for f in analysis.flipped(run, "tiny-b")] == ["q1", "q4", "q5"]
    flip = analysis.flipped(run)[1]
    assert flip.question_text == "Who [ruled] the [duchy] of Normandy?"
    assert flip.perturbed_text == "Who [governed] the [dukedom] of Normandy?"
    assert flip.clean_prediction == "Richard I" and flip.perturbed_prediction == "Richard"


def test_highlight_html_escapes_and_marks(synthetic_run: Path) -> None:
    run = load_run(synthetic_run)
    q4 = next(f for f in analysis.flipped(run) if f.id == "q4")
    assert q4.perturbed_html == (
        'Why did the &lt;b&gt;steam&lt;/b&gt; engine <mark title="fail">neglect</mark> '
        '<mark title="quickly">rapidly</mark>?'
    )
    assert q4.question_html.count("<mark") == 2


def test_highlight_rejects_unknown_side() -> None:
    with pytest.raises(ValueError):
        analysis.highlight_text("a b", [], side="both")


def test_flips_rows_side_by_side(synthetic_run: Path) -> None:
    rows = analysis.flips_rows(analysis.flipped(load_run(synthetic_run), "tiny-b"))
    by_id = {r["id"]: r for r in rows}
    assert by_id["q4"]["perturbed prediction"] == "(no answer)"
    assert by_id["q5"]["gold"] == "(unanswerable)"
    assert by_id["q5"]["clean prediction"] == "(no answer)" and by_id["q5"]["perturbed prediction"] == "area"
    html = analysis.flips_html(analysis.flipped(load_run(synthetic_run)), limit=2)
    assert html.count("<tr>") == 3 and "<mark" in html


def test_flips_rows_list_each_gold_answer_once(synthetic_run: Path) -> None:
    flip = analysis.flipped(load_run(synthetic_run), "tiny-b")[0]
    twice = dataclasses.replace(flip, gold_answers=("France", "France", "in France"))
    assert analysis.flips_rows([twice])[0]["gold"] == "France | in France"


@pytest.mark.parametrize(
    ("tag", "coarse"),
    [
        ("NN", "noun"),
        ("NNPS", "noun"),
        ("VBD", "verb"),
        ("MD", "verb"),
        ("JJS", "adjective"),
        ("RBR", "adverb"),
        ("CD", "other"),
    ],
)
def test_coarse_pos(tag: str, coarse: str) -> None:
    assert analysis.coarse_pos(tag) == coarse


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("In what country is Normandy located?", "what"),
        ("Whose army won?", "who"),
        ("How many engines?", "how"),
        ("The Normans came from which country?", "which"),
        ("Name the duke.", "other"),
        ("Somewhere, when?", "when"),
    ],
)
def test_question_type(question: str, kind: str) -> None:
    assert analysis.question_type(question) == kind


def test_confidence_edges_are_quantiles_without_repeats() -> None:
    assert analysis.confidence_edges([0.8, 0.85, 0.9, 0.95, 1.0, 1.0, 1.0, 1.0]) == [0.8, 0.9, 1.0]
    assert analysis.confidence_edges([0.1, 0.2, 0.3, 0.4]) == [0.1, 0.2, 0.3, 0.4]
    assert analysis.confidence_edges([0.9]) == [0.9, 0.9]
    assert analysis.confidence_edges([]) == []


def test_confidence_bin_closes_the_last_bin() -> None:
    edges = [0.1, 0.2, 0.3, 0.4]
    assert analysis.confidence_bin(0.1, edges) == "0.100-0.200"
    assert analysis.confidence_bin(0.2, edges) == "0.200-0.300"
    assert analysis.confidence_bin(0.4, edges) == "0.300-0.400"
    assert analysis.confidence_bin(0.9, [0.9, 0.9]) == "0.900-0.900"
    with pytest.raises(ValueError):
        analysis.confidence_bin(0.5, edges)


def test_breakdown_by_pos_counts_each_question_once_per_pos(synthetic_run: Path) -> None:
    rows = {r["group"]: r for r in analysis.breakdown(load_run(synthetic_run), "pos", bootstrap=0)}
    # nouns: q1, q3, q6; verbs: q3, q4, q6; adjective: q5; adverb: q4; unchanged: q2
    assert {g: r["n"] for g, r in rows.items()} == {"noun": 3, "verb": 3, "adjective": 1, "adverb": 1, "unchanged": 1}
    assert list(rows) == ["noun", "verb", "adjective", "adverb", "unchanged"]
    # tiny-a nouns: q1 1->0, q3 1->0, q6 0->1
    assert rows["noun"]["drop_em"] == pytest.approx(-33.33)
    assert rows["noun"]["right_to_wrong"] == 2 and rows["noun"]["wrong_to_right"] == 1
    assert rows["unchanged"]["drop_f1"] == 0.0


def test_breakdown_other_dimensions(synthetic_run: Path) -> None:
    run = load_run(synthetic_run)
    counts = {r["group"]: r["n"] for r in analysis.breakdown(run, "substitutions", bootstrap=0)}
    assert counts == {"0": 1, "1": 2, "2": 3}
    kinds = {r["group"]: r["n"] for r in analysis.breakdown(run, "question_type", bootstrap=0)}
    assert kinds == {"what": 2, "who": 1, "when": 1, "which": 1, "why": 1}
    conf = {r["group"]: r["n"] for r in analysis.breakdown(run, "confidence", bootstrap=0)}
    # least confident substitution per question: q1 .9, q3 .4, q4 .1, q5 .3, q6 .55 -> edges .1 .3 .4 .55 .9
    assert conf == {"0.100-0.300": 1, "0.300-0.400": 1, "0.400-0.550": 1, "0.550-0.900": 2, "unchanged": 1}
    answerable = {r["group"]: r for r in analysis.breakdown(run, "answerable", "tiny-b", bootstrap=0)}
    assert answerable["unanswerable"]["n"] == 1 and answerable["unanswerable"]["drop_em"] == -100.0


def test_breakdown_interval_is_seeded_and_brackets_the_mean(synthetic_run: Path) -> None:
    run = load_run(synthetic_run)
    first = analysis.breakdown(run, "answerable", bootstrap=500, seed=3)
    assert first == analysis.breakdown(run, "answerable", bootstrap=500, seed=3)
    row = first[0]
    low, high = row["drop_f1_ci"]
    assert low <= row["drop_f1"] <= high and low < high


def test_breakdown_unknown_dimension(synthetic_run: Path) -> None:
    with pytest.raises(ValueError, match="question_type"):
        analysis.breakdown(load_run(synthetic_run), "colour")


def test_shared_flips_between_models(synthetic_run: Path) -> None:
    shared = analysis.shared_flips(load_run(synthetic_run))
    assert shared["compared"] == 6
    assert shared["all"] == ["q1", "q4"]
    assert shared["own"] == {"tiny-a": ["q3"], "tiny-b": ["q5"]}
    assert shared["pairs"] == [{"a": "tiny-a", "b": "tiny-b", analysis.BOTH: 2, "jaccard": 0.5}]
    assert shared["per_model"][0] == {"model": "tiny-a", analysis.FLIPPED: 3, analysis.EVERY: 2, analysis.OWN: 1}
    caption = analysis.shared_flips_caption(shared)
    assert caption.startswith("6 questions answered by every model (answerable and unanswerable questions, every")
    assert ": 2 of them flipped by every model" in caption and "Not the McNemar" in caption


def test_flipped_heading_says_per_question_and_per_variant(synthetic_run: Path) -> None:
    flips = analysis.flipped(load_run(synthetic_run), "tiny-a", changed_only=True)
    heading = analysis.flipped_heading("../models/tiny-a", flips, 2)
    questions = len({flip.source_id for flip in flips})
    assert heading.startswith(f"tiny-a: {questions} questions flipped right → wrong on at least one variant")
    assert f"({len(flips)} variants; changed questions, answerable and unanswerable, every edit kind" in heading
    assert heading.endswith(f"showing {min(2, len(flips))} variants)")


def test_shown_path_is_relative_under_the_working_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run = tmp_path / "runs" / "my-run"
    run.mkdir(parents=True)
    assert analysis.shown_path(run, tmp_path) == os.path.join("runs", "my-run")
    assert analysis.shown_path(run, tmp_path / "elsewhere") == str(run.resolve())  # not under it: absolute
    assert analysis.shown_path(run, run) == "."
    monkeypatch.setenv("ROBUSTQA_CALLER_CWD", str(tmp_path))  # as `robustqa analyze` sets it for the kernel
    assert analysis.shown_path(run) == os.path.join("runs", "my-run")
    monkeypatch.delenv("ROBUSTQA_CALLER_CWD")
    monkeypatch.chdir(tmp_path / "runs")
    assert analysis.shown_path(run) == "my-run"


def test_merge_runs_keeps_models_apart(tmp_path: Path) -> None:
    a = load_run(write_run(tmp_path / "a", ["tiny-a"]))
    b = load_run(write_run(tmp_path / "b", ["tiny-b"]))
    c = load_run(write_run(tmp_path / "c", ["tiny-a"]))
    merged = analysis.merge_runs([a, b, c])
    assert merged.models == ["tiny-a@a", "tiny-b", "tiny-a@c"]
    assert len(merged.examples) == 18
    assert analysis.shared_flips(merged)["all"] == ["q1", "q4"]


def test_substituted_words_ranks_flip_causes(synthetic_run: Path) -> None:
    words = analysis.substituted_words(load_run(synthetic_run), "tiny-a")
    assert words[0]["flipped"] == 1
    assert {(w["original"], w["replacement"]) for w in words if w["flipped"]} == {
        ("country", "state"),
        ("ruled", "governed"),
        ("duchy", "dukedom"),
        ("fail", "neglect"),
        ("quickly", "rapidly"),
    }
    assert {w["kind"] for w in words} == {"synonym"}


def test_substituted_words_name_each_edits_kind(synthetic_run: Path) -> None:
    run = load_run(synthetic_run)
    for line in run.examples:
        for sub in line.get("substitutions") or ():
            if (sub["original"], sub["replacement"]) == ("ruled", "governed"):
                sub["original"], sub["replacement"], sub["kind"] = "year", "yr", ""
    words = {(w["original"], w["replacement"]): w["kind"] for w in analysis.substituted_words(run, "tiny-a")}
    assert words[("year", "yr")] == "abbreviation" and words[("country", "state")] == "synonym"


def test_tables_render(synthetic_run: Path) -> None:
    rows = [row.numbers() for row in tables.model_rows([load_run(synthetic_run)])]
    text = render.text_table(rows, ["model", "clean_em", "drop_em_ci"])
    assert text.splitlines()[2].startswith("tiny-a  83.33")
    html = render.html_table([{"a": "<x>"}])
    assert "&lt;x&gt;" in html


def test_charts_draw(synthetic_run: Path, tmp_path: Path) -> None:
    run = load_run(synthetic_run)
    figure = charts.headline_figure(tables.model_rows([run]))
    em, f1 = figure.axes
    assert len(em.patches) == len(f1.patches) == 2  # the drop of each of 2 models
    # each bar is report.json's drop, with its interval as the error bar
    (bars,) = [c for c in f1.containers if getattr(c, "errorbar", None) is not None]
    (caps_low, caps_high) = bars.errorbar.lines[1]
    drop = run.report["models"][0]["drop"]
    assert f1.patches[0].get_width() == pytest.approx(drop["f1"])
    assert caps_low.get_xdata()[0] == pytest.approx(drop["f1_ci"][0])
    assert caps_high.get_xdata()[0] == pytest.approx(drop["f1_ci"][1])
    (tmp_path / "models.png").write_bytes(charts.png_bytes(figure))
    assert (tmp_path / "models.png").stat().st_size > 1000
    breakdown = charts.breakdown_figure(analysis.breakdown(run, "pos"), "by POS")
    assert len(breakdown.axes[0].patches) == 5


def test_error_bars_skip_only_groups_without_interval() -> None:
    rows = [{"drop_f1": -2.0, "drop_f1_ci": (-5.0, 1.0)}, {"drop_f1": 3.0, "drop_f1_ci": None}]
    assert charts.error_bars(rows, "drop_f1", "drop_f1_ci") == [[3.0, 0.0], [3.0, 0.0]]
    assert charts.error_bars(rows[1:], "drop_f1", "drop_f1_ci") is None


def test_edit_charts_say_a_gain_is_left_of_zero() -> None:
    """The charts plot points lost (−ΔF1) while the tables show ΔF1: the axis says so, so a group that gained
    (spelling +2.8) is not read as "−2.8 points lost" without explanation."""
    rows = [
        {"group": "noun", "questions": 40, "plotted": True, "drop_f1": -7.1, "drop_f1_ci": (-10.8, -3.9)},
        {"group": "spelling", "questions": 36, "plotted": True, "drop_f1": 2.8, "drop_f1_ci": (0.0, 7.4)},
    ]
    figure = charts.edits_figure(rows, "by edit kind")
    ax = figure.axes[0]
    assert "= −ΔF1 of the tables" in ax.get_xlabel() and "left of 0: gained" in ax.get_xlabel()
    dots = [line.get_xdata()[0] for line in ax.lines if line.get_marker() == "o"]
    assert dots == [pytest.approx(7.1), pytest.approx(-2.8)]  # the loss right of 0, the gain left of it
    assert "left of 0: gained" in charts.ANSWER_PANELS[0][1]  # the first chart keeps points lost, labelled alike


def test_which_edits_break_it_lists_every_group_with_its_share() -> None:
    """Problem 6 of the 2026-12-06 walkthrough: the summary promised every group whose interval lies below zero but
    showed the 5 largest drops, and listed a question word most questions start with as an edit that breaks it."""
    from robustqa.reporting.breakdowns import BREAKDOWNS, ModelBreakdowns, breaking_groups, breaking_text

    def row(group: str, n: int, drop: float, ci: tuple[float, float]) -> dict[str, object]:
        return {"group": group, "questions": n, "drop_f1": drop, "drop_f1_ci": ci}

    answerable: dict[str, list[dict[str, object]]] = {by: [] for by in BREAKDOWNS}
    answerable["kind"] = [
        row("rare", 24, -14.8, (-32.4, -0.3)),
        row("synonym", 573, -3.8, (-5.8, -1.7)),
        row("spelling", 36, 2.8, (0.0, 7.4)),  # a gain: not listed
        row("abbreviation", 5, -65.3, (-100.0, -20.0)),  # too few questions: not listed
    ]
    answerable["pos"] = [row("noun", 279, -7.1, (-10.8, -3.9)), row("verb", 250, -3.5, (-6.4, -0.8))]
    answerable["frequency"] = [row("common (Zipf ≥ 4)", 425, -3.6, (-6.0, -1.2))]
    answerable["question_word"] = [row("what", 452, -4.6, (-7.0, -2.3)), row("how", 29, -13.1, (-24.7, -2.9))]
    answerable["position"] = [row("last third", 200, -5.1, (-8.0, -2.0)), row("all", 594, -4.4, (-6.4, -2.3))]
    breakdowns = ModelBreakdowns(answerable, {})

    groups = breaking_groups(breakdowns, 594)
    assert [g["group"] for g in groups] == [
        "rare", "how", "noun", "last third", "what", "synonym", "common (Zipf ≥ 4)", "verb",
    ]  # fmt: skip
    text = breaking_text(breakdowns, 594)
    assert text.startswith("5 groups (all, largest drop first): edit kind *rare* ")
    assert "question word *how* " in text and "part of speech of the edited word *verb* " in text
    assert "(29 of 594 questions)" in text
    broad = text.split("3 groups holding most of the questions")[1]  # more than half of the 594, set apart
    for group in ("*what* ", "*synonym* ", "*common (Zipf ≥ 4)* "):
        assert group in broad and group not in text.split("3 groups holding")[0], group
    assert "(452 of 594 questions)" in broad
    assert breaking_text(ModelBreakdowns({by: [] for by in BREAKDOWNS}, {}), 10) == (
        "no group of edits with a drop that excludes zero"
    )
