"""What a reviewer judges, and in which order.

An item is one changed question of a built file (output of `robustqa build-dataset`): its original and
perturbed text, the engine's substitution records, the answer and the context sentence that holds it. A
run folder (output of `robustqa eval --output-dir`) is reviewed through the perturbed file it evaluated,
so its decisions apply to that file; its per-question lines only decide the order (questions a model
flipped from right to wrong first) and add each model's two predictions to the item.

Order. Items are shuffled with a fixed seed: each is ranked by sha256 of the seed and its id (of its
source question in a file with several variants per question, so that a question's variants come one
after another and a reviewer judges them side by side). Reviewers stop early, and a partial review in
file order would judge a few articles (whose questions share words and failure modes) instead of a sample
of the whole set; a seeded shuffle makes every prefix of the review a random sample, so the accepted share
of a partial review estimates the set's. Ranking by id (not by position) gives every reviewer of a file
the same order, so two partial reviews overlap and can be compared (kappa), and a question keeps its rank
when other questions are added or removed. In a run folder, flipped questions come first (those flipped
by more models first), each group in the same seeded order; the accepted share is then a share of the
reviewed questions, not a sample of the file.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from robustqa.errors import InputError
from robustqa.squad import SquadDataset, check_unique_ids, parse_squad, read_json_input

ORDER_SEED = 13
ORDER_SHUFFLED = "shuffled"
ORDER_FLIPS_FIRST = "flips-first"
_SUBSTITUTION_KEYS = ("start", "end", "new_start", "new_end", "original", "replacement", "pos")
_BUILT_HINT = "give a file written by `robustqa build-dataset` or a run folder written by `robustqa eval`"


@dataclass(frozen=True)
class ModelNote:
    """What one evaluated model answered before and after the edit (run folders only)."""

    model: str
    clean_prediction: str
    perturbed_prediction: str
    flipped: bool  # right on the clean question, wrong on the perturbed one


@dataclass(frozen=True)
class ReviewItem:
    """One changed question, with everything a reviewer needs to judge it."""

    id: str
    source_id: str
    title: str
    original: str
    perturbed: str
    substitutions: tuple[Mapping[str, Any], ...]
    answers: tuple[str, ...]  # distinct gold answer texts; empty when unanswerable
    evidence: str | None  # "answer", "plausible answer" (unanswerable with a plausible span) or None
    sentence: str  # the context sentence holding the first answer (or plausible answer); "" when none
    answer_span: tuple[int, int] | None  # the answer's place within `sentence`
    context: str
    sentence_start: int = 0  # where `sentence` starts in `context`
    notes: tuple[ModelNote, ...] = ()

    @property
    def flipped_by(self) -> int:
        return sum(note.flipped for note in self.notes)


@dataclass(frozen=True)
class ReviewSet:
    """The items of one reviewed file, in review order, and the identity of that file."""

    path: Path  # the built file whose questions are reviewed
    sha256: str  # of its bytes: decisions apply to this file only
    signature: str  # its build signature ("" when it has none)
    order: str  # ORDER_SHUFFLED or ORDER_FLIPS_FIRST
    items: tuple[ReviewItem, ...]
    run: Path | None = None  # the run folder the order came from

    @property
    def name(self) -> str:
        return self.path.name

    def by_id(self) -> dict[str, ReviewItem]:
        return {item.id: item for item in self.items}


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def order_rank(item_id: str, seed: int = ORDER_SEED) -> str:
    """The seeded-shuffle rank of an item: depends on its id and the seed only."""
    return hashlib.sha256(f"robustqa-review:{seed}:{item_id}".encode()).hexdigest()


# ------------------------------------------------------------------------------------------ sentences

_BOUNDARY = re.compile(r"(?<=[.!?])[\"'”’)\]]*\s+(?=[\"'“‘(\[]?[A-Z0-9])")
_LAST_WORD = re.compile(r"(\w+)[.!?]\W*$")
_ABBREVIATIONS = frozenset(
    [
        "mr",
        "mrs",
        "ms",
        "dr",
        "st",
        "jr",
        "sr",
        "vs",
        "etc",
        "no",
        "co",
        "corp",
        "inc",
        "ltd",
        "mt",
        "ft",
        "gen",
        "col",
        "lt",
        "sgt",
        "gov",
        "sen",
        "rep",
        "prof",
        "rev",
        "fr",
        "ca",
        "approx",
        "est",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
    ]
)


def sentence_bounds(context: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of `context`: a split after . ! ? before a capital or digit, except after
    an initial ("U.S.", "J.") or a common abbreviation ("Mr.", "St."). Good enough to show where an answer
    sits; the reviewer can always open the whole paragraph."""
    bounds, start = [], 0
    for match in _BOUNDARY.finditer(context):
        word = _LAST_WORD.search(context[start : match.start()] if match.start() > start else "")
        if word and ((len(word.group(1)) == 1 and word.group(1).isalpha()) or word.group(1).lower() in _ABBREVIATIONS):
            continue
        bounds.append((start, match.start()))
        start = match.end()
    bounds.append((start, len(context)))
    return bounds


def sentence_around(context: str, start: int, end: int) -> tuple[int, int]:
    """The span of the sentence(s) that hold context[start:end]."""
    bounds = sentence_bounds(context)
    first = [b for b in bounds if b[0] <= start][-1]
    last = [b for b in bounds if b[0] < max(end, start + 1)][-1]
    return first[0], max(first[1], last[1])


# ------------------------------------------------------------------------------------------- loading


def _checked_substitutions(
    raw: Any, original: str, perturbed: str, *, path: str, where: str
) -> tuple[Mapping[str, Any], ...]:
    """The question's substitution records, each checked against both texts (the page highlights by offset)."""
    if not isinstance(raw, list) or not raw:
        raise InputError("changed question without a 'substitutions' list", path=path, where=where, hint=_BUILT_HINT)
    out = []
    for index, sub in enumerate(raw):
        if not isinstance(sub, dict) or any(key not in sub for key in _SUBSTITUTION_KEYS):
            raise InputError(
                f"substitutions[{index}] lacks one of {', '.join(_SUBSTITUTION_KEYS)}",
                path=path,
                where=where,
                hint=_BUILT_HINT,
            )
        try:
            start, end, new_start, new_end = (int(sub[k]) for k in ("start", "end", "new_start", "new_end"))
        except (TypeError, ValueError):
            raise InputError(
                f"substitutions[{index}] has a non-integer offset", path=path, where=where, hint=_BUILT_HINT
            ) from None
        if original[start:end] != sub["original"] or perturbed[new_start:new_end] != sub["replacement"]:
            raise InputError(
                f"substitutions[{index}] does not match the question's text at its offsets",
                path=path,
                where=where,
                hint=_BUILT_HINT,
            )
        out.append(dict(sub))
    return tuple(out)


def items_of(dataset: SquadDataset) -> list[ReviewItem]:
    """The changed questions of a built file, in file order."""
    path = dataset.path or "<data>"
    items = []
    for article in dataset.articles:
        for paragraph in article.paragraphs:
            if "original_context" in paragraph.extra:
                raise InputError(
                    "this file's contexts were edited; review covers question edits only",
                    path=path,
                    where=f"article '{article.title}'",
                    hint="review a file built with a recipe that edits questions only (see `robustqa recipes`)",
                )
            for q in paragraph.qas:
                if "original_question" not in q.extra or q.question == q.original_question:
                    continue
                where = f"article '{article.title}', question {q.id}"
                subs = _checked_substitutions(
                    q.extra.get("substitutions"), q.original_question, q.question, path=path, where=where
                )
                evidence: str | None
                evidence_answers, evidence = (
                    (q.answers, "answer")
                    if q.answers and not q.is_impossible
                    else (q.plausible_answers or (), "plausible answer")
                )
                sentence, span, s_start = "", None, 0
                if evidence_answers:
                    first = evidence_answers[0]
                    a_start, a_end = first.answer_start, first.answer_start + len(first.text)
                    if paragraph.context[a_start:a_end] != first.text:
                        raise InputError(
                            f"answer {first.text!r} is not at answer_start {a_start} of its context",
                            path=path,
                            where=where,
                            hint=_BUILT_HINT,
                        )
                    s_start, s_end = sentence_around(paragraph.context, a_start, a_end)
                    sentence, span = paragraph.context[s_start:s_end], (a_start - s_start, a_end - s_start)
                else:
                    evidence = None
                answers = () if q.is_impossible else tuple(dict.fromkeys(a.text for a in q.answers))
                items.append(
                    ReviewItem(
                        id=q.id,
                        source_id=q.source_id,
                        title=article.title,
                        original=q.original_question,
                        perturbed=q.question,
                        substitutions=subs,
                        answers=answers,
                        evidence=evidence,
                        sentence=sentence,
                        answer_span=span,
                        context=paragraph.context,
                        sentence_start=s_start,
                    )
                )
    return items


def _read_built(path: Path) -> tuple[SquadDataset, bytes]:
    raw, data = read_json_input(path, hint=_BUILT_HINT)
    dataset = parse_squad(raw, path=str(path))
    check_unique_ids(dataset)
    return dataset, data


def _signature_of(dataset: SquadDataset) -> str:
    signature = dataset.extra.get("signature")
    return signature if isinstance(signature, str) else ""


def load_built(path: str | Path) -> ReviewSet:
    """The review set of a built file, in seeded-shuffle order."""
    path = Path(path)
    dataset, data = _read_built(path)
    items = items_of(dataset)
    if not items:
        raise InputError(
            "no changed questions to review",
            path=str(path),
            hint="give a file written by `robustqa build-dataset` in which the recipe changed some questions",
        )
    items.sort(key=lambda item: (order_rank(item.source_id), item.id))
    return ReviewSet(path, sha256_hex(data), _signature_of(dataset), ORDER_SHUFFLED, tuple(items))


def _notes_by_id(examples: Sequence[Mapping[str, Any]]) -> dict[str, list[ModelNote]]:
    notes: dict[str, list[ModelNote]] = {}
    for example in examples:
        if example.get("perturbed_exact") is None:
            continue
        flipped = int(example["clean_exact"]) == 1 and int(example["perturbed_exact"]) != 1
        notes.setdefault(str(example["id"]), []).append(
            ModelNote(
                str(example["model"]),
                str(example.get("clean_prediction") or ""),
                str(example.get("perturbed_prediction") or ""),
                flipped,
            )
        )
    return notes


def load_run(run: str | Path, *, dataset: str | Path | None = None) -> ReviewSet:
    """The review set of a run folder: the changed questions of the perturbed file it evaluated, flipped first.

    `dataset` names that perturbed file when it is no longer where report.json says; it must be the same file
    (its sha256 prefix is in the run's signature).
    """
    from robustqa.runs.load import load_run as load_run_folder
    from robustqa.signature import Signature

    run = Path(run)
    folder = load_run_folder(run)
    examples = folder.examples  # read now: a folder without them is no run to review, whatever else it lacks
    recorded = folder.report.get("perturbed_file")
    if dataset is None and not recorded:
        raise InputError(
            "the run names no perturbed file",
            path=str(run / "report.json"),
            hint="review a run of `robustqa eval` with a perturbed set",
        )
    path = Path(dataset) if dataset is not None else Path(str(recorded))
    if not path.is_file():
        raise InputError(
            f"the perturbed file this run evaluated is not at {path}",
            path=str(run),
            hint="put it back, or name where it is now",
            setting="dataset",
        )
    built, data = _read_built(path)
    sha = sha256_hex(data)
    try:
        expected = Signature.parse(str(folder.report.get("signature", ""))).get("perturbed")
    except ValueError:
        expected = None
    if expected and not sha.startswith(expected):
        raise InputError(
            f"{path} is not the perturbed file this run evaluated (its sha256 starts {sha[:12]}, the run's {expected})",
            path=str(run),
            hint="name the file the run evaluated, unchanged",
        )
    notes = _notes_by_id(examples)
    items = [replace(item, notes=tuple(notes.get(item.id, ()))) for item in items_of(built)]
    if not items:
        raise InputError(
            "no changed questions to review", path=str(path), hint="the run's perturbed file has no changed question"
        )
    items.sort(key=lambda item: (-item.flipped_by, order_rank(item.id)))
    return ReviewSet(path, sha, _signature_of(built), ORDER_FLIPS_FIRST, tuple(items), run)


def load_review_set(path: str | Path, *, dataset: str | Path | None = None) -> ReviewSet:
    """A built file or a run folder, whichever `path` is."""
    path = Path(path)
    if path.is_dir():
        return load_run(path, dataset=dataset)
    return load_built(path)
