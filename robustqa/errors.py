"""Typed errors of the application.

Library code raises these; only `robustqa.cli` prints them (one line, no traceback) and picks the exit
code. A message says what is wrong, where (file, article, question id) and what to do. Library messages
speak of parameters, never of command-line flags: an error whose remedy is to change a parameter names it
in `setting`, and the command line restates that remedy with its own flag.
"""

from __future__ import annotations

import json


class RobustQAError(Exception):
    """Base class of every error robustqa raises on purpose."""

    exit_code: int = 1

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        where: str | None = None,
        hint: str | None = None,
        setting: str | None = None,
    ) -> None:
        self.message = message
        self.path = path
        self.where = where
        self.hint = hint
        self.setting = setting  # the parameter the hint asks to change (e.g. "limit", "output_dir")
        super().__init__(self.text())

    def text(self, hint: str | None = None) -> str:
        """The one-line form `path: where: message; hint`, with `hint` in place of the error's own if given."""
        prefix = ": ".join(str(part) for part in (self.path, self.where) if part)
        line = f"{prefix}: {self.message}" if prefix else self.message
        hint = hint or self.hint
        return f"{line}; {hint}" if hint else line


class InputError(RobustQAError):
    """Input data that cannot be used as given (unreadable, not JSON, wrong schema, bad offsets)."""

    exit_code = 2


class SpanIntegrityError(RobustQAError):
    """An answer span no longer matches its context after rewriting: a bug, never written out."""

    exit_code = 3


class ModelLoadError(RobustQAError):
    """A model that cannot be found or loaded (unknown alias, no network, not a QA model)."""

    exit_code = 4


class ModelUnavailableError(ModelLoadError):
    """A hub model that is neither in the local cache nor downloadable now."""

    def __init__(self, name: str, model_id: str, reason: str) -> None:
        self.name = name
        self.model_id = model_id
        self.reason = reason
        super().__init__(f"the model '{name}' ({model_id}) {reason}")


class OutputError(RobustQAError):
    """An output location that cannot be written."""

    exit_code = 5


def invalid_json(error: json.JSONDecodeError, *, path: str, hint: str, where: str | None = None) -> InputError:
    """The one-line error for a file that is not valid JSON. A file that ends inside its JSON (an interrupted
    download or copy) says so, instead of the decoder's message (e.g. "Unterminated string starting at")."""
    place = f"at line {error.lineno}, column {error.colno}"
    at_end = error.pos >= len(error.doc.rstrip()) - 1 and not error.msg.startswith("Extra data")
    if error.msg.startswith("Unterminated string") or at_end:
        return InputError(
            f"not valid JSON: the file ends in the middle of it ({error.msg.removesuffix(' at').lower()} {place})",
            path=path,
            where=where,
            hint="it looks truncated (an interrupted download or copy): get or write it again",
        )
    return InputError(f"not valid JSON ({error.msg.removesuffix(' at')} {place})", path=path, where=where, hint=hint)
