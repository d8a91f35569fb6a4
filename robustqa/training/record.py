"""What a fine-tuned model folder says of its training data: `robustqa-training.json`.

A model evaluated on articles it was trained on scores high for the wrong reason. The folder therefore
names every training article with a hash of its text, so an evaluation can warn when its articles overlap
(format `robustqa-training/1`, in docs/FORMATS.md):

    {"format": "robustqa-training/1", "signature": "<train signature>",
     "articles": [{"title": "...", "sha256": "<hex>"}, ...], "questions": <int>}

An article's hash is the sha256 of its paragraphs' original contexts (before any context edit), in order,
each once, joined by a blank line ("\\n\\n"), UTF-8: the same article hashes the same in a clean file, an
augmented one and an evaluation set.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from robustqa.outputs import write_json_atomic
from robustqa.squad import Article, SquadDataset

RECORD_NAME = "robustqa-training.json"
RECORD_FORMAT = "robustqa-training/1"


def article_contexts(article: Article) -> list[str]:
    """The article's original paragraph contexts, in order, each once."""
    seen: dict[str, None] = {}
    for paragraph in article.paragraphs:
        seen.setdefault(paragraph.original_context)
    return list(seen)


def article_hash(contexts: list[str]) -> str:
    """sha256 (hex) of the contexts joined by a blank line."""
    return hashlib.sha256("\n\n".join(contexts).encode("utf-8")).hexdigest()


def training_record(dataset: SquadDataset, signature: str) -> dict[str, Any]:
    """The record of a training set: its articles (title, hash) and how many questions it trained on
    (variants included)."""
    return {
        "format": RECORD_FORMAT,
        "signature": signature,
        "articles": [
            {"title": article.title, "sha256": article_hash(article_contexts(article))} for article in dataset.articles
        ],
        "questions": len(dataset),
    }


def write_training_record(folder: str | Path, dataset: SquadDataset, signature: str) -> Path:
    path = Path(folder) / RECORD_NAME
    write_json_atomic(path, training_record(dataset, signature))
    return path
