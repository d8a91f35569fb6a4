"""What a model was trained on, and whether that overlaps an evaluation set.

A model folder may hold `robustqa-training.json` (written by whatever trained it): the training data's
articles, each by title and by a hash of its text. Eval reads it to warn when the questions it scores come
from articles the model has seen; a score on seen articles measures memory as much as understanding. The
hash makes the check independent of titles (a renamed copy still matches); titles are kept so the warning
can name the articles and the user can exclude them. The format is in docs/FORMATS.md.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from robustqa.errors import InputError
from robustqa.outputs import write_text_atomic
from robustqa.squad import Article, SquadDataset, read_json_input

TRAINING_RECORD = "robustqa-training.json"
TRAINING_FORMAT = "robustqa-training/1"
_HINT = f"fix or delete {TRAINING_RECORD} (format {TRAINING_FORMAT}, see docs/FORMATS.md)"


def article_sha256(contexts: Iterable[str]) -> str:
    """The hex SHA-256 of an article's paragraph contexts joined by a blank line ("\\n\\n"), UTF-8."""
    return hashlib.sha256("\n\n".join(contexts).encode("utf-8")).hexdigest()


def article_hash(article: Article) -> str:
    """`article_sha256` of an article's clean text (a perturbed file's original contexts), each context once: a
    training file with variants may hold a paragraph's text again, rewritten, in a paragraph of its own."""
    return article_sha256(dict.fromkeys(p.original_context for p in article.paragraphs))


@dataclass(frozen=True)
class TrainedArticle:
    title: str
    sha256: str


@dataclass(frozen=True)
class TrainingRecord:
    """The training data of a model: its articles, how many questions, and the training run's signature."""

    signature: str
    articles: tuple[TrainedArticle, ...]
    questions: int
    # `train --adversarial`: the attack's recipe, sample and budget, and what each epoch added (variants of the
    # training questions, so of the same articles)
    adversarial: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {
            "format": TRAINING_FORMAT,
            "signature": self.signature,
            "articles": [{"title": a.title, "sha256": a.sha256} for a in self.articles],
            "questions": self.questions,
        }
        if self.adversarial is not None:
            out["adversarial"] = self.adversarial
        return out

    @classmethod
    def from_dict(cls, raw: Any, *, path: str = TRAINING_RECORD) -> TrainingRecord:
        if not isinstance(raw, dict) or raw.get("format") != TRAINING_FORMAT:
            found = raw.get("format") if isinstance(raw, dict) else None
            raise InputError(f"not a {TRAINING_FORMAT} record (format {found!r})", path=path, hint=_HINT)
        articles = raw.get("articles")
        questions = raw.get("questions")
        if not isinstance(articles, list) or isinstance(questions, bool) or not isinstance(questions, int):
            raise InputError("needs an 'articles' list and an integer 'questions'", path=path, hint=_HINT)
        out = []
        for number, item in enumerate(articles, 1):
            ok = isinstance(item, dict) and isinstance(item.get("title"), str) and isinstance(item.get("sha256"), str)
            if not ok:
                raise InputError(f"article {number} needs a 'title' and a 'sha256' string", path=path, hint=_HINT)
            out.append(TrainedArticle(item["title"], item["sha256"].lower()))
        adversarial = raw.get("adversarial")
        return cls(
            signature=str(raw.get("signature", "")),
            articles=tuple(out),
            questions=questions,
            adversarial=adversarial if isinstance(adversarial, dict) else None,
        )


def training_record(dataset: SquadDataset, signature: str) -> TrainingRecord:
    """The record of training on `dataset` (every article, every question)."""
    return TrainingRecord(
        signature=signature,
        articles=tuple(TrainedArticle(a.title, article_hash(a)) for a in dataset.articles),
        questions=len(dataset),
    )


def write_training_record(model_dir: str | Path, record: TrainingRecord) -> Path:
    path = Path(model_dir) / TRAINING_RECORD
    write_text_atomic(path, json.dumps(record.to_dict(), indent=2, ensure_ascii=False) + "\n")
    return path


def read_training_record(model_dir: str | Path) -> TrainingRecord | None:
    """The model folder's training record, None when it has none (a hub model, a folder trained elsewhere)."""
    path = Path(model_dir) / TRAINING_RECORD
    if not path.is_file():
        return None
    raw, _ = read_json_input(path, hint=_HINT)
    return TrainingRecord.from_dict(raw, path=str(path))


@dataclass(frozen=True)
class Overlap:
    """Evaluation articles the model was trained on: `same_text` by content hash (whatever their title),
    `same_title` by title only (the text differs, e.g. another revision of the article). Titles are the
    evaluation set's, in its order."""

    same_text: tuple[str, ...]
    same_title: tuple[str, ...]

    @property
    def titles(self) -> tuple[str, ...]:
        return self.same_text + self.same_title

    def __bool__(self) -> bool:
        return bool(self.same_text or self.same_title)


def training_overlap(record: TrainingRecord, articles: Iterable[Article]) -> Overlap:
    """Which of the evaluation's `articles` (a dataset's `.articles`) `record` says the model was trained on."""
    hashes = {a.sha256 for a in record.articles}
    titles = {a.title for a in record.articles}
    same_text: list[str] = []
    same_title: list[str] = []
    for article in articles:
        if article_hash(article) in hashes:
            same_text.append(article.title)
        elif article.title in titles:
            same_title.append(article.title)
    return Overlap(tuple(dict.fromkeys(same_text)), tuple(dict.fromkeys(same_title)))
