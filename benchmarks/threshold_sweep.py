"""The confidence threshold trades coverage for sense precision: both, measured for several thresholds.

For each threshold t, the `qads@1.1` recipe with `threshold=t` (everything else at its default) is run on the
135 SemEval-2007 sentences (sense precision and substitutions per sentence on annotated words, as
`wsd_eval.py` part (b) computes them, through the engine) and on the 6,078 questions of the shared half dev
set with their paragraphs as WSD context (share of questions changed, as `engine_quality.py` counts it).
SemEval-2007 is also the set the WSD parameters were tuned on: the precision is an optimistic estimate.

    NLTK_DATA=../shared/nltk_data python benchmarks/threshold_sweep.py [--thresholds 0.7,0.75,0.8,0.85,0.9]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from _wsd import load, perturb_records, sense_precision

from _common import REPO, question_rows, recorded


def questions_changed(questions: list[tuple[str, str, str]], threshold: float, seed: int) -> float:
    from perturbations import get_recipe

    recipe = get_recipe("qads@1.1", threshold=threshold)
    changed = sum(
        bool(recipe.perturb(q, seed=seed, key=qid, wsd_context=ctx).substitutions) for qid, q, ctx in questions
    )
    return changed / len(questions)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--thresholds", default="0.7,0.75,0.8,0.85,0.9")
    parser.add_argument("--wsd-dir", type=Path, default=REPO.parent / "shared" / "wsd")
    parser.add_argument("--input", type=Path, default=REPO.parent / "shared" / "squad" / "squad2-dev-half.json")
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args()
    thresholds = [float(t) for t in args.thresholds.split(",")]
    sentences = load(args.wsd_dir)
    questions = question_rows(args.input)
    print(
        f"recipe qads@1.1, threshold overridden; {len(sentences)} SemEval-2007 sentences; "
        f"{len(questions):,} questions of {args.input.name}"
    )
    print(
        f"{'threshold':>9}  {'sense precision':>15}  {'subs/sentence on annotated words':>32}  "
        f"{'questions changed':>17}"
    )
    for threshold in thresholds:
        result = sense_precision(
            sentences, perturb_records(sentences, "qads@1.1", "engine", args.seed, {"threshold": threshold})
        )
        share = questions_changed(questions, threshold, args.seed)
        print(
            f"{threshold:>9.2f}  {100 * result['sense_precision']:>14.1f}%  "
            f"{result['subs_per_sentence_on_instances']:>32.3f}  {100 * share:>16.1f}%"
        )


if __name__ == "__main__":
    with recorded(__file__):
        main()
