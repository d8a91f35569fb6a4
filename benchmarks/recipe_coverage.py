"""Coverage of every recipe version on the 6,078 shared SQuAD questions: how many questions each changes,
with how many substitutions, and what its validity gates left alone.

Coverage is the other side of validity: a stricter setting changes fewer questions, so a drop measured with
it rests on fewer edits. Each recipe builds squad2-dev-half.json in process (seed 13, the build command's
default), after one warm-up build so that every row runs on a warm lexicon cache; `seconds` is that build.
The share of changed questions that keep their meaning is measured by the blind review
(`validity_review.py`), not here. Recipes with a language model (`qads-lm`) are left out unless named: a
build scores every candidate with the model (half an hour), which `lm_build.py` measures.

    NLTK_DATA=../shared/nltk_data python benchmarks/recipe_coverage.py [--input FILE] [--recipe NAME@VERSION ...]
"""

from __future__ import annotations

import argparse
import time

from _common import REPO, recorded


def main() -> None:
    import perturbations
    from robustqa.build import build_dataset
    from robustqa.squad import load_squad

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--input", default=str(REPO.parent / "shared" / "squad" / "squad2-dev-half.json"))
    parser.add_argument(
        "--recipe",
        action="append",
        help="recipe version, repeatable (default: every registered one without a language model)",
    )
    args = parser.parse_args()
    specs = args.recipe or [r.ident for r in perturbations.list_recipes() if not r.prepares]
    dataset = load_squad(args.input, check_answers=True)
    print(f"input: {args.input} ({len(dataset):,} questions), seed 13, one process, warm lexicon cache")
    print(
        f"{'recipe':20s} {'changed':>16s} {'substitutions':>13s} {'per changed':>11s} {'seconds':>8s}  "
        "gates that left most words alone (words)"
    )
    for spec in specs:
        recipe = perturbations.get_recipe(spec)
        build_dataset(dataset, recipe, seed=13)  # warm-up: fills the lexicon cache for this recipe
        started = time.perf_counter()
        summary = build_dataset(dataset, recipe, seed=13).summary
        seconds = time.perf_counter() - started
        share = 100 * summary.changed / summary.questions
        rejected = summary.gate_counts().get("rejected", {})
        top = (
            ", ".join(f"{reason} {count:,}" for reason, count in sorted(rejected.items(), key=lambda x: -x[1])[:5])
            or "(no gates)"
        )
        per = summary.substitutions / max(summary.changed, 1)
        print(
            f"{spec:20s} {summary.changed:7,d} ({share:5.1f}%) {summary.substitutions:13,d} {per:11.2f} "
            f"{seconds:8.1f}  {top}"
        )
    print(
        "changed: questions whose question (or, for context recipes, paragraph) differs; "
        "contexts count once per question"
    )


if __name__ == "__main__":
    with recorded(__file__):
        main()
