"""Reading a run folder: the one loader behind `robustqa report`, the demo, the analysis and the notebook.

report.json is read and checked when a run is loaded; examples.jsonl (one line per model and question,
much larger) only when something asks for `Run.examples`, so comparing finished runs never parses it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from robustqa.errors import InputError, invalid_json
from robustqa.runs.layout import EXAMPLES_JSONL, REPORT_JSON
from robustqa.runs.schema import EXAMPLE_REQUIRED_KEYS

RUN_ENV = "ROBUSTQA_RUN"
_RUN_HINT = "give a folder written by `robustqa eval`"


@dataclass(frozen=True)
class Run:
    """One run folder: its report.json and, on first use, the lines of its examples.jsonl."""

    path: Path
    report: Mapping[str, Any]
    given_examples: tuple[Mapping[str, Any], ...] | None = field(default=None, repr=False, compare=False)

    @property
    def models(self) -> list[str]:
        return [str(m["model"]) for m in self.report.get("models", [])]

    @property
    def signature(self) -> str:
        return str(self.report.get("signature", ""))

    @cached_property
    def examples(self) -> tuple[Mapping[str, Any], ...]:
        if self.given_examples is not None:
            return self.given_examples
        return read_examples(self.path / EXAMPLES_JSONL)

    def examples_of(self, model: str | None = None) -> list[Mapping[str, Any]]:
        """The lines of one model (the first model when None)."""
        if model is None:
            if not self.models:
                return list(self.examples)
            model = self.models[0]
        return [e for e in self.examples if e.get("model") == model]

    def to_dict(self) -> dict[str, Any]:
        """report.json with `run_dir` (where it was read from) added: the form `robustqa report --format json`
        prints."""
        return dict(self.report, run_dir=str(self.path))


def load_run(run_dir: str | os.PathLike[str]) -> Run:
    """The run folder `run_dir`, with its report.json read and checked."""
    path = Path(run_dir)
    report_path = path / REPORT_JSON
    if not path.exists():
        raise InputError("no such run folder", path=str(path), hint=_RUN_HINT, setting="run_dir")
    try:
        report = json.loads(report_path.read_text(encoding="utf-8"))
    except (FileNotFoundError, NotADirectoryError):
        raise InputError(
            f"no {REPORT_JSON} here (not a finished `robustqa eval` run folder)",
            path=str(path),
            hint=_RUN_HINT,
            setting="run_dir",
        ) from None
    except json.JSONDecodeError as error:
        raise invalid_json(error, path=str(report_path), hint=_RUN_HINT) from None
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read {REPORT_JSON} ({error})", path=str(report_path)) from None
    if not isinstance(report, dict) or not isinstance(report.get("models"), list):
        raise InputError(f"{REPORT_JSON} has no 'models' list", path=str(report_path), hint=_RUN_HINT)
    return Run(path, report)


def read_examples(path: Path) -> tuple[Mapping[str, Any], ...]:
    """The lines of an examples.jsonl, each checked for the keys readers rely on."""
    lines = []
    try:
        with path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    example = json.loads(line)
                except json.JSONDecodeError as error:
                    raise invalid_json(error, path=str(path), where=f"line {number}", hint=_RUN_HINT) from None
                missing = [k for k in EXAMPLE_REQUIRED_KEYS if not isinstance(example, dict) or k not in example]
                if missing:
                    raise InputError(f"missing {', '.join(missing)}", path=str(path), where=f"line {number}")
                lines.append(example)
    except FileNotFoundError:
        raise InputError(f"not a run folder: {path.name} missing", path=str(path.parent), hint=_RUN_HINT) from None
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read {path.name} ({error})", path=str(path)) from None
    return tuple(lines)


def find_run(run: str | os.PathLike[str] | None = None, runs_root: str | os.PathLike[str] = "runs") -> Path:
    """The run folder to open: the argument, else $ROBUSTQA_RUN, else the newest run under `runs_root`.

    A relative path that does not exist from the working folder is looked up from its parents (a notebook's
    kernel starts in notebooks/, while `ROBUSTQA_RUN=runs/x jupyter notebook ...` is typed in the repository).
    "Newest" is by the modification time of report.json, so a re-run folder counts as new.
    """
    chosen = run if run is not None else os.environ.get(RUN_ENV) or None
    if chosen is not None:
        return _locate(Path(chosen))
    root = Path(runs_root)
    candidates = [p.parent for p in root.glob(f"*/{REPORT_JSON}")] if root.is_dir() else []
    if not candidates:
        raise InputError(
            "no run folder found",
            path=str(root),
            hint=f"set {RUN_ENV}=<run folder>, or evaluate into a folder under {root} first",
        )
    return max(candidates, key=lambda p: ((p / REPORT_JSON).stat().st_mtime, p.name))


def _locate(path: Path) -> Path:
    if path.is_absolute() or path.exists():
        return path
    for parent in Path.cwd().parents:
        if (parent / path).exists():
            return parent / path
    return path
