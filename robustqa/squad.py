"""SQuAD 2.0 records and reading.

The records mirror the official JSON (articles → paragraphs → questions) and keep every field robustqa
adds (original question, substitutions, source id) so a perturbed file round-trips. `QAExample` is the
flat view that model running and scoring use.
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from perturbations.records import Substitution
from robustqa.errors import InputError, invalid_json
from robustqa.hub import hub_known_unreachable
from robustqa.outputs import write_text_atomic


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

    @property
    def context_substitutions(self) -> tuple[Substitution, ...]:
        return tuple(Substitution.from_dict(s) for s in self.extra.get("context_substitutions", ()))


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
    context_substitutions: tuple[Substitution, ...] = ()

    @property
    def edits(self) -> tuple[Substitution, ...]:
        """Every edit that made this question from its clean one: in the question, then in the context."""
        return self.substitutions + self.context_substitutions

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
                        context_substitutions=paragraph.context_substitutions,
                    )

    def __len__(self) -> int:
        return sum(len(p.qas) for a in self.articles for p in a.paragraphs)


def load_squad(path: str | Path, *, check_answers: bool = False, repair: bool = False) -> SquadDataset:
    """Read an official SQuAD 2.0 JSON file (or a robustqa variant of one).

    With `check_answers`, every answer offset is verified against its context (see `check_answer_offsets`);
    dataset building needs that, other readers may skip the cost. Repaired answers emit a `RepairWarning`.
    """
    path = Path(path)
    raw, _ = read_json_input(path, hint="give an official SQuAD 2.0 JSON file")
    dataset = parse_squad(raw, path=str(path))
    if check_answers:
        dataset = check_answer_offsets(dataset, repair=repair)
    return dataset


def read_input(path: str | Path, *, hint: str) -> bytes:
    """The bytes of an input file, or an `InputError` that says why not (missing, a folder, unreadable)."""
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise InputError("file not found", path=str(path), hint="check the path") from None
    except IsADirectoryError:
        raise InputError("is a folder, not a file", path=str(path), hint=hint) from None
    except OSError as error:
        raise InputError(f"cannot read file ({error.strerror})", path=str(path), hint="check its permissions") from None


def read_json_input(path: str | Path, *, hint: str) -> tuple[Any, bytes]:
    """The decoded JSON of an input file and its bytes: the one reader of every command's JSON inputs, so an
    empty, binary, CSV or otherwise non-JSON file gets the same one-line `InputError` everywhere."""
    data = read_input(path, hint=hint)
    if not data.strip():
        raise InputError("file is empty", path=str(path), hint=hint)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(
            f"not UTF-8 text (a binary file? {error.reason} at byte {error.start})", path=str(path), hint=hint
        ) from None
    try:
        return json.loads(text), data
    except json.JSONDecodeError as error:
        raise invalid_json(error, path=str(path), hint=hint) from None


def _answers(raw: Any, *, path: str, where: str, key: str) -> tuple[Answer, ...]:
    if not isinstance(raw, list):
        raise InputError(f"'{key}' must be a list", path=path, where=where, hint="give an official SQuAD 2.0 JSON file")
    out = []
    for item in raw:
        if not isinstance(item, dict) or "text" not in item or "answer_start" not in item:
            raise InputError(
                f"each of '{key}' needs 'text' and 'answer_start'",
                path=path,
                where=where,
                hint="give an official SQuAD 2.0 JSON file",
            )
        text, start = item["text"], item["answer_start"]
        if not isinstance(text, str) or isinstance(start, bool) or not isinstance(start, int):
            raise InputError(
                f"'{key}' needs a 'text' string and an integer 'answer_start'",
                path=path,
                where=where,
                hint="give an official SQuAD 2.0 JSON file",
            )
        out.append(Answer(text, start))
    return tuple(out)


def parse_squad(raw: Any, *, path: str = "<data>") -> SquadDataset:
    """Turn decoded SQuAD 2.0 JSON into records, naming the article and question of any schema error."""
    if not isinstance(raw, dict) or not isinstance(raw.get("data"), list):
        raise InputError(
            "not a SQuAD file: no top-level 'data' list", path=path, hint="give an official SQuAD 2.0 JSON file"
        )
    articles = []
    for a_index, article in enumerate(raw["data"]):
        title = str(article.get("title", f"#{a_index}")) if isinstance(article, dict) else f"#{a_index}"
        if not isinstance(article, dict) or not isinstance(article.get("paragraphs"), list):
            raise InputError("article has no 'paragraphs' list", path=path, where=f"article '{title}'")
        paragraphs = []
        for p_index, paragraph in enumerate(article["paragraphs"]):
            where_p = f"article '{title}', paragraph {p_index}"
            if (
                not isinstance(paragraph, dict)
                or not isinstance(paragraph.get("context"), str)
                or not isinstance(paragraph.get("qas"), list)
            ):
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
                extra = {
                    k: v
                    for k, v in qa.items()
                    if k not in {"id", "question", "answers", "is_impossible", "plausible_answers"}
                }
                questions.append(
                    Question(
                        id=str(qa["id"]),
                        question=qa["question"],
                        answers=answers,
                        is_impossible=is_impossible,
                        plausible_answers=None
                        if plausible is None
                        else _answers(plausible, path=path, where=where, key="plausible_answers"),
                        extra=extra,
                    )
                )
            p_extra = {k: v for k, v in paragraph.items() if k not in {"context", "qas"}}
            paragraphs.append(Paragraph(paragraph["context"], tuple(questions), p_extra))
        a_extra = {k: v for k, v in article.items() if k not in {"title", "paragraphs"}}
        articles.append(Article(title, tuple(paragraphs), a_extra))
    extra = {k: v for k, v in raw.items() if k not in {"version", "data"}}
    return SquadDataset(tuple(articles), str(raw.get("version", "v2.0")), extra, path)


# --- validation -----------------------------------------------------------------------------------


class RepairWarning(UserWarning):
    """A source answer whose offset did not match its context was moved to where its text occurs."""


def answer_matches(context: str, answer: Answer) -> bool:
    """The SQuAD invariant every reader relies on: the answer text sits at its offset."""
    return (
        0 <= answer.answer_start
        and context[answer.answer_start : answer.answer_start + len(answer.text)] == answer.text
    )


def _nearest_occurrence(context: str, text: str, start: int) -> int | None:
    """The occurrence of `text` closest to the stated offset (ties: the earlier one), or None."""
    best: int | None = None
    position = context.find(text)
    while position != -1:
        if best is None or abs(position - start) < abs(best - start):
            best = position
        position = context.find(text, position + 1)
    return best


def _checked(
    answers: tuple[Answer, ...] | None, context: str, *, repair: bool, path: str, where: str, key: str
) -> tuple[tuple[Answer, ...] | None, bool]:
    if answers is None:
        return None, False
    out, changed = [], False
    for index, answer in enumerate(answers):
        if answer_matches(context, answer):
            out.append(answer)
            continue
        found = _nearest_occurrence(context, answer.text, answer.answer_start) if answer.text else None
        shown = answer.text if len(answer.text) <= 40 else answer.text[:37] + "..."
        problem = f"{key}[{index}] {shown!r} is not at answer_start {answer.answer_start} of its context"
        if not repair or found is None:
            if found is None:
                raise InputError(
                    problem,
                    path=path,
                    where=where,
                    hint="its text does not occur in the context at all; fix or remove this answer",
                )
            raise InputError(
                problem,
                path=path,
                where=where,
                hint="fix its answer_start, or repair it (moved to the nearest occurrence of its text)",
                setting="repair",
            )
        warnings.warn(f"{path}: {where}: {problem}; repaired to answer_start {found}", RepairWarning, stacklevel=4)
        out.append(Answer(answer.text, found))
        changed = True
    return tuple(out), changed


def check_answer_offsets(dataset: SquadDataset, *, repair: bool = False) -> SquadDataset:
    """Verify `context[start:start+len(text)] == text` for every answer and plausible answer.

    A mismatch raises `InputError` naming the file, article and question id. With `repair`, an answer
    whose text occurs elsewhere in its context is moved to the nearest occurrence and a `RepairWarning`
    says so; silent repair would hide broken source data, so it is never the default.
    """
    path = dataset.path or "<data>"
    articles = []
    for article in dataset.articles:
        paragraphs = []
        for paragraph in article.paragraphs:
            questions = []
            for q in paragraph.qas:
                where = f"article '{article.title}', question {q.id}"
                answers, a_changed = _checked(
                    q.answers, paragraph.context, repair=repair, path=path, where=where, key="answers"
                )
                plausible, p_changed = _checked(
                    q.plausible_answers,
                    paragraph.context,
                    repair=repair,
                    path=path,
                    where=where,
                    key="plausible_answers",
                )
                if a_changed or p_changed:
                    q = replace(q, answers=answers or (), plausible_answers=plausible)
                questions.append(q)
            paragraphs.append(replace(paragraph, qas=tuple(questions)))
        articles.append(replace(article, paragraphs=tuple(paragraphs)))
    return replace(dataset, articles=tuple(articles))


def check_unique_ids(dataset: SquadDataset) -> None:
    """Question ids key predictions, scores and per-example generators: they must be unique."""
    seen: dict[str, str] = {}
    for article in dataset.articles:
        for paragraph in article.paragraphs:
            for q in paragraph.qas:
                if q.id in seen:
                    raise InputError(
                        f"question id {q.id} appears twice (first in article '{seen[q.id]}')",
                        path=dataset.path or "<data>",
                        where=f"article '{article.title}', question {q.id}",
                        hint="give every question a unique id",
                    )
                seen[q.id] = article.title


def only_questions(document: dict[str, Any], ids: Collection[str]) -> dict[str, Any]:
    """A decoded SQuAD document reduced to the questions `ids` names, paragraphs and articles left empty
    dropped; the input is not changed. A question's edit depends only on its own text, its paragraph, the
    seed and its id, so a build of the subset makes the same edits as a build of the whole file."""
    out = {**document, "data": []}
    for article in document["data"]:
        paragraphs = [{**p, "qas": [qa for qa in p["qas"] if qa["id"] in ids]} for p in article["paragraphs"]]
        paragraphs = [p for p in paragraphs if p["qas"]]
        if paragraphs:
            out["data"].append({**article, "paragraphs": paragraphs})
    return out


# --- writing --------------------------------------------------------------------------------------

QA_ORDER = (
    "id",
    "source_id",
    "question",
    "original_question",
    "substitutions",
    "answers",
    "plausible_answers",
    "is_impossible",
)
PARAGRAPH_ORDER = ("context", "original_context", "context_substitutions", "qas")


def ordered(record: dict[str, Any], order: tuple[str, ...]) -> dict[str, Any]:
    """Known keys first in the documented order, then any others as they came: stable bytes on output."""
    out = {key: record[key] for key in order if key in record}
    out.update((key, value) for key, value in record.items() if key not in out)
    return out


def question_to_dict(q: Question) -> dict[str, Any]:
    record: dict[str, Any] = {"id": q.id, "question": q.question, "answers": [a.to_dict() for a in q.answers]}
    if q.plausible_answers is not None:
        record["plausible_answers"] = [a.to_dict() for a in q.plausible_answers]
    record["is_impossible"] = q.is_impossible
    record.update((k, v) for k, v in q.extra.items() if k not in record)
    return ordered(record, QA_ORDER)


def paragraph_to_dict(paragraph: Paragraph) -> dict[str, Any]:
    record = {"context": paragraph.context, "qas": [question_to_dict(q) for q in paragraph.qas]}
    record.update((k, v) for k, v in paragraph.extra.items() if k not in record)
    return ordered(record, PARAGRAPH_ORDER)


def article_to_dict(article: Article, paragraphs: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """An article in the official shape; `paragraphs`, when given, are already serialised (`paragraph_to_dict`)."""
    if paragraphs is None:
        paragraphs = [paragraph_to_dict(paragraph) for paragraph in article.paragraphs]
    return {
        "title": article.title,
        "paragraphs": paragraphs,
        **{k: v for k, v in article.extra.items() if k not in {"title", "paragraphs"}},
    }


def document_to_dict(version: str, extra: dict[str, Any], data: list[dict[str, Any]]) -> dict[str, Any]:
    """The top level of a SQuAD file: the version, any other fields (robustqa's signature), then the data."""
    out: dict[str, Any] = {"version": version}
    out.update((k, v) for k, v in extra.items() if k not in {"version", "data"})
    out["data"] = data
    return out


def dataset_to_dict(dataset: SquadDataset) -> dict[str, Any]:
    """The official JSON shape of a dataset, with robustqa's extra fields kept, keys in the documented order."""
    return document_to_dict(dataset.version, dataset.extra, [article_to_dict(article) for article in dataset.articles])


def dumps_squad(document: dict[str, Any]) -> str:
    """One canonical serialisation (UTF-8 text, fixed separators, keys in insertion order) so re-runs match
    byte for byte."""
    return json.dumps(document, ensure_ascii=False, separators=(", ", ": ")) + "\n"


def write_squad(document: SquadDataset | dict[str, Any], path: str | Path) -> None:
    """Write a SQuAD 2.0 file (records or an already-shaped dict) atomically."""
    if isinstance(document, SquadDataset):
        document = dataset_to_dict(document)
    write_text_atomic(path, dumps_squad(document))


# --- the Hugging Face hub -------------------------------------------------------------------------

HUB_DATASET = "rajpurkar/squad_v2"


def load_squad_hub(split: str = "validation", *, name: str | None = None) -> SquadDataset:
    """The SQuAD 2.0 split through `datasets` (downloads once, then its cache), as official-shaped records.

    The hub form is flat (one row per question, answers as parallel lists, no `plausible_answers`); rows
    are grouped back into articles and paragraphs in the order they come.
    """
    name = name or HUB_DATASET
    label = f"{name}:{split}"
    # a hub that does not answer: `datasets` reads its cache at once (or fails at once) instead of retrying; it
    # reads the switch when imported, so a process that imported it before keeps the slow way
    offline = {"HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"}
    if "datasets" in sys.modules or not hub_known_unreachable():
        offline = {}
    saved = {key: os.environ.get(key) for key in offline}
    os.environ.update(offline)
    try:
        import datasets  # heavy; only this path needs it

        rows = datasets.load_dataset(name, split=split)
    except ImportError:
        raise InputError(
            "the `datasets` package is not installed (pip install datasets)",
            path=label,
            hint="read a local SQuAD 2.0 file instead",
            setting="input",
        ) from None
    except Exception as error:  # offline, missing split, hub errors: all end the same way
        first_line = (str(error).strip().splitlines() or [type(error).__name__])[0][:160]
        raise InputError(
            f"cannot load the SQuAD 2.0 '{split}' split through `datasets` ({first_line}); you may be offline",
            path=label,
            hint="read the official dev-v2.0.json from a local file instead",
            setting="input",
        ) from None
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    return squad_from_rows(rows, path=label)


def squad_from_rows(rows: Any, *, path: str) -> SquadDataset:
    """Group flat `squad_v2` rows (id, title, context, question, answers{text, answer_start}) into records."""
    articles: dict[str, dict[str, list[Question]]] = {}
    for row in rows:
        answers_raw = row["answers"]
        answers = tuple(Answer(str(t), int(s)) for t, s in zip(answers_raw["text"], answers_raw["answer_start"]))
        question = Question(
            id=str(row["id"]), question=str(row["question"]), answers=answers, is_impossible=not answers
        )
        articles.setdefault(str(row["title"]), {}).setdefault(str(row["context"]), []).append(question)
    return SquadDataset(
        tuple(
            Article(title, tuple(Paragraph(context, tuple(qs)) for context, qs in paragraphs.items()))
            for title, paragraphs in articles.items()
        ),
        "v2.0",
        {},
        path,
    )
