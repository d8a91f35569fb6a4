"""Vetted synonym table: which WordNet synonyms of a question word keep the meaning in practically every
question, judged by reviewers; the table `qads@2.1` draws from.

1. `sheets`: every word of the development half of squad2-dev-half.json (sha256(id) even; the other half
   is kept for blind validity reviews, so no reviewed question is ever shown) that qads@2.0's position
   gates leave editable, with each single-word WordNet synonym over all its senses that is common enough
   (Zipf >= 3, at most 2 below the word's), ranked by how many development questions use the word, with
   up to four of those questions as examples; dealt round-robin into sheets, one per reviewer.
2. Two reviewers per sheet, each on their own, follow RULES.md and write `vetting-<sheet>.jsonl` and
   `second-<sheet>.jsonl` (item, safe, note). (`round-1/` holds a first attempt whose rules asked for
   safety in every question: reviewers accepted 1.3% of the candidates, mostly spelling variants.)
3. `compile`: the table, every pair either reviewer accepted, written to
   perturbations/data/vetted_synonyms-<version>.json.

    NLTK_DATA=../shared/nltk_data python tools/vetting.py sheets [--sheets 8]
    NLTK_DATA=../shared/nltk_data python tools/vetting.py compile
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(
    0, str(Path(__file__).resolve().parents[1] / "benchmarks")
)  # the measuring scripts' helpers: paths, JSONL, recorded sections
from _common import REPO, SHARED, read_jsonl, recorded, reserved_for_review, write_jsonl

HALF = SHARED / "squad" / "squad2-dev-half.json"
VERSION = "1"
FOLDER = REPO / "studies" / "validity" / f"vetting-{VERSION}"
TABLE = REPO / "perturbations" / "data" / f"vetted_synonyms-{VERSION}.json"
POS_NAMES = {"n": "noun", "v": "verb", "a": "adjective", "r": "adverb"}
POS_LETTERS = {v: k for k, v in POS_NAMES.items()}
OPINIONS = ("vetting", "second")  # each reviewer's files: <opinion>-<sheet>.jsonl


def candidates(lemma: str, pos: str) -> list[str]:
    """Single-word WordNet synonyms of a word over all its senses, common enough to be worth a judgment,
    most frequent first."""
    from nltk.corpus import wordnet as wn
    from wordfreq import zipf_frequency

    floor = max(3.0, zipf_frequency(lemma, "en") - 2.0)
    names = {
        lemma_.name().lower()
        for synset in wn.synsets(lemma, pos=pos)
        for lemma_ in synset.lemmas()
        if lemma_.name().isalpha() and not lemma_.name()[0].isupper() and lemma_.name().lower() != lemma
    }
    kept = [n for n in names if zipf_frequency(n, "en") >= floor]
    return sorted(kept, key=lambda n: (-zipf_frequency(n, "en"), n))


def editable_words() -> dict[tuple[str, str], list[tuple[str, str]]]:
    """(lemma, pos) -> [(question id, question)], once per use, for every word qads@2.0's position gates leave
    editable."""
    import perturbations
    from perturbations.lexicon import lemma_of, wn_pos
    from perturbations.text import is_word, tag

    plan = perturbations.get_recipe("qads@2.0").plan
    plan.register()
    uses: dict[tuple[str, str], list[tuple[str, str]]] = collections.defaultdict(list)
    for article in json.loads(HALF.read_text(encoding="utf-8"))["data"]:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                tokens = tag(qa["question"])
                for i, token in enumerate(tokens):  # a question counts once per use of the word
                    if not is_word(token.text) or plan.rejection(tokens, i, (), paragraph["context"]) is not None:
                        continue
                    pos = wn_pos(token.tag)
                    lemma = lemma_of(token.text.lower(), pos) if pos else None
                    if pos and lemma:
                        uses[(lemma, pos)].append((qa["id"], qa["question"]))
    return uses


def make_sheets(n_sheets: int) -> None:
    words = []
    for (lemma, pos), used in editable_words().items():
        shown = [q for q in used if not reserved_for_review(q[0])]
        offered = candidates(lemma, pos)
        if shown and offered:
            words.append((len(shown), lemma, pos, shown, offered))
    words.sort(key=lambda w: (-w[0], w[1], w[2]))
    items = []
    for n, (_, lemma, pos, shown, offered) in enumerate(words, 1):
        examples = [text for _, text in shown]
        random.Random(str((lemma, pos))).shuffle(examples)
        items.append({"item": n, "word": lemma, "pos": POS_NAMES[pos], "examples": examples[:4], "candidates": offered})
    FOLDER.mkdir(parents=True, exist_ok=True)
    for k in range(n_sheets):
        write_jsonl(FOLDER / f"sheet-{k + 1}.jsonl", items[k::n_sheets])
    print(
        f"{len(items)} words, {sum(len(i['candidates']) for i in items)} candidate pairs, "
        f"{n_sheets} sheets in {FOLDER.relative_to(REPO)}"
    )


def judgments() -> tuple[dict[int, dict[str, Any]], list[dict[int, list[str]]]]:
    """The sheets' items by number, and per reviewer (`OPINIONS`) item -> the candidates accepted (only names
    the sheet offered). Exits naming the first unjudged item when a review is unfinished."""
    items = {row["item"]: row for path in sorted(FOLDER.glob("sheet-*.jsonl")) for row in read_jsonl(path)}
    opinions = []
    for prefix in OPINIONS:
        accepted: dict[int, list[str]] = {}
        for path in sorted(FOLDER.glob(f"{prefix}-*.jsonl")):
            for row in read_jsonl(path):
                accepted[row["item"]] = [c for c in items[row["item"]]["candidates"] if c in set(row["safe"])]
        missing = sorted(set(items) - set(accepted))
        if missing:
            sys.exit(
                f"{prefix}: {len(missing)} sheet items have no judgment (first: item {missing[0]}); "
                "finish the reviews first"
            )
        opinions.append(accepted)
    return items, opinions


def table_text(items: dict[int, dict[str, Any]], opinions: list[dict[int, list[str]]]) -> str:
    """The table file's text: every pair either reviewer accepted (each judged the whole sheet on their own).
    A test checks the packaged file is exactly this, from the committed sheets and judgments."""
    pairs: dict[str, list[str]] = {}
    for n, item in sorted(items.items()):
        names = [c for c in item["candidates"] if any(c in accepted[n] for accepted in opinions)]
        if names:
            pairs[f"{item['word']}.{POS_LETTERS[item['pos']]}"] = names
    # the published table's own words, byte for byte (its hash is in every qads@2.1 signature): it names the
    # folder where its evidence was when it was published, now studies/validity/vetting-1
    document = {
        "description": (
            f"Vetted WordNet synonyms, version {VERSION}: for each word (lemma.pos), the synonyms that one of two "
            "independent reviewers found to keep a question's meaning in at least 19 of 20 ordinary questions using "
            f"the word (benchmarks/validity/vetting-{VERSION}: rules, sheets, judgments)"
        ),
        "pairs": pairs,
    }
    return json.dumps(document, ensure_ascii=False, indent=0, sort_keys=True) + "\n"


def compile_table() -> None:
    """Write the table, and say how many pairs each reviewer accepted."""
    items, opinions = judgments()
    text = table_text(items, opinions)
    TABLE.parent.mkdir(parents=True, exist_ok=True)
    TABLE.write_text(text, encoding="utf-8")
    offered = sum(len(i["candidates"]) for i in items.values())
    for prefix, accepted in zip(OPINIONS, opinions):
        n = sum(len(v) for v in accepted.values())
        print(f"{prefix}: accepted {n} of {offered} candidate pairs ({n / offered:.1%})")
    first, second = opinions
    both = sum(len(set(first[n]) & set(second[n])) for n in items)
    pairs = json.loads(text)["pairs"]
    print(
        f"both reviewers: {both}; table (either): {len(pairs)} words, "
        f"{sum(len(v) for v in pairs.values())} pairs -> {TABLE.relative_to(REPO)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("sheets").add_argument("--sheets", type=int, default=8)
    sub.add_parser("compile")
    args = parser.parse_args()
    if args.command == "sheets":
        make_sheets(args.sheets)
    else:
        with recorded(__file__):
            compile_table()


if __name__ == "__main__":
    main()
