"""Every transcript in the README is what the current code prints.

The README's ```text blocks that start with `$ robustqa ...` are run in order, as a newcomer would type them,
in a scratch folder beside `shared/` (so `../shared/...` resolves as in a clone), and every line the README
shows must appear in the output, in the same order (a transcript may leave lines out, and writes `...` where
it does). So that the README fits 120 columns, a command may continue over lines ending in a backslash (as in a
shell), and a shown line ending in `…` is the beginning of a longer output line (a signature, a long note).
Machine-specific parts are normalised: the shared folder's absolute path reads `<shared>`.
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
        continued = False
        for line in block.splitlines():
            if continued:
                command, shown = out[-1]
                out[-1] = (command + " " + line.strip().removesuffix("\\").strip(), shown)
            elif line.startswith("$ robustqa "):
                out.append((line[2:].removesuffix("\\").strip(), []))
            elif out:
                out[-1][1].append(line)
            continued = line.endswith(" \\")
    return out


def normalised(text: str, scratch: Path) -> list[str]:
    text = text.replace(str(SHARED), "<shared>").replace(str(scratch.resolve()) + "/", "")
    return [line.rstrip() for line in text.splitlines()]


def missing_lines(shown: list[str], actual: list[str]) -> list[str]:
    """The shown lines that do not appear in `actual` in order (`...` lines stand for what was left out; a line
    ending in `…` for any line that begins with the rest)."""
    missing, cursor = [], 0
    for line in (line.rstrip() for line in shown):
        if not line or line.strip() == "...":
            continue
        found = next((k for k in range(cursor, len(actual)) if _shows(line, actual[k])), None)
        if found is None:
            missing.append(line)
        else:
            cursor = found + 1
    return missing


def _shows(shown: str, actual: str) -> bool:
    """Whether a README line shows `actual`: the same line, or its beginning followed by `…`."""
    if shown.endswith("…") and len(shown) > 1:
        return actual.startswith(shown[:-1]) and len(actual) > len(shown) - 1
    return shown == actual


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
    # a cut line shows a longer line's beginning, not a line of its own length or another's
    assert missing_lines(["signature: clean:ab…"], ["signature: clean:abc|seed:13"]) == []
    assert missing_lines(["signature: clean:ab…"], ["signature: clean:ab"]) == ["signature: clean:ab…"]
    assert missing_lines(["signature: clean:ab…"], ["signature: clean:xy|seed:13"]) == ["signature: clean:ab…"]


def test_a_command_may_continue_over_lines(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(
        "```text\n$ robustqa eval MODEL \\\n    --limit 100\nshown\n$ robustqa models\n```\n", encoding="utf-8"
    )
    monkeypatch.setattr(sys.modules[__name__], "REPO", tmp_path)
    assert transcripts() == [("robustqa eval MODEL --limit 100", ["shown"]), ("robustqa models", [])]
