"""The `robustqa` console script ends the process without freeing its heap: exit codes, streams and exit
handlers (the lexicon cache saves itself in one) must come out exactly as with a normal exit."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

import robustqa.cli as cli_module


def test_output_exit_code_and_exit_handlers_survive_the_fast_exit(tmp_path: Path, console_script: str) -> None:
    cache = tmp_path / "cache"
    done = subprocess.run(
        [console_script, "perturb", "--json", "Where was the ancient temple located by the explorers?"],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ, ROBUSTQA_CACHE=str(cache)),
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip().endswith("}") and '"substitutions"' in done.stdout  # piped stdout flushed whole
    assert list(cache.glob("lexicon-*.pickle")), "the cache's exit handler did not run"


def test_errors_keep_their_exit_code_and_one_line(tmp_path: Path, console_script: str) -> None:
    done = subprocess.run(
        [
            console_script,
            "build-dataset",
            "--input",
            str(tmp_path / "absent.json"),
            "--output",
            str(tmp_path / "out.json"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("robustqa: error: ")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("raised", "code", "printed"), [(None, 0, ""), (3, 3, ""), ("robustqa: stopped", 1, "robustqa: stopped\n")]
)
def test_exit_codes_follow_sys_exit(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], raised: object, code: int, printed: str
) -> None:
    """What `sys.exit(x)` would give: None is 0, an int is itself, anything else is printed and gives 1."""

    class Exited(Exception):
        pass

    def fake_main() -> None:
        raise SystemExit(raised)

    def fake_exit(value: int) -> None:
        raise Exited(value)

    ran = []
    monkeypatch.setattr(cli_module, "main", fake_main)
    monkeypatch.setattr(os, "_exit", fake_exit)
    monkeypatch.setattr("atexit._run_exitfuncs", lambda: ran.append(True))
    with pytest.raises(Exited) as stopped:
        cli_module.console_main()
    assert stopped.value.args == (code,)
    assert ran == [True]
    assert capsys.readouterr().err == printed
