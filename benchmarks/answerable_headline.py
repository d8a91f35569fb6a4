"""The three answers (docs/metrics.md) for both shared models on the four held-out articles they never saw.

`robustqa eval minilm-squad2-mini minilm-squad2-wiki` on squad2-dev-heldout.json (1,494 questions) and the
certified variants of those questions (certified@1 restricted to them, as certified_drop.py does; certified@2 has
the same variants), as a user would run it, every variant evaluated; then, from the run folder alone, each answer
as a certified@2 run gives it by default (`robustqa eval MODELS --articles ...`): the headline over the variants
made only of synonym and rare edits (the kinds every examples.jsonl line records, by the rules certified@2's
kinds come from), every kind in its own row of the breakdown by edit kind:

1. each model's headline: answerable worst-of-K ΔF1 [95% CI], flip rate [Wilson 95% CI] with the flips split
   into abstained / answered something else, the threshold-free ΔF1 (best non-null span), and the abstention
   change on the changed unanswerable questions;
2. the paired comparison mini vs wiki over their shared changed answerable questions (bootstrap interval of the
   difference, exact McNemar on flips) with its verdict;
3. which edits break each model: answerable rows by edit kind (every kind: spelling variants and abbreviations
   too), by part of speech and by how common the new word is (wordfreq Zipf band; these two over the headline's
   synonym and rare edits), with their intervals; unanswerable rows by part of speech.

    NLTK_DATA=../shared/nltk_data python benchmarks/answerable_headline.py [--work DIR]
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from _common import HELDOUT, MODELS, REPO, certified_heldout, recorded, run_robustqa

os.environ.setdefault("OMP_NUM_THREADS", "2")


def main() -> None:
    from robustqa.estimands import compare, estimands, kinds_text, rate_text
    from robustqa.packaged import get_set
    from robustqa.render import with_ci
    from robustqa.reporting.breakdowns import model_breakdowns
    from robustqa.reporting.headline import run_settings
    from robustqa.reporting.tables import short_model_name
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
        kinds = get_set("certified@2").headline_kinds
        examples = {short_model_name(model): run.examples_of(model) for model in run.models}
        print(f"{HELDOUT.name} (1,494 questions, 4 articles neither model saw) and their certified variants,")
        variants = len(next(iter(examples.values())))
        print(f"{variants} variants, every one evaluated; the headline counts {kinds_text(kinds)},")
        print("as a certified@2 run does by default; official SQuAD 2.0 per-question scores;")
        print(f"{resamples} bootstrap resamples, seed {seed}\n")
        print("1. Does it still find the answer? (changed questions; answerable and unanswerable apart)")
        for model in examples:
            est = estimands(examples[model], resamples=resamples, seed=seed, kinds=kinds)
            ans, unans, free = est["answerable"], est["unanswerable"], est.get("threshold_free")
            flips = ans["flips"]
            print(f"  {model}")
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
        a, b = examples
        result = compare(a, examples[a], b, examples[b], resamples=resamples, seed=seed, kinds=kinds)
        print(f"  {result['verdict']}")
        print("\n3. Which edits break it? (changed answerable questions, worst of K within the group; * interval")
        print("   excludes zero; groups under 20 questions are listed, neither marked nor plotted)")
        for model in examples:
            breakdowns = model_breakdowns(examples[model], resamples=resamples, seed=seed, kinds=kinds)
            for by, title in (
                ("kind", "edit kind (every kind)"),
                ("pos", f"part of speech ({kinds_text(kinds)})"),
                ("frequency", f"how common the new word is ({kinds_text(kinds)})"),
            ):
                print(f"  {model}, by {title}:")
                for group in breakdowns.answerable[by]:
                    mark = "*" if group["significant"] else " "
                    print(
                        f"    {mark} {group['group']:<20} n={group['questions']:<4} "
                        f"ΔF1 {with_ci(group['drop_f1'], group['drop_f1_ci']):<24} "
                        f"flip rate {rate_text({'rate': group['flip_rate'], 'rate_ci': group['flip_rate_ci']})}"
                    )
            print(f"  {model}, unanswerable, by part of speech ({kinds_text(kinds)}; abstention change, points):")
            for group in breakdowns.unanswerable["pos"]:
                mark = "*" if group["significant"] else " "
                print(
                    f"    {mark} {group['group']:<14} n={group['questions']:<4} "
                    f"{group['abstention_clean']:.1f}% → {group['abstention_perturbed']:.1f}%, "
                    f"Δ {with_ci(group['abstention_shift'], group['abstention_shift_ci'])}"
                )
    print(f"\nrun folder: {run_dir.relative_to(REPO) if run_dir.is_relative_to(REPO) else run_dir}")


if __name__ == "__main__":
    main()
