"""Applying decisions to a built file: only questions reviewers accepted stay perturbed.

A changed question is kept perturbed when at least one reviewer judged it and every reviewer who judged it
accepted it. Otherwise it reverts to its original text: rejected when some reviewer rejected it, unreviewed
when nobody judged it (not decided, or skipped). An eval of the result then changes only accepted questions,
so its drop on changed questions measures reviewed-valid questions only. Each changed question gets a
`review` record saying which; the signature gains the decisions files' hashes and the three counts.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from robustqa.errors import InputError
from robustqa.review.decisions import (
    ACCEPTED,
    Decision,
    DecisionsFile,
    check_same_dataset,
    combined_status,
)
from robustqa.review.items import sha256_hex
from robustqa.review.status import DECISIONS, ReviewStatus
from robustqa.signature import VALIDATION, Signature
from robustqa.squad import QA_ORDER, ordered

UNREVIEWED = "unreviewed"


@dataclass(frozen=True)
class ValidationCounts:
    accepted: int
    rejected: int
    unreviewed: int


def _judgments(files: Sequence[DecisionsFile]) -> dict[str, list[tuple[str, Decision]]]:
    per_item: dict[str, list[tuple[str, Decision]]] = {}
    for f in files:
        for decision in f.judged():
            per_item.setdefault(decision.id, []).append((f.reviewer, decision))
    return per_item


def _review_record(qa: dict[str, Any], judgments: list[tuple[str, Decision]]) -> tuple[str, dict[str, Any]]:
    reviewers = sorted({reviewer for reviewer, _ in judgments})
    if not judgments:
        status = UNREVIEWED
    else:
        status = combined_status([d for _, d in judgments])
    record: dict[str, Any] = {"status": status}
    if status != UNREVIEWED:
        record["reviewers"] = reviewers
    if status == ACCEPTED:
        return status, record
    reasons = sorted({d.reason for _, d in judgments if d.reason})
    if reasons:
        record["reasons"] = reasons
    record["perturbed_question"] = qa["question"]
    record["substitutions"] = qa.get("substitutions", [])
    return status, record


def apply_to_document(
    document: dict[str, Any], files: Sequence[DecisionsFile], *, name: str, sha256: str | None = None
) -> tuple[dict[str, Any], ValidationCounts]:
    """`apply_decisions` for a document named `name`: `sha256` is of the reviewed bytes; without it, of the
    canonical serialisation of `document` (a build not written yet: it writes exactly these bytes)."""
    from robustqa.squad import dumps_squad

    if sha256 is None:
        sha256 = sha256_hex(dumps_squad(document).encode("utf-8"))
    return apply_decisions(document, files, dataset_sha256=sha256, dataset_name=name)


def apply_decisions(
    document: dict[str, Any], files: Sequence[DecisionsFile], *, dataset_sha256: str, dataset_name: str
) -> tuple[dict[str, Any], ValidationCounts]:
    """A copy of `document` (a built file, as decoded JSON) with the decisions applied, and the counts.

    Raises `InputError` if a decisions file was made for another file (sha256 mismatch) or decides a
    question that is not a changed question of this one.
    """
    if not files:
        raise InputError("no decisions files given", hint="give the decisions made on this file")
    for f in files:
        check_same_dataset(f, dataset_sha256, dataset_name)
    judgments = _judgments(files)
    out = copy.deepcopy(document)
    counts = {ACCEPTED: 0, "rejected": 0, UNREVIEWED: 0}
    seen: set[str] = set()
    for article in out.get("data", []):
        for paragraph in article.get("paragraphs", []):
            qas = paragraph.get("qas", [])
            for index, qa in enumerate(qas):
                if "original_question" not in qa:
                    continue
                seen.add(str(qa["id"]))
                status, record = _review_record(qa, judgments.get(str(qa["id"]), []))
                counts[status] += 1
                if status != ACCEPTED:
                    original = qa["original_question"]
                    qa = {k: v for k, v in qa.items() if k not in ("original_question", "substitutions")}
                    qa["question"] = original
                qa["review"] = record
                qas[index] = ordered(qa, QA_ORDER)
    for f in files:
        for decision in f.decisions:
            if decision.id not in seen:
                raise InputError(
                    f"question {decision.id} is not a changed question of {dataset_name}",
                    path=f.path,
                    hint="give the decisions made on this very file",
                )
    result = ValidationCounts(counts[ACCEPTED], counts["rejected"], counts[UNREVIEWED])
    _sign(out, files, dataset_sha256, result)
    return out, result


def _sign(
    document: dict[str, Any], files: Sequence[DecisionsFile], dataset_sha256: str, counts: ValidationCounts
) -> None:
    """Record the decisions in the signature (what reproduces the file) and in the metadata (who decided)."""
    old = document.get("signature")
    try:
        fields: dict[str, Any] = dict(Signature.parse(old).items) if isinstance(old, str) and old else {}
    except ValueError:
        raise InputError(
            f"the file's signature {old!r} is not a robustqa signature",
            hint="give a file written by `robustqa build-dataset`",
        ) from None
    fields.pop("robustqa", None)
    fields.update(
        VALIDATION.ordered(
            {
                "validated": [(f.file_sha256 or "")[:12] for f in files],
                "accepted": counts.accepted,
                "rejected": counts.rejected,
                "unreviewed": counts.unreviewed,
            }
        )
    )
    signature = Signature.create(fields)
    document["signature"] = signature.format()
    meta = document.setdefault("robustqa", {})
    meta["signature"] = signature.to_dict()
    meta["review"] = {
        "reviewed_sha256": dataset_sha256,
        "decisions": [
            {"name": f.label, "sha256": f.file_sha256, "reviewer": f.reviewer, "decided": len(f.decisions)}
            for f in files
        ],
        "counts": {"accepted": counts.accepted, "rejected": counts.rejected, "unreviewed": counts.unreviewed},
    }


def status_from_decisions(
    files: Sequence[DecisionsFile], perturbed_file: Path, changed_ids: Sequence[str]
) -> ReviewStatus:
    """The review of `perturbed_file` by these decisions files (made on its very bytes): a changed question
    is valid when at least one reviewer judged it and every reviewer who judged it accepted it."""
    sha256 = sha256_hex(Path(perturbed_file).read_bytes())
    for f in files:
        check_same_dataset(f, sha256, Path(perturbed_file).name)
    judged = _judgments(files)
    valid = frozenset(
        qid for qid in changed_ids if qid in judged and combined_status([d for _, d in judged[qid]]) == ACCEPTED
    )
    rejected = sum(1 for qid in changed_ids if qid in judged and qid not in valid)
    return ReviewStatus(
        DECISIONS,
        accepted=len(valid),
        rejected=rejected,
        unreviewed=len(changed_ids) - len(valid) - rejected,
        decisions=tuple((f.file_sha256 or "")[:12] for f in files),
        reviewers=tuple(sorted({f.reviewer for f in files})),
        valid_ids=valid,
    )
