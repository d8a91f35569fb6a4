"""`robustqa models` and `robustqa eval` through click, with golden output; bad input on the command line.

The eval goldens use a tiny random BERT QA model built from a config inside the test (seeded, no download).
Regenerate the golden files with ROBUSTQA_UPDATE_GOLDEN=1 after a deliberate change, and review the diff.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from robustqa.cli import cli

from rqa_evalfakes import clean_document, perturbed_document, write_json

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "eval"


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("ROBUSTQA_UPDATE_GOLDEN") == "1":
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


def tiny_bert(folder: Path) -> Path:
    """A 2-layer BERT QA model with a word-level vocabulary of the test documents (random, seeded weights)."""
    import torch
    from transformers import BertConfig, BertForQuestionAnswering, BertTokenizerFast

    folder.mkdir(parents=True)
    words: set[str] = set()
    for article in clean_document()["data"] + perturbed_document()["data"]:
        for paragraph in article["paragraphs"]:
            texts = [paragraph["context"]] + [qa["question"] for qa in paragraph["qas"]]
            for text in texts:
                words.update(re.findall(r"\w+|[^\w\s]", text.lower()))
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *sorted(words)]
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    BertTokenizerFast(vocab_file=str(folder / "vocab.txt"), do_lower_case=True).save_pretrained(folder)
    config = BertConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=128,
    )
    with torch.random.fork_rng():
        torch.manual_seed(0)
        BertForQuestionAnswering(config).save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("evalcli")
    tiny_bert(root / "tiny-bert")
    write_json(root / "clean.json", clean_document())
    write_json(root / "perturbed.json", perturbed_document())
    return root


def invoke(args: list[str], cwd: Path):
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(cli, args, catch_exceptions=False)
    finally:
        os.chdir(old)


def test_models_lists_aliases_with_card_scores():
    result = CliRunner().invoke(cli, ["models"])
    assert result.exit_code == 0
    check_golden("models.txt", result.stdout)


def test_models_in_a_narrow_terminal_keeps_aliases_and_scores_whole(monkeypatch):
    """At 80 columns the hub ids fold onto more lines; what one types (the alias) and the scores never shrink."""
    from robustqa.evaluation.models import alias_table

    monkeypatch.setenv("COLUMNS", "80")
    lines = CliRunner().invoke(cli, ["models"]).stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    for row in alias_table():
        whole = (f"│ {row['alias']} ", f"{row['reported_exact']:.2f}", f"{row['reported_f1']:.2f}")
        assert any(all(part in line for part in whole) for line in lines), row["alias"]


def test_tiny_eval_prints_table_and_signature(workdir):
    args = [
        "eval",
        "tiny-bert",
        "--clean",
        "clean.json",
        "--perturbed",
        "perturbed.json",
        "--output-dir",
        "run",
        "--quiet",
        "--bootstrap",
        "200",
    ]
    result = invoke(args, workdir)
    assert result.exit_code == 0, result.output
    # the model folder's absolute path and fingerprint (file times) differ between machines
    stdout = re.sub(r"models:\S+?@local:[0-9a-f]+", "models:<tiny-bert>@local:<fingerprint>", result.stdout)
    check_golden("tiny_eval.txt", stdout)
    assert re.search(  # a folder's run files are named by its name and its fingerprint's hash
        r"tiny-bert-[0-9a-f]{6}: clean: 8 predicted, 0 from cache; perturbed: 3 predicted, 0 from cache, "
        r"5 reused from clean \(unchanged\)",
        result.stderr,
    )
    report = json.loads((workdir / "run" / "report.json").read_text())
    assert report["models"][0]["coverage"]["reused_predictions"] == 5
    assert report["signature"].split("|")[-1] == "robustqa:0.1.0"
    again = invoke(args, workdir)
    assert again.stdout == result.stdout
    assert "clean: 0 predicted, 8 from cache; perturbed: 0 predicted, 3 from cache" in again.stderr


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["electra-largee", "--clean", "clean.json"], 4, "unknown model 'electra-largee'"),
        (["tiny-bert", "--clean", "nope.json"], 2, "nope.json: file not found"),
        (
            ["tiny-bert", "--clean", "clean.json", "--perturbed", "bad.json"],
            2,
            "perturbed question zz matches no question of the clean file",
        ),
        (["tiny-bert", "--clean", "empty.json"], 2, "the clean file has no questions"),
        (
            ["tiny-bert", "--clean", "clean.json", "--doc-stride", "500"],
            2,
            "doc_stride 500 must be positive and below max_seq_length",
        ),
        (
            ["tiny-bert", "--clean", "clean.json", "--perturbed", "steam.json", "--limit", "2"],
            2,
            "steam.json: no perturbed question matches the first 2 clean questions; raise --limit or drop it",
        ),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(workdir, args, code, message):
    doc = perturbed_document()
    doc["data"][0]["paragraphs"][0]["qas"][0]["id"] = "zz"
    write_json(workdir / "bad.json", doc)
    write_json(workdir / "steam.json", dict(perturbed_document(), data=perturbed_document()["data"][1:]))
    write_json(workdir / "empty.json", {"version": "v2.0", "data": []})
    result = invoke(["eval", *args, "--output-dir", "failed", "--quiet"], workdir)
    assert result.exit_code == code
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("robustqa: error: ") and message in lines[0]
    assert result.stdout == ""
    assert not (workdir / "failed").exists()


@pytest.mark.parametrize("width", [80, 100, 160])
def test_the_terminal_table_fits_the_terminal_without_breaking_a_header_word(workdir, width, monkeypatch):
    """A long model path and two runs side by side: the headline table keeps whole words at any width, its
    three answers always, and says which columns it left out (all of them are in report.md and with --wide)."""
    from robustqa.reporting.headline import TERMINAL_COLUMNS

    variants = workdir / "variants.json"
    write_json(variants, perturbed_document(variants=True))
    model = str((workdir / "tiny-bert").resolve())  # a full path, as users give local folders
    for run, perturbed in (("run-w1", "perturbed.json"), ("run-w2", "variants.json")):
        result = invoke(
            [
                "eval",
                model,
                "--clean",
                "clean.json",
                "--perturbed",
                perturbed,
                "--output-dir",
                run,
                "--quiet",
                "--bootstrap",
                "200",
            ],
            workdir,
        )
        assert result.exit_code == 0, result.output
    monkeypatch.setenv("COLUMNS", str(width))
    result = invoke(["report", "run-w1", "run-w2", "--output", f"report-{width}.md"], workdir)
    assert result.exit_code == 0, result.output
    table = result.stdout.split("\nsignature")[0]
    stdout = re.sub(r"models:\S+?@local:[0-9a-f]+", "models:<tiny-bert>@local:<fingerprint>", table)
    check_golden(f"report_table_{width}.txt", stdout)
    lines = table.splitlines()
    assert all(len(line) <= width for line in lines), max(lines, key=len)
    header_rows = [[cell.strip() for cell in line.strip("┃").split("┃")] for line in lines if line.startswith("┃")]
    headers = {"\n".join(column).strip() for column in zip(*header_rows)}  # each column's header, line by line
    # every header is one of the headline columns, whole: a header word broken across lines would not match
    assert headers <= set(TERMINAL_COLUMNS), headers - set(TERMINAL_COLUMNS)
    assert set(TERMINAL_COLUMNS[:4]) <= headers  # the model and its three answers
    assert "| ---" not in table  # a terminal table, not markdown
    assert str(workdir) not in table  # short model names: the folder's name, not its path
