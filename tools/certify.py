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


JUDGMENTS = STUDY / "judgments"  # <reviewer>.jsonl and <reviewer>-calibration.jsonl; reviewer A<k>, B<k> judged sheet k
PACKAGE = REPO / "robustqa" / "data" / "certified"
SET_NAME = "certified@1"


def reviewer_files() -> dict[int, tuple[Path, Path]]:
    """Sheet number -> the two reviewers' judgment files, for the sheets both have finished."""
    out = {}
    for k in range(1, SHEETS + 1):
        pair = (JUDGMENTS / f"A{k:02d}.jsonl", JUDGMENTS / f"B{k:02d}.jsonl")
        if all(p.exists() for p in pair):
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


def calibration_agreement(reviewer: str) -> dict[str, Any] | None:
    """A reviewer's agreement with shared/validity/judged-pairs-v1 on the 240 calibration items."""
    from robustqa.review.stats import cohen_kappa

    path = JUDGMENTS / f"{reviewer}-calibration.jsonl"
    if not path.exists():
        return None
    mine = _verdicts(STUDY / "calibration.jsonl", path)
    theirs, ours = [], []
    for row in read_jsonl(STUDY / "calibration-key.jsonl"):
        for label, (same, _fluency) in row["judged"].items():
            theirs.append(bool(same))
            ours.append(mine[row["item"]][label][0])
    agree = sum(a == b for a, b in zip(theirs, ours))
    return {"reviewer": reviewer, "items": len(theirs), "agreement": agree / len(theirs), "kappa": cohen_kappa(theirs, ours),
            "same_meaning_share": sum(ours) / len(ours), "v1_same_meaning_share": sum(theirs) / len(theirs)}


def certified_verdicts() -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    """variant id -> both reviewers' judgments, for every variant of every finished sheet; and the counts
    behind the card (agreement between the two reviewers of a sheet)."""
    from robustqa.review.stats import cohen_kappa

    key = {row["item"]: row for row in read_jsonl(STUDY / "key.jsonl")}
    verdicts: dict[str, dict[str, Any]] = {}
    first_all, second_all = [], []
    finished = reviewer_files()
    for k, (first, second) in finished.items():
        sheet = STUDY / f"sheet-{k:02d}.jsonl"
        a, b = _verdicts(sheet, first), _verdicts(sheet, second)
        for item, labels in a.items():
            for label, (same_a, fluency_a) in labels.items():
                same_b, fluency_b = b[item][label]
                first_all.append(same_a)
                second_all.append(same_b)
                ids = key[item]["variants"][label]
                verdicts[ids[0]] = {  # identical texts share a label: the first variant stands for them
                    "reviewers": [
                        {"reviewer": first.stem, "same_meaning": same_a, "fluency": fluency_a},
                        {"reviewer": second.stem, "same_meaning": same_b, "fluency": fluency_b},
                    ],
                    "certified": same_a and same_b and min(fluency_a, fluency_b) >= 2,
                }
    counts = {
        "sheets": sorted(finished),
        "variants_judged": len(first_all),
        "kappa": cohen_kappa(first_all, second_all),
        "agreement": sum(x == y for x, y in zip(first_all, second_all)) / max(len(first_all), 1),
    }
    return verdicts, counts


def _sha12(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


def assemble() -> None:
    """Write robustqa/data/certified/: the clean file and the certified variants, and print the card's figures."""
    import shutil
    from collections import Counter

    verdicts, counts = certified_verdicts()
    sheets_done = counts["sheets"]
    if len(sheets_done) < SHEETS:
        print(f"warning: only sheets {sheets_done} have both reviews; the set covers their questions only", file=sys.stderr)
    document = candidates().document
    kept_total, per_question, pairs = 0, Counter(), Counter()
    judged_sources = set()
    data = []
    for article in document["data"]:
        paragraphs = []
        for paragraph in article["paragraphs"]:
            qas = []
            for qa in paragraph["qas"]:
                verdict = verdicts.get(qa["id"])
                if "source_id" in qa and qa["id"] in verdicts:
                    judged_sources.add(qa["source_id"])
                if verdict is None or not verdict["certified"]:
                    continue
                qas.append({**qa, "review": verdict["reviewers"]})
                per_question[qa["source_id"]] += 1
                for sub in qa["substitutions"]:
                    pairs[(sub["original"].lower(), sub["replacement"].lower())] += 1
            if qas:
                paragraphs.append({**paragraph, "qas": qas})
        if paragraphs:
            data.append({**article, "paragraphs": paragraphs})
    kept_total = sum(per_question.values())
    calibration = [c for c in (calibration_agreement(f"{side}{k:02d}") for k in sheets_done for side in "AB") if c]
    meta_study = json.loads((STUDY / "meta.json").read_text(encoding="utf-8"))
    source_questions = sum(len(p["qas"]) for a in json.loads(SOURCE.read_text(encoding="utf-8"))["data"] for p in a["paragraphs"])
    signature = "|".join([
        f"shift:{SET_NAME}",
        f"source:{SOURCE.name}#{_sha12(SOURCE)}",
        f"candidates:{RECIPE} max_substitutions=1 threshold=0 variants={VARIANTS} seed={SEED}",
        "reviewers:2 language-model agents per variant (not people)",
        "kept:both same meaning and neither fluency 1",
        f"kappa:{counts['kappa']:.3f}",
        f"judgments:{_judgments_sha()}",
        "robustqa:0.1.0",
    ])
    top_pair, top_count = pairs.most_common(1)[0] if pairs else (("-", "-"), 0)
    summary = {
        "name": SET_NAME,
        "source": SOURCE.name,
        "source_questions": source_questions,
        "candidate_signature": meta_study["signature"],
        "questions_judged": len(judged_sources),
        "variants_judged": counts["variants_judged"],
        "variants_certified": kept_total,
        "questions_certified": len(per_question),
        "coverage": len(per_question) / source_questions,
        "variants_per_question": dict(sorted(Counter(per_question.values()).items())),
        "kappa": counts["kappa"],
        "agreement": counts["agreement"],
        "distinct_pairs": len(pairs),
        "top_pair": f"{top_pair[0]} -> {top_pair[1]}",
        "top_pair_share": top_count / max(sum(pairs.values()), 1),
        "calibration": calibration,
    }
    out = {
        "version": "v2.0",
        "signature": signature,
        "robustqa": {
            "set": summary,
            "review": {
                "counts": {"accepted": kept_total, "rejected": counts["variants_judged"] - kept_total, "unreviewed": 0},
                "decisions": [{"reviewer": "two language-model agents per variant (not people)", "sha256": _judgments_sha(full=True)}],
            },
        },
        "data": data,
    }
    PACKAGE.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(SOURCE, PACKAGE / "squad2-dev-half.json")
    (PACKAGE / "certified-v1.json").write_text(json.dumps(out, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")
    (STUDY / "summary.json").write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps(summary, indent=2, ensure_ascii=False))


def _judgments_sha(full: bool = False) -> str:
    import hashlib

    digest = hashlib.sha256()
    for path in sorted(JUDGMENTS.glob("*.jsonl")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    text = digest.hexdigest()
    return text if full else text[:12]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("sheets", help="build the candidates and write the review sheets")
    sub.add_parser("assemble", help="write the certified set from the judgments into the package")
    args = parser.parse_args()
    if args.command == "sheets":
        make_sheets(STUDY)
    elif args.command == "assemble":
        assemble()


if __name__ == "__main__":
    main()
