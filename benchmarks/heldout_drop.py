"""The shared model's drop on the held-out questions under each qads version: how much of a measured drop
the validity gates take away, and how much the vetted table of qads@2.1 and the model rules of the opt-in
qads-lm@2.2 do.

Builds `qads@1.1`, `qads@2.0`, `qads@2.1` and `qads-lm@2.2` on the held-out SQuAD 2.0 questions and
evaluates the shared MiniLM model on each with `robustqa eval`, as a user would (console script, default
settings). The headline is the F1 drop on changed answerable questions with its paired bootstrap interval (a
model that abstains more often gains on unanswerable questions, so the answerable column is the one that
measures lost answers). Run folders go under --work and are reused: the clean predictions depend only on the
clean file and the model, so the second run takes them from the first run's cache.

    NLTK_DATA=../shared/nltk_data python benchmarks/heldout_drop.py [--work DIR]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from _common import REPO, SHARED, recorded, reuse_clean_predictions, run_robustqa

HELDOUT = SHARED / "squad" / "squad2-dev-heldout.json"
MODEL = SHARED / "models" / "minilm-squad2-mini"
RECIPES = ("qads@1.1", "qads@2.0", "qads@2.1", "qads-lm@2.2")


def run(work: Path, recipe: str, clean_cache_from: Path | None) -> dict:
    """report.json of the eval of `recipe`'s held-out variant (built and evaluated unless already there)."""
    built = work / f"{recipe.replace('@', '-')}-heldout.json"
    run_dir = work / f"run-{recipe.replace('@', '-')}"
    run_robustqa("build-dataset", "--input", HELDOUT, "--output", built, "--recipe", recipe)
    reuse_clean_predictions(run_dir, clean_cache_from)
    run_robustqa("eval", MODEL, "--clean", HELDOUT, "--perturbed", built, "--output-dir", run_dir, "--quiet")
    return json.loads((run_dir / "report.json").read_text(encoding="utf-8"))


def interval(value: float, ci: list[float] | None) -> str:
    return f"{value:+.2f} [{ci[0]:+.2f}, {ci[1]:+.2f}]" if ci else f"{value:+.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=REPO / "runs" / "heldout-drop")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    with recorded(__file__):
        print(f"{MODEL.name} on {HELDOUT.name}; official SQuAD 2.0 EM/F1; changed: questions the recipe edited")
        print(
            f"{'recipe':<12} {'clean F1':>8} {'changed':>14} {'ΔF1 changed':>24} "
            f"{'ΔF1 changed answerable [95% CI]':>34} {'flips R→W / W→R':>16}"
        )
        first_run: Path | None = None
        for recipe in RECIPES:
            report = run(args.work, recipe, first_run)
            first_run = first_run or args.work / f"run-{recipe.replace('@', '-')}"
            entry = report["models"][0]
            changed, coverage, flips = entry["drop"]["changed"], entry["coverage"], entry["flips"]
            print(
                f"{recipe:<12} {entry['clean']['f1']:>8.2f} {coverage['changed']:>6}/{coverage['matched']} "
                f"({100 * coverage['changed_share']:.1f}%)"
                f" {interval(changed['f1'], changed['f1_ci']):>24} "
                f"{interval(changed['HasAns_f1'], changed['HasAns_f1_ci']):>34}"
                f" {flips['changed_right_to_wrong']:>7} / {flips['changed_wrong_to_right']}"
            )


if __name__ == "__main__":
    main()
