"""AddSent and AddOneSent (Jia & Liang 2017): SQuAD v1.1 questions with a distracting sentence added.

The authors' files hold the original questions with their plain ids and, for each, adversarial copies with
the id `<original id>-<suffix>`: same question, same answers, a context with one sentence added (AddSent keeps
every copy a model was tested on, AddOneSent one per question). Copies are paired to originals by that id
alone, never by article names, order or counts, so the full sets (1,000 originals, 2,560 AddSent copies)
read exactly like the sample. A copy that does not keep its original's question and answers, or that leaves
the context unchanged, is not an adversarial copy of the kind the authors' protocol scores, and is refused.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from robustqa.errors import InputError
from robustqa.importers.base import (
    ImportedSet,
    Importer,
    answered_question,
    load_json_input,
    parse_checked,
    plain_copy,
    require_answers,
)
from robustqa.squad import Paragraph, SquadDataset

CITATION = 'Jia & Liang, "Adversarial Examples for Evaluating Reading Comprehension Systems", EMNLP 2017'
URL = "https://aclanthology.org/D17-1215/"
LICENCE = "texts from SQuAD v1.1 (CC BY-SA 4.0); the authors' code is MIT-licensed"


def pair_by_id(ids: list[str]) -> tuple[dict[str, str], list[str]]:
    """(copy id -> original id, ids that look like copies but have no original).

    A copy's original is the shortest `-`-separated prefix of its id that is itself a question id of the
    file; an id with a `-` and no such prefix is unpaired.
    """
    known = set(ids)
    source_of: dict[str, str] = {}
    unpaired: list[str] = []
    for qid in ids:
        parts = qid.split("-")
        for cut in range(1, len(parts)):
            prefix = "-".join(parts[:cut])
            if prefix in known:
                source_of[qid] = prefix
                break
        else:
            if len(parts) > 1:
                unpaired.append(qid)
    return source_of, unpaired


@dataclass(frozen=True)
class AdversarialCopiesImporter(Importer):
    """Originals and their adversarial copies in one SQuAD v1.1 file; `max_copies` bounds copies per original."""

    max_copies: int | None = None

    def read(self, source: str) -> ImportedSet:
        hint = f"give the {self.title} JSON file of Jia & Liang (SQuAD v1.1 form, originals and copies together)"
        raw, digest = load_json_input(source, hint=hint)
        dataset = parse_checked(raw, path=source, hint=hint)
        require_answers(dataset, set_title=self.title, hint="this looks like a SQuAD 2.0 file, not " + self.title)
        where: dict[str, str] = {}
        questions: dict[str, Any] = {}
        contexts: dict[str, str] = {}
        for article in dataset.articles:
            for paragraph in article.paragraphs:
                for q in paragraph.qas:
                    where[q.id] = f"article '{article.title}', question {q.id}"
                    questions[q.id] = q
                    contexts[q.id] = paragraph.context
        source_of, unpaired = pair_by_id(list(questions))
        if unpaired:
            first = unpaired[0]
            more = f" (and {len(unpaired) - 1} more)" if len(unpaired) > 1 else ""
            raise InputError(
                f"the id has the form <original id>-<suffix> of an adversarial copy{more}, "
                f"but no question with id {first.split('-')[0]} (or another prefix of it) is in the file",
                path=source,
                where=where[first],
                hint="give the complete file, originals included (the authors' release holds both)",
            )
        if not source_of:
            raise InputError(
                "no adversarial copy: no question id has the form <original id>-<suffix>, so this is not an "
                f"{self.title} file",
                path=source,
                hint="for a set of new questions without copies use the squad-shifts importer",
            )
        copies_of: dict[str, list[str]] = {}
        for copy_id, original_id in source_of.items():
            self._check_copy(copy_id, original_id, questions, contexts, source, where[copy_id])
            copies_of.setdefault(original_id, []).append(copy_id)
        if self.max_copies is not None:
            for original_id, copies in copies_of.items():
                if len(copies) > self.max_copies:
                    raise InputError(
                        f"original question has {len(copies)} adversarial copies "
                        f"({', '.join(copies[:3])}{', ...' if len(copies) > 3 else ''}), "
                        f"but {self.title} has at most {self.max_copies} per question",
                        path=source,
                        where=where[original_id],
                        hint="this looks like AddSent (all copies); import it with the addsent importer",
                    )
        originals = [qid for qid in questions if qid not in source_of]
        clean = self._answered(plain_copy(dataset, keep=originals))
        perturbed = self._copies(plain_copy(dataset, keep=source_of), source_of, contexts)
        counts = {
            "original questions": len(originals),
            "adversarial copies": len(source_of),
            "originals with a copy": len(copies_of),
            "originals without a copy": len(originals) - len(copies_of),
            "most copies of one question": max(len(c) for c in copies_of.values()),
        }
        return ImportedSet(clean, perturbed, _file_name(source), digest, counts)

    def _check_copy(
        self, copy_id: str, original_id: str, questions: dict[str, Any], contexts: dict[str, str], path: str, where: str
    ) -> None:
        copy, original = questions[copy_id], questions[original_id]
        problem = None
        if copy.question != original.question:
            problem = "its question differs from its original's"
        elif [a.text for a in copy.answers] != [a.text for a in original.answers]:
            problem = "its answers differ from its original's"
        elif contexts[copy_id] == contexts[original_id]:
            problem = "its context equals its original's (no sentence was added)"
        if problem is not None:
            raise InputError(
                f"adversarial copy of question {original_id}: {problem}",
                path=path,
                where=where,
                hint=(
                    f"an {self.title} copy keeps the question and answers and adds a sentence to the context; fix or "
                    "remove it"
                ),
            )

    @staticmethod
    def _answered(dataset: SquadDataset) -> SquadDataset:
        articles = []
        for article in dataset.articles:
            paragraphs = tuple(replace(p, qas=tuple(answered_question(q) for q in p.qas)) for p in article.paragraphs)
            articles.append(replace(article, paragraphs=paragraphs))
        return replace(dataset, articles=tuple(articles))

    def _copies(self, dataset: SquadDataset, source_of: dict[str, str], contexts: dict[str, str]) -> SquadDataset:
        """Copies with `source_id`, and `original_context` on each paragraph whose copies share one original context."""
        articles = []
        for article in dataset.articles:
            paragraphs = []
            for paragraph in article.paragraphs:
                qas = tuple(
                    replace(answered_question(q), extra={**q.extra, "source_id": source_of[q.id]})
                    for q in paragraph.qas
                )
                originals = {contexts[source_of[q.id]] for q in paragraph.qas}
                extra = dict(paragraph.extra)
                if len(originals) == 1:
                    extra["original_context"] = originals.pop()
                paragraphs.append(Paragraph(paragraph.context, qas, extra))
            articles.append(replace(article, paragraphs=tuple(paragraphs)))
        return replace(dataset, articles=tuple(articles))


def _file_name(source: str) -> str:
    return Path(source).name


ADDSENT = AdversarialCopiesImporter(
    name="addsent",
    title="AddSent",
    citation=CITATION,
    url=URL,
    licence=LICENCE,
    paired=True,
    version="1",
    accepts="the authors' AddSent JSON file (originals and all their adversarial copies)",
)
