"""The estimands (docs/metrics.md) on fake models, end to end through `run_evaluation`:

- a model that answers every clean question and abstains on every variant loses all it had on the answerable
  questions, flips every one, and its abstention rises; no headline, table row or chart of it shows a gain
  (report.json, report.md, the chart's data, the terminal, the analyze page's opening);
- each headline figure and one breakdown row recomputed from the prediction files the run wrote, by a small
  re-implementation of the official scoring written here (independent of robustqa.metric, stats, estimands);
- two models compared: the paired difference and the exact McNemar test;
- variants of several edit kinds: every variant is evaluated, the headline counts the headline's kinds
  (synonym and rare, certified@2's default) and says so, the breakdown by edit kind has a row for every kind,
  and `--kinds spelling` counts the spelling variants alone.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from robustqa.estimands import mcnemar_exact
from robustqa.evaluation.inference import InferenceSettings, Prediction
from robustqa.evaluation.run import EvalConfig, run_evaluation
from robustqa.reporting.breakdowns import answerable_rows, breaking_text
from robustqa.reporting.charts import answers_chart_data, answers_figure
from robustqa.reporting.headline import comparisons, headline_rows, three_answers
from robustqa.runs.load import load_run

from rqa_evalfakes import clean_document, edit_record, reference_score, write_json

# source id -> its variants (a3 keeps no variant: it is not a changed question)
VARIANTS = {
    "a1": ["In what nation is Normandy located?", "In what land is Normandy located?"],
    "a2": ["When did the Normans lend their name to Normandy?"],
    "a4": ["What is Normandy, in short?", "What region is Normandy?"],
    "b1": ["Who amended the steam engine?", "Who bettered the steam engine?"],
    "b2": ["When did Watt better it?"],
    "b3": ["Who devised the jet engine?", "Who created the jet engine?"],
    "b4": ["What does the engine employ to do work?"],
}


def variants_document() -> dict[str, Any]:
    doc = clean_document()
    doc["signature"] = "recipe:qads@1.1|variants:2|seed:13|robustqa:0.1.0"
    doc["robustqa"] = {"recipe": {"name": "qads", "version": "1.1"}}
    for article in doc["data"]:
        for paragraph in article["paragraphs"]:
            paragraph["qas"] = [
                dict(qa, id=f"{qa['id']}-v{k}", source_id=qa["id"], question=text, original_question=qa["question"])
                for qa in paragraph["qas"]
                for k, text in enumerate(VARIANTS.get(qa["id"], []), start=1)
            ]
    return doc


class Runner:
    """A fake model: `answer(example, is_variant)` gives the text ("" abstains); the best span is the gold
    answer (or the context's first word)."""

    def __init__(self, answer: Callable[[Any, bool], str], fingerprint: str) -> None:
        self.answer, self.model_fingerprint = answer, fingerprint

    def predict(self, examples: Sequence[Any], *, on_progress: Any = None) -> dict[str, Prediction]:
        out = {}
        for ex in examples:
            text = self.answer(ex, "-v" in ex.id)
            best = ex.answers[0].text if ex.answers else ex.context.split()[0]
            out[ex.id] = Prediction(ex.id, text, -2.0 if text else 1.5, best)
        return out


def _gold_or_word(ex: Any) -> str:
    return ex.answers[0].text if ex.answers else ex.context.split()[1]  # a word that is no article


def gives_up(ex: Any, variant: bool) -> str:
    """Answers every clean question (unanswerable ones too), abstains on every variant."""
    return "" if variant else _gold_or_word(ex)


def mixed(ex: Any, variant: bool) -> str:
    """Right on clean answerable questions; on variants: wrong where a word confuses it, abstains on 'better'."""
    if not ex.answers:
        return "" if not variant or "devised" in ex.question else "James Watt"
    if variant and any(w in ex.question for w in ("nation", "amended", "land")):
        return "Belgium"
    if variant and "better" in ex.question:
        return ""
    return ex.answers[0].text


def steady(ex: Any, variant: bool) -> str:
    """Always right."""
    return ex.answers[0].text if ex.answers else ""


RUNNERS = {"owner/gives-up": gives_up, "owner/mixed": mixed, "owner/steady": steady}


def evaluate(
    tmp_path: Path, models: list[str], name: str = "run", document: dict[str, Any] | None = None, **options: Any
) -> Path:
    clean = write_json(tmp_path / "clean.json", clean_document())
    perturbed = write_json(tmp_path / "variants.json", document or variants_document())
    config = EvalConfig(
        clean_file=clean,
        perturbed_file=perturbed,
        output_dir=tmp_path / name,
        settings=InferenceSettings(),
        bootstrap=300,
        seed=13,
        progress=False,
        **options,
    )
    run_evaluation(models, config, runner_factory=lambda spec, _: Runner(RUNNERS[spec.name], f"fake:{spec.name}"))
    return tmp_path / name


# ------------------------------------------------------------------ (a) the model that gives up


@pytest.fixture(scope="module")
def gave_up(tmp_path_factory) -> Path:
    return evaluate(tmp_path_factory.mktemp("gaveup"), ["owner/gives-up"])


def test_giving_up_costs_all_it_had_on_answerable_questions(gave_up: Path) -> None:
    (entry,) = json.loads((gave_up / "report.json").read_text())["models"]
    est = entry["estimands"]
    answerable = est["answerable"]
    assert answerable["questions"] == 6 and answerable["clean_f1"] == pytest.approx(100.0)
    assert answerable["worst"]["f1"] == pytest.approx(-answerable["clean_f1"])
    assert answerable["worst"]["exact"] == pytest.approx(-answerable["clean_exact"])
    flips = answerable["flips"]
    assert flips["rate"] == pytest.approx(100.0) and flips["flipped"] == flips["right_on_clean"] == 6
    assert flips["abstained"] == 6 and flips["answered_other"] == 0
    # the abstention-shift row: the unanswerable question it answered on clean is abstained on in every variant
    unanswerable = est["unanswerable"]
    assert unanswerable["questions"] == 1 and unanswerable["shift"] == pytest.approx(100.0)
    assert "less sure" in est["reading"] and "not a gain" in est["reading"]
    # the official all-question drop nets a gain on unanswerable questions: what the headline must not show
    assert entry["drop"]["changed"]["NoAns_f1"] > 0
    # threshold-free: its best spans are still right, so nothing is lost there
    assert est["threshold_free"]["worst"]["f1"] == pytest.approx(0.0)


def _column_cells(markdown: str, word: str) -> list[str]:
    """The cells of every markdown table column whose header holds `word`."""
    cells: list[str] = []
    header: list[str] = []
    for line in markdown.splitlines():
        if not line.startswith("|"):
            header = []
            continue
        parts = [part.strip() for part in line.strip("|").split("|")]
        if not header:
            header = parts
        elif not parts[0].startswith(":--"):
            cells += [value for name, value in zip(header, parts) if word in name]
    return cells


def _headline_section(markdown: str) -> str:
    return markdown.split("## Official SQuAD EM/F1")[0]


def test_no_headline_or_chart_shows_a_gain(gave_up: Path) -> None:
    run = load_run(gave_up)
    markdown = (gave_up / "report.md").read_text()
    head = _headline_section(markdown)
    assert head.index("Does the model still find the answer?") < markdown.index("## Official SQuAD EM/F1")
    line = next(x for x in head.splitlines() if x.startswith("- owner/gives-up: answerable worst-of-K"))
    assert "ΔF1 −100.0" in line and "flip rate 100.0%" in line and "6 abstained" in line
    assert "abstention on unanswerable 0.0% → 100.0%" in line
    # no positive drop or "gain" claim anywhere before the official table: every ΔF1 in its lines and tables
    assert not re.search(r"ΔF1 \+[1-9]", head)
    drops = _column_cells(head, "ΔF1")
    assert drops and all(cell.startswith("−") or cell.startswith("0.0 ") for cell in drops), drops
    assert "gain" not in head.replace("not a gain", "")
    # the chart: points lost (positive = worse), no bars at all
    data = answers_chart_data(headline_rows([run]))
    assert data[0]["points_lost"] == pytest.approx(100.0) and data[0]["flip_rate"] == pytest.approx(100.0)
    assert data[0]["abstention_shift"] == pytest.approx(100.0)
    figure = answers_figure(headline_rows([run]))
    assert not [patch for ax in figure.axes for patch in ax.patches], "the first chart draws no bars"
    titles = " ".join(ax.get_title() for ax in figure.axes)
    assert "lost" in titles and "less sure" in titles
    assert (gave_up / "clean_vs_perturbed.png").stat().st_size > 0
    # the opening of the analyze page and the notebook
    opening = three_answers([run])
    assert opening.startswith("**1. Does it still find the answer?**")
    assert "ΔF1 −100.0" in opening and "less sure" in opening


def test_the_analyze_page_opens_with_the_three_answers(gave_up: Path) -> None:
    pytest.importorskip("nbclient")
    from robustqa.notebook import execute, to_html

    page = to_html(execute(gave_up))
    first = page.index("1. Does it still find the answer?")
    assert first < page.index("2. Which edits break it?") < page.index("3. Is it more robust than another model?")
    assert first < page.index("Official SQuAD EM/F1")
    assert "ΔF1 −100.0" in page[first : first + 2000]


def test_the_terminal_table_fits_and_reads_as_a_loss(gave_up: Path, monkeypatch) -> None:
    from click.testing import CliRunner

    from robustqa.cli import cli

    monkeypatch.setenv("COLUMNS", "80")
    result = CliRunner().invoke(cli, ["report", str(gave_up)])
    assert result.exit_code == 0, result.output
    table = result.stdout.split("\nsignature")[0]
    assert all(len(line) <= 80 for line in table.splitlines()), max(table.splitlines(), key=len)
    assert "−100.0" in table and "100.0%" in table and "| ---" not in table  # a terminal table, not markdown
    markdown = CliRunner().invoke(cli, ["report", str(gave_up), "--format", "md"]).stdout
    assert markdown.startswith("# robustqa evaluation")


# ------------------------------------------------------- (b) recomputed from the prediction files


def _questions(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {qa["id"]: qa for a in document["data"] for p in a["paragraphs"] for qa in p["qas"]}


def _answers(run: Path, files: dict[str, str], role: str, thresh: float) -> dict[str, str]:
    """The answers the official rules score: a text, or "" where the null odds pass the threshold."""
    texts = json.loads((run / files[f"{role}_predictions"]).read_text())
    odds = json.loads((run / files[f"{role}_null_odds"]).read_text())
    return {q: ("" if odds[q] > thresh else t) for q, t in texts.items()}


@pytest.fixture(scope="module")
def two_models(tmp_path_factory) -> Path:
    return evaluate(tmp_path_factory.mktemp("two"), ["owner/mixed", "owner/steady"])


def reference_headline(run: Path, entry: dict[str, Any], kept: Callable[[str], bool] = lambda _: True) -> dict:
    """The headline of one model recomputed from the run's prediction files with `reference_score`, over the
    variants `kept` (by id) accepts: the mean worst-of-K ΔF1, the flips per question, the abstention shift."""
    report = json.loads((run / "report.json").read_text())
    clean_qs = _questions(json.loads(Path(report["clean_file"]).read_text()))
    variants = _questions(json.loads(Path(report["perturbed_file"]).read_text()))
    thresh = report["settings"]["na_prob_thresh"]
    clean, perturbed = (_answers(run, entry["files"], role, thresh) for role in ("clean", "perturbed"))
    by_source: dict[str, list[str]] = {}
    for vid, qa in variants.items():
        if vid in perturbed and kept(vid):
            by_source.setdefault(qa["source_id"], []).append(vid)
    drops, right, flipped, abstained, shifts = [], 0, 0, 0, []
    for source, vids in by_source.items():
        golds = [a["text"] for a in clean_qs[source]["answers"]]
        if golds:
            c_em, c_f1 = reference_score(golds, clean[source])
            scored = [(*reference_score(golds, perturbed[v]), perturbed[v]) for v in vids]
            drops.append(min(f1 for _, f1, _ in scored) - c_f1)
            if c_em == 1:
                right += 1
                worst = min(scored, key=lambda s: (s[0], s[1]))
                if worst[0] == 0:
                    flipped += 1
                    abstained += worst[2] == ""
        else:
            shifts.append(sum(perturbed[v] == "" for v in vids) / len(vids) - (clean[source] == ""))
    return {
        "questions": len(drops),
        "drop_f1": 100 * sum(drops) / len(drops),
        "right": right,
        "flipped": flipped,
        "abstained": abstained,
        "shift": 100 * sum(shifts) / len(shifts) if shifts else None,
    }


def assert_headline_is(est: dict[str, Any], expected: dict[str, Any]) -> None:
    assert est["answerable"]["questions"] == expected["questions"]
    assert est["answerable"]["worst"]["f1"] == pytest.approx(expected["drop_f1"], abs=1e-9)
    flips = est["answerable"]["flips"]
    assert (flips["right_on_clean"], flips["flipped"], flips["abstained"]) == (
        expected["right"],
        expected["flipped"],
        expected["abstained"],
    )
    if expected["shift"] is not None:
        assert est["unanswerable"]["shift"] == pytest.approx(expected["shift"], abs=1e-9)


def test_headline_figures_recomputed_from_the_prediction_files(two_models: Path) -> None:
    report = json.loads((two_models / "report.json").read_text())
    for entry in report["models"]:
        expected = reference_headline(two_models, entry)
        est = entry["estimands"]
        assert_headline_is(est, expected)
        flips = est["answerable"]["flips"]
        flipped, right = expected["flipped"], expected["right"]
        assert flips["rate"] == pytest.approx(100 * flipped / right)
        z = 1.959963984540054  # Wilson 95%
        p = flipped / right
        centre = (p + z * z / (2 * right)) / (1 + z * z / right)
        half = z * math.sqrt(p * (1 - p) / right + z * z / (4 * right * right)) / (1 + z * z / right)
        assert flips["rate_ci"][0] == pytest.approx(100 * max(0.0, centre - half))
        assert flips["rate_ci"][1] == pytest.approx(100 * min(1.0, centre + half))
        worst = est["answerable"]["worst"]
        assert worst["f1_ci"][0] <= worst["f1"] <= worst["f1_ci"][1]
    mixed = report["models"][0]["estimands"]["answerable"]
    assert mixed["flips"]["flipped"] == 3 and mixed["flips"]["abstained"] == 1  # the test can fail: not all zero


def test_a_breakdown_row_recomputed_from_the_prediction_files(two_models: Path) -> None:
    """The 'what' question-word row of the first model: its changed answerable questions a1, a4, b4."""
    run = load_run(two_models)
    report = run.report
    files = report["models"][0]["files"]
    clean = json.loads((two_models / files["clean_predictions"]).read_text())
    perturbed = json.loads((two_models / files["perturbed_predictions"]).read_text())
    clean_qs = _questions(json.loads(Path(report["clean_file"]).read_text()))
    drops = []
    for source in ("a1", "a4", "b4"):
        golds = [a["text"] for a in clean_qs[source]["answers"]]
        worst = min(reference_score(golds, perturbed[f"{source}-v{k}"])[1] for k in range(1, len(VARIANTS[source]) + 1))
        drops.append(worst - reference_score(golds, clean[source])[1])
    rows = answerable_rows(run.examples_of(run.models[0]), "question_word", resamples=300, seed=13)
    (what,) = [row for row in rows if row["group"] == "what"]
    assert what["questions"] == 3
    assert what["drop_f1"] == pytest.approx(100 * sum(drops) / 3, abs=1e-9) and what["drop_f1"] < 0
    assert what["flipped"] == 1 and what["right_on_clean"] == 3


# ------------------------------------------------------------------------------ (c) two models


def test_mcnemar_exact_matches_the_binomial_test() -> None:
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(0, 6) == pytest.approx(2 / 64)
    assert mcnemar_exact(2, 8) == pytest.approx(2 * sum(math.comb(10, i) for i in range(3)) / 1024)
    assert mcnemar_exact(5, 5) == 1.0


def test_two_models_of_a_run_are_compared_paired(two_models: Path) -> None:
    report = json.loads((two_models / "report.json").read_text())
    (result,) = report["comparisons"]
    assert (result["a"], result["b"], result["questions"]) == ("owner/mixed", "owner/steady", 6)
    mixed = report["models"][0]["estimands"]["answerable"]["worst"]["f1"]
    assert result["difference"] == pytest.approx(mixed - 0.0)
    assert result["flips"]["only_a"] == 3 and result["flips"]["only_b"] == 0
    assert result["flips"]["p_value"] == pytest.approx(0.25)
    assert result["difference_ci"][1] < 0 and result["verdict"].startswith(
        "owner/steady is more robust than owner/mixed by"
    )
    markdown = (two_models / "report.md").read_text()
    assert "## Is A more robust than B?" in markdown and "owner/steady is more robust" in markdown


def test_the_verdict_gives_each_test_its_own_n(two_models: Path) -> None:
    """The F1 bootstrap covers every shared changed answerable question, McNemar only those that exactly one model
    flipped: wherever the verdict is printed (report.md, html, json, the terminal, the three answers of the notebook
    and analyze page), it names both n, and the comparison table gives McNemar's."""
    from click.testing import CliRunner

    from robustqa.cli import cli
    from robustqa.reporting.headline import comparison_cells

    (result,) = json.loads((two_models / "report.json").read_text())["comparisons"]
    right, discordant = result["flips"]["both_right_on_clean"], result["flips"]["only_a"] + result["flips"]["only_b"]
    assert (result["questions"], discordant) == (6, 3)  # two tests, two n
    f1_n = "paired bootstrap over n = 6 shared changed answerable questions"
    mcnemar_n = f"exact McNemar on flips, n = 3 (of the {right} both got right on clean, those only one model flipped)"

    def report(*options: str) -> str:
        done = CliRunner().invoke(cli, ["report", str(two_models), *options], env={"COLUMNS": "200"})
        assert done.exit_code == 0, done.output
        return done.stdout

    shown = {
        "report.md": (two_models / "report.md").read_text(),
        "html": report("--format", "html"),
        "json": json.loads(report("--format", "json"))["comparisons"][0]["verdict"],
        "terminal": " ".join(report().split()),
        "three answers": three_answers([load_run(two_models)]),
    }
    for where, text in shown.items():
        assert f1_n in text and mcnemar_n in text, where
    assert comparison_cells(result)["McNemar exact p (n: flipped by one only)"] == "0.25 (n = 3)"


def test_report_compares_models_of_two_runs(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from robustqa.cli import cli

    a = evaluate(tmp_path, ["owner/gives-up"], "run-a")
    b = evaluate(tmp_path, ["owner/steady"], "run-b")
    result = CliRunner().invoke(cli, ["report", str(a), str(b)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    text = " ".join(result.stdout.split())  # the verdict wraps to the terminal
    assert "run-b: owner/steady is more robust than run-a: owner/gives-up by +100.0" in text
    assert "McNemar on flips, n = 6 (of the 6 both got right on clean, those only one model flipped): " in text
    assert "6 only run-a: owner/gives-up, 0 only run-b: owner/steady" in text


def test_a_run_folder_from_before_the_estimands_still_gets_its_headline(gave_up: Path, tmp_path: Path) -> None:
    """report.json without `estimands` and examples.jsonl without best spans (older runs): the headline is
    computed from examples.jsonl, and the threshold-free row says it was not recorded."""
    import shutil

    from robustqa.reporting.report import render_markdown

    old = tmp_path / "old"
    shutil.copytree(gave_up, old)
    report = json.loads((old / "report.json").read_text())
    for entry in report["models"]:
        entry.pop("estimands")
    (old / "report.json").write_text(json.dumps(report))
    lines = [json.loads(line) for line in (old / "examples.jsonl").read_text().splitlines()]
    stripped = [{k: v for k, v in line.items() if "_best_" not in k} for line in lines]
    (old / "examples.jsonl").write_text("".join(json.dumps(line) + "\n" for line in stripped))
    (row,) = headline_rows([load_run(old)])
    new = json.loads((gave_up / "report.json").read_text())["models"][0]["estimands"]
    assert row.estimands is not None and row.estimands["answerable"] == new["answerable"]
    assert row.estimands["unanswerable"] == new["unanswerable"] and row.estimands["threshold_free"] is None
    assert "| not recorded | not recorded |" in render_markdown([load_run(old)])


# ------------------------------------------------------------ (d) variants of several edit kinds

# variant id -> (its question, the word replaced, its replacement, the edit's kind as the file records it)
KINDED = {
    "a1-v1": ("In what nation is Normandy located?", "country", "nation", "synonym"),
    "a1-v2": ("In what land is Normandy located?", "country", "land", "spelling"),
    "a2-v1": ("When did the Normans lend their name to Normandy?", "give", "lend", "rare"),
    "a4-v1": ("What is Normandie?", "Normandy", "Normandie", "spelling"),  # a question with no headline variant
    "b1-v1": ("Who amended the steam engine?", "improved", "amended", "rare"),
    "b1-v2": ("Who bettered the steam engine?", "improved", "bettered", "abbreviation"),
    "b2-v1": ("When did Watt better it?", "improve", "better", "synonym"),
    "b3-v1": ("Who devised the jet engine?", "invented", "devised", "synonym"),
    "b3-v2": ("Who created the jet engine?", "invented", "created", "spelling"),
    "b4-v1": ("What does the engine employ to do work?", "use", "employ", "synonym"),
}
HEADLINE_KINDS = ("synonym", "rare")


def kinded_document() -> dict[str, Any]:
    """The variants of KINDED, each with the record of its one edit (and its kind)."""
    doc = variants_document()
    clean = {qa["id"]: qa for a in clean_document()["data"] for p in a["paragraphs"] for qa in p["qas"]}
    for article in doc["data"]:
        for paragraph in article["paragraphs"]:
            qas = []
            for source in dict.fromkeys(qa["source_id"] for qa in paragraph["qas"]):
                for vid, (text, original, replacement, kind) in KINDED.items():
                    if vid.split("-")[0] != source:
                        continue
                    edit = edit_record(original, replacement, clean[source]["question"], kind)
                    qa = dict(clean[source], id=vid, source_id=source, question=text, substitutions=[edit])
                    qas.append(dict(qa, original_question=clean[source]["question"]))
            paragraph["qas"] = qas
    return doc


def _kind_of(kinds: Sequence[str]) -> Callable[[str], bool]:
    return lambda vid: KINDED[vid][3] in kinds


@pytest.fixture(scope="module")
def kinded(tmp_path_factory) -> Path:
    """`owner/mixed` on variants of every kind, the headline counting synonym and rare edits (certified@2's
    default): it loses answers on synonyms and rare words and keeps them on the spelling variant of a4."""
    return evaluate(
        tmp_path_factory.mktemp("kinded"), ["owner/mixed"], document=kinded_document(), headline_kinds=HEADLINE_KINDS
    )


def test_every_variant_is_evaluated_and_the_headline_counts_synonyms(kinded: Path) -> None:
    from robustqa.signature import Signature

    report = json.loads((kinded / "report.json").read_text())
    signature = Signature.parse(report["signature"])
    assert signature.get("headline_kinds") == "synonym,rare" and signature.get("kinds") is None
    assert report["settings"]["headline_kinds"] == list(HEADLINE_KINDS)
    lines = [json.loads(line) for line in (kinded / "examples.jsonl").read_text().splitlines()]
    assert sorted(line["id"] for line in lines) == sorted(KINDED)  # spelling and abbreviation variants too
    (entry,) = report["models"]
    est = entry["estimands"]
    assert est["kinds"] == list(HEADLINE_KINDS)
    assert_headline_is(est, reference_headline(kinded, entry, _kind_of(HEADLINE_KINDS)))
    # the test can fail: over every variant the headline differs (a4 counts, b3's spelling variant answers)
    everything = reference_headline(kinded, entry)
    assert (everything["questions"], est["answerable"]["questions"]) == (6, 5)
    assert everything["shift"] == pytest.approx(-50.0) and est["unanswerable"]["shift"] == pytest.approx(0.0)


def test_every_caption_names_the_kinds_and_the_kind_breakdown_has_a_spelling_row(kinded: Path) -> None:
    from click.testing import CliRunner

    from robustqa.cli import cli
    from robustqa.reporting.report import render, render_json

    run = load_run(kinded)
    (row,) = headline_rows([run])
    assert row.kinds == HEADLINE_KINDS and "synonym and rare edits only" in row.line()
    by_kind = {group["group"]: group for group in row.breakdowns.answerable["kind"]}
    assert set(by_kind) == {"synonym", "rare", "spelling", "abbreviation"}
    spelling = by_kind["spelling"]  # a1 (wrong on "land") and a4 (right on "Normandie")
    assert (spelling["questions"], spelling["flipped"], spelling["right_on_clean"]) == (2, 1, 2)
    # the other breakdowns count the headline's kinds: a4's only variant is spelling, so no question word row has it
    by_word = {group["group"]: group["questions"] for group in row.breakdowns.answerable["question_word"]}
    assert sum(by_word.values()) == 5 and by_word["what"] == 2  # a1 and b4 (a4 is left out)
    markdown = (kinded / "report.md").read_text()
    assert "The headline counts synonym and rare edits only" in markdown
    assert "### owner/mixed: by edit kind (every edit kind; the headline counts synonym and rare edits)" in markdown
    assert "### owner/mixed: by question word (synonym and rare edits only, as the headline)" in markdown
    kind_table = markdown.split("by edit kind (every edit kind")[1].split("###")[0]
    assert "| spelling" in kind_table and "| abbreviation" in kind_table
    assert json.loads(render_json([run]))["headline"][0]["kinds"] == list(HEADLINE_KINDS)
    page = render("html", [run])
    assert "The headline counts synonym and rare edits only" in page and "(every edit kind; the headline" in page
    printed = CliRunner().invoke(cli, ["report", str(kinded)], env={"COLUMNS": "200"})
    assert "The headline counts synonym and rare edits only" in printed.stdout
    answers = three_answers([run])
    assert "synonym and rare edits" in answers
    everything = row.estimands["answerable"]["questions"]
    assert f"- {row.label}: {breaking_text(row.breakdowns, everything)}" in answers  # every group, not the first 5
    title = answers_figure([row])._suptitle
    assert title is not None and "synonym and rare edits only" in title.get_text()


def test_the_official_table_says_it_counts_every_edit_kind(kinded: Path) -> None:
    """A newcomer read the official table's ΔF1 changed answerable (every kind) as the headline (synonym and rare)."""
    from robustqa.reporting.report import render

    run = load_run(kinded)
    for document in (render("md", [run]), render("html", [run])):
        official = document.split("Official SQuAD EM/F1 (all questions and every edit kind")[1]
        assert "This table counts every edit kind" in official.split("ΔEM [95% CI]")[0]  # said before the table
        assert "the headline above counts synonym and rare edits only" in official


def test_kinds_spelling_counts_the_spelling_variants_alone(tmp_path: Path, monkeypatch) -> None:
    """`eval --kinds spelling`: only the spelling variants are evaluated, and the headline covers them."""
    from click.testing import CliRunner

    from robustqa.cli import cli
    from robustqa.evaluation import run as run_module

    monkeypatch.setattr(
        run_module, "_default_runner_factory", lambda spec, _: Runner(RUNNERS[spec.name], f"fake:{spec.name}")
    )
    clean = write_json(tmp_path / "clean.json", clean_document())
    perturbed = write_json(tmp_path / "variants.json", kinded_document())
    args = ["eval", "owner/mixed", "--clean", str(clean), "--perturbed", str(perturbed), "--quiet"]
    result = CliRunner().invoke(
        cli, [*args, "--bootstrap", "50", "--kinds", "spelling", "--output-dir", str(tmp_path / "run")]
    )
    assert result.exit_code == 0, result.output
    run = tmp_path / "run"
    report = json.loads((run / "report.json").read_text())
    lines = [json.loads(line) for line in (run / "examples.jsonl").read_text().splitlines()]
    assert sorted(line["id"] for line in lines) == ["a1-v2", "a4-v1", "b3-v2"]
    (entry,) = report["models"]
    assert entry["estimands"]["kinds"] == ["spelling"] and "headline_kinds" not in report["settings"]
    expected = reference_headline(run, entry, _kind_of(["spelling"]))
    assert_headline_is(entry["estimands"], expected)
    assert (expected["questions"], expected["flipped"], expected["shift"]) == (2, 1, -100.0)
    assert "spelling edits only" in (run / "report.md").read_text()


def test_two_models_are_compared_over_the_headline_kinds(tmp_path: Path) -> None:
    run = evaluate(tmp_path, ["owner/mixed", "owner/steady"], document=kinded_document(), headline_kinds=HEADLINE_KINDS)
    (result,) = json.loads((run / "report.json").read_text())["comparisons"]
    assert result["kinds"] == list(HEADLINE_KINDS) and result["questions"] == 5  # a4 has no synonym variant
    assert "5 shared changed answerable questions (synonym and rare edits only)" in result["verdict"]
    (across,) = comparisons([load_run(run)])
    assert across["questions"] == 5 and "synonym and rare edits only" in across["verdict"]


def test_a_run_that_selected_kinds_before_headline_kinds_still_reports_them(kinded: Path, tmp_path: Path) -> None:
    """A certified@2 run made before headline kinds recorded `kinds` (its variants filtered) and estimands without
    `kinds`: it loads, and its headline and captions name the kinds it covered."""
    import shutil

    from robustqa.reporting.report import render_markdown

    old = tmp_path / "old"
    shutil.copytree(kinded, old)
    report = json.loads((old / "report.json").read_text())
    report["settings"]["kinds"] = report["settings"].pop("headline_kinds")
    for entry in report["models"]:
        entry["estimands"].pop("kinds")
    (old / "report.json").write_text(json.dumps(report))
    run = load_run(old)
    (row,) = headline_rows([run])
    assert row.kinds == HEADLINE_KINDS and "synonym and rare edits only" in row.line()
    assert "The headline counts synonym and rare edits only" in render_markdown([run])


def test_the_analyze_page_names_the_headline_kinds(kinded: Path) -> None:
    pytest.importorskip("nbclient")
    from robustqa.notebook import execute, to_html

    page = to_html(execute(kinded))
    opening = page[page.index("1. Does it still find the answer?") :]
    assert "The headline counts synonym and rare edits only" in opening
    assert "answerable, by edit kind (every edit kind)" in page
    assert "answerable, by part of speech of the edited word (synonym and rare edits)" in page


def test_breakdowns_are_computed_once_for_the_opening_and_the_tables(kinded: Path, monkeypatch) -> None:
    from robustqa.reporting import breakdowns
    from robustqa.reporting.breakdown_tables import breakdown_tables

    calls: list[str] = []
    counted = breakdowns.answerable_rows

    def counting(examples: Any, by: str, **options: Any) -> list[dict[str, Any]]:
        calls.append(by)
        return counted(examples, by, **options)

    monkeypatch.setattr(breakdowns, "answerable_rows", counting)
    run = load_run(kinded)
    rows = headline_rows([run])
    three_answers([run], rows)
    answerable, _ = breakdown_tables(rows)
    assert answerable and sorted(calls) == sorted(breakdowns.BREAKDOWNS)  # once per breakdown, not twice


def _pair_example(number: int, original: str, lost: bool) -> dict[str, Any]:
    """A changed answerable variant with one substitution `original → new`, right on clean, wrong if `lost`."""
    return {
        "id": f"q{number}-v1",
        "source_id": f"q{number}",
        "question": "What is it?",
        "clean_exact": 1.0,
        "clean_f1": 1.0,
        "perturbed_exact": 0.0 if lost else 1.0,
        "perturbed_f1": 0.0 if lost else 1.0,
        "clean_prediction": "x",
        "perturbed_prediction": "y" if lost else "x",
        "substitutions": [{"original": original, "replacement": "new", "kind": "synonym", "pos": "NN", "start": 8}],
    }


def test_small_groups_are_ranked_by_size_not_by_their_effect() -> None:
    """A newcomer saw nine one-question pairs at −100 fill the top ten pairs, and the legend not say the order."""
    from robustqa.reporting.breakdown_tables import BREAKDOWN_NOTE

    examples = [_pair_example(n, "big", lost=n % 2 == 0) for n in range(20)]  # 20 questions, plotted
    examples += [_pair_example(100, "single", lost=True)]  # one question, lost: −100 on its own
    examples += [_pair_example(200 + n, "pair", lost=False) for n in range(3)]  # three questions, no loss
    rows = answerable_rows(examples, "pair", resamples=200, seed=13)
    assert [row["group"] for row in rows] == ["big → new", "pair → new", "single → new"]
    assert "* marks a group of at least 20 questions whose ΔF1 interval" in BREAKDOWN_NOTE
    assert "Rows are ranked: marked groups first" in BREAKDOWN_NOTE and "largest first" in BREAKDOWN_NOTE
