"""Fixtures of the attack tests (helpers in rqa_attackfakes.py)."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from rqa_attackfakes import FakeQA, write_document

from robustqa.squad import only_questions


@pytest.fixture
def attack_input(tmp_path: Path) -> Path:
    return write_document(tmp_path / "clean.json")


@pytest.fixture
def fake_model():
    made: list[FakeQA] = []

    def factory(spec, settings, **kwargs) -> FakeQA:
        model = FakeQA(**kwargs)
        made.append(model)
        return model

    factory.made = made  # type: ignore[attr-defined]
    return factory


# Held-out questions (shared SQuAD file) for the real-model tests: five the shared model answers right and the
# attack flips, two it answers right and the attack cannot flip, two it answers wrong (one unanswerable).
REAL_IDS = (
    "6d2fff36bcac0ea0e689a5a31",
    "a6f2b66a3dc6c645ce161ab09",
    "ccb690e6835c7b0cfe3f92ac6",
    "d46d5ecabffcc93fc7753a314",
    "fd8f25ee05018fc5a9f6fd7dc",
    "b85ca910dc4ec2ea18e6e3a3f",
    "814a0ccd6f18bedb59a96baac",
    "c42edddd0f45b968cc4c512e5",
    "68cf05f67fd29c6f129fe2fb9",
)


def _run(exe: str, *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([exe, *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"robustqa {args[0]} failed with exit code {done.returncode}: {done.stderr.strip()[-2000:]}")
    return done


@pytest.fixture(scope="session")
def real_attack(
    tmp_path_factory: pytest.TempPathFactory, squad_heldout_path: Path, shared_model_path: Path
) -> dict[str, Path]:
    """`robustqa attack` with the shared model on nine held-out questions, then `robustqa eval` on its
    adversarial set, each as a subprocess of the console script, as a user would (about half a minute); the eval
    is the one the attack tells the user to run."""
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-e", str(Path(__file__).parents[2]), "--no-deps", "-q"],
        check=True,
        capture_output=True,
    )
    exe = str(Path(sys.executable).with_name("robustqa"))
    root = tmp_path_factory.mktemp("real_attack")
    document = only_questions(json.loads(squad_heldout_path.read_text(encoding="utf-8")), REAL_IDS)
    clean = root / "clean.json"
    clean.write_text(json.dumps(document), encoding="utf-8")
    attack_dir, eval_dir = root / "attack", root / "eval"
    attack = _run(
        exe,
        "attack",
        str(shared_model_path),
        "--input",
        str(clean),
        "--output-dir",
        str(attack_dir),
        "--recipe",
        "qads@1.1",
        "--quiet",
    )
    # the eval the attack's last line tells the user to run, with the model filled in
    hint = attack.stderr.strip().splitlines()[-1]
    assert hint.startswith("eval finds its flips, for this model or any other: robustqa eval MODEL "), hint
    told = shlex.split(hint.split(": robustqa ", 1)[1])
    _run(exe, *[str(shared_model_path) if word == "MODEL" else word for word in told], "--output-dir", str(eval_dir))
    outputs = {"attack": attack.stdout}
    (root / "attack.stdout").write_text(outputs["attack"], encoding="utf-8")
    return {"clean": clean, "attack": attack_dir, "eval": eval_dir, "stdout": root / "attack.stdout"}
