"""`torchrun --nproc_per_node 2 robustqa eval ...` on CPU equals the one-process run, file for file.

The one-process side is the shared `real_run` fixture (tests/conftest.py: the held-out file and the
shared model, evaluated by the console script). Here the same clean file is evaluated by two gloo
processes; predictions, null odds and the clean metrics must be identical.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow


def _torchrun() -> list[str]:
    exe = shutil.which("torchrun", path=str(Path(sys.executable).parent))
    return [exe] if exe else [sys.executable, "-m", "torch.distributed.run"]


def test_two_cpu_processes_equal_one(
    real_run: Path, squad_heldout_path: Path, shared_model_path: Path, tmp_path: Path, console_script: str
) -> None:
    single = json.loads((real_run / "report.json").read_text())["models"][0]
    out = tmp_path / "torchrun"
    command = _torchrun() + [
        "--standalone",
        "--nproc_per_node",
        "2",
        console_script,
        "eval",
        str(shared_model_path),
        "--clean",
        str(squad_heldout_path),
        "--output-dir",
        str(out),
        "--quiet",
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    multi = json.loads((out / "report.json").read_text())["models"][0]
    for key in ("clean_predictions", "clean_null_odds"):
        ours = json.loads((out / multi["files"][key]).read_text())
        theirs = json.loads((real_run / single["files"][key]).read_text())
        assert len(ours) == 1494 and ours == theirs
    assert multi["clean"] == single["clean"]
    assert done.stdout.count("wrote ") + done.stderr.count("wrote ") == 1  # only the main process reports
