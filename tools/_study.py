"""What the certification study's files say: every judged variant with both reviewers' judgments, and what each
sheet showed (shared by `certify.py`, which made the study, and `train_judge.py`, which learns from it)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(
    0, str(Path(__file__).resolve().parents[1] / "benchmarks")
)  # the measuring scripts' helpers: paths, JSONL
from _common import REPO, SHARED, read_jsonl

STUDY = REPO / "studies" / "certified-1"
SOURCE = SHARED / "squad" / "squad2-dev-half.json"
SHEETS = 12
JUDGMENTS = STUDY / "judgments"  # <reviewer>.jsonl and <reviewer>-calibration.jsonl; reviewer A<k>, B<k> judged sheet k


# round -> (sheet file, key file, the two reviewers' prefixes); reviewer <prefix><k> judged sheet k of the round
ROUNDS = {
    1: ("sheet-{k:02d}.jsonl", "key.jsonl", ("A", "B")),
    2: ("wide-sheet-{k:02d}.jsonl", "wide-key-{k:02d}.jsonl", ("C", "D")),
}


def reviewer_files(round_: int) -> dict[int, tuple[Path, Path]]:
    """Sheet number -> the two reviewers' judgment files, for the round's sheets both have finished."""
    out = {}
    for k in range(1, SHEETS + 2):
        first, second = ROUNDS[round_][2]
        pair = (JUDGMENTS / f"{first}{k:02d}.jsonl", JUDGMENTS / f"{second}{k:02d}.jsonl")
        if all(p.exists() for p in pair) and (STUDY / ROUNDS[round_][0].format(k=k)).exists():
            out[k] = pair
    return out


def _verdicts(sheet: Path, judged: Path) -> dict[int, dict[str, tuple[bool, int]]]:
    """item -> label -> (same meaning, fluency), checked against the sheet (every label judged)."""
    rows = {row["item"]: row for row in read_jsonl(judged)}
    out = {}
    for line in read_jsonl(sheet):
        row = rows.get(line["item"])
        if row is None:
            sys.exit(f"{judged.relative_to(REPO)}: item {line['item']} of {sheet.name} has no judgment")
        verdict = {}
        for label in line["variants"]:
            same, fluency = row["judged"][label]
            verdict[label] = (bool(same), int(fluency))
        out[line["item"]] = verdict
    return out


def certified_verdicts(rounds: tuple[int, ...] = (1, 2)) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    """variant id -> both reviewers' judgments (and, for round 2, the variant itself), for every variant of
    every finished sheet; and the counts behind the card (agreement between the two reviewers of a sheet)."""
    from robustqa.review.agreement import cohen_kappa

    verdicts: dict[str, dict[str, Any]] = {}
    first_all, second_all = [], []
    finished = {}
    for round_ in rounds:
        sheet_name, key_name, _ = ROUNDS[round_]
        done = reviewer_files(round_)
        finished[round_] = sorted(done)
        for k, (first, second) in done.items():
            sheet = STUDY / sheet_name.format(k=k)
            key = {row["item"]: row for row in read_jsonl(STUDY / key_name.format(k=k))}
            a, b = _verdicts(sheet, first), _verdicts(sheet, second)
            for item, labels in a.items():
                for label, (same_a, fluency_a) in labels.items():
                    same_b, fluency_b = b[item][label]
                    first_all.append(same_a)
                    second_all.append(same_b)
                    shown = key[item]["variants"][label]
                    variant = shown if isinstance(shown, dict) else None
                    variant_id = (
                        variant["id"] if variant else shown[0]
                    )  # identical texts share a label: the first stands for them
                    verdicts[variant_id] = {
                        "round": round_,
                        "source_id": key[item]["source_id"],
                        "variant": variant,
                        "reviewers": [
                            {"reviewer": first.stem, "same_meaning": same_a, "fluency": fluency_a},
                            {"reviewer": second.stem, "same_meaning": same_b, "fluency": fluency_b},
                        ],
                        "certified": same_a and same_b and min(fluency_a, fluency_b) >= 2,
                    }
    counts = {
        "sheets": finished,
        "variants_judged": len(first_all),
        "kappa": cohen_kappa(first_all, second_all),
        "agreement": sum(x == y for x, y in zip(first_all, second_all)) / max(len(first_all), 1),
    }
    return verdicts, counts


def shown_variants() -> dict[str, dict[str, str]]:
    """Every judged variant by id, as its sheet showed it: question, answer, sentence and the variant."""
    out = {}
    for sheet_name, key_name, _ in ROUNDS.values():
        for k in range(1, SHEETS + 2):
            sheet, key = STUDY / sheet_name.format(k=k), STUDY / key_name.format(k=k)
            if not sheet.exists() or not key.exists():
                continue
            keyed = {row["item"]: row for row in read_jsonl(key)}
            for line in read_jsonl(sheet):
                for label, text in line["variants"].items():
                    shown = keyed[line["item"]]["variants"][label]
                    variant_id = shown["id"] if isinstance(shown, dict) else shown[0]
                    out[variant_id] = {
                        "question": line["question"],
                        "answer": line["answer"],
                        "sentence": line["sentence"],
                        "edited": text,
                    }
    return out
