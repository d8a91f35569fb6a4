"""Every test folder is collected: pytest's default `norecursedirs` silently skips folders such as "build"."""

from __future__ import annotations

import fnmatch
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def test_no_test_folder_matches_a_skipped_pattern(pytestconfig: pytest.Config) -> None:
    skipped = pytestconfig.getini("norecursedirs")
    folders = {p.parent.relative_to(REPO) for p in (REPO / "tests").rglob("test_*.py")}
    hidden = sorted(
        str(f) for f in folders if any(fnmatch.fnmatch(part, pattern) for part in f.parts for pattern in skipped)
    )
    assert Path("tests/build") in folders and not hidden, f"pytest would skip these test folders: {hidden}"
