"""`robustqa report`: one run, several runs side by side, every format, bad folders."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from robustqa.cli import cli

from rqa_synthetic import write_run


def _invoke(*args: str):
    return CliRunner().invoke(cli, ["report", *args], catch_exceptions=False)


def test_markdown_to_stdout(synthetic_run: Path) -> None:
    result = _invoke(str(synthetic_run), "--format", "md")
    assert result.exit_code == 0, result.output
    assert result.output.index("## Does the model still find the answer?") < result.output.index("## Official")
    lines = result.output.split("## Official SQuAD EM/F1")[1].splitlines()  # the official table, after the answers
    rows = [line for line in lines if line.startswith("| tiny-")]  # the scores, then what each row compares
    assert [row.split("|")[1].strip() for row in rows] == ["tiny-a", "tiny-b", "tiny-a", "tiny-b"]
    assert "| 83.33 |" in rows[0]  # tiny-a clean EM
    assert any(line.startswith("Signature: `clean:000000000000|") for line in lines)


def test_two_runs_side_by_side_written_with_chart(tmp_path: Path) -> None:
    qads = write_run(tmp_path / "qads", ["tiny-a"])
    nouns = write_run(tmp_path / "nouns", ["tiny-b"])
    out = tmp_path / "out" / "comparison.md"
    out.parent.mkdir()
    result = _invoke(str(qads), str(nouns), "--output", str(out))
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert "| qads: tiny-a |" in text and "| nouns: tiny-b |" in text
    assert "Signature (qads)" in text and "Signature (nouns)" in text
    chart = out.with_suffix(".png")
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"wrote {out} and {chart}" in result.output
    assert "qads: tiny-a" in result.output  # the table is printed too


def test_json_keeps_numbers(tmp_path: Path) -> None:
    a = write_run(tmp_path / "a", ["tiny-a"])
    b = write_run(tmp_path / "b", ["tiny-b"])
    result = _invoke(str(a), str(b), "--format", "json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    assert [(r["run"], r["model"], r["recipe"]) for r in document["table"]] == [
        (str(a), "tiny-a", "qads@1.0"),
        (str(b), "tiny-b", "qads@1.0"),
    ]
    assert document["table"][0]["clean_em"] == document["runs"][0]["models"][0]["clean"]["exact"]
    assert document["table"][1]["right_to_wrong"] == 3


def test_html_is_one_self_contained_page(synthetic_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    result = _invoke(str(synthetic_run), "--format", "html", "--output", str(out))
    assert result.exit_code == 0, result.output
    page = out.read_text()
    assert page.startswith("<!DOCTYPE html>")
    official, compared = page.split("Official SQuAD EM/F1")[1].split("What each row compares")[:2]
    assert official.count("<tr>") == 3 and compared.count("<tr>") == 3  # header and two models, in each part
    assert page.index("Does the model still find the answer?") < page.index("Official SQuAD EM/F1")
    assert 'src="data:image/png;base64,' in page
    assert "clean:000000000000|perturbed:111111111111" in page
    # the terminal points to the page just written, not to the run folder's report.md
    assert f"official all-question EM/F1 and more in {out}, or with --wide" in result.output
    assert "in report.md" not in result.output


def test_output_extension_chooses_the_document_form(synthetic_run: Path, tmp_path: Path) -> None:
    """A newcomer's `--output report.html` without --format got markdown in an .html file."""
    for name, start in (("r.html", "<!DOCTYPE html>"), ("r.json", "{"), ("r.md", "#")):
        out = tmp_path / name
        result = _invoke(str(synthetic_run), "--output", str(out))
        assert result.exit_code == 0, result.output
        assert out.read_text().lstrip().startswith(start), name
    out = tmp_path / "forced.html"
    assert _invoke(str(synthetic_run), "--format", "md", "--output", str(out)).exit_code == 0
    assert not out.read_text().startswith("<!DOCTYPE html>")


def test_bad_run_folder_is_one_line_and_writes_nothing(synthetic_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "never.md"
    result = CliRunner().invoke(cli, ["report", str(synthetic_run), str(tmp_path / "missing"), "--output", str(out)])
    assert result.exit_code == 2
    assert result.output.count("\n") == 1
    assert result.output.startswith("robustqa: error: ") and "missing: no such run folder" in result.output
    assert not out.exists() and not out.with_suffix(".png").exists()


def test_output_into_missing_folder_is_refused(synthetic_run: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["report", str(synthetic_run), "--output", str(tmp_path / "no" / "r.md")])
    assert result.exit_code == 5 and "does not exist" in result.output


def test_real_run_alone_and_beside_the_demo_run(
    real_run: Path, demo_run: tuple[Path, str], tmp_path: Path, shared_model_path: Path
) -> None:
    """A run made earlier renders; and two real runs (held-out file, packaged sample) side by side."""
    alone = _invoke(str(real_run), "--format", "md")
    assert alone.exit_code == 0, alone.output
    report = json.loads((real_run / "report.json").read_text())
    assert f"{report['models'][0]['clean']['exact']:.2f}" in alone.output

    sample = demo_run[0]
    out = tmp_path / "both.html"
    both = _invoke(str(real_run), str(sample), "--format", "html", "--output", str(out))
    assert both.exit_code == 0, both.output
    page = out.read_text()
    # models named short (the folder's name); the full identity is in each run's signature
    assert f"{real_run.name}: {shared_model_path.name}" in page and f"sample: {shared_model_path.name}" in page
    assert page.split("Official SQuAD EM/F1")[1].split("What each row compares")[0].count("<tr>") == 3
