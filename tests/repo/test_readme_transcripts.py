"""Every transcript in the README is what the current code prints.

The README's ```text blocks that start with `$ robustqa ...` are run in order, as a newcomer would type them,
in a scratch folder beside `shared/` (so `../shared/...` resolves as in a clone), and every line the README
shows must appear in the output, in the same order (a transcript may leave lines out, and writes `...` where
it does). Machine-specific parts are normalised: the shared folder's absolute path reads `<shared>`.
Regenerate a transcript after a deliberate change by running the command and pasting its output.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("ROBUSTQA_SHARED", REPO.parent / "shared")).resolve()
BLOCK = re.compile(r"```text\n(\$ robustqa .*?)```", re.S)


def transcripts() -> list[tuple[str, list[str]]]:
    """(command, the lines the README shows after it), in README order."""
    out: list[tuple[str, list[str]]] = []
    for block in BLOCK.findall((REPO / "README.md").read_text(encoding="utf-8")):
        for line in block.splitlines():
            if line.startswith("$ robustqa "):
                out.append((line[2:], []))
            elif out:
                out[-1][1].append(line)
    return out


def normalised(text: str, scratch: Path) -> list[str]:
    text = text.replace(str(SHARED), "<shared>").replace(str(scratch.resolve()) + "/", "")
    return [line.rstrip() for line in text.splitlines()]


def missing_lines(shown: list[str], actual: list[str]) -> list[str]:
    """The shown lines that do not appear in `actual` in order (`...` lines stand for what was left out)."""
    missing, cursor = [], 0
    for line in (line.rstrip() for line in shown):
        if not line or line.strip() == "...":
            continue
        try:
            cursor = actual.index(line, cursor) + 1
        except ValueError:
            missing.append(line)
    return missing


def test_the_readme_shows_transcripts_of_the_main_commands() -> None:
    commands = [command.split()[1] for command, _ in transcripts()]
    for name in ("eval", "build-dataset", "report", "demo", "perturb"):
        assert name in commands, f"the README shows no transcript of robustqa {name}"


def test_every_readme_transcript_is_current(tmp_path: Path) -> None:
    scratch = tmp_path / "work"
    scratch.mkdir()
    (tmp_path / "shared").symlink_to(SHARED)  # ../shared from the scratch folder, as beside a clone
    script = Path(sys.executable).with_name("robustqa")
    env = dict(os.environ, COLUMNS="100", NLTK_DATA=str(SHARED / "nltk_data"))
    problems = []
    for command, shown in transcripts():
        args = shlex.split(command)[1:]
        done = subprocess.run([str(script), *args], cwd=scratch, env=env, capture_output=True, text=True, timeout=900)
        if done.returncode != 0:
            pytest.fail(f"`{command}` failed ({done.returncode}): {done.stderr[-800:]}")
        actual = normalised(done.stdout + "\n" + done.stderr, scratch)
        missing = missing_lines(shown, actual)
        if missing:
            problems.append(f"`{command}`: not printed any more: {missing[:3]}")
    assert not problems, "\n".join(problems)


def test_the_transcript_check_can_fail() -> None:
    assert missing_lines(["a", "...", "c"], ["a", "b", "c"]) == []
    assert missing_lines(["c", "a"], ["a", "b", "c"]) == ["a"]  # order matters
    assert missing_lines(["x"], ["a"]) == ["x"]
