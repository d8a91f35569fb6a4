"""The resumable prediction cache of `robustqa eval`: one append-only JSONL file per model, set and key.

Predictions are the expensive part of a run, so each chunk is appended (and fsynced) as soon as it is
done and a killed run resumes where it stopped. The key covers everything that changes an answer (the
model fingerprint, the data file's hash and the answer-changing settings), so a changed setting never
reuses old answers. Each line also keeps the best non-null span (what SQuAD v1.1 rules answer), so one
cache serves both rule sets; format 1 had no such field, and the format is part of the key, so a cache
written before is never read as if it had one.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

CACHE_FORMAT = 2

Cached = tuple[str, float, str | None]  # text ("" = abstain), null odds, best non-null span (None: not reported)


def cache_key(model_id: str, fingerprint: str, data_sha: str, settings_fields: Mapping[str, Any]) -> str:
    payload = json.dumps(
        {"format": CACHE_FORMAT, "model": model_id, "fingerprint": fingerprint, "data": data_sha, "settings": dict(settings_fields)},
        sort_keys=True,
        default=str,
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


class PredictionCache:
    """Append-only JSONL of `{"id", "text", "null_odds", "best_span"}`, flushed after every chunk.

    A line cut short by a crash is dropped (and cut off the file) when the cache is opened again.
    """

    def __init__(self, path: Path) -> None:
        self.path = path

    def load(self) -> dict[str, Cached]:
        if not self.path.exists():
            return {}
        done: dict[str, Cached] = {}
        good_bytes = 0
        with open(self.path, "rb") as stream:
            for line in stream:
                if not line.endswith(b"\n"):
                    break
                try:
                    record = json.loads(line)
                    span = record["best_span"]
                    done[str(record["id"])] = (str(record["text"]), float(record["null_odds"]), None if span is None else str(span))
                except (ValueError, KeyError, TypeError):
                    break
                good_bytes += len(line)
        if good_bytes != self.path.stat().st_size:
            with open(self.path, "r+b") as stream:
                stream.truncate(good_bytes)
        return done

    def append(self, predictions: Iterable[tuple[str, str, float, str | None]]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        lines = "".join(
            json.dumps({"id": pid, "text": text, "null_odds": odds, "best_span": span}, ensure_ascii=False) + "\n"
            for pid, text, odds, span in predictions
        )
        with open(self.path, "a", encoding="utf-8") as stream:
            stream.write(lines)
            stream.flush()
            os.fsync(stream.fileno())
