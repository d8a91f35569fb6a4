"""Building a perturbed SQuAD 2.0 dataset from a clean one with a recipe.

The unit of work is a paragraph: its context is edited at most once (with every answer span of every
question frozen), then each question is perturbed with the paragraph as word-sense context. Every call
to the engine is keyed by the question id (or a hash of the context) and the seed, so a question's result
never depends on which other questions are in the file or in which order, or in which worker process,
paragraphs are handled; `workers=N` therefore writes the same bytes as one worker. (A context edit
depends on its paragraph's answer spans, which it must leave alone, so recipes that edit contexts make a
question's context depend on the other questions of its paragraph, and on nothing else.)
"""

from __future__ import annotations

import dataclasses
import hashlib
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import perturbations
from perturbations.edit_kinds import EDIT_KINDS
from perturbations.records import Perturbation, Substitution
from robustqa.errors import InputError, SpanIntegrityError
from robustqa.rewrite import apply_substitutions, rewrite_answers
from robustqa.signature import BUILD, Signature
from robustqa.squad import (
    PARAGRAPH_ORDER,
    QA_ORDER,
    Paragraph,
    Question,
    SquadDataset,
    article_to_dict,
    check_unique_ids,
    document_to_dict,
    paragraph_to_dict,
)

DEFAULT_RECIPE = "qads"
DEFAULT_SEED = 13
_OWN_QA_KEYS = frozenset(QA_ORDER)
_OWN_PARAGRAPH_KEYS = frozenset(PARAGRAPH_ORDER)


@dataclass(frozen=True)
class BuildSummary:
    """What a build did: the closing summary of the CLI and the `summary` record of the file."""

    questions: int = 0  # questions read
    written: int = 0  # questions written (more than read with --variants)
    changed: int = 0  # questions read of which at least one written variant differs from the source
    substitutions: int = 0  # substitutions in the written file (question and context edits)
    skipped: tuple[tuple[str, int], ...] = ()  # words left alone, per reason (default variant only)
    seconds: float = 0.0
    # substitutions written that a soft rule penalised, per rule (default variant only)
    penalised: tuple[tuple[str, int], ...] = ()
    gates: tuple[str, ...] = ()  # the recipe's validity gates (reasons), in recipe order; empty for recipes without
    ranks: tuple[str, ...] = ()  # the recipe's soft rules (reasons), in recipe order
    kinds: tuple[tuple[str, int], ...] = ()  # substitutions written, per edit kind (recipes that write kinds)
    kind_rules: str = ""  # the recipe's edit-kind rules; "" for recipes that write no kinds

    def merge(self, other: BuildSummary) -> BuildSummary:
        skipped = Counter(dict(self.skipped))
        skipped.update(dict(other.skipped))
        penalised = Counter(dict(self.penalised))
        penalised.update(dict(other.penalised))
        kinds = Counter(dict(self.kinds))
        kinds.update(dict(other.kinds))
        return BuildSummary(
            self.questions + other.questions,
            self.written + other.written,
            self.changed + other.changed,
            self.substitutions + other.substitutions,
            tuple(sorted(skipped.items())),
            self.seconds + other.seconds,
            tuple(sorted(penalised.items())),
            self.gates or other.gates,
            self.ranks or other.ranks,
            tuple(sorted(kinds.items())),
            self.kind_rules or other.kind_rules,
        )

    def gate_counts(self) -> dict[str, dict[str, int]]:
        """What each validity gate did, in the recipe's order (zeros included): `rejected`, the words each
        hard gate left alone (a word is counted under the first rule that rejects it, as in `skipped`);
        `penalised`, the written substitutions each soft rule penalised. Empty for recipes without gates."""
        if not self.gates and not self.ranks:
            return {}
        skipped, penalised = dict(self.skipped), dict(self.penalised)
        return {
            "rejected": {reason: skipped.get(reason, 0) for reason in self.gates},
            "penalised": {reason: penalised.get(reason, 0) for reason in self.ranks},
        }

    def kind_counts(self) -> dict[str, int]:
        """Substitutions written per edit kind, every kind (zeros included) in `EDIT_KINDS` order; empty for
        recipes that write no kinds."""
        if not self.kind_rules:
            return {}
        counts = dict(self.kinds)
        return {kind: counts.get(kind, 0) for kind in EDIT_KINDS}

    def to_file_dict(self) -> dict[str, Any]:
        """The reproducible part (no timings), as FORMATS.md specifies it; `gates` only for recipes that
        have validity gates (files of 1.1 recipes are unchanged), `kinds` only for recipes that write kinds."""
        record: dict[str, Any] = {
            "questions": self.questions,
            "changed": self.changed,
            "substitutions": self.substitutions,
            "skipped": dict(self.skipped),
        }
        gates = self.gate_counts()
        if gates:
            record["gates"] = gates
        if self.kind_rules:
            record["kinds"] = self.kind_counts()
        return record


@dataclass(frozen=True)
class BuildResult:
    document: dict[str, Any]
    signature: Signature
    summary: BuildSummary


@dataclass(frozen=True)
class _Unit:
    """One paragraph to build, with the article it belongs to."""

    article: int
    index: int  # of the paragraph in its article
    title: str
    paragraph: Paragraph


@dataclass(frozen=True)
class _UnitResult:
    article: int
    index: int
    paragraphs: tuple[dict[str, Any], ...]  # serialised in the worker (`paragraph_to_dict`): cheap to send back
    summary: BuildSummary = field(default_factory=BuildSummary)


def build_signature(recipe: perturbations.Recipe, *, seed: int, variants: int | None) -> Signature:
    """The signature of the state that runs: recipe and its parameters, variants, seed, WordNet version."""
    own = recipe.signature_fields()
    fields = own | {"variants": variants, "seed": seed, "wordnet": perturbations.wordnet_version()}
    return BUILD.create(fields, recipe_keys=[key for key in own if key != "recipe"])


def recipe_record(recipe: perturbations.Recipe) -> dict[str, Any]:
    """A recipe as the built file and `robustqa recipes --json` record it: name, version, fields, parameters,
    citation."""
    return {
        "name": recipe.name,
        "version": recipe.version,
        "fields": sorted(recipe.fields),
        "parameters": recipe.parameters(),
        "citation": recipe.citation,
    }


def context_key(context: str) -> str:
    """Contexts have no id; their text, hashed, keys their generator so it is independent of position."""
    return "context:" + hashlib.sha256(context.encode("utf-8")).hexdigest()[:16]


def _frozen_spans(paragraph: Paragraph) -> tuple[tuple[int, int], ...]:
    spans = set()
    for q in paragraph.qas:
        for answer in q.answers + (q.plausible_answers or ()):
            spans.add((answer.answer_start, answer.answer_start + len(answer.text)))
    return tuple(sorted(spans))


def build_paragraph(recipe: perturbations.Recipe, unit: _Unit, *, seed: int, variants: int | None) -> _UnitResult:
    """Perturb one paragraph (context once per variant, then each question) into output records."""
    paragraph = unit.paragraph
    count = variants or 1
    edits_context = "context" in recipe.fields
    edits_question = "question" in recipe.fields
    frozen = _frozen_spans(paragraph) if edits_context else ()
    skipped: Counter[str] = Counter()
    penalised: Counter[str] = Counter()
    kinds: Counter[str] = Counter()

    contexts: list[Perturbation | None] = []
    for k in range(count):
        if edits_context:
            cp = recipe.perturb(
                paragraph.context, seed=seed, key=context_key(paragraph.context), frozen_spans=frozen, variant=k
            )
            if k == 0:
                skipped.update(dict(cp.skipped))
                penalised.update(dict(cp.penalties))
            contexts.append(cp)
        else:
            contexts.append(None)
    rewrites = [
        apply_substitutions(
            paragraph.context,
            done.substitutions,
            where=f"article '{unit.title}', context {context_key(paragraph.context)}",
        )
        if done is not None
        else None
        for done in contexts
    ]
    for done, rw in zip(contexts, rewrites):
        if done is not None and rw is not None and rw.text != done.perturbed:
            raise SpanIntegrityError(
                f"article '{unit.title}': the engine's perturbed context differs from its own substitutions"
            )

    # output paragraphs, grouped by context text in order of first appearance: (paragraph fields, questions)
    groups: dict[str, tuple[dict[str, Any], list[Question]]] = {}
    changed = written = substitutions = 0
    for q in paragraph.qas:
        where = f"article '{unit.title}', question {q.id}"
        seen: set[tuple[str, str]] = set()
        q_changed = False
        for k in range(count):
            ctx, rw = contexts[k], rewrites[k]
            context_text = rw.text if rw is not None else paragraph.context
            if edits_question:
                qp = recipe.perturb(
                    q.question,
                    seed=seed,
                    key=q.id,
                    wsd_context=paragraph.context,
                    consistent_with=(ctx,) if ctx is not None else (),
                    variant=k,
                )
                if k == 0:
                    skipped.update(dict(qp.skipped))
                    penalised.update(dict(qp.penalties))
                if apply_substitutions(q.question, qp.substitutions, where=where).text != qp.perturbed:
                    raise SpanIntegrityError(
                        f"{where}: the engine's perturbed question differs from its own substitutions"
                    )
                question_text, question_subs = qp.perturbed, qp.substitutions
            else:
                question_text, question_subs = q.question, ()
            if (context_text, question_text) in seen:
                continue  # a variant equal to an earlier one
            seen.add((context_text, question_text))
            if rw is not None:
                answers = rewrite_answers(rw, q.answers, where=where)
                plausible = (
                    None if q.plausible_answers is None else rewrite_answers(rw, q.plausible_answers, where=where)
                )
            else:
                answers, plausible = q.answers, q.plausible_answers
            extra: dict[str, Any] = {}
            if variants is not None:
                extra["source_id"] = q.id
            if question_text != q.question:
                extra["original_question"] = q.question
                extra["substitutions"] = [s.to_dict() for s in question_subs]
                substitutions += len(question_subs)
                kinds.update(_kinds(question_subs))
            extra.update((key, value) for key, value in q.extra.items() if key not in _OWN_QA_KEYS)
            question = Question(
                id=q.id if variants is None else f"{q.id}-v{len(seen)}",
                question=question_text,
                answers=answers,
                is_impossible=q.is_impossible,
                plausible_answers=plausible,
                extra=extra,
            )
            q_changed = q_changed or question_text != q.question or context_text != paragraph.context
            written += 1
            if context_text not in groups:
                fields: dict[str, Any] = {}
                if context_text != paragraph.context and ctx is not None:
                    fields["original_context"] = paragraph.context
                    fields["context_substitutions"] = [s.to_dict() for s in ctx.substitutions]
                    substitutions += len(ctx.substitutions)
                    kinds.update(_kinds(ctx.substitutions))
                groups[context_text] = (fields, [])
            groups[context_text][1].append(question)
        changed += q_changed
    kept = {key: value for key, value in paragraph.extra.items() if key not in _OWN_PARAGRAPH_KEYS}
    if not paragraph.qas:  # keep question-less paragraphs as they were
        groups[paragraph.context] = ({}, [])
    paragraphs = tuple(
        paragraph_to_dict(Paragraph(context, tuple(questions), {**own, **kept}))
        for context, (own, questions) in groups.items()
    )
    summary = BuildSummary(
        len(paragraph.qas),
        written,
        changed,
        substitutions,
        tuple(sorted(skipped.items())),
        penalised=tuple(sorted(penalised.items())),
        kinds=tuple(sorted(kinds.items())),
    )
    return _UnitResult(unit.article, unit.index, paragraphs, summary)


def _kinds(records: Sequence[Substitution]) -> list[str]:
    """The kinds the records carry (none for records of recipes that write no kinds)."""
    return [record.kind for record in records if record.kind]


def texts_to_prepare(recipe: perturbations.Recipe, dataset: SquadDataset) -> list[perturbations.TextToPerturb]:
    """The texts a build of `dataset` perturbs, with the arguments that decide their search spaces."""
    out: list[perturbations.TextToPerturb] = []
    for article in dataset.articles:
        for paragraph in article.paragraphs:
            if "context" in recipe.fields:
                out.append(perturbations.TextToPerturb(paragraph.context, None, _frozen_spans(paragraph)))
            if "question" in recipe.fields:
                out.extend(perturbations.TextToPerturb(q.question, paragraph.context) for q in paragraph.qas)
    return out


# --- parallel building ------------------------------------------------------------------------------

_WORKER: dict[str, Any] = {}


def _init_worker(recipe: perturbations.Recipe, seed: int, variants: int | None) -> None:
    _WORKER.update(recipe=recipe, seed=seed, variants=variants)


def _build_chunk(units: Sequence[_Unit]) -> list[_UnitResult]:
    recipe, seed, variants = _WORKER["recipe"], _WORKER["seed"], _WORKER["variants"]
    return [build_paragraph(recipe, unit, seed=seed, variants=variants) for unit in units]


def _article_chunks(units: Sequence[_Unit], workers: int) -> list[list[_Unit]]:
    """Contiguous paragraphs of one article per chunk, largest chunks first.

    Most of the engine's time goes into first look-ups that its caches then keep (senses, Lesk
    signatures); a worker that handles whole articles meets the article's words again, where
    interleaved paragraphs would make every worker look up every article's words. Chunks are about a
    quarter of a worker's share, so handing out the largest first leaves little idle time at the end.
    """
    total = sum(len(u.paragraph.qas) for u in units)
    target = max(1, -(-total // (workers * 4)))
    chunks: list[list[_Unit]] = []
    size = 0
    for unit in units:
        if not chunks or chunks[-1][0].article != unit.article or size >= target:
            chunks.append([])
            size = 0
        chunks[-1].append(unit)
        size += len(unit.paragraph.qas)
    return sorted(chunks, key=lambda c: -sum(len(u.paragraph.qas) for u in c))


def _run_units(
    recipe: perturbations.Recipe,
    units: Sequence[_Unit],
    *,
    seed: int,
    variants: int | None,
    workers: int,
    progress: Callable[[int], None] | None,
) -> Iterator[_UnitResult]:
    """Results of every unit, in any order (callers place them by `article`/`index`)."""
    if workers <= 1 or len(units) < 2:
        for unit in units:
            result = build_paragraph(recipe, unit, seed=seed, variants=variants)
            if progress:
                progress(result.summary.questions)
            yield result
        return
    chunks = _article_chunks(units, workers)
    for results in perturbations.map_in_workers(
        _build_chunk,
        chunks,
        workers=workers,
        initializer=_init_worker,
        initargs=(recipe, seed, variants),
        warm_up=(recipe,),
    ):
        for result in results:
            if progress:
                progress(result.summary.questions)
            yield result


def build_dataset(
    dataset: SquadDataset,
    recipe: perturbations.Recipe,
    *,
    seed: int = DEFAULT_SEED,
    variants: int | None = None,
    workers: int = 1,
    source: str | None = None,
    progress: Callable[[int], None] | None = None,
    prepare_progress: Callable[[int], None] | None = None,
) -> BuildResult:
    """Perturb every question (and/or context) of `dataset`; return the document to write and its summary.

    A recipe whose rules work in batches (a language model: `Recipe.prepares`) first prepares every text
    (`prepare_progress(1)` after each of `texts_to_prepare`); the output is the same without it, only slower.

    Raises `InputError` for datasets that cannot be built (no questions, duplicate ids, bad `variants`)
    and `SpanIntegrityError` if any answer would not match its rewritten context.
    """
    if variants is not None and variants < 1:
        raise InputError(f"variants must be at least 1, not {variants}")
    if workers < 1:
        raise InputError(f"workers must be at least 1, not {workers}")
    if len(dataset) == 0:
        raise InputError(
            "no questions to perturb", path=dataset.path, hint="give a SQuAD 2.0 file with at least one question"
        )
    check_unique_ids(dataset)
    started = time.perf_counter()
    signature = build_signature(recipe, seed=seed, variants=variants)
    units = [
        _Unit(a_index, p_index, article.title, paragraph)
        for a_index, article in enumerate(dataset.articles)
        for p_index, paragraph in enumerate(article.paragraphs)
    ]
    if recipe.prepares:
        recipe.prepare(texts_to_prepare(recipe, dataset), progress=prepare_progress)
    built: dict[tuple[int, int], tuple[dict[str, Any], ...]] = {}
    summary = BuildSummary()
    for result in _run_units(recipe, units, seed=seed, variants=variants, workers=workers, progress=progress):
        built[result.article, result.index] = result.paragraphs
        summary = summary.merge(result.summary)  # sums: the order results arrive in does not matter
    data = [
        article_to_dict(article, [p for p_index in range(len(article.paragraphs)) for p in built[a_index, p_index]])
        for a_index, article in enumerate(dataset.articles)
    ]
    perturbations.save_cache()  # the lexicon tables this build computed, for the next one (skipped if unwritable)
    summary = dataclasses.replace(
        summary,
        seconds=time.perf_counter() - started,
        gates=recipe.gate_reasons(),
        ranks=recipe.penalty_reasons(),
        kind_rules=recipe.kind_rules,
    )
    provenance = {
        "signature": signature.to_dict(),
        "recipe": recipe_record(recipe),
        "source": source if source is not None else (Path(dataset.path).name if dataset.path else None),
        "summary": summary.to_file_dict(),
    }
    document = document_to_dict(dataset.version, {"signature": signature.format(), "robustqa": provenance}, data)
    return BuildResult(document, signature, summary)
