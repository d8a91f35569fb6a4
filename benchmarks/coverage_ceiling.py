"""Coverage ceiling: how many questions have ANY single-word WordNet synonym edit that keeps the meaning?

Issue 9 asks a default recipe to change at least half the questions with at least 95% of them keeping
their meaning. The vetted table keeps the meaning but changes a fifth; the WSD gates change half but keep
four in five. Whether both can hold at once depends on how many questions have a valid edit at all,
which no recipe's own review can say. This measures it on a random sample, with every edit in reach.

1. `sheets`: a random sample of questions from the half kept for blind review (sha256(id) odd: no
   vetter saw them), each with every edit of the space QADS works in: one content word (not a name,
   number, wh-word, auxiliary, pronoun, determiner, preposition or stopword) replaced by one single-word
   WordNet synonym from any of its senses (at most `--per-word` per word, most probable first), common
   enough to be a candidate at all (Zipf >= 2.5, at most 2.5 below the word), written as the engine
   writes it (inflected, case kept, "a"/"an" agreed). No validity gate is applied: the reviewers decide.
   Each question's variants are labelled a, b, c, ... in a random order.
2. Two reviewers per sheet, each on their own, follow RULES.md and write `first-<sheet>.jsonl` and
   `second-<sheet>.jsonl`: for each question, the variants that keep the meaning, each with its fluency.
3. `score`: the share of all sampled questions with at least one variant that keeps the meaning (and
   reads natural) by each reviewer, both and either, with 95% Wilson intervals: the ceiling a recipe in
   this space could reach at 100% validity. Also, for each recipe named, the share of the sample it
   changes with a variant judged valid (its recall of the ceiling) and the share of its edits judged valid.

    NLTK_DATA=../shared/nltk_data python benchmarks/coverage_ceiling.py sheets [--n 120] [--sheets 4]
    NLTK_DATA=../shared/nltk_data python benchmarks/coverage_ceiling.py score [--recipe qads@2.1 ...]
"""

from __future__ import annotations

import argparse
import random
import string
import sys
from typing import Any

from validity_review import HALF, load_questions, read_jsonl, reserved_for_review, sentence_at, wilson, write_jsonl

from _common import REPO, recorded

NAME = "ceiling-1"
FOLDER = REPO / "benchmarks" / "validity" / NAME
POOL_SEED = 2032
OPINIONS = ("first", "second")  # each reviewer's files: <opinion>-<sheet>.jsonl
RECIPES = ("qads@2.0", "qads-strict@2.0", "qads-strictest@2.0", "qads@2.1", "qads-lm@2.2")

RULES = """# Rules: which one-word edits of a question keep its meaning?

Each line of your sheet is one QUESTION about a Wikipedia passage, with the gold ANSWER (or "no answer":
the passage does not answer it), the SENTENCE of the passage that holds the answer (or a plausible wrong
answer), and VARIANTS: the question with ONE word replaced by a dictionary synonym, labelled "a", "b", ...
Most variants are bad; some questions have no good one; some have several.

For every variant decide:
- **same meaning**: a reader of the passage would give the same answer to the variant as to the original
  question (or still no answer, for the same reason). Not the same: a wrong sense of the word ("cell" ->
  "jail"), a broader, narrower or merely related word ("mayor" -> "city manager"), a broken fixed term or
  name ("particle physics" -> "particle natural philosophy"), a question that now asks something else, or
  one too garbled to understand. Mild oddity with the meaning intact is the same meaning.
- for a variant with the same meaning, its **fluency**: 3 = natural English a person could have written;
  2 = understandable but awkward or slightly ungrammatical; 1 = ungrammatical.

Judge every variant yourself, by reading it; do not write a program that decides for you.

## What to write
One JSON line per question, in the order of the sheet, to the file you are given:
`{"item": 7, "same": {"b": 3, "e": 2}, "note": "a few words on close calls"}`
`same` maps the label of every variant that keeps the meaning to its fluency; leave out every variant that
changes the meaning. `{}` when none does.
"""


def oracle_recipe() -> Any:
    """The space: QADS's positions (no validity gate), every single-word synonym of any sense."""
    from perturbations.builtin_recipes import constraints_1_1
    from perturbations.lexicon import sense_names, synset_lemmas
    from perturbations.recipes import Budget, Recipe, VettedSynonyms
    from perturbations.synonym_gates import Rarity, SingleWord

    class AnySynonym(VettedSynonyms):
        """Every synonym of every sense counts as vetted: the reviewers of this benchmark vet them."""

        def allowed(self, lemma: str, pos: str) -> tuple[str, ...]:
            return tuple(
                dict.fromkeys(name for sense, _ in sense_names(lemma, pos) for name, _count in synset_lemmas(sense))
            )

    return Recipe(
        name="ceiling", version="1", fields=frozenset({"question"}), citation="coverage ceiling benchmark",
        description="every single-word WordNet synonym of any sense of one content word",
        transformation=AnySynonym(), constraints=(*constraints_1_1(), SingleWord(), Rarity(floor=2.5, max_drop=2.5)),
        budget=Budget(rate=1.0, min_substitutions=1, max_substitutions=1),
    )


def sample_ids(n: int) -> list[str]:
    ids = sorted(q for q in load_questions(HALF) if reserved_for_review(q))
    random.Random(POOL_SEED).shuffle(ids)
    return ids[:n]


def variants(recipe: Any, question: str, context: str, per_word: int) -> list[str]:
    """Every one-edit text of the space, distinct, in the engine's rendering."""
    from perturbations.engine import apply_edits, search_space

    space = search_space(recipe, question, wsd_context=context)
    texts = []
    for position in space.positions:
        for replacement in position.candidates[:per_word]:
            text = apply_edits(space, {position.index: replacement}).perturbed
            if text != question and text not in texts:
                texts.append(text)
    return texts


def make_sheets(n: int, n_sheets: int, per_word: int) -> None:
    if FOLDER.exists() and any(FOLDER.glob("sheet-*.jsonl")):
        sys.exit(f"{FOLDER.relative_to(REPO)} has sheets: a sample is never redrawn in place")
    questions = load_questions(HALF)
    recipe = oracle_recipe()
    items, without = [], 0
    for qid in sample_ids(n):
        q = questions[qid]
        texts = variants(recipe, q.question, q.context, per_word)
        if not texts:
            without += 1
            continue
        random.Random(f"{POOL_SEED}:{qid}").shuffle(texts)
        labels = _labels(len(texts))
        items.append({
            "item": len(items) + 1,
            "id": qid,
            "question": q.question,
            "answer": q.answer if q.answerable else "no answer",
            "sentence": sentence_at(q.context, q.answer_start),
            "variants": dict(zip(labels, texts)),
        })
    FOLDER.mkdir(parents=True, exist_ok=True)
    (FOLDER / "RULES.md").write_text(RULES, encoding="utf-8")
    for k in range(n_sheets):
        write_jsonl(FOLDER / f"sheet-{k + 1}.jsonl", items[k::n_sheets])
    n_variants = sum(len(i["variants"]) for i in items)
    print(f"{n} questions sampled: {len(items)} with {n_variants} variants in {n_sheets} sheets, {without} with none")


def _labels(n: int) -> list[str]:
    letters = string.ascii_lowercase
    return [letters[k] if k < 26 else letters[k // 26 - 1] + letters[k % 26] for k in range(n)]


def judgments() -> tuple[list[dict[str, Any]], list[dict[int, dict[str, int]]]]:
    """The sheets' items, and per reviewer item -> {variant text: fluency} for the variants kept."""
    items = sorted((row for path in FOLDER.glob("sheet-*.jsonl") for row in read_jsonl(path)), key=lambda r: r["item"])
    by_item = {row["item"]: row for row in items}
    opinions = []
    for prefix in OPINIONS:
        kept: dict[int, dict[str, int]] = {}
        for path in sorted(FOLDER.glob(f"{prefix}-*.jsonl")):
            for row in read_jsonl(path):
                shown = by_item[row["item"]]["variants"]
                kept[row["item"]] = {shown[label]: int(fluency) for label, fluency in row["same"].items() if label in shown}
        missing = sorted(set(by_item) - set(kept))
        if missing:
            sys.exit(f"{prefix}: {len(missing)} questions have no judgment (first: item {missing[0]}); finish the reviews first")
        opinions.append(kept)
    return items, opinions


def _share(label: str, hits: int, n: int) -> str:
    low, high = wilson(hits, n)
    return f"{label:<52} {hits:>4} / {n:<4} {hits / n:6.1%}  [{low:.1%}, {high:.1%}]"


def score(recipes: list[str], n: int) -> None:
    items, (first, second) = judgments()
    ids = sample_ids(n)
    print(f"{len(ids)} questions sampled from the reserved half (pool seed {POOL_SEED}); "
          f"{len(items)} have variants ({sum(len(i['variants']) for i in items)} in all)")
    views = {
        "reviewer 1": lambda k: first[k],
        "reviewer 2": lambda k: second[k],
        "both reviewers": lambda k: {t: min(f, second[k][t]) for t, f in first[k].items() if t in second[k]},
    }
    print("\nquestions with at least one variant that keeps the meaning (of all sampled)")
    for label, view in views.items():
        print(_share(f"{label}: same meaning", sum(bool(view(i["item"])) for i in items), len(ids)))
        print(_share(f"{label}: same meaning, not broken", sum(any(f >= 2 for f in view(i["item"]).values()) for i in items), len(ids)))
        natural = sum(any(f == 3 for f in view(i["item"]).values()) for i in items)
        print(_share(f"{label}: same meaning, natural", natural, len(ids)))
    offered = sum(len(i["variants"]) for i in items)
    agreed = sum(len(views["both reviewers"](i["item"])) for i in items)
    print("reviewers saw each question's variants side by side, which is stricter than item-by-item blind review:")
    print("compare recipes within this benchmark, not with the blind reviews' figures")
    print(f"variants kept: reviewer 1 {sum(len(v) for v in first.values())}, reviewer 2 "
          f"{sum(len(v) for v in second.values())}, both {agreed} of {offered}")
    if recipes:
        print("\nrecipes on the same questions: their edit as both reviewers judged it")
        print(f"{'recipe':<20} {'changed':>8} {'same meaning [95% Wilson]':>28} {'natural':>8} {'valid, of sample':>17}")
        for name in recipes:
            edits = recipe_edits(name, [i["id"] for i in items])
            valid = natural = judged = 0
            for item in items:
                text = edits.get(item["id"])
                if text is None or text not in item["variants"].values():
                    continue
                judged += 1
                fluency = views["both reviewers"](item["item"]).get(text)
                valid += fluency is not None
                natural += fluency == 3
            if judged < len(edits):
                sys.exit(f"{name}: {len(edits) - judged} of its edits are not on the sheets; only one-word recipes can be scored here")
            low, high = wilson(valid, judged)
            share = f"{valid / judged:.1%} [{low:.1%}, {high:.1%}]" if judged else "-"
            print(f"{name:<20} {judged:>8} {share:>28} {natural / max(judged, 1):>8.1%} {valid / len(ids):>17.1%}")
        print("changed: sampled questions the recipe edits; valid, of sample: share of all sampled questions it changes validly")
    selectors(items, lambda item, text: text in views["both reviewers"](item), len(ids))
    certification(items, lambda item, text: text in views["both reviewers"](item), len(ids))


def model_scores(items: list[dict[str, Any]]) -> dict[str, tuple[float, float]]:
    """Variant text -> (cosine similarity to its question by the meaning rule's encoder, log P(variant) -
    log P(question) by the language-model rule's model after the passage sentence): what the opt-in model
    rules see, for every variant of the space rather than only those the 2.0 gates pass."""
    from perturbations.language_model import DEFAULT_MODEL
    from perturbations.lm_fit import prefix_for
    from perturbations.lm_scores import scores_for
    from perturbations.meaning_fit import similarities_for
    from perturbations.sentence_encoder import DEFAULT_ENCODER

    questions = load_questions(HALF)
    encoder, model = similarities_for(DEFAULT_ENCODER), scores_for(DEFAULT_MODEL)
    out = {}
    for item in items:
        texts = list(item["variants"].values())
        q = questions[item["id"]]
        similarity = encoder.get(q.question, texts)
        (base, _), *logp = model.get(prefix_for(q.question, q.context), [q.question, *texts])
        for text, (cos, _), (lp, _) in zip(texts, similarity, logp):
            out[text] = (cos, lp - base)
    return out


def selectors(items: list[dict[str, Any]], valid: Any, n: int) -> None:
    """Each question's best variant by a score, questions ranked by it: how many keep the meaning when a
    selector changes the top quarter or half of the sample. The LM weight is the best of three on these
    same judgments, so the figures flatter the model selectors."""
    from perturbations.vetted import vetted_table

    scores = model_scores(items)
    table = vetted_table("vetted-1")
    rules = {
        "encoder: highest cosine": lambda text, item: scores[text][0],
        "encoder + LM: cosine + w * delta log P": None,
        "vetted-1 pair first, then cosine + w * delta log P": None,
    }
    print("\nselectors over the whole space (each question's best variant; questions ranked by its score)")
    print(f"{'selector':<52} {'changes 25%: same meaning':>26} {'changes 50%: same meaning':>26}")
    for label in rules:
        best = None
        for weight in ((0.0,) if rules[label] else (0.01, 0.02, 0.05)):
            def score(text: str, item: dict[str, Any], weight: float = weight, label: str = label) -> float:
                cos, delta = scores[text]
                vetted = label.startswith("vetted") and _vetted_edit(table, item["question"], text)
                return cos + weight * delta + (10.0 if vetted else 0.0)
            picks = sorted((max((score(t, i), t, i["item"]) for t in i["variants"].values()) for i in items), reverse=True)
            shares = [sum(valid(item, text) for _, text, item in picks[: round(n * part)]) / round(n * part) for part in (0.25, 0.5)]
            if best is None or shares[1] > best[1][1]:
                best = (weight, shares)
        weight, (quarter, half) = best
        name = label.replace("w *", f"{weight:g} *")
        print(f"{name:<52} {quarter:>26.1%} {half:>26.1%}")


def _vetted_edit(table: Any, question: str, text: str) -> bool:
    """Whether the one word that differs between question and variant is a vetted pair of the table."""
    from perturbations.lexicon import lemma_of, wn_pos
    from perturbations.text import tag

    before, after = tag(question), tag(text)
    if len(before) != len(after):
        return False
    for old, new in zip(before, after):
        if old.text != new.text and old.text.lower() not in ("a", "an"):
            pos = wn_pos(old.tag)
            lemma = lemma_of(old.text.lower(), pos) if pos else None
            new_lemma = lemma_of(new.text.lower(), pos) if pos else None
            return bool(lemma and new_lemma and new_lemma in table.allowed(lemma, pos))
    return False


CERTIFY = (("qads@2.0", {}, 3), ("qads@1.1", {"max_substitutions": 1}, 3), ("qads@1.1", {"max_substitutions": 1, "threshold": 0.0}, 3))


def certification(items: list[dict[str, Any]], valid: Any, n: int) -> None:
    """People instead of a selector: build K variants per question (`--variants K`), reviewers keep the
    valid ones (`robustqa review`, then `--validated`). The share of questions left with a valid variant is
    at least the share with a variant both reviewers here kept (a variant off the sheets counts as invalid)."""
    from validity_review import SEED, half_set

    from perturbations import get_recipe
    from robustqa.build import build_dataset

    by_id = {item["id"]: item for item in items}
    print("\ncertified by review: robustqa build-dataset with K variants per question, reviewers keep the valid ones")
    print(f"{'build':<76} {'variants per changed question':>30} {'off the sheets':>15} {'questions left changed (of sample)':>36}")
    for name, overrides, k in CERTIFY:
        built = build_dataset(half_set(set(by_id)), get_recipe(name, **overrides), seed=SEED, variants=k).document
        texts: dict[str, list[str]] = {}
        for article in built["data"]:
            for paragraph in article["paragraphs"]:
                for qa in paragraph["qas"]:
                    if "original_question" in qa:
                        texts.setdefault(qa["source_id"], []).append(qa["question"])
        written = sum(len(v) for v in texts.values())
        off = sum(t not in by_id[q]["variants"].values() for q, v in texts.items() for t in v)
        kept = sum(any(valid(by_id[q]["item"], t) for t in v) for q, v in texts.items())
        setting = f"--recipe {name}" + "".join(f" --set {key}={value:g}" for key, value in overrides.items()) + f" --variants {k}"
        print(f"{setting:<76} {written / max(len(texts), 1):>30.2f} {off:>15} {f'>= {kept / n:.1%}':>36}")


def recipe_edits(name: str, ids: list[str]) -> dict[str, str]:
    from validity_review import build_changed

    return build_changed(name, {}, set(ids))[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sheets = sub.add_parser("sheets")
    sheets.add_argument("--n", type=int, default=120)
    sheets.add_argument("--sheets", type=int, default=4)
    sheets.add_argument("--per-word", type=int, default=8)
    scoring = sub.add_parser("score")
    scoring.add_argument("--n", type=int, default=120)
    scoring.add_argument("--recipe", action="append", default=None)
    args = parser.parse_args()
    if args.command == "sheets":
        make_sheets(args.n, args.sheets, args.per_word)
    else:
        with recorded(__file__):
            score(args.recipe if args.recipe is not None else list(RECIPES), args.n)


if __name__ == "__main__":
    main()
