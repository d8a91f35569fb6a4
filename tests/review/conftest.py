"""Fixtures of the review tests: a small file built by the real engine, and a headless Chromium."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from robustqa.cli import cli

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "robustqa" / "data" / "squad2-sample.json"
GOLDEN = REPO / "tests" / "golden" / "review"


@pytest.fixture(scope="session")
def built_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`robustqa build-dataset` on the packaged 30-question sample: real substitution records, about 20 changed."""
    out = tmp_path_factory.mktemp("review-built") / "qads-sample.json"
    result = CliRunner().invoke(
        cli, ["build-dataset", "--input", str(SAMPLE), "--output", str(out), "--recipe", "qads", "--seed", "13"]
    )
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="session")
def golden() -> Callable[[str, str], None]:
    """Compare text with tests/golden/review/<name>; ROBUSTQA_UPDATE_GOLDEN=1 rewrites the file instead."""

    def check(name: str, text: str) -> None:
        path = GOLDEN / name
        if os.environ.get("ROBUSTQA_UPDATE_GOLDEN") == "1":
            path.write_text(text, encoding="utf-8")
        assert text == path.read_text(encoding="utf-8"), (
            f"{name} differs from its golden file; if the change is intended, rerun with ROBUSTQA_UPDATE_GOLDEN=1"
        )

    return check


@pytest.fixture
def chromium(tmp_path: Path) -> Iterator[tuple[object, Path]]:
    """A headless Chromium driven by selenium, with a fresh profile, and the folder its downloads go to."""
    from rqa_browser import start_chromium

    downloads = tmp_path / "downloads"
    downloads.mkdir()
    driver = start_chromium(tmp_path / "profile", downloads)
    try:
        yield driver, downloads
    finally:
        driver.quit()
