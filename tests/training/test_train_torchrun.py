"""`torchrun --nproc_per_node 2 robustqa train ...` on CPU (gloo): the main process alone writes a model folder
that eval loads, its training record and settings once; a run stopped after a checkpoint resumes under two
processes to the weights of the uninterrupted one; `accelerate launch` trains the same weights; `--adversarial`
adds each epoch's flips (every process runs the attack on the main one's answers; the main one writes its files)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from rqa_trainhelpers import SAMPLE, assert_eval_loads

from robustqa.cli import cli
from robustqa.provenance import TRAINING_RECORD

from tiny import build_tiny_model

pytestmark = pytest.mark.slow

TINY = ["--max-seq-length", "64", "--doc-stride", "16", "--batch-size", "4", "--device", "cpu", "--threads", "1"]
HERE = Path(__file__).parent


def _launch(launcher: list[str], *command: str, home: Path | None = None) -> subprocess.CompletedProcess:
    environment = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": os.pathsep.join(sys.path)}
    if home is not None:
        environment["HF_HOME"] = str(home)  # no accelerate config of this machine's user
    return subprocess.run([*launcher, *command], capture_output=True, text=True, timeout=600, env=environment)


def _torchrun(*command: str) -> subprocess.CompletedProcess:
    exe = shutil.which("torchrun", path=str(Path(sys.executable).parent))
    launcher = [exe] if exe else [sys.executable, "-m", "torch.distributed.run"]
    return _launch([*launcher, "--standalone", "--nproc_per_node", "2"], *command)


def _train_command(model: Path, out: Path) -> list[str]:
    robustqa = str(Path(sys.executable).with_name("robustqa"))
    return [robustqa, "train", str(model), "--train", str(SAMPLE), "--output-dir", str(out), *TINY,
            "--steps", "4", "--save-steps", "2"]  # fmt: skip


def _train(model: Path, out: Path) -> subprocess.CompletedProcess:
    return _torchrun(*_train_command(model, out))


def _stopped_after_checkpoint_2(out: Path, broken: Path) -> Path:
    """What a run interrupted right after checkpoint-2 leaves: the signature and that checkpoint."""
    broken.mkdir()
    shutil.copy(out / "robustqa-train-signature.txt", broken)
    shutil.copytree(out / "checkpoint-2", broken / "checkpoint-2")
    return broken


def _weights(folder: Path) -> dict:
    from safetensors.torch import load_file

    return load_file(str(folder / "model.safetensors"))


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, subprocess.CompletedProcess]:
    """A tiny model, and the folder two torchrun processes trained from it (4 steps, a checkpoint every 2)."""
    root = tmp_path_factory.mktemp("torchrun-train")
    model = build_tiny_model(root / "tiny", "bert")
    return model, root / "trained", _train(model, root / "trained")


def test_two_processes_train_a_folder_eval_loads_and_resume(trained, tmp_path):
    import torch

    model, out, done = trained
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.count("steps on") == 1 and f"{out}: 4 steps" in done.stdout  # only the main process reports
    assert sorted(p.name for p in out.iterdir() if p.name.startswith(".")) == []  # no temporary files left
    record = json.loads((out / TRAINING_RECORD).read_text())
    assert record["questions"] == 30
    assert record["signature"] == (out / "robustqa-train-signature.txt").read_text().strip()
    settings = json.loads((out / "robustqa-train-settings.json").read_text())
    assert settings["processes"] == 2 and settings["steps"] == 4
    log = [json.loads(line) for line in (out / "training-log.jsonl").read_text().splitlines()]
    assert log[-1]["step"] == 4
    assert sorted(p.name for p in out.glob("checkpoint-*")) == ["checkpoint-2", "checkpoint-4"]
    for checkpoint in ("checkpoint-2", "checkpoint-4"):  # both processes' random states, for an exact resume
        assert {p.name for p in (out / checkpoint).glob("rng_state_*.pth")} == {"rng_state_0.pth", "rng_state_1.pth"}
    assert_eval_loads(out, tmp_path)

    broken = _stopped_after_checkpoint_2(out, tmp_path / "broken")
    resumed = _train(model, broken)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert "4 steps" in resumed.stdout and "resumed from checkpoint-2" in resumed.stdout
    whole, again = _weights(out), _weights(broken)
    assert whole.keys() == again.keys()
    for key in whole:
        assert torch.allclose(whole[key], again[key], atol=1e-6), key
    base = _weights(model)
    assert any(not torch.equal(base[k], whole[k]) for k in whole if k in base)  # training changed the weights


def test_a_checkpoint_of_two_processes_is_not_resumed_by_one(trained, tmp_path):
    model, out, done = trained
    assert done.returncode == 0, done.stderr[-3000:]
    broken = _stopped_after_checkpoint_2(out, tmp_path / "broken")
    result = CliRunner().invoke(cli, _train_command(model, broken)[1:])
    assert result.exit_code != 0 and "Traceback" not in result.output
    [line] = result.output.strip().splitlines()
    assert "checkpoint-2: was written by 2 training process(es) and this run has 1" in line
    assert "resume it with 2 process(es)" in line
    assert not (broken / "model.safetensors").exists()


def test_accelerate_launch_trains_the_same_weights(trained, tmp_path):
    """`accelerate launch --multi_gpu` starts the processes as torchrun does (on a CPU too, with gloo)."""
    import torch

    model, by_torchrun, first = trained
    assert first.returncode == 0, first.stderr[-3000:]
    exe = shutil.which("accelerate", path=str(Path(sys.executable).parent))
    assert exe, "accelerate is a dependency of transformers' Trainer"
    launcher = [exe, "launch", "--multi_gpu", "--num_processes", "2", "--num_machines", "1"]
    launcher += ["--mixed_precision", "no", "--dynamo_backend", "no"]
    out = tmp_path / "trained"
    done = _launch(launcher, *_train_command(model, out), home=tmp_path / "hf-home")
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.count("steps on") == 1 and f"{out}: 4 steps" in done.stdout
    assert json.loads((out / "robustqa-train-settings.json").read_text())["processes"] == 2
    a, b = _weights(by_torchrun), _weights(out)
    for key in a:
        assert torch.allclose(a[key], b[key], atol=1e-6), key


def _train_adversarially(model: Path, data: Path, out: Path) -> dict:
    done = _torchrun(str(HERE / "rqa_torchrun_adversarial.py"), str(model), str(data), str(out))
    assert done.returncode == 0, done.stderr[-3000:]
    [line] = [x for x in done.stdout.splitlines() if x.startswith('{"steps"')]  # the main process alone reports
    return json.loads(line)


def test_two_processes_train_adversarially_and_resume(tmp_path):
    import torch

    sys.path.insert(0, str(HERE.parent / "attack"))
    from rqa_attackfakes import write_document

    model = build_tiny_model(tmp_path / "tiny", "bert")
    data = write_document(tmp_path / "train.json")
    out = tmp_path / "adv"
    reported = _train_adversarially(model, data, out)
    assert [e["epoch"] for e in reported["epochs"]] == [1, 2]
    assert all(e["sampled"] == 4 and e["flipped"] > 0 for e in reported["epochs"])
    record = json.loads((out / TRAINING_RECORD).read_text())
    assert record["adversarial"]["epochs"] == reported["epochs"]
    assert record["questions"] == 6 + sum(e["flipped"] for e in reported["epochs"])
    files = sorted(p.name for p in (out / "adversarial").iterdir())
    assert files == ["epoch-1-queries.jsonl", "epoch-1.json", "epoch-2-queries.jsonl", "epoch-2.json"]
    for epoch in (1, 2):  # one attack per epoch: the main process alone writes the query cache
        queries = (out / "adversarial" / f"epoch-{epoch}-queries.jsonl").read_text().splitlines()
        assert len(queries) == len(set(queries)) >= reported["epochs"][epoch - 1]["queries"]
    # two processes of 4 windows each: half the steps one process takes on these 6 questions
    assert reported["steps"] >= 2 and reported["epochs"][1]["step"] == reported["steps"] // 2

    # stopped after checkpoint-3, in the second epoch: its attack's file is there, and both processes read it back
    assert reported["steps"] == 4 and (out / "checkpoint-3").is_dir()
    broken = tmp_path / "broken"
    broken.mkdir()
    shutil.copy(out / "robustqa-train-signature.txt", broken)
    shutil.copytree(out / "adversarial", broken / "adversarial")
    shutil.copytree(out / "checkpoint-3", broken / "checkpoint-3")
    resumed = _train_adversarially(model, data, broken)
    assert resumed["resumed_from"] == "checkpoint-3" and resumed["epochs"] == reported["epochs"]
    whole, again = _weights(out), _weights(broken)
    for key in whole:
        assert torch.allclose(whole[key], again[key], atol=1e-6), key
