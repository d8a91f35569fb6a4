"""Blind validity review: do perturbed questions still ask the same thing?

The figure behind every robustness drop. It follows ../shared/validity/README.md:

1. `sheet`: build the shared half set (squad2-dev-half.json) with each named setting (a recipe and its
   overrides); shuffle the ids outside the judged-pairs-v1 items and inside the half reserved for blind
   review (sha256(id) odd: development work looks only at the even half) with a fixed seed; the pool is
   the shortest prefix holding N questions the first setting changed, and each setting is judged on the
   pool questions it changed (a random sample of its own changed questions); questions of earlier reviews
   in studies/validity/ are left out, so every review judges fresh ones. nlpaug's WordNet augmenter
   runs on the questions the first setting changed. Every distinct (original, perturbed) text becomes one
   item; items are shuffled and numbered, and the sheet shows the original and perturbed question, the
   gold answer (or that the passage gives none) and the passage sentence that holds it, never the tool.
   The key (item -> tool/setting, question id) is written apart from the sheet, and the sheet is split
   into parts, one per reviewer.
2. Reviewers judge each item with the rules in RULES (same meaning: yes/no; fluency 3/2/1; note) and
   write `judgments-<part>.jsonl`.
3. `score`: join judgments and key of every complete review; per setting and for nlpaug, the share
   keeping the meaning with a 95% Wilson interval, the fluency counts, and the coverage (share of the
   6,078 questions the setting changes); recorded in docs/benchmarks.md beside the shared review of
   qads@1.1.

    NLTK_DATA=../shared/nltk_data python studies/validity_review.py sheet --name NAME \
        --setting default=qads --setting strict=qads:max_substitutions=1 [--n 160] [--parts 3]
    NLTK_DATA=../shared/nltk_data python studies/validity_review.py score
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from _common import (
    HALF,
    REPO,
    RULES,
    SEED,
    SHARED,
    Question,
    build_changed,
    changed_questions,
    load_questions,
    read_jsonl,
    recorded,
    reserved_for_review,
    sentence_at,
    wilson,
    write_jsonl,
)

JUDGED = SHARED / "validity" / "judged-pairs-v1.jsonl"
REVIEWS = REPO / "studies" / "validity"
NLPAUG = "nlpaug SynonymAug(aug_src=wordnet)"


def parse_setting(text: str) -> tuple[str, str, dict[str, Any]]:
    """ "name=recipe[:key=value,...]" -> (name, recipe, overrides)."""
    name, _, spec = text.partition("=")
    recipe, _, rest = spec.partition(":")
    overrides = {}
    for pair in filter(None, rest.split(",")):
        key, _, value = pair.partition("=")
        try:
            overrides[key] = json.loads(value)  # numbers and booleans as such
        except json.JSONDecodeError:
            overrides[key] = value
    if not name or not recipe:
        raise SystemExit(f"--setting {text!r}: expected NAME=RECIPE[:key=value,...]")
    return name, recipe, overrides


def nlpaug_versions(questions: Iterable[Question], seed: int) -> dict[str, str]:
    """nlpaug's WordNet synonym augmenter on each question, seeded per question (it only offers global
    random state, so each question gets its own seed from the run seed and its id)."""
    import nlpaug.augmenter.word as naw
    import numpy as np

    aug = naw.SynonymAug(aug_src="wordnet")
    out = {}
    for q in questions:
        local = int(hashlib.sha256(f"{seed}:{q.id}".encode()).hexdigest(), 16) % (2**32)
        random.seed(local)
        np.random.seed(local)
        result = aug.augment(q.question)
        out[q.id] = result[0] if isinstance(result, list) else result
    return out


def earlier_review_ids() -> set[str]:
    """Question ids of every earlier review here (from its key, or from sheets that name their questions,
    as the coverage ceiling's do): a fresh review never judges them again."""
    ids: set[str] = set()
    for key in REVIEWS.glob("*/key.jsonl") if REVIEWS.exists() else ():
        ids |= {row["id"] for row in read_jsonl(key)}
    for sheet in REVIEWS.glob("*/sheet-*.jsonl") if REVIEWS.exists() else ():
        ids |= {row["id"] for row in read_jsonl(sheet) if "id" in row}
    return ids


def judged_items(folder: Path) -> dict[tuple[str, str], tuple[str, dict[str, Any] | None]]:
    """(question id, perturbed text) -> (item, its judgment, None while not judged) of one review folder."""
    sheet = {row["item"]: row for path in folder.glob("sheet-*.jsonl") for row in read_jsonl(path)}
    judged = {row["item"]: row for path in folder.glob("judgments-*.jsonl") for row in read_jsonl(path)}
    return {
        (row["id"], sheet[row["item"]]["perturbed"]): (row["item"], judged.get(row["item"]))
        for row in read_jsonl(folder / "key.jsonl")
    }


def earlier_judgments() -> dict[tuple[str, str], tuple[str, str, dict[str, Any]]]:
    """(question id, perturbed text) -> (review, item, judgment) of every item judged in a review here (the
    first review in name order that judged it): an item judged blind once is not judged again."""
    found: dict[tuple[str, str], tuple[str, str, dict[str, Any]]] = {}
    for folder in sorted(p for p in REVIEWS.iterdir() if (p / "key.jsonl").exists()) if REVIEWS.exists() else ():
        for pair, (item, judgment) in judged_items(folder).items():
            if judgment is not None:
                found.setdefault(pair, (folder.name, item, judgment))
    return found


def make_sheet(args: argparse.Namespace) -> None:
    folder = REVIEWS / args.name
    if folder.exists() and any(folder.iterdir()):
        raise SystemExit(f"{folder} exists: a review is never redrawn in place; choose another --name")
    settings = [parse_setting(s) for s in args.setting]
    questions = load_questions(HALF)
    judged = {json.loads(line)["id"] for line in JUDGED.read_text().splitlines() if line.strip()} | earlier_review_ids()
    eligible = sorted(q for q in questions if q not in judged and reserved_for_review(q))
    random.Random(args.seed).shuffle(eligible)

    built: dict[str, dict[str, str]] = {}
    records: dict[str, Any] = {}
    coverage: dict[str, float | None] = {}
    first = settings[0][0]
    # --first-on K: a slow first setting (model rules) is built on the first K shuffled ids only, so the pool
    # is drawn the same way but its coverage is measured elsewhere (benchmarks/lm_build.py)
    built[first], records[first] = build_changed(
        settings[0][1], settings[0][2], set(eligible[: args.first_on]) if args.first_on else None
    )
    coverage[first] = None if args.first_on else len(built[first]) / len(questions)
    # the pool: the shortest prefix of the shuffled ids in which the first setting changed --n questions
    seen = 0
    pool = eligible
    for end, qid in enumerate(eligible, start=1):
        seen += qid in built[first]
        if seen == args.n:
            pool = eligible[:end]
            break
    else:
        if args.first_on:
            raise SystemExit(
                f"the first {args.first_on} ids hold only {seen} questions {first} changes; raise --first-on"
            )
    for name, recipe, overrides in settings[1:]:
        # --pool-only: slow settings (a language model) are built on the pool alone; their coverage is
        # then measured elsewhere (benchmarks/lm_build.py)
        built[name], records[name] = build_changed(recipe, overrides, set(pool) if args.pool_only else None)
        coverage[name] = None if args.pool_only else len(built[name]) / len(questions)
    changed_by = {name: {qid: texts[qid] for qid in pool if qid in texts} for name, texts in built.items()}
    for name in built:
        of_all = f"{len(built[name]):,} of {len(questions):,} changed; " if coverage[name] is not None else ""
        print(f"{name}: {records[name]['signature']}: {of_all}{len(changed_by[name])} in the pool")
    base = [questions[qid] for qid in pool if qid in changed_by[first]]
    if not args.no_nlpaug:
        theirs = nlpaug_versions(base, args.seed)
        changed_by[NLPAUG] = {qid: text for qid, text in theirs.items() if text != questions[qid].question}
        print(f"{NLPAUG}: changed {len(changed_by[NLPAUG])} of the {len(base)} questions {first} changed")

    # one item per distinct (question id, perturbed text): settings that agree share a judgment
    items: dict[tuple[str, str], list[str]] = {}
    for tool, texts in changed_by.items():
        for qid, text in texts.items():
            items.setdefault((qid, text), []).append(tool)
    sheet = write_review(folder, items, questions, args.seed + 1, args.parts)
    meta = {
        "source": HALF.name,
        "pool_seed": args.seed,
        "pool": len(pool),
        "build_seed": SEED,
        "settings": records,
        "coverage": coverage,
        "first_setting": first,
        "nlpaug": not args.no_nlpaug,
        "items": len(sheet),
        "parts": args.parts,
    }
    (folder / "meta.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {len(sheet)} items in {args.parts} sheets to {folder.relative_to(REPO)}")


def attacked_questions(path: Path) -> dict[str, str]:
    """Question id -> attacked text of every question an adversarial.json (`robustqa attack`) holds."""
    return changed_questions(json.loads(path.read_text(encoding="utf-8")))


def write_review(
    folder: Path, items: dict[tuple[str, str], list[str]], questions: dict[str, Question], seed: int, parts: int
) -> list[dict[str, Any]]:
    """Shuffle the (question id, perturbed text) items, write RULES, the sheets (one per reviewer) and the
    key; return the sheet rows."""
    order = sorted(items)
    random.Random(seed).shuffle(order)
    sheet, key = [], []
    for n, (qid, text) in enumerate(order, start=1):
        q = questions[qid]
        item = f"I{n:03d}"
        sheet.append(
            {
                "item": item,
                "original": q.question,
                "perturbed": text,
                "answer": q.answer if q.answerable else None,
                "answerable": q.answerable,
                "sentence": sentence_at(q.context, q.answer_start),
            }
        )
        key.append({"item": item, "id": qid, "tools": items[(qid, text)]})
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "RULES.md").write_text(RULES, encoding="utf-8")
    size = math.ceil(len(sheet) / parts)
    for part in range(parts):
        write_jsonl(folder / f"sheet-{part + 1}.jsonl", sheet[part * size : (part + 1) * size])
    write_jsonl(folder / "key.jsonl", key)
    return sheet


def make_attack_sheet(args: argparse.Namespace) -> None:
    """A blind sheet of the questions attacks flipped (every question of each adversarial.json, or --n of
    them drawn at random), judged like any other review: the attack is a tool like a recipe, and what it wrote must
    still ask the same thing."""
    folder = REVIEWS / args.name
    if folder.exists() and any(folder.iterdir()):
        raise SystemExit(f"{folder} exists: a review is never redrawn in place; choose another --name")
    questions = load_questions(HALF)
    items: dict[tuple[str, str], list[str]] = {}
    settings: dict[str, Any] = {}
    if args.pool:  # attack_strength.py's pool: the flips the review --after did not judge, labelled by search
        judged = judged_items(REVIEWS / args.after) if args.after else {}
        for row in read_jsonl(Path(args.pool)):
            if (row["id"], row["perturbed"]) not in judged:
                label = f"attack, {args.pool_recipe}, {row['search']}"
                settings.setdefault(label, {"recipe": label, "overrides": {}, "signature": ""})
                items.setdefault((row["id"], row["perturbed"]), []).append(label)
        print(f"{Path(args.pool).name}: {len(items)} flipped questions not judged before")
    for spec in args.attack:
        label, _, path = spec.partition("=")
        attacked = attacked_questions(Path(path))
        if args.n is not None and len(attacked) > args.n:  # a random sample of the flips, the same for a seed
            drawn = random.Random(args.seed).sample(sorted(attacked), args.n)
            print(f"{label}: {args.n} drawn at random from its {len(attacked)} attacked questions")
            attacked = {qid: attacked[qid] for qid in sorted(drawn)}
        record = json.loads((Path(path).parent / "attack.json").read_text(encoding="utf-8"))
        signature = record["signature"].replace(str(SHARED.resolve()), "../shared")  # no machine's path in the record
        settings[label] = {"recipe": label, "overrides": {}, "signature": signature}
        for qid, text in attacked.items():
            items.setdefault((qid, text), []).append(label)
        print(f"{label}: {len(attacked)} attacked questions ({record['signature']})")
    reused = []
    if args.reuse:
        earlier = earlier_judgments()
        for pair in [p for p in items if p in earlier]:
            review, item, judgment = earlier[pair]
            reused.append(
                {
                    "id": pair[0],
                    "perturbed": pair[1],
                    "tools": items.pop(pair),
                    "review": review,
                    "item": item,
                    **{k: judgment[k] for k in ("same_meaning", "fluency", "note")},
                }
            )
        print(f"{len(reused)} of them judged blind in an earlier review: their judgments are reused (reused.jsonl)")
    sheet = write_review(folder, items, questions, args.seed, args.parts) if items else []
    if reused:
        folder.mkdir(parents=True, exist_ok=True)
        write_jsonl(folder / "reused.jsonl", reused)
        if not items:
            write_jsonl(folder / "key.jsonl", [])
    meta = {
        "description": args.description,
        "settings": settings,
        "coverage": {label: None for label in settings},
        "first_setting": next(iter(settings)),
        "nlpaug": False,
        "items": len(sheet),
        "parts": args.parts,
        "pool": len(sheet),
        "source": "adversarial.json of each attack",
        "pool_seed": args.seed,
        "build_seed": SEED,
    }
    (folder / "meta.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {len(sheet)} items in {args.parts} sheets to {folder.relative_to(REPO)}")


def _row(label: str, judged: list[dict[str, Any]], coverage: float | None) -> str:
    n = len(judged)
    same = sum(bool(j["same_meaning"]) for j in judged)
    flu = [sum(j["fluency"] == f for j in judged) for f in (3, 2, 1)]
    low, high = wilson(same, n)
    return (
        f"| {label} | {n} | {100 * same / n:.1f}% [{100 * low:.1f}, {100 * high:.1f}] | "
        f"{100 * flu[0] / n:.0f}% / {100 * flu[1] / n:.0f}% / {100 * flu[2] / n:.0f}% | "
        + (f"{100 * coverage:.1f}%" if coverage is not None else "-")
        + " |"
    )


_HEADER = [
    "| setting | judged | same meaning | natural / awkward / broken | questions changed (of 6,078) |",
    "|---|---|---|---|---|",
]


def shared_v1_table() -> str:
    """The review that shipped with ../shared (qads@1.1 and nlpaug, 120 questions each), recomputed."""
    rows = read_jsonl(JUDGED)
    tools = sorted({r["tool"] for r in rows}, key=lambda t: (not t.startswith("robustqa"), t))
    lines = [_row(tool, [r for r in rows if r["tool"] == tool], None) for tool in tools]
    return "\n".join(
        [
            f"`../shared/validity/{JUDGED.name}` (the earlier blind review of qads@1.1, recomputed):",
            "",
            *_HEADER,
            *lines,
        ]
    )


def review_table(name: str) -> str | None:
    """The figures of one review folder; None while judgments are missing."""
    folder = REVIEWS / name
    meta = json.loads((folder / "meta.json").read_text())
    key = {row["item"]: row for row in read_jsonl(folder / "key.jsonl")}
    judgments: dict[str, dict[str, Any]] = {}
    for path in sorted(folder.glob("judgments-*.jsonl")):
        for row in read_jsonl(path):
            if row["item"] in judgments:
                raise SystemExit(f"{path.name}: item {row['item']} judged twice")
            judgments[row["item"]] = row
    reused = read_jsonl(folder / "reused.jsonl") if (folder / "reused.jsonl").exists() else []
    missing = sorted(set(key) - set(judgments))
    if missing:
        print(f"{name}: {len(missing)} of {len(key)} items not judged yet (first: {missing[0]}); left out")
        return None
    tools = list(meta["settings"]) + ([NLPAUG] if meta["nlpaug"] else [])
    lines = []
    for tool in tools:
        judged = [judgments[item] for item, k in key.items() if tool in k["tools"]] + [
            r for r in reused if tool in r["tools"]
        ]
        if tool == NLPAUG:
            label = tool
        else:
            setting = meta["settings"][tool]
            extra = ",".join(f"{k}={v}" for k, v in setting["overrides"].items())
            label = (tool if setting["recipe"] == tool else f"{tool}: {setting['recipe']}") + (
                f" {extra}" if extra else ""
            )
        lines.append(_row(label, judged, meta["coverage"].get(tool)))
    intro = meta.get("description") or (
        f"Review `{name}`: {meta['items']} items from a random pool of {meta['pool']} questions of "
        f"{meta['source']} (pool seed {meta['pool_seed']}, build seed {meta['build_seed']}; ids outside "
        "judged-pairs-v1 and in the half reserved for review), tool hidden, rules in "
        f"`studies/validity/{name}/RULES.md`; sheets, key and judgments in that folder. "
        f"nlpaug ran on the questions `{meta['first_setting']}` changed. Intervals: 95% Wilson."
    )
    return "\n".join(
        [
            intro,
            "",
            *_HEADER,
            *lines,
        ]
    )


def score(args: argparse.Namespace) -> None:
    names = (
        [args.name]
        if args.name
        else sorted(p.name for p in REVIEWS.iterdir() if (p / "meta.json").exists() and (p / "key.jsonl").exists())
        if REVIEWS.exists()
        else []
    )
    tables = [shared_v1_table()] + [t for t in (review_table(n) for n in names) if t is not None]
    print("\n\n".join(tables))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    s = sub.add_parser("sheet", help="draw the sample and write the blind sheets and the key")
    s.add_argument("--name", required=True)
    s.add_argument(
        "--setting", action="append", required=True, help="NAME=RECIPE[:key=value,...]; the first is the default"
    )
    s.add_argument("--n", type=int, default=160, help="items of the first setting to judge")
    s.add_argument("--seed", type=int, default=2026)
    s.add_argument("--parts", type=int, default=3)
    s.add_argument("--no-nlpaug", action="store_true")
    s.add_argument(
        "--pool-only",
        action="store_true",
        help="build the settings after the first on the pool's questions only (no coverage)",
    )
    s.add_argument(
        "--first-on",
        type=int,
        default=None,
        metavar="K",
        help="build the first setting on the first K shuffled ids only (no coverage)",
    )
    a = sub.add_parser("attack-sheet", help="a blind sheet of the questions attacks flipped")
    a.add_argument("--name", required=True)
    a.add_argument(
        "--attack",
        action="append",
        default=[],
        metavar="LABEL=ADVERSARIAL_JSON",
        help="an attack's adversarial.json (attack.json beside it)",
    )
    a.add_argument(
        "--pool",
        help="attack_strength.py's pool file (studies/validity/attack-pool.jsonl): its questions not judged before",
    )
    a.add_argument("--pool-recipe", default="qads@2.0", help="the recipe the pool's attacks searched")
    a.add_argument("--after", help="the earlier review of part of the pool: its items are left out")
    a.add_argument(
        "--n",
        type=int,
        default=None,
        help="draw this many of each attack's flipped questions at random (--seed) instead of all",
    )
    a.add_argument(
        "--reuse",
        action="store_true",
        help="items judged in an earlier review keep that judgment (not put on the sheet)",
    )
    a.add_argument("--description", required=True, help="what the review holds (recorded with its figures)")
    a.add_argument("--seed", type=int, default=2028)
    a.add_argument("--parts", type=int, default=1)
    c = sub.add_parser("score", help="join judgments and key of every review (or one); print and record the figures")
    c.add_argument("--name", help="only this review (the section then holds only it)")
    args = ap.parse_args()
    if args.command == "sheet":
        make_sheet(args)
        return
    if args.command == "attack-sheet":
        make_attack_sheet(args)
        return
    with recorded(__file__):
        score(args)


if __name__ == "__main__":
    main()
