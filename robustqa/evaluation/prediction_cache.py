"""The resumable prediction cache of `robustqa eval`: one append-only JSONL file per model, set and key.

Predictions are the expensive part of a run, so each chunk is appended (and fsynced) as soon as it is
done and a killed run resumes where it stopped. The key covers everything that changes an answer (the
model fingerprint, the data file's hash and the answer-changing settings), so a changed setting never
reuses old answers. Each line also keeps the best non-null span (what SQuAD v1.1 rules answer), so one
cache serves both rule sets; format 1 had no such field, and the format is part of the key, so a cache
written before is never read as if it had one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from robustqa.jsonl_cache import AppendOnlyJsonl, content_key

CACHE_FORMAT = 2

Cached = tuple[str, float, str | None]  # text ("" = abstain), null odds, best non-null span (None: not reported)


def cache_key(model_id: str, fingerprint: str, data_sha: str, settings_fields: Mapping[str, Any]) -> str:
    return content_key(
        {
            "format": CACHE_FORMAT,
            "model": model_id,
            "fingerprint": fingerprint,
            "data": data_sha,
            "settings": dict(settings_fields),
        }
    )


def _cached(record: dict[str, Any]) -> tuple[str, Cached]:
    span = record["best_span"]
    return str(record["id"]), (str(record["text"]), float(record["null_odds"]), None if span is None else str(span))


class PredictionCache:
    """Append-only JSONL of `{"id", "text", "null_odds", "best_span"}`, flushed after every chunk."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file = AppendOnlyJsonl(path)

    def load(self) -> dict[str, Cached]:
        return dict(self._file.read(_cached))

    def append(self, predictions: Iterable[tuple[str, str, float, str | None]]) -> None:
        self._file.append(
            {"id": pid, "text": text, "null_odds": odds, "best_span": span} for pid, text, odds, span in predictions
        )
