"""`robustqa build-dataset`, `perturb`, `recipes`: golden output and one test per bad-input case."""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

import perturbations
from robustqa.build import build_dataset
from robustqa.cli import cli
from robustqa.squad import dumps_squad, load_squad

QUESTIONS = [
    "In what country is Normandy located?",
    "What is the largest city of the region?",
    "Who ruled the duchy of Normandy?",
    "When were the Normans in Normandy?",
    "",
    "Which famous battle did William win in 1066?",
]


def run(*args: str, stdin: str | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), input=stdin, catch_exceptions=False)


def masked(text: str) -> str:
    """Timings vary; everything else of the summary is golden."""
    return re.sub(r"seconds( +)[0-9.]+ \([0-9,]+ questions/s\)", r"seconds\1<masked>", text)


def test_recipes_golden(golden: Callable[[str, str], None], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    result = run("recipes")
    assert result.exit_code == 0
    golden("recipes.txt", result.stdout)
    listed = json.loads(run("recipes", "--json").stdout)
    assert [r["name"] for r in listed] == [r.name for r in perturbations.list_recipes()]
    assert all(r["version"] and r["citation"] and r["parameters"] for r in listed)


@pytest.mark.parametrize(("args", "name"), [((), "perturb.jsonl"), (("--recipe", "qads@1.1"), "perturb-1.1.jsonl")])
def test_perturb_json_golden(golden: Callable[[str, str], None], args: tuple[str, ...], name: str) -> None:
    result = run("perturb", "--json", *args, *QUESTIONS)
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert len(lines) == len(QUESTIONS)
    for text, line in zip(QUESTIONS, lines):
        record = json.loads(line)
        assert record["text"] == text
        for s in record["substitutions"]:
            assert text[s["start"] : s["end"]] == s["original"]
            assert record["perturbed"][s["new_start"] : s["new_end"]] == s["replacement"]
            assert set(s) == {
                "start",
                "end",
                "new_start",
                "new_end",
                "original",
                "replacement",
                "pos",
                "synset",
                "confidence",
            } | ({"kind"} if not args else set())  # the default recipe writes each edit's kind, 1.1 none
    assert sum(bool(json.loads(line)["substitutions"]) for line in lines) >= 2
    golden(name, result.stdout)


def test_perturb_reads_stdin_and_files_one_line_each(tmp_path: Path) -> None:
    text = "\n".join(QUESTIONS) + "\n"
    from_args = run("perturb", *QUESTIONS).stdout
    assert run("perturb", stdin=text).stdout == from_args
    path = tmp_path / "questions.txt"
    path.write_text(text, encoding="utf-8")
    assert run("perturb", "--input", str(path)).stdout == from_args
    assert from_args.count("\n") == len(QUESTIONS) and from_args != text
    # --seed and --protect reach the recipe
    protected = run("perturb", "--protect", "country,city", *QUESTIONS[:2]).stdout
    assert "country" in protected and "city" in protected


def test_perturb_missing_input_file(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["perturb", "--input", str(tmp_path / "absent.txt")])
    assert result.exit_code == 2
    assert result.stderr == f"robustqa: error: {tmp_path / 'absent.txt'}: file not found; check the path\n"


def test_build_dataset_golden(tmp_path: Path, sample_path: Path, golden: Callable[[str, str], None]) -> None:
    output = tmp_path / "qads-sample.json"
    result = run("build-dataset", "--input", str(sample_path), "--output", str(output))
    assert result.exit_code == 0
    golden("build-dataset-summary.txt", masked(result.stdout).replace(str(output), "<output>"))
    golden("qads-sample.json", output.read_text(encoding="utf-8"))
    assert len(load_squad(output, check_answers=True)) == len(load_squad(sample_path))
    assert "  gates rejected     quoted " in result.stdout and "  soft penalties     complement " in result.stdout
    # defaults are the documented ones: recipe qads, seed 13
    explicit = tmp_path / "explicit.json"
    run("build-dataset", "--input", str(sample_path), "--output", str(explicit), "--recipe", "qads", "--seed", "13")
    assert explicit.read_bytes() == output.read_bytes()
    # the default version, named exactly
    versioned = tmp_path / "versioned.json"
    assert (
        run("build-dataset", "--input", str(sample_path), "--output", str(versioned), "--recipe", "qads@2.2").exit_code
        == 0
    )
    assert versioned.read_bytes() == output.read_bytes()
    assert "  edit kinds         synonym " in result.stdout and "(edit-kinds-2)" in result.stdout


def test_build_dataset_1_1_writes_the_same_bytes_as_before_2_0(
    tmp_path: Path, sample_path: Path, golden: Callable[[str, str], None]
) -> None:
    """The golden files of 1.1 were written before 2.0 existed: the whole file and the printed summary
    (no gate lines) stay byte for byte what they were."""
    output = tmp_path / "qads-1.1-sample.json"
    result = run("build-dataset", "--input", str(sample_path), "--output", str(output), "--recipe", "qads@1.1")
    assert result.exit_code == 0
    golden("build-dataset-summary-1.1.txt", masked(result.stdout).replace(str(output), "<output>"))
    golden("qads-1.1-sample.json", output.read_text(encoding="utf-8"))
    assert "gates" not in result.stdout


def test_perturb_takes_an_exact_version_and_refuses_an_unknown_one() -> None:
    default = run("perturb", "--json", *QUESTIONS)
    exact = run("perturb", "--json", "--recipe", "qads@2.2", *QUESTIONS)
    assert exact.exit_code == 0 and exact.stdout == default.stdout
    unknown = CliRunner().invoke(cli, ["perturb", "--recipe", "qads@0.9", "a car"])
    assert unknown.exit_code == 2
    assert (
        unknown.stderr.strip()
        == "robustqa: error: recipe 'qads' has no version '0.9'; available versions: 1.1, 2.0, 2.1, 2.2 (default)"
    )


def test_set_overrides_any_recipe_parameter_and_the_output_says_so(tmp_path: Path, sample_path: Path) -> None:
    question = "When was the Royal University of Warsaw established?"
    assert run("perturb", "--recipe", "qads@1.1", question).stdout.strip() == question  # WSD not sure enough at 0.8
    loose = run("perturb", "--recipe", "qads@1.1", "--set", "threshold=0", "--set", "max_substitutions=1", question)
    assert loose.exit_code == 0 and loose.stdout.strip() == "When was the Royal University of Warsaw set up?"
    output = tmp_path / "s.json"
    built = run(
        "build-dataset",
        "--input",
        str(sample_path),
        "--output",
        str(output),
        "--recipe",
        "qads@1.1",
        "--set",
        "threshold=0.5",
        "--set",
        "use_context=false",
    )
    assert built.exit_code == 0
    signature = json.loads(output.read_text(encoding="utf-8"))["signature"]
    assert "|threshold:0.5|" in signature and "|context:no|" in signature


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            ["--set", "thresold=0"],
            "robustqa: error: recipe 'qads' has no parameter 'thresold'; parameters: max_substitutions, "
            "min_substitutions, pos, protected_words, rate, table, threshold, use_context, wsd",
        ),
        (["--set", "threshold=2"], "robustqa: error: threshold must be in [0, 1], not 2.0"),
        (["--set", "max_substitutions=1.5"], "robustqa: error: parameter 'max_substitutions' has an invalid value 1.5"),
        (
            ["--set", "threshold"],
            "Error: Invalid value for '--set': 'threshold' is not KEY=VALUE (for example threshold=0.5)",
        ),
        (
            ["--rate", "0.5", "--set", "rate=0.3"],
            "Error: Invalid value for '--set': rate is given both as --rate and as --set rate=...; give it once",
        ),
    ],
)
def test_set_refuses_what_the_recipe_does_not_take(args: list[str], expected: str) -> None:
    result = CliRunner().invoke(cli, ["perturb", *args, "a car"])
    assert result.exit_code == 2 and result.stdout == ""
    assert expected in result.stderr.splitlines() and "Traceback" not in result.stderr


def test_recipes_lists_every_version_and_marks_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    import dataclasses

    from perturbations import registry

    several = registry.RecipeRegistry()
    for recipe in perturbations.list_recipes():
        several.register(recipe, default=recipe.version == "2.0")
    later = dataclasses.replace(perturbations.get_recipe("qads"), version="9.0", description="a later version")
    several.register(later, default=True)
    monkeypatch.setattr(registry, "REGISTRY", several)
    monkeypatch.setenv("COLUMNS", "400")  # no heading wraps
    text = run("recipes").stdout
    assert "build-dataset, perturb and attack use qads (qads@9.0)" in text
    assert "\nqads@1.1  questions: content words" in text
    assert "\nqads@9.0 (what qads builds; the default recipe)  a later version" in text
    assert "\nqads@2.0  questions: one content word" in text
    assert "\nboth@2.0 (what both builds)  questions and contexts" in text
    assert "qads-strict@2.0  questions: as qads@2.0" in text  # one version: nothing to mark

    listed = json.loads(run("recipes", "--json").stdout)
    assert [(r["name"], r["version"]) for r in listed if r["name"] == "qads"] == [
        ("qads", "1.1"),
        ("qads", "2.0"),
        ("qads", "2.1"),
        ("qads", "2.2"),
        ("qads", "9.0"),
    ]


def test_recipes_wrap_to_the_terminal_and_lose_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    def listing(columns: int) -> str:
        monkeypatch.setenv("COLUMNS", str(columns))
        return run("recipes").stdout

    wide = listing(2000)
    assert max(len(line) for line in wide.splitlines()) > 400  # the parameters and citations are long
    for columns in (60, 100):
        text = listing(columns)
        assert max(len(line) for line in text.splitlines()) <= columns  # lists of values wrap after a comma too
        assert re.findall(r"[^\s,]+", text) == re.findall(r"[^\s,]+", wide)


def test_build_dataset_options_reach_the_build(tmp_path: Path, sample_path: Path) -> None:
    output = tmp_path / "v.json"
    result = run(
        "build-dataset",
        "--input",
        str(sample_path),
        "--output",
        str(output),
        "--variants",
        "2",
        "--rate",
        "0.5",
        "--protect",
        "Normandy",
        "--workers",
        "2",
    )
    assert result.exit_code == 0
    document = json.loads(output.read_text(encoding="utf-8"))
    assert "|rate:0.5|" in document["signature"] and "|variants:2|" in document["signature"]
    assert document["robustqa"]["recipe"]["parameters"]["protected_words"] == ["normandy"]
    ids = [q["id"] for a in document["data"] for p in a["paragraphs"] for q in p["qas"]]
    assert all(re.search(r"-v[12]$", i) for i in ids)


# --- bad input: one line, non-zero exit, no traceback, no output ---------------------------------

GOOD_QA = {
    "id": "q1",
    "question": "Where is Normandy?",
    "answers": [{"text": "France", "answer_start": 24}],
    "is_impossible": False,
}


def squad_with(qa: dict[str, Any], context: str = "Normandy is a region in France.") -> str:
    return json.dumps(
        {"version": "v2.0", "data": [{"title": "Normans", "paragraphs": [{"context": context, "qas": [qa]}]}]}
    )


def bad_input_cases(tmp: Path) -> dict[str, tuple[list[str], str]]:
    """case -> (arguments, text the one-line error must contain)."""

    def file(name: str, content: str) -> str:
        path = tmp / name
        path.write_text(content, encoding="utf-8")
        return str(path)

    missing_fields = dict(GOOD_QA)
    del missing_fields["question"]
    return {
        "not-json": (["--input", file("a.json", "{'data': [")], "a.json: not valid JSON"),
        "wrong-schema": (
            ["--input", file("b.json", '{"version": "v2.0", "articles": []}')],
            "b.json: not a SQuAD file",
        ),
        "missing-fields": (
            ["--input", file("c.json", squad_with(missing_fields))],
            "c.json: article 'Normans', question q1: question has no 'question' text",
        ),
        "misaligned": (
            ["--input", file("d.json", squad_with({**GOOD_QA, "answers": [{"text": "France", "answer_start": 3}]}))],
            "d.json: article 'Normans', question q1: answers[0] 'France' is not at answer_start 3",
        ),
        "empty-file": (["--input", file("e.json", "")], "e.json: file is empty"),
        "unknown-recipe": (
            ["--input", file("f.json", squad_with(GOOD_QA)), "--recipe", "qadz"],
            "unknown recipe 'qadz'",
        ),
        "unreadable": (["--input", str(tmp)], f"{tmp}: is a folder, not a file"),
        "no-such-file": (["--input", str(tmp / "absent.json")], "absent.json: file not found"),
        "no-questions": (
            ["--input", file("g.json", '{"version": "v2.0", "data": []}')],
            "g.json: no questions to perturb",
        ),
        "output-folder-missing": (
            ["--input", file("h.json", squad_with(GOOD_QA)), "--output", str(tmp / "missing" / "x.json")],
            "folder '" + str(tmp / "missing") + "' does not exist",
        ),
    }


CASES = [
    "not-json",
    "wrong-schema",
    "missing-fields",
    "misaligned",
    "empty-file",
    "unknown-recipe",
    "unreadable",
    "no-such-file",
    "no-questions",
    "output-folder-missing",
]


@pytest.mark.parametrize("case", CASES)
def test_bad_input_is_one_line_and_writes_nothing(tmp_path: Path, case: str) -> None:
    args, expected = bad_input_cases(tmp_path)[case]
    (tmp_path / "out").mkdir()
    output = str(tmp_path / "out" / "result.json")
    if "--output" not in args:
        args = args + ["--output", output]
    result = CliRunner().invoke(cli, ["build-dataset", *args])
    assert result.exit_code not in (0, 1), result.output  # 1 would be an unexpected exception
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("robustqa: error: ") and expected in lines[0], result.stderr
    assert "Traceback" not in result.stderr
    assert list((tmp_path / "out").iterdir()) == []  # no output, no temporary file left


def test_misaligned_answers_repaired_only_with_a_warning(tmp_path: Path) -> None:
    src = tmp_path / "d.json"
    src.write_text(squad_with({**GOOD_QA, "answers": [{"text": "France", "answer_start": 3}]}), encoding="utf-8")
    output = tmp_path / "out.json"
    result = CliRunner().invoke(
        cli, ["build-dataset", "--input", str(src), "--output", str(output), "--repair-answers"]
    )
    assert result.exit_code == 0
    assert result.stderr.startswith(
        f"robustqa: warning: {src}: article 'Normans', question q1: answers[0] 'France' is not at answer_start 3"
    )
    assert "repaired to answer_start 24" in result.stderr
    assert load_squad(output, check_answers=True).examples()[0].answers[0].answer_start == 24


def test_span_violation_exits_without_writing(
    tmp_path: Path, sample_path: Path, answer_breaking: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(perturbations, "get_recipe", lambda name, **kw: answer_breaking)
    output = tmp_path / "out.json"
    result = CliRunner().invoke(
        cli, ["build-dataset", "--input", str(sample_path), "--output", str(output), "--recipe", "context"]
    )
    assert result.exit_code == 3
    assert re.fullmatch(
        r"robustqa: error: article '[^']+', question \S+: the edit .* falls inside the answer .*\n", result.stderr
    )
    assert list(tmp_path.iterdir()) == []


def test_without_input_offline_says_to_pass_input(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr("robustqa.squad.HUB_DATASET", "robustqa-test/not-cached-squad-v2")
    result = CliRunner().invoke(cli, ["build-dataset", "--output", str(tmp_path / "x.json")])
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and "pass --input FILE" in lines[0]
    assert list(tmp_path.iterdir()) == []


def test_real_command_on_the_half_dev_set_with_two_workers(
    tmp_path: Path, squad_half_path: Path, console_script: str
) -> None:
    """The acceptance build: 6,078 real questions, qads, through the installed console script.

    Its two workers start cold (forked from a fresh process), the case where processes could share
    NLTK's open WordNet files; the in-process one-worker build must give the same bytes."""
    output = tmp_path / "qads-half.json"
    done = subprocess.run(
        [console_script, "build-dataset", "--input", str(squad_half_path), "--output", str(output), "--workers", "2"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env=dict(os.environ, ROBUSTQA_CACHE=str(tmp_path / "empty-cache")),  # cold lexicon cache: workers read WordNet
    )
    assert done.returncode == 0, done.stderr
    assert "questions read     6,078" in done.stdout
    dataset = load_squad(output, check_answers=True)  # raises on any answer-span violation
    assert len(dataset) == 6078
    document = json.loads(output.read_text(encoding="utf-8"))
    changed = document["robustqa"]["summary"]["changed"]
    assert (
        changed == 1193
    )  # the default (2.1, its vetted table) changes a fifth of the questions (pinned: test_recipe_pins)
    for example in dataset.examples():
        for s in example.substitutions:
            assert "_" not in s.replacement
    one_worker = build_dataset(
        load_squad(squad_half_path), perturbations.get_recipe("qads"), seed=13, source=squad_half_path.name
    )
    assert dumps_squad(one_worker.document) == output.read_text(encoding="utf-8")
