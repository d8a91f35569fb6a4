"""The attack's query cache: every question text the model answered, so no variant is scored twice and an
interrupted attack resumes where it stopped.

The search is deterministic, so resuming is replaying it: every query it asks again is answered from this
file without the model. One append-only JSONL file per model and input, keyed like eval's prediction cache
(model, fingerprint, data hash, answer-changing settings, format), so a changed setting never reuses old
answers, while a new budget, edit limit or beam on the same folder reuses every answer already paid for. A
line cut short by a crash is dropped (and cut off the file) when the cache is opened again.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from robustqa.attack.scorer import Scored

CACHE_FORMAT = 1


def query_cache_key(model_id: str, fingerprint: str, data_sha: str, settings_fields: Mapping[str, Any]) -> str:
    payload = json.dumps(
        {"format": CACHE_FORMAT, "kind": "attack", "model": model_id, "fingerprint": fingerprint, "data": data_sha, "settings": dict(settings_fields)},
        sort_keys=True,
        default=str,
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


class QueryCache:
    """Append-only JSONL of `{"id", "question", "text", "null_odds", "right", "margin"}`, fsynced per append."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    def load(self) -> dict[tuple[str, str], Scored]:
        if not self.path.exists():
            return {}
        done: dict[tuple[str, str], Scored] = {}
        good_bytes = 0
        with open(self.path, "rb") as stream:
            for line in stream:
                if not line.endswith(b"\n"):
                    break
                try:
                    r = json.loads(line)
                    done[(str(r["id"]), str(r["question"]))] = Scored(str(r["text"]), float(r["null_odds"]), bool(r["right"]), float(r["margin"]))
                except (ValueError, KeyError, TypeError):
                    break
                good_bytes += len(line)
        if good_bytes != self.path.stat().st_size:
            with open(self.path, "r+b") as stream:
                stream.truncate(good_bytes)
        return done

    def append(self, rows: Iterable[tuple[tuple[str, str], Scored]]) -> None:
        lines = "".join(
            json.dumps(
                {"id": qid, "question": question, "text": s.text, "null_odds": s.null_odds, "right": s.right, "margin": s.margin},
                ensure_ascii=False,
            )
            + "\n"
            for (qid, question), s in rows
        )
        if not lines:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a", encoding="utf-8") as stream:
            stream.write(lines)
            stream.flush()
            os.fsync(stream.fileno())
