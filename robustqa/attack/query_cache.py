"""The attack's query cache: every question text the model answered, so no variant is scored twice and an
interrupted attack resumes where it stopped.

The search is deterministic, so resuming is replaying it: every query it asks again is answered from this
file without the model. One append-only JSONL file per model and input, keyed like eval's prediction cache
(model, fingerprint, data hash, answer-changing settings, format), so a changed setting never reuses old
answers, while a new budget, edit limit or beam on the same folder reuses every answer already paid for. A
line cut short by a crash is dropped (and cut off the file) when the cache is opened again.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from robustqa.attack.scorer import Scored
from robustqa.jsonl_cache import AppendOnlyJsonl, content_key

CACHE_FORMAT = 1


def query_cache_key(model_id: str, fingerprint: str, data_sha: str, settings_fields: Mapping[str, Any]) -> str:
    return content_key(
        {
            "format": CACHE_FORMAT,
            "kind": "attack",
            "model": model_id,
            "fingerprint": fingerprint,
            "data": data_sha,
            "settings": dict(settings_fields),
        }
    )


def _scored(r: dict[str, Any]) -> tuple[tuple[str, str], Scored]:
    return (str(r["id"]), str(r["question"])), Scored(
        str(r["text"]), float(r["null_odds"]), bool(r["right"]), float(r["margin"])
    )


class QueryCache:
    """Append-only JSONL of `{"id", "question", "text", "null_odds", "right", "margin"}`, fsynced per append."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._file = AppendOnlyJsonl(self.path)

    def load(self) -> dict[tuple[str, str], Scored]:
        return dict(self._file.read(_scored))

    def append(self, rows: Iterable[tuple[tuple[str, str], Scored]]) -> None:
        self._file.append(
            {
                "id": qid,
                "question": question,
                "text": s.text,
                "null_odds": s.null_odds,
                "right": s.right,
                "margin": s.margin,
            }
            for (qid, question), s in rows
        )
