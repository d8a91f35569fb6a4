"""SQuAD files as Hugging Face `datasets` datasets: the flat columns `run_qa.py`-style code and `evaluate` read.

One row per question: `id`, `title`, `context`, `question`, `answers` ({"text": [...], "answer_start": [...]},
as `rajpurkar/squad_v2` has it), then what robustqa adds: `is_impossible`, `source_id` (the question a variant
was made from; its own id for an original), `original_question`, `original_context`, the edit records
`substitutions` and `context_substitutions` (JSON text, as in the SQuAD file) and `extra` (any other field of
the question, JSON text). `rows_to_document` turns the rows back into the SQuAD document they came from.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from robustqa.errors import InputError, OutputError
from robustqa.squad import document_to_dict, parse_squad

_QA_OWN = {"id", "question", "answers", "is_impossible", "plausible_answers", "source_id", "original_question"}
_QA_OWN |= {"substitutions"}


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False) if value is not None else ""


def document_rows(document: dict[str, Any]) -> list[dict[str, Any]]:
    """One flat row per question of a SQuAD document (checked as SQuAD 2.0 first)."""
    parse_squad(document)
    rows = []
    for article in document["data"]:
        for paragraph in article["paragraphs"]:
            original_context = paragraph.get("original_context", paragraph["context"])
            for qa in paragraph["qas"]:
                answers = qa.get("answers", [])
                rows.append(
                    {
                        "id": str(qa["id"]),
                        "title": str(article.get("title", "")),
                        "context": paragraph["context"],
                        "question": qa["question"],
                        "answers": {
                            "text": [a["text"] for a in answers],
                            "answer_start": [int(a["answer_start"]) for a in answers],
                        },
                        "is_impossible": bool(qa.get("is_impossible", not answers)),
                        "source_id": str(qa.get("source_id", qa["id"])),
                        "original_question": qa.get("original_question", qa["question"]),
                        "original_context": original_context,
                        "substitutions": _json(qa.get("substitutions")),
                        "context_substitutions": _json(paragraph.get("context_substitutions")),
                        "plausible_answers": _json(qa.get("plausible_answers")),
                        "extra": _json({k: v for k, v in qa.items() if k not in _QA_OWN} or None),
                    }
                )
    return rows


def features() -> Any:
    from datasets import Features, List, Value

    text = Value("string")
    return Features(
        {
            "id": text,
            "title": text,
            "context": text,
            "question": text,
            "answers": {"text": List(text), "answer_start": List(Value("int32"))},
            "is_impossible": Value("bool"),
            "source_id": text,
            "original_question": text,
            "original_context": text,
            "substitutions": text,
            "context_substitutions": text,
            "plausible_answers": text,
            "extra": text,
        }
    )


def to_hf(document: dict[str, Any]) -> Any:
    """The document as an in-memory `datasets.Dataset`."""
    from datasets import Dataset

    return Dataset.from_list(document_rows(document), features=features())


def check_free_folder(folder: str | Path) -> None:
    """Fail before any work when the dataset folder cannot be written where asked."""
    folder = Path(folder)
    if folder.exists():
        raise OutputError(f"{folder}: already exists; give a new folder name for the dataset")
    if not folder.parent.is_dir():
        raise OutputError(f"{folder}: folder '{folder.parent}' does not exist; create it first")


def save_hf(document: dict[str, Any], folder: str | Path) -> None:
    """`save_to_disk` into `folder` (a new folder, written beside it and renamed: never half-written)."""
    folder = Path(folder)
    check_free_folder(folder)
    dataset = to_hf(document)
    temp = Path(tempfile.mkdtemp(dir=folder.parent, prefix=f".{folder.name}."))
    try:
        dataset.save_to_disk(str(temp / "data"))
        signature = document.get("signature")
        if signature:
            (temp / "data" / "robustqa-signature.txt").write_text(str(signature) + "\n", encoding="utf-8")
        (temp / "data").rename(folder)
    finally:
        shutil.rmtree(temp, ignore_errors=True)


def rows_to_document(rows: Any, *, version: str = "v2.0") -> dict[str, Any]:
    """The SQuAD document of flat rows (the inverse of `document_rows`, paragraphs grouped by context in order)."""
    data: list[dict[str, Any]] = []
    articles: dict[str, dict[str, Any]] = {}
    for row in rows:
        article = articles.get(row["title"])
        if article is None:
            article = articles[row["title"]] = {"title": row["title"], "paragraphs": []}
            data.append(article)
        paragraphs = article["paragraphs"]
        if not paragraphs or paragraphs[-1]["context"] != row["context"]:
            paragraph: dict[str, Any] = {"context": row["context"], "qas": []}
            if row["original_context"] != row["context"]:
                paragraph["original_context"] = row["original_context"]
            if row["context_substitutions"]:
                paragraph["context_substitutions"] = json.loads(row["context_substitutions"])
            paragraphs.append(paragraph)
        answers = [
            {"text": t, "answer_start": s} for t, s in zip(row["answers"]["text"], row["answers"]["answer_start"])
        ]
        qa: dict[str, Any] = {"id": row["id"], "question": row["question"], "answers": answers}
        if row["plausible_answers"]:
            qa["plausible_answers"] = json.loads(row["plausible_answers"])
        qa["is_impossible"] = row["is_impossible"]
        if row["source_id"] != row["id"]:
            qa["source_id"] = row["source_id"]
        if row["original_question"] != row["question"]:
            qa["original_question"] = row["original_question"]
        if row["substitutions"]:
            qa["substitutions"] = json.loads(row["substitutions"])
        if row["extra"]:
            qa.update(json.loads(row["extra"]))
        paragraphs[-1]["qas"].append(qa)
    if not data:
        raise InputError("the dataset has no rows", hint="give a dataset robustqa wrote in the Hugging Face format")
    return document_to_dict(version, {}, data)
