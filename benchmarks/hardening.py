"""Does fine-tuning on valid synonym variants make a QA model harder to break? (`robustqa train`, issue 28)

Starts from `../shared/models/minilm-squad2-wiki` and fine-tunes it twice on the 12 packaged articles that are
not held out (`squad2-dev-half.json` without Normans, Computational complexity theory, Huguenot, Steam
engine), with the same seed, settings and number of optimisation steps: once on the clean questions, once on
the clean questions plus their certified variants (`certified@1`, variants of those 12 articles only), and once
on the clean questions with `--adversarial` (at the epoch start, `attack` over `qads@2.0` on a seeded sample of
the training questions; the variants that flip the model are added). All are evaluated, beside the starting
model, on the four held-out articles: clean EM/F1, the certified set's answerable headline (worst-of-K ΔF1, flip
rate, abstention shift), the drop on `qads@2.1` variants, and the attack's success over the certified held-out
space; then the fine-tuned models are compared paired.

Stages (each reuses what the one before wrote under --work):

    NLTK_DATA=../shared/nltk_data python benchmarks/hardening.py train [--work .bench/hardening]
    NLTK_DATA=../shared/nltk_data python benchmarks/hardening.py evaluate [--work .bench/hardening]
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from pathlib import Path
from typing import Any

from _common import REPO, SHARED, recorded, reuse_clean_predictions, run_robustqa

HALF = SHARED / "squad" / "squad2-dev-half.json"
HELDOUT = SHARED / "squad" / "squad2-dev-heldout.json"
BASE = SHARED / "models" / "minilm-squad2-wiki"
CERTIFIED = REPO / "robustqa" / "data" / "certified" / "certified-v1.json"
HELDOUT_TITLES = ("Normans", "Computational_complexity_theory", "Huguenot", "Steam_engine")
# One training run must fit ~20 minutes of a 2-core CPU shared with other jobs: a fixed, small number of steps.
STEPS = 40
# The adversarial arm: questions attacked at the epoch start (40 steps are under one epoch: one attack, on the
# starting weights) and model queries each; what a shared 2-core CPU attacks in minutes. Over qads@2.1 the attack
# finds almost nothing to search on these questions (2 of the first 60 sampled have an edit it searches; a first
# run flipped none of 119 searched), so it searches qads@2.0, whose gates also came from blind review.
ADVERSARIAL = ("--adversarial", "--adversarial-sample", "300", "--adversarial-budget", "10",
               "--adversarial-recipe", "qads@2.0")  # fmt: skip
ARMS = ("clean", "certified", "adversarial")


def train_settings(window: int, batch: int) -> tuple[str, ...]:
    """The settings of both runs: windows of `window` tokens (stride 3/8 of it), `batch` windows a step."""
    return (
        "--max-seq-length", str(window), "--doc-stride", str(window * 3 // 8), "--steps", str(STEPS),
        "--batch-size", str(batch), "--learning-rate", "5e-5", "--warmup-ratio", "0.1", "--seed", "13",
        "--save-steps", "10", "--device", "cpu", "--threads", "1",
    )  # fmt: skip


def training_questions(half: dict[str, Any]) -> dict[str, Any]:
    """The half set without the held-out articles: what both models are fine-tuned on."""
    return {**half, "data": [a for a in half["data"] if a["title"] not in HELDOUT_TITLES]}


def certified_variants(certified: dict[str, Any]) -> dict[str, Any]:
    """The certified file without the held-out articles (the augmenter also takes only variants whose source
    question is in the training file; this keeps the held-out variants out of the file it reads at all)."""
    return {**certified, "data": [a for a in certified["data"] if a["title"] not in HELDOUT_TITLES]}


def prepare(work: Path) -> tuple[Path, Path]:
    """The clean training file and the certified-variants file of the 12 training articles."""
    work.mkdir(parents=True, exist_ok=True)
    clean, variants = work / "train-clean.json", work / "certified-train-articles.json"
    clean.write_text(json.dumps(training_questions(json.loads(HALF.read_text(encoding="utf-8")))), encoding="utf-8")
    variants.write_text(
        json.dumps(certified_variants(json.loads(CERTIFIED.read_text(encoding="utf-8")))), encoding="utf-8"
    )
    return clean, variants


def train(work: Path, settings: tuple[str, ...], arms: list[str]) -> None:
    """The fine-tuning runs, side by side (one thread each), after the augmented file is written; a run whose
    folder holds its weights is not run again (an interrupted one resumes from its checkpoint)."""
    import subprocess

    from _common import robustqa_command

    clean, variants = prepare(work)
    augmented = work / "train-certified.json"
    run_robustqa("augment", "--input", clean, "--output", augmented, "--variants-file", variants)
    runs = []
    plans = {"clean": (clean, ()), "certified": (augmented, ()), "adversarial": (clean, ADVERSARIAL)}
    for name in arms:
        data, extra = plans[name]
        if (work / f"model-{name}" / "model.safetensors").exists():
            continue
        log = (work / f"train-{name}.log").open("w")
        command = [*robustqa_command(), "train", str(BASE), "--train", str(data), "--output-dir"]
        runs.append(
            subprocess.Popen([*command, str(work / f"model-{name}"), *settings, *extra], stdout=log, stderr=log)
        )
    failed = [run.args for run in runs if run.wait() != 0]
    if failed:
        sys.exit(f"training failed: see {work}/train-*.log")


# --------------------------------------------------------------------------- evaluation

MODELS = {"start": BASE, "clean": "model-clean", "certified": "model-certified", "adversarial": "model-adversarial"}
ATTACK_BUDGET = 8  # queries per question: more than the certified variants any held-out question has
# Every held-out question is evaluated; the attack, which asks the model about many variants of each, takes the
# first ATTACK_LIMIT in file order (Normans and the start of Computational complexity theory).
ATTACK_LIMIT = 300
RESAMPLES, SEED = 1000, 13


def model_path(work: Path, name: str) -> Path:
    target = MODELS[name]
    return target if isinstance(target, Path) else work / target


def heldout_files(work: Path) -> tuple[Path, Path]:
    """The certified variants of the held-out articles, and the qads@2.1 build of the held-out questions."""
    certified = work / "certified-heldout.json"
    if not certified.exists():
        document = json.loads(CERTIFIED.read_text(encoding="utf-8"))
        document["data"] = [a for a in document["data"] if a["title"] in HELDOUT_TITLES]
        certified.write_text(json.dumps(document), encoding="utf-8")
    qads = work / "qads21-heldout.json"
    if not qads.exists():
        run_robustqa("build-dataset", "--input", HELDOUT, "--output", qads, "--recipe", "qads@2.1")
    return certified, qads


def run_model(work: Path, name: str) -> None:
    """The three measurements of one model (each skipped when its folder is complete)."""
    certified, qads = heldout_files(work)
    model = model_path(work, name)
    first: Path | None = None
    for shift, perturbed in (("certified", certified), ("qads21", qads)):
        out = work / f"run-{name}-{shift}"
        reuse_clean_predictions(out, first)
        first = first or out
        if not (out / "report.json").exists():
            run_robustqa(
                "eval", model, "--clean", HELDOUT, "--perturbed", perturbed, "--output-dir", out, "--quiet",
                "--overwrite",
            )  # fmt: skip
    out = work / f"attack-{name}"
    if not (out / "attack.json").exists():
        run_robustqa(
            "attack", model, "--input", HELDOUT, "--variants", certified, "--budget", str(ATTACK_BUDGET),
            "--output-dir", out, "--quiet", "--limit", str(ATTACK_LIMIT),
        )  # fmt: skip


def examples(run_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run_dir / "examples.jsonl").read_text(encoding="utf-8").splitlines()]


def worst_of_k(run_dir: Path) -> dict[str, dict[str, Any]]:
    """Per changed answerable clean question: clean F1/EM, worst variant F1/EM, and whether the clean answer
    and the worst variant's answer are an abstention ("")."""
    out: dict[str, dict[str, Any]] = {}
    for e in examples(run_dir):
        if not (e["changed"] and e["answerable"]):
            continue
        q = out.setdefault(
            e["source_id"],
            {
                "clean_f1": e["clean_f1"],
                "clean_exact": e["clean_exact"],
                "worst_f1": 1.0,
                "worst_exact": 1.0,
                "clean_abstains": e["clean_prediction"] == "",
                "variants": 0,
                "abstaining_variants": 0,
            },
        )
        q["worst_f1"] = min(q["worst_f1"], e["perturbed_f1"])
        q["worst_exact"] = min(q["worst_exact"], e["perturbed_exact"])
        q["variants"] += 1
        q["abstaining_variants"] += e["perturbed_prediction"] == ""
    return out


def mean_ci(values: list[float], seed: int = SEED) -> tuple[float, list[float]]:
    """Mean (in points) of per-question values (0..1) with the seeded bootstrap of robustqa.stats."""
    from robustqa.stats import score_intervals

    return 100.0 * sum(values) / len(values), score_intervals([values], resamples=RESAMPLES, seed=seed)[0]


def headline(run_dir: Path) -> dict[str, Any]:
    """The certified answerable headline: worst-of-K ΔF1, flip rate (Wilson), abstention shift."""
    from robustqa.stats import wilson_interval

    per_q = worst_of_k(run_dir)
    deltas = [q["worst_f1"] - q["clean_f1"] for q in per_q.values()]
    right = [q for q in per_q.values() if q["clean_exact"] == 1]
    flipped = sum(1 for q in right if q["worst_exact"] == 0)
    shift = [q["abstaining_variants"] / q["variants"] - q["clean_abstains"] for q in per_q.values()]
    return {
        "questions": len(per_q),
        "delta_f1": mean_ci(deltas),
        "flip": (flipped, len(right), wilson_interval(flipped, len(right))),
        "abstention_shift": mean_ci(shift),
        "per_question": per_q,
    }


def paired_difference(a: dict[str, Any], b: dict[str, Any]) -> tuple[int, float, list[float]]:
    """Model b minus model a in worst-of-K ΔF1 over the questions both headlines cover (paired bootstrap)."""
    common = [qid for qid in a["per_question"] if qid in b["per_question"]]
    diffs = [
        (b["per_question"][q]["worst_f1"] - b["per_question"][q]["clean_f1"])
        - (a["per_question"][q]["worst_f1"] - a["per_question"][q]["clean_f1"])
        for q in common
    ]
    value, ci = mean_ci(diffs)
    return len(common), value, ci


def paired_clean(work: Path, a: str, b: str) -> tuple[int, float, list[float]]:
    """Model b minus model a in clean F1 on the held-out questions (paired bootstrap over questions)."""
    lines_a = {e["source_id"]: e["clean_f1"] for e in examples(work / f"run-{a}-qads21")}
    lines_b = {e["source_id"]: e["clean_f1"] for e in examples(work / f"run-{b}-qads21")}
    common = sorted(lines_a.keys() & lines_b.keys())
    value, ci = mean_ci([lines_b[q] - lines_a[q] for q in common])
    return len(common), value, ci


def paired_qads(work: Path, a: str, b: str) -> tuple[int, float, list[float]]:
    """Model b minus model a in the qads@2.1 F1 change of each changed answerable question (paired bootstrap)."""

    def deltas(name: str) -> dict[str, float]:
        lines = examples(work / f"run-{name}-qads21")
        return {e["source_id"]: e["perturbed_f1"] - e["clean_f1"] for e in lines if e["changed"] and e["answerable"]}

    da, db = deltas(a), deltas(b)
    common = sorted(da.keys() & db.keys())
    value, ci = mean_ci([db[q] - da[q] for q in common])
    return len(common), value, ci


def fmt(value: float, ci: list[float]) -> str:
    return f"{value:+6.2f} [{ci[0]:+.2f}, {ci[1]:+.2f}]"


def evaluate(work: Path, names: list[str], window: int, batch: int) -> None:
    for name in names:
        run_model(work, name)
    settings = " ".join(train_settings(window, batch))
    print(
        textwrap.fill(
            "Fine-tuned from the start model on the 12 training articles (clean: 4,584 questions; certified: the "
            f"same plus their 4,828 certified variants), same seed and steps: {settings} ({STEPS} steps of {batch} "
            f"windows of {window} tokens). Evaluated on all 1,494 held-out questions (the attack: the first "
            f"{ATTACK_LIMIT}), which no model saw, windows of 384, official SQuAD 2.0 rules. The start model is "
            "minilm-squad2-wiki (35.14 / 40.52 EM/F1 on all 1,494).",
            width=115,
        )
    )
    if "adversarial" in names:
        print(textwrap.fill(adversarial_line(work), width=115))
    print(
        textwrap.fill(
            "n: answerable questions with a changed certified variant. Worst-of-K ΔF1: per question, its worst "
            "variant's F1 minus its clean F1, averaged. Flip rate: of those right on clean (EM), the share whose worst "
            "variant is wrong (Wilson interval). Abstention shift: per question, the share of its variants answered "
            "with no answer minus 1 if the clean one was, averaged (points). qads@2.1: the F1 drop on changed "
            "answerable variants. Attack: of the questions right on clean by a margin, the share the search flips "
            f"within {ATTACK_BUDGET} queries over the certified variants. Other intervals: 95% bootstrap over "
            "questions (1,000 resamples, seed 13).",
            width=115,
        )
        + "\n"
    )
    header = f"{'certified answerable worst-of-K ΔF1':>36} {'flip rate (right→wrong)':>30} {'abstention shift':>24}"
    print(f"{'model':<10} {'clean EM':>8} {'clean F1':>8} {'HasAns F1':>9} {'NoAns EM':>8}  {'n':>5}  {header}")
    heads = {}
    for name in names:
        report = json.loads((work / f"run-{name}-certified" / "report.json").read_text(encoding="utf-8"))
        entry = report["models"][0]
        heads[name] = h = headline(work / f"run-{name}-certified")
        flipped, right, (low, high) = h["flip"]
        clean = entry["clean"]
        flips = f"{100 * flipped / right:5.1f}% [{100 * low:.1f}, {100 * high:.1f}] of {right}"
        print(
            f"{name:<10} {clean['exact']:>8.2f} {clean['f1']:>8.2f} {clean['HasAns_f1']:>9.2f} "
            f"{clean['NoAns_exact']:>8.2f}  {h['questions']:>5}  "
            f"{fmt(*h['delta_f1']):>36} {flips:>30} {fmt(*h['abstention_shift']):>24}"
        )
    print(
        f"\n{'model':<10} {'qads@2.1 ΔF1, changed answerable':>36} {'n':>5}  {'attack success (certified space)':>40}"
    )
    for name in names:
        report = json.loads((work / f"run-{name}-qads21" / "report.json").read_text(encoding="utf-8"))
        changed = report["models"][0]["drop"]["changed"]
        attack = json.loads((work / f"attack-{name}" / "attack.json").read_text(encoding="utf-8"))
        print(
            f"{name:<10} {fmt(changed['HasAns_f1'], changed['HasAns_f1_ci']):>36} {changed['HasAns_questions']:>5}  "
            f"{attack_line(attack):>40}"
        )
    print()
    for a, b in PAIRS:
        if a in heads and b in heads:
            n, value, ci = paired_difference(heads[a], heads[b])
            m, clean_value, clean_ci = paired_clean(work, a, b)
            k, qads_value, qads_ci = paired_qads(work, a, b)
            print(
                f"paired, {b} minus {a}: certified worst-of-K ΔF1 {fmt(value, ci)} on {n} questions; "
                f"qads@2.1 ΔF1 {fmt(qads_value, qads_ci)} on {k}; clean F1 {fmt(clean_value, clean_ci)} on {m}"
            )


PAIRS = (
    ("clean", "certified"),
    ("start", "clean"),
    ("start", "certified"),
    ("clean", "adversarial"),
    ("start", "adversarial"),
    ("certified", "adversarial"),
)


def adversarial_line(work: Path) -> str:
    """What the adversarial arm's attack added, from its training record."""
    record = json.loads((work / "model-adversarial" / "robustqa-training.json").read_text(encoding="utf-8"))
    parts = [
        f"epoch {e['epoch']} (weights of step {e['step']}): {e['sampled']} training questions sampled, "
        f"{e['attempted']} right on clean and searched, {e['flipped']} flipped and added ({e['queries']} queries)"
        for e in record["adversarial"]["epochs"]
    ]
    setting = record["adversarial"]
    return (
        f"Adversarial arm: {' '.join(ADVERSARIAL)} (attack over {setting['recipe']}, at most {setting['budget']} "
        f"queries a question); {'; '.join(parts)}."
    )


def attack_line(attack: dict[str, Any]) -> str:
    summary = attack.get("summary", attack)
    rate, ci = summary.get("success_rate"), summary.get("success_rate_ci")
    n = summary.get("attempted")
    if rate is None:
        return "n/a"
    return f"{rate:5.1f}% [{ci[0]:.1f}, {ci[1]:.1f}] of {n}" if ci else f"{rate:5.1f}% of {n}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("stage", choices=("train", "evaluate"))
    parser.add_argument("--work", type=Path, default=REPO / ".bench" / "hardening")
    parser.add_argument("--models", default=",".join(MODELS), help="which models to evaluate")
    parser.add_argument("--arms", default=",".join(ARMS), help="which fine-tuning runs to train")
    parser.add_argument("--window", type=int, default=256, help="training window in tokens")
    parser.add_argument("--batch-size", type=int, default=8, help="training windows a step")
    args = parser.parse_args()
    if args.stage == "train":
        train(args.work, train_settings(args.window, args.batch_size), args.arms.split(","))
        return
    names = args.models.split(",")
    if names != list(MODELS):
        evaluate(args.work, names, args.window, args.batch_size)  # a partial evaluation is not the benchmark's section
        return
    with recorded(__file__):
        evaluate(args.work, names, args.window, args.batch_size)


if __name__ == "__main__":
    sys.exit(main())
