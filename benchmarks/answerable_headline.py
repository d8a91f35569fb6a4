"""The three answers (docs/metrics.md) for both shared models on the four held-out articles they never saw.

`robustqa eval minilm-squad2-mini minilm-squad2-wiki` on squad2-dev-heldout.json (1,494 questions) and the
certified variants of those questions (certified@1 restricted to them, as certified_drop.py does), as a user
would run it; then, from the run folder alone:

1. each model's headline: answerable worst-of-K ΔF1 [95% CI], flip rate [Wilson 95% CI] with the flips split
   into abstained / answered something else, the threshold-free ΔF1 (best non-null span), and the abstention
   change on the changed unanswerable questions;
2. the paired comparison mini vs wiki over their shared changed answerable questions (bootstrap interval of the
   difference, exact McNemar on flips) with its verdict;
3. which edits break each model: answerable rows by edit kind (the substitutions' `kind`; "unclassified" where
   the set records none), by part of speech and by how common the new word is (wordfreq Zipf band), with their
   intervals; unanswerable rows by part of speech.

    NLTK_DATA=../shared/nltk_data python benchmarks/answerable_headline.py [--work DIR]
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from _common import HELDOUT, MODELS, REPO, certified_heldout, recorded, run_robustqa

os.environ.setdefault("OMP_NUM_THREADS", "2")


def main() -> None:
    from robustqa.estimands import rate_text, with_ci
    from robustqa.reporting.breakdowns import answerable_rows, unanswerable_rows
    from robustqa.reporting.headline import comparisons, headline_rows, run_settings
    from robustqa.runs.load import load_run

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=REPO / "runs" / "answerable-headline")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    variants = certified_heldout(args.work)
    run_dir = args.work / "run"
    with recorded(__file__):
        run_robustqa(
            "eval",
            *MODELS,
            "--clean",
            HELDOUT,
            "--perturbed",
            variants,
            "--output-dir",
            run_dir,
            "--quiet",
            "--overwrite",
        )
        run = load_run(run_dir)
        resamples, seed = run_settings(run)
        print(f"{HELDOUT.name} (1,494 questions, 4 articles neither model saw) and their certified@1 variants;")
        print(f"official SQuAD 2.0 per-question scores; {resamples} bootstrap resamples, seed {seed}\n")
        print("1. Does it still find the answer? (changed questions; answerable and unanswerable apart)")
        for row in headline_rows([run]):
            est = row.estimands or {}
            ans, unans, free = est["answerable"], est["unanswerable"], est.get("threshold_free")
            flips = ans["flips"]
            print(f"  {row.label}")
            print(
                f"    answerable: {ans['questions']} changed questions ({ans['variants']} variants), clean F1 "
                f"{ans['clean_f1']:.1f} on them"
            )
            print(f"    ΔF1 worst of K  {with_ci(ans['worst']['f1'], ans['worst']['f1_ci'])}")
            print(f"    ΔF1 mean of K   {with_ci(ans['mean']['f1'], ans['mean']['f1_ci'])}")
            print(
                f"    flip rate       {rate_text(flips)} ({flips['flipped']} of {flips['right_on_clean']} right on "
                f"clean: {flips['abstained']} abstained, {flips['answered_other']} answered something else)"
            )
            if free:
                print(
                    f"    threshold-free  ΔF1 worst of K {with_ci(free['worst']['f1'], free['worst']['f1_ci'])}, "
                    f"flip rate {rate_text(free['flips'])} (best non-null span, abstention off)"
                )
            print(
                f"    unanswerable: {unans['questions']} changed questions, abstention {unans['clean']:.1f}% → "
                f"{unans['perturbed']:.1f}%, Δ {with_ci(unans['shift'], unans['shift_ci'])} points"
            )
            abst = est["answerable_abstention"]
            print(
                f"    abstention on the answerable ones: {abst['clean']:.1f}% → {abst['perturbed']:.1f}%, "
                f"Δ {with_ci(abst['shift'], abst['shift_ci'])} points"
            )
            if est.get("reading"):
                print(f"    reading: {est['reading']}")
        print("\n2. Is one more robust than the other? (paired over shared changed answerable questions)")
        for result in comparisons([run]):
            print(f"  {result['verdict']}")
        print("\n3. Which edits break it? (changed answerable questions, worst of K within the group; * interval")
        print("   excludes zero; groups under 20 questions are listed, neither marked nor plotted)")
        for row in headline_rows([run]):
            examples = run.examples_of(row.model)
            for by, title in (
                ("kind", "edit kind"),
                ("pos", "part of speech"),
                ("frequency", "how common the new word is"),
            ):
                print(f"  {row.label}, by {title}:")
                for group in answerable_rows(examples, by, resamples=resamples, seed=seed):
                    mark = "*" if group["significant"] else " "
                    print(
                        f"    {mark} {group['group']:<20} n={group['questions']:<4} "
                        f"ΔF1 {with_ci(group['drop_f1'], group['drop_f1_ci']):<24} "
                        f"flip rate {rate_text({'rate': group['flip_rate'], 'rate_ci': group['flip_rate_ci']})}"
                    )
            print(f"  {row.label}, unanswerable, by part of speech (abstention change, points):")
            for group in unanswerable_rows(examples, "pos", resamples=resamples, seed=seed):
                mark = "*" if group["significant"] else " "
                print(
                    f"    {mark} {group['group']:<14} n={group['questions']:<4} "
                    f"{group['abstention_clean']:.1f}% → {group['abstention_perturbed']:.1f}%, "
                    f"Δ {with_ci(group['abstention_shift'], group['abstention_shift_ci'])}"
                )
        kinds = {s.get("kind") for e in run.examples for s in e.get("substitutions") or ()}
        if kinds <= {None}:
            print(
                "\n  The certified@1 variants record no edit kind yet, so every edit is 'unclassified'; the kind rows "
                "fill in once the set carries kinds."
            )
    print(f"\nrun folder: {run_dir.relative_to(REPO) if run_dir.is_relative_to(REPO) else run_dir}")


if __name__ == "__main__":
    main()
