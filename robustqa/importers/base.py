"""What every importer shares: the published set it reads, the pair of files it writes, and their checks.

An importer turns one published shift of SQuAD into what `robustqa eval` reads: `clean.json` (the original
questions) and, for sets whose questions are copies of originals, `perturbed.json` (each copy with the
`source_id` of its original). A set without paired originals (new test sets such as SQuAD-Shifts) is
clean-only: it is scored side by side with other sets, never paired. Both files are ordinary SQuAD JSON and
carry a `source` block (the set, its paper and licence, the input and its hash) and a signature, so a run
on them names what it ran on.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from robustqa.errors import InputError, OutputError
from robustqa.outputs import write_text_atomic
from robustqa.signature import IMPORT, Signature
from robustqa.squad import (
    Article,
    Paragraph,
    Question,
    SquadDataset,
    check_answer_offsets,
    check_unique_ids,
    dataset_to_dict,
    dumps_squad,
    parse_squad,
    read_json_input,
)

CLEAN_FILE = "clean.json"
PERTURBED_FILE = "perturbed.json"


@dataclass(frozen=True)
class ImportedSet:
    """What an importer read: the clean questions and, for paired sets, the shifted copies."""

    clean: SquadDataset
    perturbed: SquadDataset | None
    input_label: str  # the file name, or the hub dataset, config and split
    input_sha12: str
    counts: dict[str, int]  # what the summary prints, in order


@dataclass(frozen=True)
class Importer:
    """One published shift of SQuAD; subclasses implement `read`.

    `paired` says whether the set has original questions to pair its copies with; everything the
    command prints about an importer (`robustqa import --help`, the summary) comes from these fields.
    """

    name: str
    title: str
    citation: str
    url: str
    licence: str
    paired: bool
    version: str
    accepts: str  # what INPUT may be, for the help text

    def read(self, source: str) -> ImportedSet:  # pragma: no cover - every importer overrides it
        raise NotImplementedError

    def describe(self) -> str:
        pairing = (
            "clean.json + perturbed.json (copies paired to originals)"
            if self.paired
            else "clean.json only (no paired originals)"
        )
        return f"{self.title}: {self.citation}\nwrites {pairing}\nINPUT: {self.accepts}"

    def source_block(self, imported: ImportedSet, role: str) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "version": self.version,
            "role": role,
            "citation": self.citation,
            "url": self.url,
            "licence": self.licence,
            "input": imported.input_label,
            "input_sha12": imported.input_sha12,
        }

    def signature(self, imported: ImportedSet) -> Signature:
        return IMPORT.create({"shift": f"{self.name}@{self.version}", "input": imported.input_sha12})


# --------------------------------------------------------------------------- reading helpers


def sha12(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:12]


def load_json_input(path: str | Path, *, hint: str) -> tuple[Any, str]:
    """Decoded JSON of an input file and the hash of its bytes; an `InputError` naming the file otherwise."""
    raw, data = read_json_input(path, hint=hint)
    return raw, sha12(data)


def parse_checked(raw: Any, *, path: str, hint: str) -> SquadDataset:
    """SQuAD records with unique ids and every answer at its offset (errors name article and question)."""
    try:
        dataset = parse_squad(raw, path=path)
    except InputError as error:
        if error.hint is not None:
            raise
        raise InputError(f"{error}; {hint}") from None
    check_unique_ids(dataset)
    dataset = check_answer_offsets(dataset)
    if len(dataset) == 0:
        raise InputError("the file has no questions", path=path, hint=hint)
    return dataset


def require_answers(dataset: SquadDataset, *, set_title: str, hint: str) -> None:
    """Sets in SQuAD v1.1 form never have an unanswerable question; one is a sign of the wrong file."""
    for article in dataset.articles:
        for paragraph in article.paragraphs:
            for q in paragraph.qas:
                if not q.answers:
                    raise InputError(
                        f"question has no answer, but every {set_title} question has one (SQuAD v1.1 form)",
                        path=dataset.path,
                        where=f"article '{article.title}', question {q.id}",
                        hint=hint,
                    )


def plain_copy(dataset: SquadDataset, *, keep: Iterable[str] | None = None) -> SquadDataset:
    """The dataset with only the questions in `keep` (all when None), paragraphs and articles left empty dropped."""
    wanted = None if keep is None else set(keep)
    articles = []
    for article in dataset.articles:
        paragraphs = []
        for paragraph in article.paragraphs:
            qas = tuple(q for q in paragraph.qas if wanted is None or q.id in wanted)
            if qas:
                paragraphs.append(replace(paragraph, qas=qas))
        if paragraphs:
            articles.append(replace(article, paragraphs=tuple(paragraphs)))
    return replace(dataset, articles=tuple(articles), extra={})


def answered_question(q: Question) -> Question:
    """A v1.1 question as robustqa writes it: `is_impossible` explicit (false), so v2 readers agree."""
    return replace(q, is_impossible=not q.answers)


def with_paragraphs(article: Article, paragraphs: list[Paragraph]) -> Article:
    return replace(article, paragraphs=tuple(paragraphs))


# --------------------------------------------------------------------------- writing


def _document(importer: Importer, imported: ImportedSet, dataset: SquadDataset, role: str) -> str:
    body = dataset_to_dict(replace(dataset, extra={}))
    document: dict[str, Any] = {
        "version": body.pop("version"),
        "signature": importer.signature(imported).format(),
        "source": importer.source_block(imported, role),
        "data": body.pop("data"),
    }
    return dumps_squad(document)


def write_import(importer: Importer, imported: ImportedSet, output_dir: str | Path) -> list[Path]:
    """Write clean.json (and perturbed.json for paired sets) into `output_dir`; return the paths written.

    Both documents are serialised before anything is written, and a failure while writing the second
    removes the first, so a folder never holds half of an import. A clean-only import refuses a folder
    that already holds a perturbed.json (from an earlier import), which would otherwise pair with it.
    """
    folder = Path(output_dir)
    if folder.exists() and not folder.is_dir():
        raise OutputError("is a file", path=str(folder), hint="give a folder", setting="output_dir")
    stale = folder / PERTURBED_FILE
    if imported.perturbed is None and stale.exists():
        raise OutputError(
            f"{stale}: already exists, but {importer.title} is a clean-only set; "
            "choose an empty folder, or remove that file first"
        )
    texts = [(folder / CLEAN_FILE, _document(importer, imported, imported.clean, "clean"))]
    if imported.perturbed is not None:
        texts.append((folder / PERTURBED_FILE, _document(importer, imported, imported.perturbed, "perturbed")))
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise OutputError(
            f"{folder}: cannot create the folder ({error.strerror}); choose another output folder"
        ) from None
    written: list[Path] = []
    try:
        for path, text in texts:
            write_text_atomic(path, text)
            written.append(path)
    except BaseException:
        for path in written:
            path.unlink(missing_ok=True)
        raise
    return written
