"""Coverage ceiling: how many questions have ANY single-word WordNet synonym edit that keeps the meaning?

Issue 9 asks a default recipe to change at least half the questions with at least 95% of them keeping
their meaning. The vetted table keeps the meaning but changes a fifth; the WSD gates change half but keep
four in five. Whether both can hold at once depends on how many questions have a valid edit at all,
which no recipe's own review can say. This measures it on a random sample, with every edit in reach.

1. `sheets`: a random sample of questions from the half kept for blind review (sha256(id) odd: no
   vetter saw them): the next `--n` ids of one seeded shuffle of it, so samples (`ceiling-1`, `ceiling-2`,
   ...) never overlap. Each question comes with every edit of the space QADS works in: one content word
   (not a name, number, wh-word, auxiliary, pronoun, determiner, preposition or stopword) replaced by one
   single-word WordNet synonym from any of its senses (at most `--per-word` per word, most probable
   first), common enough to be a candidate at all (Zipf >= 2.5, at most 2.5 below the word), written as
   the engine writes it (inflected, case kept, "a"/"an" agreed). No validity gate is applied: the
   reviewers decide. Each question's variants are labelled a, b, c, ... in a random order.
2. Two reviewers per sheet, each on their own, follow RULES.md and write `first-<sheet>.jsonl` and
   `second-<sheet>.jsonl`: for each question, the variants that keep the meaning, each with its fluency.
3. `score`, per sample and for all together: the share of sampled questions with at least one variant
   that keeps the meaning (not broken; natural) by each reviewer and by both, with 95% Wilson intervals:
   the ceiling a recipe in this space could reach at full validity. On the same judgments: each recipe's
   edits; selectors that pick each question's best variant by the opt-in model rules' scores (weights
   fixed, not tuned) or by a model-free rule learned from the other samples' judgments (so judged out of
   sample); and certification, K variants per question built for people to review.

    NLTK_DATA=../shared/nltk_data python benchmarks/coverage_ceiling.py sheets --name ceiling-2 --skip 120
    NLTK_DATA=../shared/nltk_data python benchmarks/coverage_ceiling.py score [--recipe qads@2.1 ...]
"""

from __future__ import annotations

import argparse
import json
import random
import string
import sys
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

from _common import (
    HALF,
    REPO,
    load_questions,
    read_jsonl,
    recorded,
    reserved_for_review,
    sentence_at,
    wilson,
    write_jsonl,
)

REVIEWS = REPO / "studies" / "validity"
PREFIX = "ceiling-"  # each sample's folder: ceiling-1, ceiling-2, ... (meta.json says how it was drawn)
POOL_SEED = 2032  # one shuffle of the reserved half; each sample takes the next ids of it
OPINIONS = ("first", "second")  # each reviewer's files: <opinion>-<sheet>.jsonl
RECIPES = ("qads@2.0", "qads-strict@2.0", "qads-strictest@2.0", "qads@2.1", "qads-lm@2.2")
LM_WEIGHTS = (0.01, 0.02, 0.05)
CERTIFY = (
    ("qads@2.0", {}, 3),
    ("qads@1.1", {"max_substitutions": 1}, 3),
    ("qads@1.1", {"max_substitutions": 1, "threshold": 0.0}, 3),
)

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
    from perturbations.constraints.replacements import Rarity, SingleWord
    from perturbations.recipes import Recipe
    from perturbations.synonyms import AnySynonyms
    from perturbations.transformation import Budget

    return Recipe(
        name="ceiling",
        version="1",
        fields=frozenset({"question"}),
        citation="coverage ceiling benchmark",
        description="every single-word WordNet synonym of any sense of one content word",
        transformation=AnySynonyms(),
        constraints=(*constraints_1_1(), SingleWord(), Rarity(floor=2.5, max_drop=2.5)),
        budget=Budget(rate=1.0, min_substitutions=1, max_substitutions=1),
    )


@cache
def questions() -> dict[str, Any]:
    """The half set's questions by id, read once per process."""
    return load_questions(HALF)


def sample_ids(skip: int, n: int) -> list[str]:
    """Ids skip..skip+n of one seeded shuffle of the reserved half: samples drawn so never overlap."""
    ids = sorted(q for q in questions() if reserved_for_review(q))
    random.Random(POOL_SEED).shuffle(ids)
    return ids[skip : skip + n]


def variants(recipe: Any, question: str, context: str, per_word: int) -> list[str]:
    """Every one-edit text of the space, distinct, in the engine's rendering."""
    from perturbations.engine import apply_edits, build_space

    space = build_space(recipe, question, wsd_context=context)
    texts = []
    for position in space.positions:
        for replacement in position.candidates[:per_word]:
            text = apply_edits(space, {position.index: replacement}).perturbed
            if text != question and text not in texts:
                texts.append(text)
    return texts


def make_sheets(name: str, skip: int, n: int, n_sheets: int, per_word: int) -> None:
    folder = REVIEWS / name
    if not name.startswith(PREFIX) or folder.exists() and any(folder.glob("sheet-*.jsonl")):
        sys.exit(f"{folder.relative_to(REPO)}: a sample is never redrawn in place, and its name starts with {PREFIX}")
    taken = [meta for meta in map(_meta, samples())]
    if any(m["skip"] < skip + n and skip < m["skip"] + m["n"] for m in taken):
        sys.exit(
            f"ids {skip}..{skip + n} overlap an earlier sample; --skip past {max(m['skip'] + m['n'] for m in taken)}"
        )
    recipe = oracle_recipe()
    items, without = [], 0
    for qid in sample_ids(skip, n):
        q = questions()[qid]
        texts = variants(recipe, q.question, q.context, per_word)
        if not texts:
            without += 1
            continue
        random.Random(f"{POOL_SEED}:{qid}").shuffle(texts)
        labels = _labels(len(texts))
        items.append(
            {
                "item": len(items) + 1,
                "id": qid,
                "question": q.question,
                "answer": q.answer if q.answerable else "no answer",
                "sentence": sentence_at(q.context, q.answer_start),
                "variants": dict(zip(labels, texts)),
            }
        )
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "RULES.md").write_text(RULES, encoding="utf-8")
    (folder / "meta.json").write_text(
        json.dumps({"pool_seed": POOL_SEED, "skip": skip, "n": n, "per_word": per_word}, indent=2) + "\n",
        encoding="utf-8",
    )
    for k in range(n_sheets):
        write_jsonl(folder / f"sheet-{k + 1}.jsonl", items[k::n_sheets])
    n_variants = sum(len(i["variants"]) for i in items)
    print(f"{n} questions sampled: {len(items)} with {n_variants} variants in {n_sheets} sheets, {without} with none")


def _labels(n: int) -> list[str]:
    letters = string.ascii_lowercase
    return [letters[k] if k < 26 else letters[k // 26 - 1] + letters[k % 26] for k in range(n)]


def samples() -> list[Path]:
    """The sample folders, in the order they were drawn."""
    return sorted((p for p in REVIEWS.glob(PREFIX + "*") if (p / "meta.json").exists()), key=lambda p: _meta(p)["skip"])


def _meta(folder: Path) -> dict[str, Any]:
    return json.loads((folder / "meta.json").read_text(encoding="utf-8"))


def judgments(folder: Path) -> tuple[list[dict[str, Any]], list[dict[int, dict[str, int]]]]:
    """A sample's items, and per reviewer item -> {variant text: fluency} for the variants kept."""
    items = sorted((row for path in folder.glob("sheet-*.jsonl") for row in read_jsonl(path)), key=lambda r: r["item"])
    by_item = {row["item"]: row for row in items}
    opinions = []
    for prefix in OPINIONS:
        kept: dict[int, dict[str, int]] = {}
        for path in sorted(folder.glob(f"{prefix}-*.jsonl")):
            for row in read_jsonl(path):
                shown = by_item[row["item"]]["variants"]
                kept[row["item"]] = {
                    shown[label]: int(fluency) for label, fluency in row["same"].items() if label in shown
                }
        missing = sorted(set(by_item) - set(kept))
        if missing:
            sys.exit(
                f"{folder.name}: {prefix}: {len(missing)} questions have no judgment "
                f"(first: item {missing[0]}); finish the reviews first"
            )
        opinions.append(kept)
    return items, opinions


VIEWS = ("reviewer 1", "reviewer 2", "both reviewers")
LEVELS = (("same meaning", 1), ("same meaning, not broken", 2), ("same meaning, natural", 3))


def tally(
    folder: Path, judged: Any, recipes: list[str], variants_judged: list[Edit], learned: dict[str, float]
) -> Counter:
    """Every count the report prints, for one sample (`judged`: its `judgments`, `variants_judged` its edits;
    counts add up across samples); `learned` is the learned rule's score of each variant (fitted on the
    other samples)."""
    items, (first, second) = judged
    both = {k: {t: min(f, second[k][t]) for t, f in first[k].items() if t in second[k]} for k in first}
    views = dict(zip(VIEWS, (first, second, both)))
    c: Counter = Counter(
        sampled=_meta(folder)["n"], questions=len(items), variants=sum(len(i["variants"]) for i in items)
    )
    for item in items:
        for text in item["variants"].values():
            c[("agree", text in first[item["item"]], text in second[item["item"]])] += 1
    for view, kept in views.items():
        c[("kept", view)] = sum(len(v) for v in kept.values())
        for level, floor in LEVELS:
            c[("ceiling", view, level)] = sum(any(f >= floor for f in kept[i["item"]].values()) for i in items)

    def valid(item: int, text: str) -> bool:
        return text in both[item]

    for name in recipes:
        edits = recipe_edits(name, [i["id"] for i in items])
        for item in items:
            text = edits.get(item["id"])
            if text is None:
                continue
            if text not in item["variants"].values():
                sys.exit(
                    f"{name}: an edit of question {item['id']} is not on the sheets; "
                    "only one-word recipes can be scored here"
                )
            c[("recipe", name, "changed")] += 1
            c[("recipe", name, "valid")] += valid(item["item"], text)
            c[("recipe", name, "natural")] += both[item["item"]].get(text) == 3
    rules = {
        **selector_scores(items, {edit.text: edit.vetted for edit in variants_judged}),
        LEARNED: learned.__getitem__,
    }
    for label, score in rules.items():
        picks = sorted((max((score(t), t) for t in i["variants"].values()) + (i["item"],) for i in items), reverse=True)
        for part in (0.25, 0.5):
            k = round(c["sampled"] * part)
            c[("selector", label, part, "k")] += k
            c[("selector", label, part, "valid")] += sum(valid(item, text) for _, text, item in picks[:k])
    on_sheet = {i["id"]: set(i["variants"].values()) for i in items}
    number = {i["id"]: i["item"] for i in items}
    for setting, texts in certified_variants(items).items():
        c[("certify", setting, "written")] += sum(len(v) for v in texts.values())
        c[("certify", setting, "changed")] += len(texts)
        c[("certify", setting, "off")] += sum(t not in on_sheet[q] for q, v in texts.items() for t in v)
        c[("certify", setting, "kept")] += sum(any(valid(number[q], t) for t in v) for q, v in texts.items())
    return c


def _kappa(c: Counter) -> float:
    """Cohen's kappa of the two reviewers' same-meaning labels of every variant, from the 2x2 counts."""
    from robustqa.review.agreement import cohen_kappa

    cells = [(a, b) for a in (True, False) for b in (True, False) for _ in range(c[("agree", a, b)])]
    kappa = cohen_kappa([a for a, _ in cells], [b for _, b in cells])
    return float("nan") if kappa is None else kappa


def _share(hits: int, n: int) -> str:
    low, high = wilson(hits, n)
    return f"{hits:>4} / {n:<4} {hits / n:6.1%} [{low:.1%}, {high:.1%}]"


def report(title: str, c: Counter, recipes: list[str]) -> None:
    print(f"\n== {title}: {c['sampled']} questions; {c['questions']} have variants, {c['variants']} in all")
    print("questions with at least one variant that keeps the meaning (of all sampled)")
    for view in VIEWS:
        for level, _ in LEVELS:
            print(f"  {view + ': ' + level:<46} {_share(c[('ceiling', view, level)], c['sampled'])}")
    print(
        f"  variants kept: reviewer 1 {c[('kept', VIEWS[0])]}, reviewer 2 {c[('kept', VIEWS[1])]}, "
        f"both {c[('kept', VIEWS[2])]} of {c['variants']}; "
        f"agreement on each variant (same meaning or not): Cohen's kappa {_kappa(c):.3f}"
    )
    print("recipes on the same questions: their edit as both reviewers judged it")
    print(f"  {'recipe':<20} {'changed':>8} {'same meaning [95% Wilson]':>30} {'natural':>8} {'valid, of sample':>17}")
    for name in recipes:
        changed, valid = c[("recipe", name, "changed")], c[("recipe", name, "valid")]
        low, high = wilson(valid, changed)
        share = f"{valid / changed:.1%} [{low:.1%}, {high:.1%}]" if changed else "-"
        natural = c[("recipe", name, "natural")] / max(changed, 1)
        print(f"  {name:<20} {changed:>8} {share:>30} {natural:>8.1%} {valid / c['sampled']:>17.1%}")
    print("selectors over the whole space: each question's best variant, questions ranked by its score")
    print(f"  {'selector':<54} {'changes 25%: same meaning':>26} {'changes 50%: same meaning':>26}")
    for label in [label for label, _, _ in SELECTORS] + [LEARNED]:
        shares = [c[("selector", label, part, "valid")] / c[("selector", label, part, "k")] for part in (0.25, 0.5)]
        print(f"  {label:<54} {shares[0]:>26.1%} {shares[1]:>26.1%}")
    print("certified by review: robustqa build-dataset with K variants per question, reviewers keep the valid ones")
    print(
        f"  {'build':<76} {'variants per changed question':>30} {'off the sheets':>15} "
        f"{'questions left changed (of sample)':>36}"
    )
    for setting in certify_settings():
        written, changed = c[("certify", setting, "written")], c[("certify", setting, "changed")]
        kept = c[("certify", setting, "kept")]
        print(
            f"  {setting:<76} {written / max(changed, 1):>30.2f} {c[('certify', setting, 'off')]:>15} "
            f"{'>= ' + _share(kept, c['sampled']):>36}"
        )


def score(recipes: list[str]) -> None:
    folders = samples()
    judged = [judgments(folder) for folder in folders]
    edits = [edit_features(sample) for sample in judged]
    learned = [cross_fitted(edits, k) for k in range(len(folders))]
    tallies = [
        tally(folder, sample, recipes, variants_of, scores)
        for folder, sample, variants_of, scores in zip(folders, judged, edits, learned)
    ]
    print("Reviewers saw each question's variants side by side, which is stricter than item-by-item blind review:")
    print("compare recipes within this benchmark, not with the blind reviews' figures. Variants off the sheets")
    print("count as invalid, so the certified shares are lower bounds.")
    for folder, c in zip(folders, tallies):
        meta = _meta(folder)
        report(
            f"{folder.name} (reserved half, pool seed {meta['pool_seed']}, "
            f"ids {meta['skip']}..{meta['skip'] + meta['n']})",
            c,
            recipes,
        )
    if len(tallies) > 1:
        report("all samples", sum(tallies, Counter()), recipes)


def model_scores(items: list[dict[str, Any]]) -> dict[str, tuple[float, float]]:
    """Variant text -> (cosine similarity to its question by the meaning rule's encoder, log P(variant) -
    log P(question) by the language-model rule's model after the passage sentence): what the opt-in model
    rules see, for every variant of the space rather than only those the 2.0 gates pass."""
    from perturbations.constraints.model_rules import prefix_for, similarities_for
    from perturbations.language_model import DEFAULT_MODEL
    from perturbations.lm_scores import scores_for
    from perturbations.sentence_encoder import DEFAULT_ENCODER

    encoder, model = similarities_for(DEFAULT_ENCODER), scores_for(DEFAULT_MODEL)
    out = {}
    for item in items:
        texts = list(item["variants"].values())
        q = questions()[item["id"]]
        similarity = encoder.get(q.question, texts)
        (base, _), *logp = model.get(prefix_for(q.question, q.context), [q.question, *texts])
        for text, (cos, _), (lp, _) in zip(texts, similarity, logp):
            out[text] = (cos, lp - base)
    return out


# (label, weight of the LM's change in log probability, vetted pairs first): every weight of LM_WEIGHTS, none tuned
SELECTORS = (
    ("encoder: highest cosine", 0.0, False),
    *((f"encoder + LM: cosine + {w:g} * delta log P", w, False) for w in LM_WEIGHTS),
    *((f"vetted-1 pair first, then cosine + {w:g} * delta log P", w, True) for w in LM_WEIGHTS),
)
LEARNED = "model-free, learned: WordNet and frequency features"


class Edit(NamedTuple):
    """One variant of a sample: its text, what a model-free rule can know of it, and the judgment."""

    text: str
    features: list[float]
    valid: bool  # both reviewers kept the meaning
    vetted: bool  # the pair is in the vetted table


def edit_features(sample: tuple[list[dict[str, Any]], list[dict[int, dict[str, int]]]]) -> list[Edit]:
    """Every variant of a sample as an `Edit`, from one walk of the space. The features are what a
    model-free rule can know of an edit: WSD confidence and rank, how many senses the word and the synonym
    have and how much of each one's WordNet usage the shared senses hold, word frequencies, whether
    the 2.0 gates, the strict gates and the vetted table allow it, the part of speech."""
    import math

    from wordfreq import zipf_frequency

    from perturbations import get_recipe
    from perturbations.engine import apply_edits, build_space
    from perturbations.lexicon import sense_names, synset_lemmas
    from perturbations.vetted import vetted_table

    items, (first, second) = sample
    oracle, gated, strict = oracle_recipe(), get_recipe("qads@2.0"), get_recipe("qads-strict@2.0")
    table = vetted_table("vetted-1")

    def allowed(recipe: Any, q: Any) -> set[str]:
        space = build_space(recipe, q.question, wsd_context=q.context)
        return {apply_edits(space, {p.index: r}).perturbed for p in space.positions for r in p.candidates}

    def usage(word: str, pos: str) -> int:
        """The word's tagged uses over all its senses (at least 1)."""
        return max(1, sum(count for _, count in sense_names(word, pos)))

    rows = []
    for item in items:
        q = questions()[item["id"]]
        shown, in_2_0, in_strict = set(item["variants"].values()), allowed(gated, q), allowed(strict, q)
        seen: set[str] = set()
        space = build_space(oracle, q.question, wsd_context=q.context)
        for p in space.positions:
            pos = "a" if p.pos == "s" else p.pos
            word_senses = sense_names(p.lemma, pos)
            for rank, r in enumerate(p.candidates):
                text = apply_edits(space, {p.index: r}).perturbed
                if text not in shown or text in seen:
                    continue
                seen.add(text)
                name = r.name.lower()
                vetted = name in table.allowed(p.lemma, pos)
                shared = [s for s, _ in word_senses if any(n.lower() == name for n, _ in synset_lemmas(s))]
                word_share = sum(c for s, c in word_senses if s in shared) / usage(p.lemma, pos)
                syn_share = sum(c for s in shared for n, c in synset_lemmas(s) if n.lower() == name) / usage(name, pos)
                zw, zs = zipf_frequency(p.word.lower(), "en"), zipf_frequency(r.form, "en")
                features = [
                    r.confidence,
                    rank,
                    math.log1p(len(word_senses)),
                    math.log1p(len(sense_names(name, pos))),
                    word_share,
                    syn_share,
                    math.log1p(usage(p.lemma, pos)),
                    math.log1p(usage(name, pos)),
                    zw,
                    zs,
                    zs - zw,
                    float(text in in_2_0),
                    float(text in in_strict),
                    float(vetted),
                    float(bool(shared) and shared[0] == word_senses[0][0]),
                    *(float(pos == letter) for letter in "nvar"),
                ]
                valid = text in first[item["item"]] and text in second[item["item"]]
                rows.append(Edit(text, features, valid, vetted))
    return rows


def cross_fitted(features: list[list[Edit]], k: int) -> dict[str, float]:
    """Sample k's variants scored by a logistic regression fitted on the other samples' judgments (L2, on
    standardised features; numpy, deterministic): a learned model-free rule, judged out of sample."""
    import numpy as np

    train = [row for j, rows in enumerate(features) if j != k for row in rows]
    if not train:
        return {edit.text: 0.0 for edit in features[k]}
    x = np.array([edit.features for edit in train])
    y = np.array([edit.valid for edit in train], dtype=float)
    mean, scale = x.mean(0), x.std(0) + 1e-9
    z = (x - mean) / scale
    w, b = np.zeros(z.shape[1]), 0.0
    for _ in range(3000):
        error = 1 / (1 + np.exp(-(z @ w + b))) - y
        w -= 0.5 * (z.T @ error + w) / len(y)
        b -= 0.5 * error.mean()
    test = np.array([edit.features for edit in features[k]])
    return {edit.text: float(s) for edit, s in zip(features[k], ((test - mean) / scale) @ w + b)}


def selector_scores(items: list[dict[str, Any]], vetted: dict[str, bool]) -> dict[str, Any]:
    """Each selector of SELECTORS as a score of a variant's text: the encoder's cosine, plus its weight
    times the LM's change in log probability, optionally vetted pairs (`vetted`) first."""
    scores = model_scores(items)
    return {
        label: lambda text, w=weight, first=first: (
            scores[text][0] + w * scores[text][1] + (10.0 if first and vetted[text] else 0.0)
        )
        for label, weight, first in SELECTORS
    }


def certify_settings() -> list[str]:
    return [
        f"--recipe {name}" + "".join(f" --set {key}={value:g}" for key, value in overrides.items()) + f" --variants {k}"
        for name, overrides, k in CERTIFY
    ]


def certified_variants(items: list[dict[str, Any]]) -> dict[str, dict[str, list[str]]]:
    """People instead of a selector: per build setting of CERTIFY (`--variants K`), the variants written for
    each sampled question; reviewers would keep the valid ones (`robustqa review`, then `--validated`)."""
    from perturbations import get_recipe
    from robustqa.build import build_dataset

    from _common import SEED, half_set

    ids = {item["id"] for item in items}
    out = {}
    for setting, (name, overrides, k) in zip(certify_settings(), CERTIFY):
        built = build_dataset(half_set(ids), get_recipe(name, **overrides), seed=SEED, variants=k).document
        texts: dict[str, list[str]] = {}
        for article in built["data"]:
            for paragraph in article["paragraphs"]:
                for qa in paragraph["qas"]:
                    if "original_question" in qa:
                        texts.setdefault(qa["source_id"], []).append(qa["question"])
        out[setting] = texts
    return out


def recipe_edits(name: str, ids: list[str]) -> dict[str, str]:
    from _common import build_changed

    return build_changed(name, {}, set(ids))[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sheets = sub.add_parser("sheets")
    sheets.add_argument("--name", required=True, help="ceiling-N")
    sheets.add_argument(
        "--skip", type=int, required=True, help="ids of the shuffled reserved half taken by earlier samples"
    )
    sheets.add_argument("--n", type=int, default=120)
    sheets.add_argument("--sheets", type=int, default=4)
    sheets.add_argument("--per-word", type=int, default=8)
    scoring = sub.add_parser("score")
    scoring.add_argument("--recipe", action="append", default=None)
    args = parser.parse_args()
    if args.command == "sheets":
        make_sheets(args.name, args.skip, args.n, args.sheets, args.per_word)
    else:
        with recorded(__file__):
            score(args.recipe if args.recipe is not None else list(RECIPES))


if __name__ == "__main__":
    main()
