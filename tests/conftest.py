"""Shared test setup: offline resources from ../shared, found relative to the repository."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("ROBUSTQA_SHARED", REPO.parent / "shared"))

os.environ.setdefault("NLTK_DATA", str(SHARED / "nltk_data"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    return SHARED


@pytest.fixture
def one_torch_thread() -> Iterator[None]:
    """Torch on one thread for the test, restored after it: tiny models run fastest on one thread, and a shared
    CI machine punishes spinning OpenMP threads. Not autouse here: the folders that run models (training,
    importers, models) ask for it in their conftest, so tests elsewhere keep torch's own setting."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="session")
def squad_half_path() -> Path:
    return SHARED / "squad" / "squad2-dev-half.json"


@pytest.fixture(scope="session")
def squad_heldout_path() -> Path:
    return SHARED / "squad" / "squad2-dev-heldout.json"


@pytest.fixture(scope="session")
def shared_model_path() -> Path:
    return SHARED / "models" / "minilm-squad2-mini"


def _robustqa_command() -> list[str]:
    """The installed console script (beside this interpreter when it is there)."""
    import shutil
    import sys

    exe = shutil.which("robustqa", path=str(Path(sys.executable).parent)) or shutil.which("robustqa")
    if exe is None:
        raise RuntimeError("the robustqa console script is not installed; run `pip install -e . --no-deps`")
    return [exe]


@pytest.fixture(scope="session")
def console_script() -> str:
    """Path of the installed `robustqa` console script (the real script, not a pyenv shim, where possible)."""
    return _robustqa_command()[0]


@pytest.fixture(scope="session")
def real_run(tmp_path_factory: pytest.TempPathFactory, squad_heldout_path: Path, shared_model_path: Path) -> Path:
    """A real `robustqa eval` run folder, made once per test session (about 1–2 minutes on 2 CPU cores).

    Builds the `qads@1.1` variant of the held-out SQuAD file with `robustqa build-dataset`, then evaluates the
    shared MiniLM model on both with `robustqa eval`, each as a subprocess of the console script, as a user
    would. Returns the run folder (report.json names the perturbed file it used). Version 1.1, the set the
    README's eval example shows: its figures (a drop on answerable questions whose interval excludes zero)
    are what the acceptance tests check; the 2.0 default edits one word in half the questions, and on this
    weak model its drop is within noise.
    """
    import subprocess
    import sys

    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-e", str(REPO), "--no-deps", "-q"], check=True, capture_output=True
    )
    root = tmp_path_factory.mktemp("real_run")
    qads = root / "qads-heldout.json"
    run_dir = root / "run"
    commands = [
        [
            "build-dataset",
            "--input",
            str(squad_heldout_path),
            "--output",
            str(qads),
            "--recipe",
            "qads@1.1",
            "--seed",
            "13",
        ],
        [
            "eval",
            str(shared_model_path),
            "--clean",
            str(squad_heldout_path),
            "--perturbed",
            str(qads),
            "--output-dir",
            str(run_dir),
            "--quiet",
        ],
    ]
    for args in commands:
        done = subprocess.run(_robustqa_command() + args, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(
                f"robustqa {' '.join(args)} failed with exit code {done.returncode}: {done.stderr.strip()[-2000:]}"
            )
    return run_dir


@pytest.fixture(scope="session")
def addsent_sample_path(shared_dir: Path) -> Path:
    return shared_dir / "adversarial" / "addsent-sample.json"


@pytest.fixture(scope="session")
def addsent_run(tmp_path_factory: pytest.TempPathFactory, addsent_sample_path: Path, shared_model_path: Path) -> Path:
    """A real `robustqa eval` of the shared MiniLM model on the imported AddSent sample (SQuAD v1.1 rules, several
    copies per question), made once per test session, as a user would: `robustqa import`, then `robustqa eval`,
    each as a subprocess of the console script. Returns the run folder (in a folder named `addsent`)."""
    import subprocess

    root = tmp_path_factory.mktemp("addsent_run")
    imported, run_dir = root / "imported", root / "addsent"
    commands = [
        ["import", "addsent", str(addsent_sample_path), "--output-dir", str(imported)],
        [
            "eval",
            str(shared_model_path),
            "--clean",
            str(imported / "clean.json"),
            "--perturbed",
            str(imported / "perturbed.json"),
            "--output-dir",
            str(run_dir),
            "--quiet",
        ],
    ]
    for args in commands:
        done = subprocess.run(_robustqa_command() + args, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(
                f"robustqa {' '.join(args)} failed with exit code {done.returncode}: {done.stderr.strip()[-2000:]}"
            )
    (root / "eval.stderr").write_text(
        done.stderr, encoding="utf-8"
    )  # beside the run folder, which stays as eval wrote it
    return run_dir
