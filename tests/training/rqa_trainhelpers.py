"""What the training tests share (a module of its own: `conftest` is not importable by name in a full run)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

SAMPLE = Path(__file__).parents[2] / "robustqa" / "data" / "squad2-sample.json"


def one_line(result: Any) -> str:
    """The single line a refused command printed (a click result): no traceback, a non-zero exit."""
    assert result.exit_code != 0
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert "Traceback" not in result.output
    return lines[0]


def assert_eval_loads(model_dir: Path, tmp_path: Path) -> None:
    """`robustqa eval` loads a trained folder and answers the first questions of the sample with it."""
    from click.testing import CliRunner

    from robustqa.cli import cli

    evaluated = CliRunner().invoke(
        cli,
        ["eval", str(model_dir), "--clean", str(SAMPLE), "--output-dir", str(tmp_path / "run"), "--quiet"]
        + ["--max-seq-length", "64", "--doc-stride", "16", "--device", "cpu", "--limit", "5"],
        catch_exceptions=False,
    )
    assert evaluated.exit_code == 0, evaluated.output
