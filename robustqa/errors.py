"""Typed errors of the application.

Library code raises these; only `robustqa.cli` prints them (one line, no traceback) and picks the exit
code. A message says what is wrong, where (file, article, question id) and what to do.
"""

from __future__ import annotations


class RobustQAError(Exception):
    """Base class of every error robustqa raises on purpose."""

    exit_code: int = 1


class InputError(RobustQAError):
    """Input data that cannot be used as given (unreadable, not JSON, wrong schema, bad offsets)."""

    exit_code = 2

    def __init__(self, message: str, *, path: str | None = None, where: str | None = None, hint: str | None = None):
        self.path = path
        self.where = where
        self.hint = hint
        parts = []
        if path:
            parts.append(str(path))
        if where:
            parts.append(where)
        prefix = ": ".join(parts)
        text = f"{prefix}: {message}" if prefix else message
        if hint:
            text = f"{text}; {hint}"
        super().__init__(text)


class SpanIntegrityError(RobustQAError):
    """An answer span no longer matches its context after rewriting: a bug, never written out."""

    exit_code = 3


class ModelLoadError(RobustQAError):
    """A model that cannot be found or loaded (unknown alias, no network, not a QA model)."""

    exit_code = 4


class OutputError(RobustQAError):
    """An output location that cannot be written."""

    exit_code = 5
