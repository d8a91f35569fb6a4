"""Writing output files so that a failure never leaves a half-written file behind.

Every file robustqa writes (datasets, run folders, reports, charts) goes through here: one place decides
permissions, fsync and the one-line error a user sees when a folder cannot be written.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from robustqa.errors import OutputError


def check_output_path(path: str | Path) -> None:
    """Fail before any work when the output cannot be written where asked."""
    path = Path(path)
    if not path.parent.is_dir():
        raise OutputError(
            f"{path}: folder '{path.parent}' does not exist; create it first or choose another output path"
        )
    if path.is_dir():
        raise OutputError(f"{path}: is a folder; give a file name for the output")


@contextmanager
def preparing_folder(folder: Path, kind: str) -> Iterator[None]:
    """Around the file-system steps that make an output folder ready (create it, remove a stale completion
    marker): an OSError there becomes the one error every such folder gives, naming the folder and the setting
    to change (`output_dir`), instead of a traceback."""
    try:
        yield
    except OSError as error:
        raise OutputError(
            f"cannot write the {kind} folder ({error.strerror})",
            path=str(folder),
            hint="choose another folder",
            setting="output_dir",
        ) from None


def write_bytes_atomic(path: str | Path, data: bytes) -> None:
    """Write through a temporary file in the same folder, then rename: a failure never leaves a partial file."""
    path = Path(path)
    folder = path.parent
    check_output_path(path)
    try:
        handle, temp_name = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as error:
        raise OutputError(
            f"{path}: cannot write in folder '{folder}' ({error.strerror}); choose another output path"
        ) from None
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        # mkstemp creates 0600; give the file the permissions a plain open() would.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temp_name, 0o666 & ~umask)
        os.replace(temp_name, path)
    except BaseException as error:
        try:
            os.unlink(temp_name)
        except FileNotFoundError:
            pass
        if isinstance(error, OSError):
            raise OutputError(f"{path}: cannot write ({error.strerror}); choose another output path") from None
        raise


def write_text_atomic(path: str | Path, text: str) -> None:
    """UTF-8 text with "\\n" line ends, written atomically."""
    write_bytes_atomic(path, text.encode("utf-8"))


def json_text(obj: Any, *, indent: int | None = 2) -> str:
    """JSON as robustqa writes it: UTF-8 characters kept, one object per line when `indent` is None."""
    return json.dumps(obj, ensure_ascii=False, indent=indent) + "\n"


def write_json_atomic(path: str | Path, obj: Any) -> None:
    write_text_atomic(path, json_text(obj))
