"""The one append-only JSONL cache under eval's predictions and the attack's queries.

Model answers are the expensive part of a run, so each batch is appended (and fsynced) as soon as it is done,
and a killed run resumes where it stopped. A line cut short by a crash, or one a reader cannot use, ends the
file: it and everything after it are cut off when the cache is opened again. What a record holds and how a
cache is keyed belong to its user; the file format and the key's hashing are here.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


def content_key(payload: Mapping[str, Any]) -> str:
    """16 hex digits naming everything that changes an answer (sorted JSON, hashed)."""
    return hashlib.sha256(json.dumps(dict(payload), sort_keys=True, default=str).encode("utf-8")).hexdigest()[:16]


class AppendOnlyJsonl:
    """One JSON object per line, appended and fsynced in batches; a torn tail is dropped on reading."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    def read(self, parse: Callable[[dict[str, Any]], T]) -> list[T]:
        """Every whole line's `parse(record)`, in file order, up to the first line that is torn or that `parse`
        rejects (ValueError, KeyError, TypeError); the file is cut back to what was read."""
        if not self.path.exists():
            return []
        out: list[T] = []
        good_bytes = 0
        with open(self.path, "rb") as stream:
            for line in stream:
                if not line.endswith(b"\n"):
                    break
                try:
                    out.append(parse(json.loads(line)))
                except (ValueError, KeyError, TypeError):
                    break
                good_bytes += len(line)
        if good_bytes != self.path.stat().st_size:
            with open(self.path, "r+b") as stream:
                stream.truncate(good_bytes)
        return out

    def append(self, records: Iterable[Mapping[str, Any]]) -> None:
        lines = "".join(json.dumps(dict(record), ensure_ascii=False) + "\n" for record in records)
        if not lines:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a", encoding="utf-8") as stream:
            stream.write(lines)
            stream.flush()
            os.fsync(stream.fileno())
