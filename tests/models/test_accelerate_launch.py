"""`accelerate launch` with two CPU processes runs `robustqa eval` unchanged and equals one process.

On a machine without GPUs, `accelerate launch --cpu --num_processes 2` starts a single process (its
simple launcher forks more only through `mpirun`), while `--multi_gpu --num_processes 2` hands over to
torchrun, which starts two processes; robustqa then forms a gloo group from their environment. The
per-rank logs (`--log_dir`, `--tee 3`) show that two processes ran and that only rank 0 printed.
Everything is passed on the command line and HF_HOME points into tmp_path, so no accelerate config
of the machine's user leaks in.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from robustqa.evaluation import distributed

LIMIT = "300"


def _beside_python(name: str) -> str | None:
    """The console script installed with this interpreter (a pyenv shim is a shell script, not Python)."""
    return shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)


def _accelerate() -> list[str]:
    exe = _beside_python("accelerate")
    return [exe, "launch"] if exe else [sys.executable, "-m", "accelerate.commands.launch"]


def _eval_args(shared_model_path: Path, squad_heldout_path: Path, out: Path) -> list[str]:
    return [
        "eval",
        str(shared_model_path),
        "--clean",
        str(squad_heldout_path),
        "--output-dir",
        str(out),
        "--limit",
        LIMIT,
        "--quiet",
    ]


def _files(run_dir: Path) -> list[str]:
    return sorted(str(p.relative_to(run_dir)) for p in run_dir.rglob("*") if p.is_file())


@pytest.mark.slow
def test_two_cpu_processes_under_accelerate_equal_one(
    squad_heldout_path: Path, shared_model_path: Path, tmp_path: Path, console_script: str
) -> None:
    robustqa = console_script
    env = dict(os.environ, HF_HOME=str(tmp_path / "hf-home"))
    for name in ("WORLD_SIZE", "RANK", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT"):
        env.pop(name, None)

    one = tmp_path / "one"
    single = subprocess.run(
        [robustqa, *_eval_args(shared_model_path, squad_heldout_path, one)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert single.returncode == 0, single.stderr[-3000:]

    two, logs = tmp_path / "two", tmp_path / "logs"
    launch = _accelerate() + [
        "--multi_gpu",
        "--num_machines",
        "1",
        "--num_processes",
        "2",
        "--mixed_precision",
        "no",
        "--dynamo_backend",
        "no",
        "--main_process_port",
        "0",
        "--log_dir",
        str(logs),
        "--tee",
        "3",
        "--no_python",
        robustqa,
        *_eval_args(shared_model_path, squad_heldout_path, two),
    ]
    done = subprocess.run(launch, capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]

    report_one = json.loads((one / "report.json").read_text())["models"][0]
    report_two = json.loads((two / "report.json").read_text())["models"][0]
    for key in ("clean_predictions", "clean_null_odds"):
        ours = json.loads((two / report_two["files"][key]).read_text())
        theirs = json.loads((one / report_one["files"][key]).read_text())
        assert len(ours) == int(LIMIT) and ours == theirs
    assert report_two["clean"] == report_one["clean"]
    assert _files(two) == _files(one)  # the same files, and no temp file left by a second writer

    # Two processes ran (one log folder per local rank); only rank 0 printed, and it said "wrote" once.
    rank_logs = {p.parent.name: p.parent for p in logs.rglob("stdout.log")}
    assert sorted(rank_logs) == ["0", "1"]
    said = {
        rank: (folder / "stdout.log").read_text() + (folder / "stderr.log").read_text()
        for rank, folder in rank_logs.items()
    }
    assert said["0"].count("wrote ") == 1 and "wrote " not in said["1"]
    assert done.stdout.count("wrote ") + done.stderr.count("wrote ") == 1


def test_mpi_launched_processes_are_read_like_torchrun_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    """`accelerate launch --cpu --num_processes N --mpirun_hostfile ...` runs each process under mpirun's names."""
    for name in ("WORLD_SIZE", "RANK", "LOCAL_RANK", "PMI_SIZE", "PMI_RANK", "MPI_LOCALRANKID"):  # read before OMPI_*
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OMPI_COMM_WORLD_SIZE", "4")
    monkeypatch.setenv("OMPI_COMM_WORLD_RANK", "3")
    monkeypatch.setenv("OMPI_COMM_WORLD_LOCAL_RANK", "1")
    assert distributed.world_size() == 4 and distributed.rank() == 3 and not distributed.is_main_process()
    assert distributed.cuda_device_for_rank() == "cuda:1"
    monkeypatch.setenv("WORLD_SIZE", "2")  # torchrun's names win, as in accelerate
    monkeypatch.setenv("RANK", "0")
    assert distributed.world_size() == 2 and distributed.is_main_process()
