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
from pathlib import Path
from typing import Any

sys.path.insert(
    0, str(Path(__file__).resolve().parents[1] / "benchmarks")
)  # the measuring scripts' helpers: paths, JSONL
sys.path.insert(0, str(Path(__file__).resolve().parent))  # _study: the study's files (also when loaded by path)
from _study import (
    JUDGMENTS,
    SHEETS,
    SOURCE,
    STUDY,
    _verdicts,
    certified_verdicts,
    shown_variants,
)

from _common import REPO, SHARED, read_jsonl, write_jsonl

CALIBRATION = SHARED / "validity" / "judged-pairs-v1.jsonl"
RECIPE, OVERRIDES, VARIANTS, SEED = "qads@1.1", {"max_substitutions": 1, "threshold": 0.0}, 5, 13
DEAL_SEED = 2061  # the order questions are dealt to sheets, and each question's labels

# The judgment rules are those of shared/validity/README.md (judged-pairs-v1), verbatim; only the layout of
# a line (several variants of one question) and the output format are added.
JUDGMENT_RULES = """The rules (verbatim from the rules of the earlier blind judgments):

- `same_meaning` (true/false): a reader of the passage would give the same answer (or still none, for the
  same reason). False for a wrong sense ("refuse" -> "garbage"), a broken fixed term ("particle physics" ->
  "natural philosophies", "combustion engine" -> "burning engine"), a changed question, or a question too
  garbled to recover. Mild stylistic oddity with the meaning intact is true.
- `fluency`: 3 natural English a person could have written; 2 understandable but awkward or slightly
  ungrammatical; 1 ungrammatical or nonsensical.
- `note`: the problem words.
"""

RULES = (
    """# Rules: does an edited question keep its meaning?

Each line of your sheet is one QUESTION about a Wikipedia passage, with the gold ANSWER (or "no answer":
the passage does not answer it), the SENTENCE of the passage that holds the answer (or a plausible wrong
answer), and VARIANTS: the question with a word (sometimes several words) replaced, labelled "a", "b", ...
Some variants are good, some are bad; judge each on its own.

"""
    + JUDGMENT_RULES
    + """
Judge every variant yourself, by reading it; do not write a program that decides for you, and do not look
at any file other than your sheet, these rules and the file you write.

## What to write
One JSON line per sheet line, in the order of the sheet, to the file you are given. For every variant
label, `[same_meaning, fluency]`:
`{"item": 7, "judged": {"a": [true, 3], "b": [false, 2], "c": [true, 2]}, "note": "b: wrong sense of 'cell'"}`
Every label of the line must be judged; `note` may be empty.
"""
)


def _labels(n: int) -> list[str]:
    return list(string.ascii_lowercase[:n])


def candidates() -> Any:
    """The wide build every certified variant comes from (deterministic: recipe, overrides, seed)."""
    import perturbations
    from robustqa.build import build_dataset
    from robustqa.squad import load_squad

    recipe = perturbations.get_recipe(RECIPE, **OVERRIDES)
    return build_dataset(
        load_squad(SOURCE, check_answers=True), recipe, seed=SEED, variants=VARIANTS, workers=2, source=SOURCE.name
    )


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
        lines.append(
            {
                "item": number,
                "question": first.original,
                "answer": _answer(first),
                "sentence": first.sentence,
                "variants": dict(zip(labels, shown)),
            }
        )
        key.append(
            {
                "item": number,
                "source_id": source_id,
                "variants": {label: texts[text] for label, text in zip(labels, shown)},
            }
        )
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
    print(
        f"{len(lines)} questions with {n_variants} distinct variants in {SHEETS} sheets; "
        "calibration: 120 questions, 240 variants"
    )


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
        lines.append(
            {
                "item": number,
                "question": pair[0]["original"],
                "answer": answer,
                "sentence": sentences.get(qid, ""),
                "variants": {label: row["perturbed"] for label, row in zip(labels, pair)},
            }
        )
        key.append(
            {
                "item": number,
                "id": qid,
                "judged": {label: [row["same_meaning"], row["fluency"]] for label, row in zip(labels, pair)},
            }
        )
    return lines, key


WIDE_PER_WORD = 4  # round 2: at most this many synonyms of each word, most frequent sense first
WIDE_MAX = 10  # round 2: at most this many new variants of a question


def wide_recipe() -> Any:
    """Round 2's space: QADS's positions with no validity gate, every single-word synonym of any sense of
    one content word, common enough to read (Zipf >= 2.5, at most 2.5 below the word): the reviewers are
    the gate (the space of benchmarks/coverage_ceiling.py)."""
    from perturbations.builtin_recipes import constraints_1_1
    from perturbations.constraints.replacements import Rarity, SingleWord
    from perturbations.recipes import Recipe
    from perturbations.synonyms import AnySynonyms
    from perturbations.transformation import Budget

    return Recipe(
        name="certify-wide",
        version="1",
        fields=frozenset({"question"}),
        citation="tools/certify.py round 2",
        description="every single-word WordNet synonym of any sense of one content word",
        transformation=AnySynonyms(),
        constraints=(*constraints_1_1(), SingleWord(), Rarity(floor=2.5, max_drop=2.5)),
        budget=Budget(rate=1.0, min_substitutions=1, max_substitutions=1),
    )


def wide_variants(recipe: Any, question: str, context: str, seen: set[str]) -> list[dict[str, Any]]:
    """Round 2's new one-edit variants of a question (texts not judged before), with their edit records."""
    from perturbations.engine import apply_edits, build_space

    space = build_space(recipe, question, wsd_context=context)
    out: list[dict[str, Any]] = []
    for position in space.positions:
        for replacement in position.candidates[:WIDE_PER_WORD]:
            result = apply_edits(space, {position.index: replacement})
            if result.perturbed == question or result.perturbed in seen:
                continue
            seen.add(result.perturbed)
            out.append({"question": result.perturbed, "substitutions": result.to_dict()["substitutions"]})
    return out[:WIDE_MAX]


def make_wide_sheet(k: int) -> None:
    """Round 2 for round 1's sheet k, once both its reviews are in: every question of it without a certified
    variant a reviewer found natural gets the wider space's other variants, on sheet wide-<k>. Sheet
    SHEETS + 1 holds the questions the wide build left unchanged (round 1 had no variant of them)."""
    from robustqa.squad import load_squad

    target = STUDY / f"wide-sheet-{k:02d}.jsonl"
    if target.exists():
        sys.exit(f"{target.relative_to(REPO)} exists: a review is never redrawn in place")
    verdicts, _ = certified_verdicts(rounds=(1,))
    key = read_jsonl(STUDY / "key.jsonl")
    items = {line["item"] for line in read_jsonl(STUDY / f"sheet-{k:02d}.jsonl")} if k <= SHEETS else set()
    shown_texts: dict[str, set[str]] = {}
    natural: set[str] = set()
    sheet_sources = []
    for row in key:
        ids = [i for label_ids in row["variants"].values() for i in label_ids]
        if row["item"] in items:
            sheet_sources.append(row["source_id"])
        for variant_id in ids:
            verdict = verdicts.get(variant_id)
            if verdict and verdict["certified"] and max(r["fluency"] for r in verdict["reviewers"]) == 3:
                natural.add(row["source_id"])
    examples = {}
    for article in load_squad(SOURCE).articles:
        for paragraph in article.paragraphs:
            for q in paragraph.qas:
                examples[q.id] = (q, paragraph.context)
    if k == SHEETS + 1:  # the questions round 1 had no variant of
        in_key = {row["source_id"] for row in key}
        sheet_sources += [qid for qid in examples if qid not in in_key]
    candidates_text = {}
    for line in read_jsonl(STUDY / f"sheet-{k:02d}.jsonl") if k <= SHEETS else []:
        shown_texts[line["question"]] = set(line["variants"].values())
    recipe = wide_recipe()
    lines, key_rows = [], []
    for source_id in sheet_sources:
        if source_id in natural:
            continue
        q, context = examples[source_id]
        seen = set(shown_texts.get(q.question, set()))
        new = wide_variants(recipe, q.question, context, seen)
        if not new:
            continue
        random.Random(f"{DEAL_SEED}:wide:{source_id}").shuffle(new)
        labels = _labels(len(new))
        evidence = q.answers or q.plausible_answers
        sentence = ""
        if evidence:
            from robustqa.review.items import sentence_around

            start = evidence[0].answer_start
            s0, e0 = sentence_around(context, start, start + len(evidence[0].text))
            sentence = context[s0:e0]
        number = 100000 * k + len(lines) + 1
        answer = (
            " | ".join(dict.fromkeys(a.text for a in q.answers)) if q.answers and not q.is_impossible else "no answer"
        )
        lines.append(
            {
                "item": number,
                "question": q.question,
                "answer": answer,
                "sentence": sentence,
                "variants": {label: v["question"] for label, v in zip(labels, new)},
            }
        )
        key_rows.append(
            {
                "item": number,
                "source_id": source_id,
                "variants": {
                    label: dict(v, id=f"{source_id}-w{i + 1}") for i, (label, v) in enumerate(zip(labels, new))
                },
            }
        )
        candidates_text[source_id] = len(new)
    write_jsonl(target, lines)
    write_jsonl(STUDY / f"wide-key-{k:02d}.jsonl", key_rows)
    print(f"wide sheet {k}: {len(lines)} questions, {sum(len(line['variants']) for line in lines)} variants")


PACKAGE = REPO / "robustqa" / "data" / "certified"
SET_NAME = "certified@1"


def calibration_agreement(reviewer: str) -> dict[str, Any] | None:
    """A reviewer's agreement with shared/validity/judged-pairs-v1 on the 240 calibration items."""
    from robustqa.review.agreement import cohen_kappa

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
    return {
        "reviewer": reviewer,
        "items": len(theirs),
        "agreement": agree / len(theirs),
        "kappa": cohen_kappa(theirs, ours),
        "same_meaning_share": sum(ours) / len(ours),
        "v1_same_meaning_share": sum(theirs) / len(theirs),
    }


def _sha12(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


KEEP = 3  # certified variants kept per question at most: the most natural first (both reviewers' fluency)


def _natural(verdict: dict[str, Any]) -> bool:
    return min(r["fluency"] for r in verdict["reviewers"]) == 3


def _chosen(group: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, dict[str, Any]]]:
    """A question's kept variants: up to KEEP that both reviewers found natural; where it has none, its one
    best awkward (fluency 2) variant, so that the question is still covered by a valid edit."""
    ranked = sorted(group, key=lambda item: _rank(item[1]))  # stable: candidate order within a rank
    natural = [item for item in ranked if _natural(item[1])]
    return natural[:KEEP] if natural else ranked[:1]


def _rank(verdict: dict[str, Any]) -> tuple[int, int, int]:
    fluency = [r["fluency"] for r in verdict["reviewers"]]
    return (-min(fluency), -sum(fluency), verdict["round"])


def assembled() -> tuple[str, dict[str, Any]]:
    """The certified file's text, as the committed judgments make it, and the card's figures."""
    from collections import Counter

    verdicts, counts = certified_verdicts()
    if len(counts["sheets"][1]) < SHEETS:
        print(
            f"warning: only sheets {counts['sheets'][1]} have both reviews; the set covers their questions only",
            file=sys.stderr,
        )
    by_source: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for variant_id, verdict in verdicts.items():
        if verdict["certified"]:
            by_source.setdefault(verdict["source_id"], []).append((variant_id, verdict))
    kept = {}
    for group in by_source.values():
        kept.update(_chosen(group))
    round_one = {qa["id"]: qa for a in candidates().document["data"] for p in a["paragraphs"] for qa in p["qas"]}
    source = json.loads(SOURCE.read_text(encoding="utf-8"))
    per_question, pairs, natural = Counter(), Counter(), 0
    data = []
    for article in source["data"]:
        paragraphs = []
        for paragraph in article["paragraphs"]:
            qas = []
            for clean in paragraph["qas"]:
                chosen = sorted(
                    (vid for vid in kept if verdicts[vid]["source_id"] == clean["id"]),
                    key=lambda vid: _rank(verdicts[vid]),
                )
                for variant_id in chosen:
                    verdict = verdicts[variant_id]
                    if verdict["variant"] is None:
                        qa = dict(round_one[variant_id])
                    else:
                        qa = {
                            **clean,
                            "id": variant_id,
                            "source_id": clean["id"],
                            "question": verdict["variant"]["question"],
                            "original_question": clean["question"],
                            "substitutions": verdict["variant"]["substitutions"],
                        }
                    qa["review"] = verdict["reviewers"]
                    qas.append(qa)
                    per_question[clean["id"]] += 1
                    natural += min(r["fluency"] for r in verdict["reviewers"]) == 3
                    for sub in qa["substitutions"]:
                        pairs[(sub["original"].lower(), sub["replacement"].lower())] += 1
            if qas:
                paragraphs.append({**paragraph, "qas": qas})
        if paragraphs:
            data.append({**article, "paragraphs": paragraphs})
    kept_total = sum(per_question.values())
    reviewers = sorted({r["reviewer"] for v in verdicts.values() for r in v["reviewers"]})
    calibration = [c for c in map(calibration_agreement, reviewers) if c]
    meta_study = json.loads((STUDY / "meta.json").read_text(encoding="utf-8"))
    source_questions = sum(len(p["qas"]) for a in source["data"] for p in a["paragraphs"])
    certified_variants = sum(v["certified"] for v in verdicts.values())
    signature = "|".join(
        [
            f"shift:{SET_NAME}",
            f"source:{SOURCE.name}#{_sha12(SOURCE)}",
            (
                f"candidates:{RECIPE} max_substitutions=1 threshold=0 variants={VARIANTS} seed={SEED}; "
                f"wider space {WIDE_PER_WORD} synonyms a word"
            ),
            "reviewers:2 language-model agents per variant (not people)",
            f"kept:both same meaning and neither fluency 1; up to {KEEP} natural a question, else its best awkward one",
            f"kappa:{counts['kappa']:.3f}",
            f"judgments:{_judgments_sha()}",
            "robustqa:0.1.0",
        ]
    )
    top_pair, top_count = pairs.most_common(1)[0] if pairs else (("-", "-"), 0)
    summary = {
        "name": SET_NAME,
        "source": SOURCE.name,
        "source_questions": source_questions,
        "candidate_signature": meta_study["signature"],
        "sheets": counts["sheets"],
        "questions_judged": len({v["source_id"] for v in verdicts.values()}),
        "variants_judged": counts["variants_judged"],
        "variants_judged_by_round": dict(Counter(v["round"] for v in verdicts.values())),
        "variants_both_kept": certified_variants,
        "variants_certified": kept_total,
        "variants_natural_by_both": natural,
        "questions_certified": len(per_question),
        "coverage": len(per_question) / source_questions,
        "variants_per_question": dict(sorted(Counter(per_question.values()).items())),
        "kappa": counts["kappa"],
        "agreement": counts["agreement"],
        "distinct_pairs": len(pairs),
        "top_pair": f"{top_pair[0]} -> {top_pair[1]}",
        "top_pair_share": top_count / max(sum(pairs.values()), 1),
        "top_pairs": [[f"{a} -> {b}", n] for (a, b), n in pairs.most_common(10)],
        "calibration": calibration,
    }
    out = {
        "version": "v2.0",
        "signature": signature,
        "robustqa": {
            "set": {key: value for key, value in summary.items() if key not in ("calibration", "top_pairs")},
            "review": {
                "counts": {
                    "accepted": kept_total,
                    "rejected": counts["variants_judged"] - certified_variants,
                    "unreviewed": 0,
                },
                "decisions": [
                    {
                        "reviewer": "two language-model agents per variant (not people)",
                        "sha256": _judgments_sha(full=True),
                    }
                ],
            },
        },
        "data": data,
    }
    return json.dumps(out, ensure_ascii=False, separators=(",", ":")) + "\n", summary


def assemble() -> None:
    """Write robustqa/data/certified/: the clean file, the certified variants and the card; print the figures."""
    import shutil

    text, summary = assembled()
    PACKAGE.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(SOURCE, PACKAGE / "squad2-dev-half.json")
    (PACKAGE / "certified-v1.json").write_text(text, encoding="utf-8")
    (STUDY / "summary.json").write_text(json.dumps(summary, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    write_card()
    print(json.dumps({k: v for k, v in summary.items() if k != "calibration"}, indent=2, ensure_ascii=False))


AUDIT = STUDY / "audit"
AUDIT_SEED, AUDIT_CERTIFIED, AUDIT_DECOYS = 4099, 100, 40
AUDIT_RULES = (
    """# Rules: does an edited question keep its meaning?

Each line of your sheet is one QUESTION about a Wikipedia passage, with the gold ANSWER (or "no answer": the
passage does not answer it), the SENTENCE of the passage that holds the answer (or a plausible wrong answer),
and the EDITED question: the question with a word replaced. Judge the edited question.

"""
    + JUDGMENT_RULES
    + """
Judge every line yourself, by reading it; do not write a program that decides for you, and do not look at any
file other than your sheet, these rules and the file you write.

## What to write
One JSON line per sheet line, in the order of the sheet, to the file you are given:
`{"item": 7, "same_meaning": true, "fluency": 3, "note": ""}`
"""
)


def make_audit_sheet() -> None:
    """A fresh blind audit of the packaged set: 100 random certified variants, with 40 variants the
    certification rejected mixed in (so that a reviewer cannot assume every item is good), shuffled, the
    source hidden; judged by two reviewers who certified nothing."""
    if (AUDIT / "sheet.jsonl").exists():
        sys.exit(f"{AUDIT.relative_to(REPO)} has a sheet: an audit is never redrawn in place")
    packaged = json.loads((PACKAGE / "certified-v1.json").read_text(encoding="utf-8"))
    certified = sorted(qa["id"] for a in packaged["data"] for p in a["paragraphs"] for qa in p["qas"])
    verdicts, _ = certified_verdicts()
    rejected = sorted(vid for vid, v in verdicts.items() if not v["certified"])
    rng = random.Random(AUDIT_SEED)
    rows = [("certified", vid) for vid in rng.sample(certified, AUDIT_CERTIFIED)] + [
        ("rejected", vid) for vid in rng.sample(rejected, AUDIT_DECOYS)
    ]
    rng.shuffle(rows)
    shown = shown_variants()
    sheet, key = [], []
    for number, (kind, vid) in enumerate(rows, start=1):
        sheet.append({"item": number, **shown[vid]})
        key.append({"item": number, "kind": kind, "id": vid})
    AUDIT.mkdir(parents=True, exist_ok=True)
    (AUDIT / "RULES.md").write_text(AUDIT_RULES, encoding="utf-8")
    write_jsonl(AUDIT / "sheet.jsonl", sheet)
    write_jsonl(AUDIT / "key.jsonl", key)
    print(f"audit sheet: {len(sheet)} items ({AUDIT_CERTIFIED} certified, {AUDIT_DECOYS} rejected)")


def score_audit() -> None:
    """The audit's figures: per reviewer and over both, the share of certified variants that keep the
    meaning, read natural, are broken (Wilson intervals); the rejected decoys beside them."""
    from robustqa.stats import wilson_interval

    key = {row["item"]: row for row in read_jsonl(AUDIT / "key.jsonl")}
    reviewers = sorted(p.stem for p in AUDIT.glob("judgments-*.jsonl"))

    def line(label: str, hits: int, n: int) -> str:
        low, high = wilson_interval(hits, n)
        return f"  {label:<34} {hits:>4} / {n:<4} {100 * hits / max(n, 1):5.1f}% [{100 * low:.1f}, {100 * high:.1f}]"

    pooled: dict[str, list[dict[str, Any]]] = {"certified": [], "rejected": []}
    out = []
    for reviewer in reviewers:
        rows = read_jsonl(AUDIT / f"{reviewer}.jsonl")
        out.append(f"{reviewer} (a language-model agent that certified nothing):")
        for kind in ("certified", "rejected"):
            mine = [r for r in rows if key[r["item"]]["kind"] == kind]
            pooled[kind] += mine
            out.append(line(f"{kind}: same meaning", sum(r["same_meaning"] for r in mine), len(mine)))
            if kind == "certified":
                out.append(line("certified: natural (fluency 3)", sum(r["fluency"] == 3 for r in mine), len(mine)))
                out.append(line("certified: broken (fluency 1)", sum(r["fluency"] == 1 for r in mine), len(mine)))
    out.append("both reviewers' judgments together:")
    for kind in ("certified", "rejected"):
        mine = pooled[kind]
        out.append(line(f"{kind}: same meaning", sum(r["same_meaning"] for r in mine), len(mine)))
    certified_rows = pooled["certified"]
    out.append(
        line("certified: natural (fluency 3)", sum(r["fluency"] == 3 for r in certified_rows), len(certified_rows))
    )
    out.append(
        line("certified: broken (fluency 1)", sum(r["fluency"] == 1 for r in certified_rows), len(certified_rows))
    )
    if len(reviewers) == 2:
        a = {r["item"]: r for r in read_jsonl(AUDIT / f"{reviewers[0]}.jsonl")}
        b = {r["item"]: r for r in read_jsonl(AUDIT / f"{reviewers[1]}.jsonl")}
        both = [i for i in a if key[i]["kind"] == "certified"]
        out.append(
            line(
                "certified: same meaning by both",
                sum(a[i]["same_meaning"] and b[i]["same_meaning"] for i in both),
                len(both),
            )
        )
    text = "\n".join(out)
    (AUDIT / "scores.txt").write_text(text + "\n", encoding="utf-8")
    print(text)


def qads_21_pairs() -> tuple[int, str, float]:
    """The default recipe on the same questions: (distinct pairs, its top pair, that pair's share)."""
    from collections import Counter

    import perturbations
    from robustqa.build import build_dataset
    from robustqa.squad import load_squad

    document = build_dataset(load_squad(SOURCE), perturbations.get_recipe("qads@2.1"), seed=SEED).document
    pairs = Counter(
        (s["original"].lower(), s["replacement"].lower())
        for a in document["data"]
        for p in a["paragraphs"]
        for qa in p["qas"]
        for s in qa.get("substitutions", [])
    )
    (a, b), n = pairs.most_common(1)[0]
    return len(pairs), f"{a} -> {b}", n / sum(pairs.values())


def write_card() -> None:
    """The dataset card from the study's summary and docs/benchmarks.md; the set's files stay as they are."""
    summary = json.loads((STUDY / "summary.json").read_text(encoding="utf-8"))
    (PACKAGE / "CARD.md").write_text(card_text(summary), encoding="utf-8")


def heldout_figures() -> str:
    """The held-out part of docs/benchmarks.md's `certified_drop` section, as that script printed it."""
    document = (REPO / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    start, end = "<!-- benchmark:certified_drop -->", "<!-- /benchmark:certified_drop -->"
    if start not in document:
        return "(not yet measured: run benchmarks/certified_drop.py)"
    section = document[document.index(start) : document.index(end)]
    body = section.split("```text\n", 1)[1].split("```", 1)[0]
    return "\n".join(
        line for line in body.splitlines() if not line.startswith(("robustqa eval", "  wall time"))
    ).strip()


def card_text(summary: dict[str, Any]) -> str:
    """The dataset card (robustqa/data/certified/CARD.md), every figure from the judgments."""
    distinct_21, top_21, share_21 = qads_21_pairs()
    calibration = summary["calibration"]
    agreements = sorted(100 * c["agreement"] for c in calibration)
    kappas = sorted(c["kappa"] for c in calibration)
    audit = (AUDIT / "scores.txt").read_text(encoding="utf-8") if (AUDIT / "scores.txt").exists() else "(not yet run)"
    per_q = ", ".join(
        f"{k} variant{'s' if int(k) > 1 else ''}: {v:,}" for k, v in summary["variants_per_question"].items()
    )
    top = "; ".join(f"{pair} ({n})" for pair, n in summary["top_pairs"][:5])
    return f"""# Dataset card: robustqa `certified@1`

A reviewed QADS-style variant of SQuAD 2.0 dev questions: each question of the 16 articles of
`squad2-dev-half.json` with up to {KEEP} one-word WordNet-synonym variants that two reviewers judged to keep its
meaning, for measuring how far a QA model's answers move when a question's words change but its meaning does
not. `robustqa eval MODEL` evaluates on it with no data option.

**The reviewers are language-model agents (subagents given only a sheet and the written rules), not people.**
People can add or overrule judgments with `robustqa review` on `certified-v1.json`; a decisions file from
people given to `robustqa eval --validated` (or applied with `robustqa filter`) takes precedence.

## Files

- `squad2-dev-half.json`: the clean questions: {summary["source_questions"]:,} questions of 16 articles of the
  official SQuAD 2.0 dev set (question ids re-hashed; contexts, questions and answers unchanged).
- `certified-v1.json`: {summary["variants_certified"]:,} certified variants of {summary["questions_certified"]:,} \
of those questions, self-contained
  (contexts and answers included; SQuAD 2.0 format). Each variant has the id `<question id>-v<k>` or
  `-w<k>`, `source_id`, `original_question`, its `substitutions` (character offsets in both strings, the word,
  its replacement, Penn tag, WordNet synset, confidence) and `review`: both reviewers' judgments (same
  meaning, fluency 1-3). The file's `signature` says how it was made; `robustqa.set` holds the figures below.

## How it was made (`tools/certify.py`; sheets, rules, key and every judgment in `studies/certified-1/`)

1. Candidates: `robustqa build-dataset --recipe qads@1.1 --set max_substitutions=1 --set threshold=0
   --variants {VARIANTS}` (seed {SEED}): one content word replaced by a WordNet synonym of the sense enhanced
   Lesk picks, no confidence threshold, up to {VARIANTS} different variants per question.
2. Round 1: every variant of every changed question, each question's variants side by side on one line
   ({summary["variants_judged_by_round"].get("1", summary["variants_judged_by_round"].get(1, 0)):,} variants), \
dealt to {SHEETS} sheets; two reviewers per sheet, each alone.
3. Round 2, wider: every question without a certified variant that a reviewer found natural (and those
   round 1 had no variant of) got up to {WIDE_MAX} more one-word variants from a wider space (any WordNet sense,
   {WIDE_PER_WORD} synonyms a word, common words only), judged the same way
   ({summary["variants_judged_by_round"].get("2", summary["variants_judged_by_round"].get(2, 0)):,} variants).
4. Rules: those of the earlier blind judgments (`shared/validity/README.md`), verbatim (`RULES.md`): same
   meaning (a reader of the passage gives the same answer, or still none for the same reason), fluency 3
   natural / 2 awkward / 1 ungrammatical. Reviewers saw the question, the answer and its sentence, never the
   tool, a model's answer or another reviewer's judgments.
5. Kept: a variant both reviewers say keeps the meaning and neither calls ungrammatical (fluency 1). Of those,
   a question keeps up to {KEEP} that both reviewers found natural (fluency 3); a question with none keeps its
   one best awkward variant (fluency 2), so that it is still covered by a valid edit.

Before judging, each of the {len(calibration)} reviewers re-judged the 240 items of `judged-pairs-v1.jsonl` under the
same rules: agreement with those earlier judgments {agreements[0]:.1f}%-{agreements[-1]:.1f}% (Cohen's kappa
{kappas[0]:.2f}-{kappas[-1]:.2f}); each reviewer's figure is in `studies/certified-1/summary.json`. The two
reviewers of a sheet agreed on {100 * summary["agreement"]:.1f}% of the {summary["variants_judged"]:,} variants \
(kappa {summary["kappa"]:.3f}).

## Coverage and diversity

- {summary["questions_certified"]:,} of {summary["source_questions"]:,} questions ({100 * summary["coverage"]:.1f}%) \
have at least one certified variant; {per_q}.
- {summary["distinct_pairs"]:,} distinct substitution pairs (word -> replacement, lower case); the most frequent,
  "{summary["top_pair"]}", is {100 * summary["top_pair_share"]:.1f}% of the edits. Top five: {top}.
- The default recipe `qads@2.1` on the same questions: {distinct_21:,} distinct pairs, \
its top pair "{top_21}" {100 * share_21:.1f}%
  of its edits; this set has {summary["distinct_pairs"] / distinct_21:.1f}x as many.

## Fresh blind audit (`studies/certified-1/audit/`)

100 certified variants drawn at random and 40 rejected ones mixed in, shuffled, the source hidden, judged
item by item by two reviewers (language-model agents) who certified nothing, under the same rules:

```text
{audit.rstrip()}
```

## Known limits

- The reviewers are language-model agents; their judgments agree closely with each other and with the
  earlier judgments, which were made by the same kind of reviewer. A human audit may disagree.
- Only single-word lexical substitution in questions; English WordNet 3.0; no paraphrase, reordering,
  negation or distractors. Questions whose only editable words are names, numbers or function words have no
  variant ({summary["source_questions"] - summary["questions_certified"]:,} questions).
- Up to {KEEP} variants a question ({summary["variants_natural_by_both"]:,} of the {summary["variants_certified"]:,} \
natural by both reviewers); questions
  differ in K, so worst-of-K compares models on the same questions, not questions with each other.
- The shared MiniLM models were trained on 12 of the 16 articles: for them, only the four held-out articles
  (Normans, Computational complexity theory, Huguenot, Steam engine; `squad2-dev-heldout.json`) are a clean
  evaluation (below). Published checkpoints (ELECTRA, BERT, ...) were trained on SQuAD's train set, which
  these dev questions are not part of.

## The shared models on the held-out articles (`benchmarks/certified_drop.py`, in `docs/benchmarks.md`)

```text
{heldout_figures()}
```

## Licence and attribution

SQuAD 2.0 is by Pranav Rajpurkar, Robin Jia and Percy Liang (*Know What You Don't Know: Unanswerable Questions
for SQuAD*, ACL 2018, https://arxiv.org/abs/1806.03822), distributed under the Creative Commons
Attribution-ShareAlike 4.0 International licence (CC BY-SA 4.0); its paragraphs come from Wikipedia (CC
BY-SA). Both files here are shared under CC BY-SA 4.0. Changes made: selection of 16 articles and re-hashed
question ids (upstream), and the edited questions with their edit records and judgments (robustqa). WordNet
3.0 is under Princeton's WordNet licence. The method follows QADS (Lin et al. 2020, arXiv:2010.13049).
"""


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
    sub.add_parser("audit-sheet", help="draw the fresh blind audit of the packaged set")
    sub.add_parser("audit-score", help="score the audit's judgments")
    sub.add_parser("card", help="rewrite the card alone (after benchmarks/certified_drop.py measured again)")
    wide = sub.add_parser(
        "widen", help="round 2: the wider space for round 1's sheet K's questions without a natural certified variant"
    )
    wide.add_argument("sheet", type=int)
    args = parser.parse_args()
    if args.command == "sheets":
        make_sheets(STUDY)
    elif args.command == "audit-sheet":
        make_audit_sheet()
    elif args.command == "audit-score":
        score_audit()
    elif args.command == "widen":
        make_wide_sheet(args.sheet)
    elif args.command == "assemble":
        assemble()
    elif args.command == "card":
        write_card()


if __name__ == "__main__":
    main()
