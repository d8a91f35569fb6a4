"""The repository's files as the repo tests see them: what git tracks, or, outside a checkout (an unpacked
archive), every file but environments, caches and outputs."""

from __future__ import annotations

import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
_SKIPPED_DIRS = {".git", ".venv", ".ruff_cache", ".pytest_cache", ".mypy_cache", "__pycache__"}
_SKIPPED_AT_TOP = {"runs", "build", "dist"}  # what commands write into a clone (robustqa/runs/ is code)


def tracked_files() -> list[Path]:
    """The files git tracks; outside a git checkout, every file but environments and caches."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
        return [REPO / name for name in listed.decode("utf-8").split("\0") if name]
    except (OSError, subprocess.CalledProcessError):
        return [p for p in REPO.rglob("*") if p.is_file() and not _skipped(p.relative_to(REPO).parts)]


def _skipped(parts: tuple[str, ...]) -> bool:
    return parts[0] in _SKIPPED_AT_TOP or any(part in _SKIPPED_DIRS or part.endswith(".egg-info") for part in parts)
