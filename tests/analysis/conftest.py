"""Fixtures of the analysis tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from rqa_synthetic import write_run


@pytest.fixture()
def synthetic_run(tmp_path: Path) -> Path:
    return write_run(tmp_path / "runs" / "synthetic")


@pytest.fixture(scope="session")
def demo_run(tmp_path_factory: pytest.TempPathFactory, shared_model_path: Path) -> tuple[Path, str]:
    """`robustqa demo` with the shared model, run once: (its run folder, its printed output)."""
    from click.testing import CliRunner

    from robustqa.cli import cli

    out = tmp_path_factory.mktemp("demo") / "sample"
    result = CliRunner().invoke(
        cli, ["demo", "--model", str(shared_model_path), "--output-dir", str(out)], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    return out, result.output
