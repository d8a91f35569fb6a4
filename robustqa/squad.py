"""SQuAD 2.0 records and reading.

The records mirror the official JSON (articles → paragraphs → questions) and keep every field robustqa
adds (original question, substitutions, source id) so a perturbed file round-trips. `QAExample` is the
flat view that model running and scoring use.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from perturbations.records import Substitution
from robustqa.errors import InputError


@dataclass(frozen=True)
class Answer:
    text: str
    answer_start: int

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "answer_start": self.answer_start}


@dataclass(frozen=True)
class Question:
    """One SQuAD question. `extra` holds every other field of the JSON object, in order."""

    id: str
    question: str
    answers: tuple[Answer, ...]
    is_impossible: bool
    plausible_answers: tuple[Answer, ...] | None = None
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def source_id(self) -> str:
        return str(self.extra.get("source_id", self.id))

    @property
    def original_question(self) -> str:
        return str(self.extra.get("original_question", self.question))

    @property
    def substitutions(self) -> tuple[Substitution, ...]:
        return tuple(Substitution.from_dict(s) for s in self.extra.get("substitutions", ()))


@dataclass(frozen=True)
class Paragraph:
    context: str
    qas: tuple[Question, ...]
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def original_context(self) -> str:
        return str(self.extra.get("original_context", self.context))


@dataclass(frozen=True)
class Article:
    title: str
    paragraphs: tuple[Paragraph, ...]
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)


@dataclass(frozen=True)
class QAExample:
    """The flat view of one question with its context, as models and metrics see it."""

    id: str
    question: str
    context: str
    answers: tuple[Answer, ...]
    is_impossible: bool
    title: str
    source_id: str
    original_question: str
    original_context: str
    substitutions: tuple[Substitution, ...] = ()

    @property
    def gold_texts(self) -> tuple[str, ...]:
        return tuple(a.text for a in self.answers)


@dataclass(frozen=True)
class SquadDataset:
    articles: tuple[Article, ...]
    version: str = "v2.0"
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    path: str | None = None

    def examples(self) -> list[QAExample]:
        return list(self.iter_examples())

    def iter_examples(self) -> Iterator[QAExample]:
        for article in self.articles:
            for paragraph in article.paragraphs:
                for q in paragraph.qas:
                    yield QAExample(
                        id=q.id,
                        question=q.question,
                        context=paragraph.context,
                        answers=q.answers,
                        is_impossible=q.is_impossible,
                        title=article.title,
                        source_id=q.source_id,
                        original_question=q.original_question,
                        original_context=paragraph.original_context,
                        substitutions=q.substitutions,
                    )

    def __len__(self) -> int:
        return sum(len(p.qas) for a in self.articles for p in a.paragraphs)


def load_squad(path: str | Path) -> SquadDataset:
    """Read an official SQuAD 2.0 JSON file (or a robustqa variant of one)."""
    path = Path(path)
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError("file not found", path=str(path), hint="check the path") from None
    except OSError as error:
        raise InputError(f"cannot read file ({error.strerror})", path=str(path)) from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise InputError(f"not valid JSON ({error})", path=str(path), hint="give an official SQuAD 2.0 JSON file") from None
    return parse_squad(raw, path=str(path))


def _answers(raw: Any, *, path: str, where: str, key: str) -> tuple[Answer, ...]:
    if not isinstance(raw, list):
        raise InputError(f"'{key}' must be a list", path=path, where=where)
    out = []
    for item in raw:
        if not isinstance(item, dict) or "text" not in item or "answer_start" not in item:
            raise InputError(f"each of '{key}' needs 'text' and 'answer_start'", path=path, where=where)
        out.append(Answer(str(item["text"]), int(item["answer_start"])))
    return tuple(out)


def parse_squad(raw: Any, *, path: str = "<data>") -> SquadDataset:
    """Turn decoded SQuAD 2.0 JSON into records, naming the article and question of any schema error."""
    if not isinstance(raw, dict) or not isinstance(raw.get("data"), list):
        raise InputError("not a SQuAD file: no top-level 'data' list", path=path, hint="give an official SQuAD 2.0 JSON file")
    articles = []
    for a_index, article in enumerate(raw["data"]):
        title = str(article.get("title", f"#{a_index}")) if isinstance(article, dict) else f"#{a_index}"
        if not isinstance(article, dict) or not isinstance(article.get("paragraphs"), list):
            raise InputError("article has no 'paragraphs' list", path=path, where=f"article '{title}'")
        paragraphs = []
        for p_index, paragraph in enumerate(article["paragraphs"]):
            where_p = f"article '{title}', paragraph {p_index}"
            if not isinstance(paragraph, dict) or not isinstance(paragraph.get("context"), str) or not isinstance(paragraph.get("qas"), list):
                raise InputError("paragraph needs a 'context' string and a 'qas' list", path=path, where=where_p)
            questions = []
            for qa in paragraph["qas"]:
                if not isinstance(qa, dict) or "id" not in qa:
                    raise InputError("question without an 'id'", path=path, where=where_p)
                where = f"article '{title}', question {qa['id']}"
                if not isinstance(qa.get("question"), str):
                    raise InputError("question has no 'question' text", path=path, where=where)
                answers = _answers(qa.get("answers", []), path=path, where=where, key="answers")
                plausible = qa.get("plausible_answers")
                is_impossible = bool(qa.get("is_impossible", not answers))
                extra = {k: v for k, v in qa.items() if k not in {"id", "question", "answers", "is_impossible", "plausible_answers"}}
                questions.append(
                    Question(
                        id=str(qa["id"]),
                        question=qa["question"],
                        answers=answers,
                        is_impossible=is_impossible,
                        plausible_answers=None if plausible is None else _answers(plausible, path=path, where=where, key="plausible_answers"),
                        extra=extra,
                    )
                )
            p_extra = {k: v for k, v in paragraph.items() if k not in {"context", "qas"}}
            paragraphs.append(Paragraph(paragraph["context"], tuple(questions), p_extra))
        a_extra = {k: v for k, v in article.items() if k not in {"title", "paragraphs"}}
        articles.append(Article(title, tuple(paragraphs), a_extra))
    extra = {k: v for k, v in raw.items() if k not in {"version", "data"}}
    return SquadDataset(tuple(articles), str(raw.get("version", "v2.0")), extra, path)
