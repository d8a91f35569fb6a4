"""The packaged reviewed benchmark (certified@1) beside the recipes, for the shared models on the held-out
articles, and what the bare `robustqa eval MODEL` costs on this CPU.

1. Drop on the four held-out articles (the shared models never saw them): `qads@1.1`, `qads@2.0` and
   `qads@2.1` built on squad2-dev-heldout.json, and the certified variants of the same questions, each
   evaluated with `robustqa eval` as a user would. Columns: the F1 drop on changed answerable questions
   (every variant a pair), then per question its worst variant (worst-of-K, the headline) and the mean of
   its variants (mean-of-K), each with its paired bootstrap 95% interval. One-variant recipes have
   worst = mean = the changed drop.
2. The attack over the certified space. Every certified variant of a question is one model query, so an
   exhaustive attack with a budget of K queries would flip exactly the worst-of-K pairs: first that share,
   read from eval's examples (answerable questions right on clean that some certified variant turns wrong,
   Wilson interval). Then `robustqa attack MODEL --variants` itself (every listed variant within the budget),
   whose flips must hold by a margin (right on clean, wrong after, each by more than the flip margin, so that
   eval's batching cannot turn them back), and `robustqa eval` on its adversarial set, which must find exactly
   its flips. No flip needs a validity caveat beyond the review's: both reviewers kept every variant.
3. `robustqa eval MODEL` with no data option (the 6,078 clean questions and every certified variant):
   wall time and peak memory (max resident set of the process), so a user can size a run.

    NLTK_DATA=../shared/nltk_data python benchmarks/certified_drop.py [--work DIR] [--skip-bare]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import time
from pathlib import Path
from typing import Any

from _common import HELDOUT, MODELS, REPO, certified_heldout, evaluate, recorded, right_to_wrong, run_robustqa

RECIPES = ("qads@1.1", "qads@2.0", "qads@2.1")


def interval(value: float | None, ci: list[float] | None) -> str:
    if value is None:
        return "–"
    return f"{value:+.2f} [{ci[0]:+.2f}, {ci[1]:+.2f}]" if ci else f"{value:+.2f}"


def attack_success(entry: dict[str, Any], run_dir: Path) -> tuple[set[str], set[str]]:
    """(answerable questions right on clean that some certified variant turns wrong, answerable questions
    right on clean with a certified variant), from the run's examples.jsonl."""
    right, flipped = set(), set()
    for line in (run_dir / "examples.jsonl").read_text(encoding="utf-8").splitlines():
        example = json.loads(line)
        if not example.get("changed") or not example.get("answerable"):
            continue
        source = example["source_id"]
        if example["clean_exact"]:
            right.add(source)
            if not example["perturbed_exact"]:
                flipped.add(source)
    return flipped, right


def listed_attack(model: Path, variants: Path, work: Path) -> tuple[dict[str, Any], set[str], set[str]]:
    """attack.json of `robustqa attack MODEL --variants FILE` on the held-out questions, the ids it flipped, and
    the ids `robustqa eval` on its adversarial set finds flipped (right on clean by exact match, wrong after)."""
    folder = work / f"attack-{model.name}-certified"
    run_robustqa("attack", model, "--input", HELDOUT, "--variants", variants, "--output-dir", folder, "--quiet")
    record = json.loads((folder / "attack.json").read_text(encoding="utf-8"))
    check = work / f"run-{model.name}-on-attack"
    evaluate(model, folder / "adversarial.json", check)
    flipped, _ = right_to_wrong(check)  # an unchanged question reuses its clean answer: it cannot flip
    claimed = {q["id"] for q in record["questions_detail"] if q["status"] == "succeeded"}
    return record, claimed, flipped


def bare_eval(work: Path, model: Path) -> tuple[float, float, dict[str, Any]]:
    """Wall seconds and peak resident MiB of `robustqa eval MODEL` (no data option) in an empty folder."""
    folder = work / "bare"
    shutil.rmtree(folder, ignore_errors=True)  # a run left here would resume from its cache: not a cold run
    folder.mkdir(parents=True)
    started = time.perf_counter()
    run_robustqa("eval", model, "--quiet", "--overwrite", cwd=folder)
    seconds = time.perf_counter() - started
    peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    report = json.loads(next(folder.glob("runs/*/report.json")).read_text(encoding="utf-8"))
    return seconds, peak_mib, report


def main() -> None:
    from robustqa.stats import wilson_interval

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=REPO / "runs" / "certified-drop")
    parser.add_argument(
        "--skip-bare", action="store_true", help="leave out the timing of the whole bare eval (minutes)"
    )
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    built = {}
    for recipe in RECIPES:
        built[recipe] = args.work / f"{recipe.replace('@', '-')}-heldout.json"
        run_robustqa("build-dataset", "--input", HELDOUT, "--output", built[recipe], "--recipe", recipe)
    built["certified@1"] = certified_heldout(args.work)
    with recorded(__file__):
        for model in MODELS:
            print(
                f"{model.name} on {HELDOUT.name} (1,494 questions, 4 articles it never saw); "
                "official SQuAD 2.0 F1, points"
            )
            header = (
                f"{'set':<12} {'clean F1':>8} {'questions':>9} {'variants':>8} {'ΔF1 changed answerable':>26} "
                f"{'worst-of-K, answerable':>26} {'mean-of-K, answerable':>26}"
            )
            print(header)
            first_run: Path | None = None
            for name, path in built.items():
                run_dir = args.work / f"run-{model.name}-{name.replace('@', '-')}"
                entry = evaluate(model, path, run_dir, first_run)
                first_run = first_run or run_dir
                changed = entry["drop"]["changed"]
                variants = entry.get("variants")
                worst = (variants or {}).get("worst", {}).get("drop") or changed
                mean = (variants or {}).get("mean", {}).get("drop") or changed
                questions = (variants or {}).get("questions", changed["questions"])
                print(
                    f"{name:<12} {entry['clean']['f1']:>8.2f} {questions:>9,} {changed['questions']:>8,} "
                    f"{interval(changed['HasAns_f1'], changed['HasAns_f1_ci']):>26}"
                    f" {interval(worst['HasAns_f1'], worst['HasAns_f1_ci']):>26} "
                    f"{interval(mean['HasAns_f1'], mean['HasAns_f1_ci']):>26}"
                )
                if name == "certified@1":
                    worst_flips, right = attack_success(entry, run_dir)
                    low, high = wilson_interval(len(worst_flips), len(right))
                    certified_attack = (
                        f"{len(worst_flips)} / {len(right)} = {100 * len(worst_flips) / max(len(right), 1):.1f}% "
                        f"[{100 * low:.1f}%, {100 * high:.1f}%]"
                    )
            print(
                f"worst-of-K flips (every certified variant scored by eval): {certified_attack} of the answerable "
                "questions it got right"
            )
            record, claimed, found = listed_attack(model, built["certified@1"], args.work)
            low, high = record["success_rate_ci"]
            print(
                f"robustqa attack --variants (the certified held-out variants, budget {record['settings']['budget']}): "
                f"{record['succeeded']} of {record['attempted']} questions right on clean flipped = "
                f"{record['success_rate']:.1f}% [{low:.1f}%, {high:.1f}%] ({record['no_valid_edit']} with no "
                f"certified variant), {record['queries_total']:,} queries; robustqa eval on its adversarial set: "
                + (
                    f"the same {len(found)} flips"
                    if found == claimed
                    else f"{len(found ^ claimed)} questions differ from the attack's {len(claimed)} flips"
                )
            )
            status = {q["id"]: q["status"] for q in record["questions_detail"]}
            answerable = {q["id"] for q in record["questions_detail"] if q["answerable"]}
            missed, extra = worst_flips - claimed, claimed - worst_flips
            print(
                f"  of the {len(worst_flips)} worst-of-K flips above it claims {len(worst_flips & claimed)}: the other "
                f"{sum(status.get(i) == 'right-by-a-hair' for i in missed)} were right on clean by less than the flip "
                f"margin ({record['settings']['flip_margin']} logits) and "
                f"{sum(status.get(i) == 'failed' for i in missed)} wrong after by less than it, where eval's batching "
                f"could turn them back; it also flips {len(extra - answerable)} unanswerable questions (it answers "
                f"them) and {len(extra & answerable)} answerable ones eval does not count there"
            )
            print()
        if not args.skip_bare:
            seconds, peak, report = bare_eval(args.work, MODELS[0])
            entry = report["models"][0]
            questions = entry["coverage"]["clean_questions"] + entry["coverage"]["changed"]
            print(
                f"robustqa eval {MODELS[0].name} "
                f"(no data option: {entry['coverage']['clean_questions']:,} clean questions and "
                f"{entry['coverage']['changed']:,} certified variants, {questions:,} predictions) "
                f"on {os.cpu_count()} CPU cores, fp32, batch 32:"
            )
            print(
                f"  wall time {seconds:.0f} s ({1000 * seconds / questions:.1f} ms per prediction), "
                f"peak memory {peak:.0f} MiB (max resident set)"
            )


if __name__ == "__main__":
    main()
