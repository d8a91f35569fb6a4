"""One reader of input files: an empty, binary, CSV or non-SQuAD file gets the same one-line message from
every command that reads a JSON file."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from robustqa.cli import cli

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
