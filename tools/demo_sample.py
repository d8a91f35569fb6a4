"""The demo's packaged sample: three held-out paragraphs drawn at random among those whose edits people judged valid.

The demo illustrates the idea on 30 questions; it must not show broken questions, and it must not be
picked where the model lost most (that overstates the drop). So:

1. `sheet`: shuffle the held-out paragraphs with 10 questions (seeded), take the first --paragraphs, build
   the default recipe on them and write every changed question to a review sheet (the blind-review rules
   of validity_review.py; one recipe only, so nothing is hidden but the reviewer never sees the tool).
2. A reviewer judges the sheet (`judgments.jsonl`).
3. `select`: among the drawn paragraphs whose every changed question keeps its meaning, take the first
   three in the same seeded order and write them as robustqa/data/squad2-sample.json.

    NLTK_DATA=../shared/nltk_data python tools/demo_sample.py sheet
    NLTK_DATA=../shared/nltk_data python tools/demo_sample.py select
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

# validity_review puts the checkout on sys.path and NLTK_DATA beside it, as every benchmark does

sys.path.insert(
    0, str(Path(__file__).resolve().parents[1] / "benchmarks")
)  # the measuring scripts' helpers: paths, JSONL, recorded sections
from _common import REPO, RULES, SHARED, changed_questions, read_jsonl, recorded, sentence_at, write_jsonl

HELDOUT = SHARED / "squad" / "squad2-dev-heldout.json"
FOLDER = REPO / "studies" / "validity" / "demo-sample"
SAMPLE = REPO / "robustqa" / "data" / "squad2-sample.json"
SEED = 2026
QUESTIONS_PER_PARAGRAPH = 10
KEEP = 3


def drawn_paragraphs(count: int) -> list[tuple[str, dict[str, Any]]]:
    """(article title, paragraph) of the first `count` held-out paragraphs with 10 questions, in seeded order."""
    document = json.loads(HELDOUT.read_text(encoding="utf-8"))
    paragraphs = [
        (a["title"], p) for a in document["data"] for p in a["paragraphs"] if len(p["qas"]) == QUESTIONS_PER_PARAGRAPH
    ]
    random.Random(SEED).shuffle(paragraphs)
    return paragraphs[:count]


def as_document(paragraphs: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    return {"version": "v2.0", "data": [{"title": title, "paragraphs": [paragraph]} for title, paragraph in paragraphs]}


def build(paragraphs: list[tuple[str, dict[str, Any]]]) -> tuple[dict[str, str], str]:
    """Changed question id -> perturbed text under the demo's recipe, and the build signature."""
    import perturbations
    from robustqa.build import build_dataset
    from robustqa.cli.demo_cmd import DEMO_RECIPE
    from robustqa.squad import parse_squad

    recipe = perturbations.get_recipe(DEMO_RECIPE)
    built = build_dataset(parse_squad(as_document(paragraphs)), recipe)
    return changed_questions(built.document), built.signature.format()


def make_sheet(args: argparse.Namespace) -> None:
    if FOLDER.exists() and any(FOLDER.iterdir()):
        raise SystemExit(f"{FOLDER} exists: a review is never redrawn in place")
    paragraphs = drawn_paragraphs(args.paragraphs)
    changed, signature = build(paragraphs)
    rows = []
    for _, paragraph in paragraphs:
        for qa in paragraph["qas"]:
            if qa["id"] not in changed:
                continue
            answers = qa.get("answers") or []
            rows.append(
                {
                    "item": f"D{len(rows) + 1:03d}",
                    "original": qa["question"],
                    "perturbed": changed[qa["id"]],
                    "answer": answers[0]["text"] if answers else None,
                    "answerable": bool(answers),
                    "sentence": sentence_at(paragraph["context"], answers[0]["answer_start"] if answers else None),
                    "id": qa["id"],
                }
            )
    FOLDER.mkdir(parents=True, exist_ok=True)
    (FOLDER / "RULES.md").write_text(RULES, encoding="utf-8")
    write_jsonl(FOLDER / "sheet.jsonl", rows)
    meta = {
        "source": HELDOUT.name,
        "seed": SEED,
        "paragraphs": [p["qas"][0]["id"] for _, p in paragraphs],
        "signature": signature,
    }
    (FOLDER / "meta.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    print(
        f"wrote {len(rows)} changed questions of {len(paragraphs)} paragraphs to {FOLDER.relative_to(REPO)}/sheet.jsonl"
    )


def select(args: argparse.Namespace) -> None:
    with recorded(__file__):
        _select()


def _select() -> None:
    meta = json.loads((FOLDER / "meta.json").read_text(encoding="utf-8"))
    sheet = {row["item"]: row for row in read_jsonl(FOLDER / "sheet.jsonl")}
    judged = {row["item"]: row for row in read_jsonl(FOLDER / "judgments.jsonl")}
    missing = sorted(set(sheet) - set(judged))
    if missing:
        raise SystemExit(f"{len(missing)} items are not judged yet (first {missing[0]})")
    invalid = {sheet[item]["id"] for item, row in judged.items() if not row["same_meaning"]}
    paragraphs = drawn_paragraphs(len(meta["paragraphs"]))
    changed, signature = build(paragraphs)
    if signature != meta["signature"] or set(changed) != {row["id"] for row in sheet.values()}:
        raise SystemExit("the default recipe no longer makes the judged questions: draw a new sheet")
    valid = [(title, p) for title, p in paragraphs if not any(qa["id"] in invalid for qa in p["qas"])]
    if len(valid) < KEEP:
        raise SystemExit(f"only {len(valid)} drawn paragraphs have only valid edits: draw more")
    chosen = valid[:KEEP]
    SAMPLE.write_text(json.dumps(as_document(chosen), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    kept = sum(1 for _, p in chosen for qa in p["qas"] if qa["id"] in changed)
    same = sum(1 for row in judged.values() if row["same_meaning"])
    fluency = [sum(1 for row in judged.values() if row["fluency"] == f) for f in (3, 2, 1)]
    print(
        f"Blind judgments of the {len(judged)} questions the default recipe ({signature.split('|')[0]}) changed in "
        f"{len(paragraphs)} random held-out paragraphs: {same} keep the meaning; "
        f"fluency 3/2/1: {fluency[0]}/{fluency[1]}/{fluency[2]}."
    )
    print(
        f"{len(valid)} of {len(paragraphs)} paragraphs have only valid edits; wrote {', '.join(t for t, _ in chosen)} "
        f"({kept} changed questions, all judged valid) to {SAMPLE.relative_to(REPO)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sheet = sub.add_parser("sheet", help="draw paragraphs and write the review sheet")
    sheet.add_argument("--paragraphs", type=int, default=8)
    sheet.set_defaults(run=make_sheet)
    sub.add_parser("select", help="write the sample from the judged sheet").set_defaults(run=select)
    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
