"""Rules of the repository that no single feature test would catch: no machine-specific paths in tracked
files, and library messages that speak of parameters, never of command-line flags."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from rqa_tree import tracked_files

REPO = Path(__file__).resolve().parents[2]
# An absolute path under a folder that only exists on some machine (a home, a workspace, a scratch folder).
MACHINE_PATH = re.compile(r"(?<![\w.~-])/(?:work|home|root|tmp|Users|mnt|scratch)/|\b[A-Za-z]:\\(?:Users|work)\\")
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9]*(?:-[a-z0-9]+)*")


def machine_paths(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if MACHINE_PATH.search(line)]


def test_the_path_pattern_catches_machine_paths() -> None:
    home, work = "/" + "home/ann/data.json", "/" + "work/shared/models/x"
    assert machine_paths(f"see {home}\nrun ../shared/models/x\nmodels:{work}@local:1") == [
        f"see {home}",
        f"models:{work}@local:1",
    ]
    assert not machine_paths(
        "~/.cache/robustqa, ../shared/nltk_data, https://huggingface.co/a/b, runs/qads/report.json"
    )


def test_no_machine_specific_paths_in_tracked_files() -> None:
    found = {}
    for path in tracked_files():
        if path.is_file():
            lines = machine_paths(path.read_bytes().decode("utf-8", errors="ignore"))
            if lines:
                found[str(path.relative_to(REPO))] = lines[:3]
    assert not found, f"absolute, machine-specific paths (use paths relative to the repository): {found}"


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                ids.add(id(first.value))
    return ids


def flag_strings(source: str) -> list[str]:
    """String literals (docstrings aside) that name a command-line flag."""
    tree = ast.parse(source)
    docstrings = _docstrings(tree)
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
        and FLAG.search(node.value)
    ]


def test_the_flag_pattern_catches_flags_in_messages() -> None:
    source = 'def f(n):\n    """Docs may say --limit."""\n    raise ValueError(f"raise --limit above {n}")\n'
    assert flag_strings(source) == ["raise --limit above "]
    assert flag_strings('x = "a - b -- c, n_best, max-seq"') == []


def test_library_messages_name_no_command_line_flags() -> None:
    found = {}
    for path in sorted((REPO / "robustqa").rglob("*.py")):
        if "cli" in path.relative_to(REPO / "robustqa").parts:
            continue  # the command line names its own flags
        strings = flag_strings(path.read_text(encoding="utf-8"))
        if strings:
            found[str(path.relative_to(REPO))] = strings
    assert not found, f"library code names command-line flags (give the error a `setting` instead): {found}"


def test_every_setting_a_library_error_names_has_a_flag_hint() -> None:
    """An error with `setting=...` is restated by the command line with the flag that changes it."""
    from robustqa.cli import FLAG_HINTS

    settings = set()
    for path in sorted((REPO / "robustqa").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.keyword) and node.arg == "setting" and isinstance(node.value, ast.Constant):
                settings.add(node.value.value)
    assert settings and settings <= set(FLAG_HINTS), f"settings without a flag hint: {settings - set(FLAG_HINTS)}"
    assert all(FLAG.search(hint) for hint in FLAG_HINTS.values())
