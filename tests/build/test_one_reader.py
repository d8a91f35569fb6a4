"""One reader of input files: an empty, binary, CSV or non-SQuAD file gets the same one-line message from
every command that reads a JSON file."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from robustqa.cli import cli
from robustqa.errors import InputError
from robustqa.squad import load_squad

BAD = {
    "empty.json": (b"", "file is empty"),
    "binary.json": (b"\x89PNG\r\n\x1a\n\x00\xff\xfe", "not UTF-8 text (a binary file?"),
    "table.csv": (b"id,question\n1,What?\n", "not valid JSON (Expecting value at line 1, column 1)"),
    "other.json": (b'{"rows": []}', "not a SQuAD file: no top-level 'data' list"),
}


def _commands(path: Path, tmp_path: Path) -> dict[str, list[str]]:
    return {
        "build-dataset": ["build-dataset", "--input", str(path), "--output", str(tmp_path / "out.json")],
        "eval": ["eval", "owner/model-never-loaded", "--clean", str(path), "--output-dir", str(tmp_path / "run")],
        "review": ["review", str(path), "--html", str(tmp_path / "review.html")],
        "filter": ["filter", str(path), "--validated", str(path), "--output", str(tmp_path / "filtered.json")],
        "attack": [
            "attack",
            "owner/model-never-loaded",
            "--input",
            str(path),
            "--output-dir",
            str(tmp_path / "attack"),
        ],
    }


@pytest.mark.parametrize("name", sorted(BAD))
def test_every_command_says_the_same_line_for_a_bad_file(tmp_path: Path, name: str) -> None:
    content, message = BAD[name]
    path = tmp_path / name
    path.write_bytes(content)
    seen = {}
    for command, args in _commands(path, tmp_path).items():
        result = CliRunner().invoke(cli, args)
        lines = result.output.strip().splitlines()
        assert result.exit_code == 2, (command, result.output)
        assert len(lines) == 1 and "Traceback" not in result.output, (command, result.output)
        seen[command] = lines[0]
        assert lines[0].startswith(f"robustqa: error: {path}: {message}"), (command, lines[0])
    assert len({line.split(";")[0] for line in seen.values()}) == 1, seen
    assert not (tmp_path / "out.json").exists() and not (tmp_path / "filtered.json").exists()


@pytest.mark.parametrize(
    "text",
    ['{"version": "v2.0", "data": [{"title": "Normans', '{"version": "v2.0", "data": [{"title": "N\n', '{"data": ['],
)
def test_a_truncated_file_is_named_as_truncated(tmp_path: Path, text: str) -> None:
    path = tmp_path / "cut.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_squad(path)
    message = caught.value.text()
    assert message.startswith(f"{path}: not valid JSON: the file ends in the middle of it (")
    assert "looks truncated" in message and "at at" not in message and "\n" not in message


def test_other_bad_json_keeps_the_decoder_s_words(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"data": [1,]} ', encoding="utf-8")
    with pytest.raises(InputError, match=r"not valid JSON \(Expecting value at line 1, column 13\)"):
        load_squad(path)
    path.write_text('{"data": []} x', encoding="utf-8")
    with pytest.raises(InputError, match=r"not valid JSON \(Extra data at line 1, column 14\)"):
        load_squad(path)
