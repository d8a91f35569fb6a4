"""Training sets with variants beside the original questions (`robustqa augment`, `robustqa train --augment`).

The variants come from the one builder (`robustqa.build`, exactly what `build-dataset --variants` writes:
ids `<id>-vN`, `source_id`, edit records, answers rewritten span-safe) or from the packaged certified set
(only variants reviewers kept). Each original question stays as it was; its changed variants follow it in
the same paragraph (a variant with a rewritten context gets a paragraph of its own after it). A variant
equal to its original is dropped: it would only count the question twice.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import perturbations
from robustqa.build import DEFAULT_SEED, build_dataset
from robustqa.errors import InputError
from robustqa.signature import AUGMENT, Signature
from robustqa.squad import (
    SquadDataset,
    article_to_dict,
    check_unique_ids,
    document_to_dict,
    paragraph_to_dict,
    parse_squad,
)

CERTIFIED_SOURCE = "certified"


@dataclass(frozen=True)
class AugmentResult:
    """The augmented document (official SQuAD shape), its signature and what it holds."""

    document: dict[str, Any]
    signature: Signature
    originals: int
    variants: int


def data_hash(raw: bytes) -> str:
    """The short content hash signatures give a data file (12 hex digits of its sha256)."""
    return hashlib.sha256(raw).hexdigest()[:12]


def _variant_questions(document: dict[str, Any]) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """(context, paragraph fields, question) for every changed variant in a built or certified document."""
    out = []
    for article in document["data"]:
        for paragraph in article["paragraphs"]:
            fields = {k: v for k, v in paragraph.items() if k not in ("context", "qas")}
            for qa in paragraph["qas"]:
                changed = "original_question" in qa or "original_context" in paragraph
                if changed and qa.get("source_id"):
                    out.append((paragraph["context"], fields, qa))
    return out


def _merge(dataset: SquadDataset, variants: list[tuple[str, dict[str, Any], dict[str, Any]]], k: int | None):
    """The dataset's articles with up to `k` variants after each question whose id they name as source."""
    by_source: dict[str, list[tuple[str, dict[str, Any], dict[str, Any]]]] = defaultdict(list)
    for item in variants:
        if k is None or len(by_source[item[2]["source_id"]]) < k:
            by_source[item[2]["source_id"]].append(item)
    data, count = [], 0
    for article in dataset.articles:
        paragraphs: list[dict[str, Any]] = []
        for paragraph in article.paragraphs:
            own = paragraph_to_dict(paragraph)
            qas: list[dict[str, Any]] = []
            others: dict[str, tuple[dict[str, Any], list[dict[str, Any]]]] = {}
            for q, record in zip(paragraph.qas, own["qas"]):
                qas.append(record)
                for context, fields, variant in by_source.get(q.id, ()):
                    count += 1
                    if context == paragraph.context:
                        qas.append(variant)
                    else:
                        others.setdefault(context, (fields, []))[1].append(variant)
            paragraphs.append({**own, "qas": qas})
            paragraphs.extend(
                {**fields, "context": context, "qas": items} for context, (fields, items) in others.items()
            )
        data.append(article_to_dict(article, paragraphs))
    return data, count


def augment_with_recipe(
    dataset: SquadDataset,
    recipe: perturbations.Recipe,
    *,
    variants: int = 1,
    seed: int = DEFAULT_SEED,
    workers: int = 1,
    source_hash: str | None = None,
) -> AugmentResult:
    """The dataset with up to `variants` changed variants of each question, built by `recipe`."""
    check_unique_ids(dataset)
    built = build_dataset(dataset, recipe, seed=seed, variants=variants, workers=workers)
    data, count = _merge(dataset, _variant_questions(built.document), variants)
    base = {k: v for k, v in built.signature.items if k != "robustqa"}
    return _result(dataset, data, base, variants=variants, source=recipe.ident, source_hash=source_hash, count=count)


def augment_with_document(
    dataset: SquadDataset,
    document: dict[str, Any],
    *,
    variants: int | None = None,
    source_hash: str | None = None,
) -> AugmentResult:
    """The dataset with up to `variants` (all when None) of the variants `document` (the certified set, or
    any built file with `source_id`s) holds of its questions; variants of other questions are left out."""
    check_unique_ids(dataset)
    if variants is not None and variants < 1:
        raise InputError(f"variants must be at least 1, not {variants}")
    ids = {q.id for a in dataset.articles for p in a.paragraphs for q in p.qas}
    chosen = [item for item in _variant_questions(document) if item[2]["source_id"] in ids]
    data, count = _merge(dataset, chosen, variants)
    base = {"variants_signature": str(document.get("signature", "none"))}
    return _result(
        dataset, data, base, variants=variants, source=CERTIFIED_SOURCE, source_hash=source_hash, count=count
    )


def _result(
    dataset: SquadDataset,
    data: list[dict[str, Any]],
    base: dict[str, Any],
    *,
    variants: int | None,
    source: str,
    source_hash: str | None,
    count: int,
) -> AugmentResult:
    fields = AUGMENT.ordered(
        {"augment": source, "variants": variants if variants is not None else "all", "input": source_hash or "none"}
    )
    signature = Signature.create({**fields, **{k: v for k, v in base.items() if k not in fields}})
    document = document_to_dict(dataset.version, {"signature": signature.format()}, data)
    parse_squad(document, path=dataset.path or "<augmented>")  # the output reads back as SQuAD 2.0
    return AugmentResult(document, signature, len(dataset), count)
