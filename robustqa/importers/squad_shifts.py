"""SQuAD-Shifts (Miller et al. 2020): new test sets built the SQuAD v1.1 way from new Wikipedia articles,
New York Times articles, Reddit posts and Amazon product reviews.

The questions are new, not copies of SQuAD questions, so there is nothing to pair them with: the set is
clean-only, and a model's score on it is compared side by side with its score on SQuAD, never per question.
The released files (`new_wiki_v1.0.json`, `nyt_v1.0.json`, `reddit_v1.0.json`, `amazon_reviews_v1.0.json`)
are SQuAD v1.1 JSON; every question has at least one answer.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from robustqa.errors import InputError
from robustqa.importers.addsent import pair_by_id
from robustqa.importers.base import (
    ImportedSet,
    Importer,
    answered_question,
    load_json_input,
    parse_checked,
    require_answers,
)
from robustqa.squad import SquadDataset


def answered(dataset: SquadDataset) -> SquadDataset:
    articles = []
    for article in dataset.articles:
        paragraphs = tuple(replace(p, qas=tuple(answered_question(q) for q in p.qas)) for p in article.paragraphs)
        articles.append(replace(article, paragraphs=paragraphs))
    return replace(dataset, articles=tuple(articles), extra={})


def refuse_copies(dataset: SquadDataset, *, path: str, title: str) -> None:
    """A clean-only set has no `<original id>-<suffix>` copies; a file that does is AddSent-like."""
    ids = [q.id for article in dataset.articles for p in article.paragraphs for q in p.qas]
    paired, _ = pair_by_id(ids)
    if paired:
        copy_id, original_id = next(iter(paired.items()))
        more = f" ({len(paired) - 1} more are copies)" if len(paired) > 1 else ""
        raise InputError(
            f"question {copy_id} is a copy of question {original_id}{more}, but {title} has no paired questions",
            path=path,
            hint="this looks like AddSent or AddOneSent; import it with that importer",
        )


def summary_counts(dataset: SquadDataset) -> dict[str, int]:
    return {
        "questions": len(dataset),
        "paragraphs": sum(len(a.paragraphs) for a in dataset.articles),
        "articles": len(dataset.articles),
    }


@dataclass(frozen=True)
class SquadShiftsImporter(Importer):
    def read(self, source: str) -> ImportedSet:
        hint = "give one of the SQuAD-Shifts JSON files (new_wiki, nyt, reddit or amazon_reviews, SQuAD v1.1 form)"
        raw, digest = load_json_input(source, hint=hint)
        dataset = parse_checked(raw, path=source, hint=hint)
        require_answers(dataset, set_title=self.title, hint="this looks like a SQuAD 2.0 file, not " + self.title)
        refuse_copies(dataset, path=source, title=self.title)
        dataset = answered(dataset)
        return ImportedSet(dataset, None, Path(source).name, digest, summary_counts(dataset))


SQUAD_SHIFTS = SquadShiftsImporter(
    name="squad-shifts",
    title="SQuAD-Shifts",
    citation=(
        'Miller, Krauth, Recht & Schmidt, "The Effect of Natural Distribution Shift on Question Answering Models", '
        "ICML 2020"
    ),
    url="https://modestyachts.github.io/squadshifts-website/",
    licence="CC BY 4.0 (as the set's Hugging Face dataset card, ludwigschmidt/squadshifts, states)",
    paired=False,
    version="1",
    accepts="one released SQuAD-Shifts JSON file (new Wikipedia, New York Times, Reddit or Amazon reviews)",
)
