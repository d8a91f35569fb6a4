"""Build the reviewed benchmark robustqa ships (`robustqa-certified`): candidates, review sheets, the set.

QADS (Lin et al. 2020) generated WordNet substitutions and had people keep the ones that kept the meaning.
This does the same on the 6,078 questions of SQuAD 2.0's half dev set, with reviewers who are
language-model agents (said wherever the set is described):

1. `sheets`: build the candidates (a wide recipe, K variants per question), group each question's variants
   on one line (labels in a seeded random order, the recipe and the variant ids hidden), and deal the
   questions to sheets. Every reviewer first re-judges the 240 items of shared/validity/judged-pairs-v1
   (calibration.jsonl, same rules) so that their agreement with an earlier reviewer is on record.
2. Two reviewers per sheet, each alone, write judgments following RULES.md.
3. `assemble`: keep a variant where both reviewers say the meaning is kept and neither says it is broken;
   write the clean file and the certified variants into the package, with both judgments on every
   certified question, and print coverage, agreement and diversity for the dataset card.

    NLTK_DATA=../shared/nltk_data python tools/certify.py sheets
    NLTK_DATA=../shared/nltk_data python tools/certify.py assemble
"""

from __future__ import annotations

import argparse
import json
import random
import string
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

STUDY = REPO / "studies" / "certified-1"
SHARED = REPO.parent / "shared"
SOURCE = SHARED / "squad" / "squad2-dev-half.json"
CALIBRATION = SHARED / "validity" / "judged-pairs-v1.jsonl"
RECIPE, OVERRIDES, VARIANTS, SEED = "qads@1.1", {"max_substitutions": 1, "threshold": 0.0}, 5, 13
SHEETS = 12
DEAL_SEED = 2061  # the order questions are dealt to sheets, and each question's labels

# The judgment rules are those of shared/validity/README.md (judged-pairs-v1), verbatim; only the layout of
# a line (several variants of one question) and the output format are added.
RULES = """# Rules: does an edited question keep its meaning?

Each line of your sheet is one QUESTION about a Wikipedia passage, with the gold ANSWER (or "no answer":
the passage does not answer it), the SENTENCE of the passage that holds the answer (or a plausible wrong
answer), and VARIANTS: the question with a word (sometimes several words) replaced, labelled "a", "b", ...
Some variants are good, some are bad; judge each on its own.

The rules (verbatim from the rules of the earlier blind judgments):

- `same_meaning` (true/false): a reader of the passage would give the same answer (or still none, for the
  same reason). False for a wrong sense ("refuse" -> "garbage"), a broken fixed term ("particle physics" ->
  "natural philosophies", "combustion engine" -> "burning engine"), a changed question, or a question too
  garbled to recover. Mild stylistic oddity with the meaning intact is true.
- `fluency`: 3 natural English a person could have written; 2 understandable but awkward or slightly
  ungrammatical; 1 ungrammatical or nonsensical.
- `note`: the problem words.

Judge every variant yourself, by reading it; do not write a program that decides for you, and do not look
at any file other than your sheet, these rules and the file you write.

## What to write
One JSON line per sheet line, in the order of the sheet, to the file you are given. For every variant
label, `[same_meaning, fluency]`:
`{"item": 7, "judged": {"a": [true, 3], "b": [false, 2], "c": [true, 2]}, "note": "b: wrong sense of 'cell'"}`
Every label of the line must be judged; `note` may be empty.
"""


def _labels(n: int) -> list[str]:
    return list(string.ascii_lowercase[:n])


def write_jsonl(path: Path, rows: Iterable[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def candidates() -> Any:
    """The wide build every certified variant comes from (deterministic: recipe, overrides, seed)."""
    import perturbations
    from robustqa.build import build_dataset
    from robustqa.squad import load_squad

    recipe = perturbations.get_recipe(RECIPE, **OVERRIDES)
    return build_dataset(load_squad(SOURCE, check_answers=True), recipe, seed=SEED, variants=VARIANTS, workers=2, source=SOURCE.name)


def _answer(item: Any) -> str:
    return " | ".join(item.answers) if item.answers else "no answer"


def make_sheets(out: Path) -> None:
    from robustqa.review.items import items_of
    from robustqa.squad import parse_squad

    if any(STUDY.glob("sheet-*.jsonl")):
        sys.exit(f"{STUDY.relative_to(REPO)} already has sheets: a review is never redrawn in place")
    result = candidates()
    items = items_of(parse_squad(result.document, path="candidates"))
    by_source: dict[str, list[Any]] = {}
    for item in items:
        by_source.setdefault(item.source_id, []).append(item)
    order = sorted(by_source)
    random.Random(DEAL_SEED).shuffle(order)
    lines, key = [], []
    for number, source_id in enumerate(order, start=1):
        group = by_source[source_id]
        texts: dict[str, list[str]] = {}
        for item in group:  # one label per distinct text (two variants may read the same)
            texts.setdefault(item.perturbed, []).append(item.id)
        shown = list(texts)
        random.Random(f"{DEAL_SEED}:{source_id}").shuffle(shown)
        labels = _labels(len(shown))
        first = group[0]
        lines.append({
            "item": number,
            "question": first.original,
            "answer": _answer(first),
            "sentence": first.sentence,
            "variants": dict(zip(labels, shown)),
        })
        key.append({"item": number, "source_id": source_id, "variants": {label: texts[text] for label, text in zip(labels, shown)}})
    STUDY.mkdir(parents=True, exist_ok=True)
    (STUDY / "RULES.md").write_text(RULES, encoding="utf-8")
    for k in range(SHEETS):
        write_jsonl(STUDY / f"sheet-{k + 1:02d}.jsonl", lines[k::SHEETS])
    write_jsonl(STUDY / "key.jsonl", key)
    calibration, calibration_key = calibration_sheet()
    write_jsonl(STUDY / "calibration.jsonl", calibration)
    write_jsonl(STUDY / "calibration-key.jsonl", calibration_key)
    meta = {
        "source": SOURCE.name,
        "recipe": RECIPE,
        "overrides": OVERRIDES,
        "variants": VARIANTS,
        "seed": SEED,
        "deal_seed": DEAL_SEED,
        "sheets": SHEETS,
        "signature": result.document["signature"],
    }
    (STUDY / "meta.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    n_variants = sum(len(line["variants"]) for line in lines)
    print(f"{len(lines)} questions with {n_variants} distinct variants in {SHEETS} sheets; calibration: 120 questions, 240 variants")


def calibration_sheet() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """shared/validity/judged-pairs-v1 as a sheet: each question's two edited versions side by side, the
    earlier judgments and the tools hidden."""
    from robustqa.review.items import sentence_around
    from robustqa.squad import load_squad

    sentences = {}
    for article in load_squad(SOURCE).articles:
        for paragraph in article.paragraphs:
            for q in paragraph.qas:
                evidence = q.answers or q.plausible_answers
                if evidence:
                    start = evidence[0].answer_start
                    s, e = sentence_around(paragraph.context, start, start + len(evidence[0].text))
                    sentences[q.id] = paragraph.context[s:e]
    rows = read_jsonl(CALIBRATION)
    key: list[dict[str, Any]] = []
    by_id: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_id.setdefault(row["id"], []).append(row)
    order = sorted(by_id)
    random.Random(DEAL_SEED).shuffle(order)
    lines = []
    for number, qid in enumerate(order, start=1):
        pair = by_id[qid]
        random.Random(f"{DEAL_SEED}:{qid}").shuffle(pair)
        labels = _labels(len(pair))
        answer = pair[0]["answer"] if pair[0]["answerable"] else "no answer"
        lines.append({"item": number, "question": pair[0]["original"], "answer": answer, "sentence": sentences.get(qid, ""),
                      "variants": {label: row["perturbed"] for label, row in zip(labels, pair)}})
        key.append({"item": number, "id": qid, "judged": {label: [row["same_meaning"], row["fluency"]] for label, row in zip(labels, pair)}})
    return lines, key


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("sheets", help="build the candidates and write the review sheets")
    args = parser.parse_args()
    if args.command == "sheets":
        make_sheets(STUDY)


if __name__ == "__main__":
    main()
