"""`torchrun --nproc_per_node 2 robustqa attack ...` on CPU finds what one process finds, file for file: the
processes share each round's forward passes and continue the same searches on the broadcast answers."""

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


def test_two_cpu_processes_equal_one(real_attack: dict[str, Path], shared_model_path: Path, tmp_path: Path) -> None:
    out = tmp_path / "torchrun"
    exe = str(Path(sys.executable).with_name("robustqa"))
    command = _torchrun() + [
        "--standalone",
        "--nproc_per_node",
        "2",
        exe,
        "attack",
        str(shared_model_path),
        "--input",
        str(real_attack["clean"]),
        "--output-dir",
        str(out),
        "--recipe",
        "qads@1.1",
        "--quiet",
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    assert (out / "adversarial.json").read_bytes() == (real_attack["attack"] / "adversarial.json").read_bytes()
    multi, single = (json.loads((folder / "attack.json").read_text()) for folder in (out, real_attack["attack"]))
    assert multi["questions_detail"] == single["questions_detail"] and multi["succeeded"] == single["succeeded"] >= 3
    assert multi["cost"]["processes"] == 2 and multi["cost"]["model_queries"] == single["cost"]["model_queries"]
    assert done.stdout.count("robustqa attack:") == 1  # only the main process reports
