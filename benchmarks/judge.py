"""The learned judges (`perturbations/data/judge-1.json`, recipe `qads-judge@1`; judge 2, judge 1 then a sentence
encoder's second look, `judge-2.json`, recipe `qads-judge@3`) on the four held-out articles against the
two-reviewer labels, beside the pair-lookup baseline and the default recipe; and what the judge recipes cost to
build.

Quality: every judged candidate edit of the held-out articles' questions (Normans, Computational complexity
theory, Huguenot, Steam engine; never trained on) is scored; a question is covered at a threshold when its
best-scored edit clears it, and its top pick (or up to three picks) is right when both reviewers said the
meaning is kept and neither gave fluency 1 (the strict label of the certified set; the reviewers are
language-model agents, not people). The pair lookup scores an edit by its pair's smoothed acceptance rate in
the twelve training articles (the judge's own pair table). `qads@2.1` is one point: the questions it
changes, its edits matched by text to the judged candidates. The judges and the lookup are compared at equal
coverage by a paired bootstrap over the held-out questions (both scorers' best-scored share of the same
resampled questions). Judge 2 scores each edit as a build does (`cascade_score`: the encoder's cosines through
its score table, in a temporary cache folder). Speed: `robustqa build-dataset` on the 6,078
packaged questions, cold (an empty cache folder) and cached (the folder the cold run filled), with peak
memory, `qads-judge@1 --variants 3` and `qads-judge@3 --variants 3` beside `qads@2.2` (the default recipe).

    NLTK_DATA=../shared/nltk_data python benchmarks/judge.py [--skip-speed]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from _common import REPO, SHARED, recorded, robustqa_command

sys.path.insert(0, str(REPO / "tools"))
import train_judge as tj

HALF = SHARED / "squad" / "squad2-dev-half.json"
COVERAGES = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8)
PRECISIONS = (0.95, 0.9, 0.85)
BOOTSTRAP, SEED = 1000, 27


def curve_lines(name: str, rows: list[tj.Row], scores: np.ndarray) -> list[str]:
    y = np.array([r.label for r in rows], dtype=float)
    out = [f"{name}: AUC {tj.auc(y, scores):.3f} over {len(rows):,} edits"]
    for picks in (1, 3):
        curve = tj.frontier(rows, scores, picks)
        at = "  ".join(f"{100 * c:.0f}%: {100 * tj.precision_at(curve, c):5.1f}%" for c in COVERAGES)
        cov = "  ".join(f"{100 * p:.0f}%: {100 * tj.coverage_at(curve, p):5.1f}%" for p in PRECISIONS)
        label = "top pick" if picks == 1 else "up to 3 "
        out.append(f"  {label}  precision at coverage  {at}")
        out.append(f"  {label}  coverage at precision  {cov}")
    return out


def judge_details(recipe: str, judge: Any, rows: list[tj.Row], edits: list[Any], scores: np.ndarray) -> None:
    """Unseen pairs, calibration bins, and the point at the recipe's threshold."""
    import perturbations

    unseen = [
        i
        for i, e in enumerate(edits)
        if tj.pair_keys(e.tokens[e.index].text, e.tokens[e.index].tag, e.replacement)[0] not in judge.tables[0]
    ]
    y = np.array([rows[i].label for i in unseen], dtype=float)
    print(
        f"  edits whose pair the training articles never judged: {len(unseen):,} "
        f"({100 * y.mean():.1f}% right); AUC on them {tj.auc(y, scores[unseen]):.3f}"
    )
    for lo, hi in ((0.0, 0.5), (0.5, 0.8), (0.8, 0.9), (0.9, 1.01)):
        mask = (scores >= lo) & (scores < hi)
        if mask.any():
            right = np.mean([rows[i].label for i in np.flatnonzero(mask)])
            print(f"  probability [{lo:.1f}, {min(hi, 1):.1f}): {mask.sum():>5} edits, {100 * right:.1f}% right")
    threshold = perturbations.get_recipe(recipe).signature_fields()["judge_threshold"]
    curve = tj.frontier(rows, scores, 1)
    _, covered, precision, _ = min((c for c in curve if c[0] >= threshold), key=lambda c: c[0])
    print(
        f"  at {recipe}'s threshold ({threshold}): top pick {100 * precision:.1f}% right, "
        f"{100 * covered:.1f}% of the questions covered"
    )


def top_picks(rows: list[tj.Row], scores: np.ndarray) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Per question (sorted ids): its best score and whether its top pick is right (ties: `frontier`'s order)."""
    best: dict[str, tuple[float, bool, str]] = {}
    for row, s in zip(rows, scores):
        entry = (-float(s), not row.label, row.id)
        if row.source_id not in best or entry < best[row.source_id]:
            best[row.source_id] = entry
    ids = sorted(best)
    return ids, np.array([-best[q][0] for q in ids]), np.array([not best[q][1] for q in ids], dtype=float)


def precision_at_share(top: np.ndarray, right: np.ndarray, weight: np.ndarray, coverage: float) -> float:
    """Top-pick precision over the best-scored `coverage` share of the questions (`weight`: bootstrap counts)."""
    order = np.argsort(-top, kind="stable")
    w = weight[order]
    keep = np.cumsum(w) <= np.ceil(coverage * w.sum())
    keep[0] = True
    return float((right[order] * w)[keep].sum() / w[keep].sum())


def paired_differences(rows: list[tj.Row], a: np.ndarray, b: np.ndarray) -> str:
    """Precision of scorer a minus scorer b at each coverage, both over the same resampled questions."""
    _, top_a, right_a = top_picks(rows, a)
    _, top_b, right_b = top_picks(rows, b)
    rng = np.random.default_rng(SEED)
    n = len(top_a)
    out = []
    for coverage in COVERAGES[:6]:
        ones = np.ones(n)
        point = precision_at_share(top_a, right_a, ones, coverage) - precision_at_share(top_b, right_b, ones, coverage)
        draws = []
        for _ in range(BOOTSTRAP):
            w = np.bincount(rng.integers(0, n, n), minlength=n).astype(float)
            draws.append(
                precision_at_share(top_a, right_a, w, coverage) - precision_at_share(top_b, right_b, w, coverage)
            )
        lo, hi = np.quantile(draws, [0.025, 0.975])
        out.append(f"{100 * coverage:.0f}%: {100 * point:+.1f} [{100 * lo:+.1f}, {100 * hi:+.1f}]")
    return "  ".join(out)


def recipe_point(recipe: str, rows: list[tj.Row], questions: set[str]) -> tuple[str, float]:
    """A recipe built on the held-out questions (one variant), its edits matched by text to the judged ones."""
    import perturbations
    from robustqa.build import build_dataset
    from robustqa.squad import load_squad

    document = build_dataset(
        load_squad(SHARED / "squad" / "squad2-dev-heldout.json"), perturbations.get_recipe(recipe), seed=13
    ).document
    label_of = {(r.source_id, r.question[: r.start] + r.replacement + r.question[r.end :]): r.label for r in rows}
    changed = matched = good = 0
    for a in document["data"]:
        for p in a["paragraphs"]:
            for qa in p["qas"]:
                if qa["id"] not in questions or "original_question" not in qa:
                    continue
                changed += 1
                verdict = label_of.get((qa["id"], qa["question"]))
                if verdict is not None:
                    matched += 1
                    good += verdict
    line = (
        f"{recipe} built: changes {changed} of the {len(questions):,} questions "
        f"({100 * changed / len(questions):.1f}% coverage); {matched} of its edits were among the judged ones, "
        f"{100 * good / max(matched, 1):.1f}% of those right"
    )
    return line, changed / len(questions)


def timed(command: list[str], cache: Path) -> tuple[float, float]:
    """(wall seconds, peak resident MiB) of one process run with `cache` as its robustqa cache folder."""
    # a fresh parent per run, so that its children's peak is this run's alone
    wrapper = (
        "import resource, subprocess, sys, time; t = time.perf_counter(); "
        "subprocess.run(sys.argv[1:], check=True, capture_output=True); "
        "print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    env = {**os.environ, "ROBUSTQA_CACHE": str(cache)}
    done = subprocess.run(
        [sys.executable, "-c", wrapper, *command], check=True, capture_output=True, text=True, env=env
    )
    seconds, peak_kib = done.stdout.split()
    return float(seconds), int(peak_kib) / 1024


def speed(tmp: Path) -> None:
    print("build-dataset on the 6,078 packaged questions (one process each, process start included; peak memory):")
    for recipe, variants in (("qads@2.2", None), ("qads-judge@1", 3), ("qads-judge@3", 3)):
        command = [*robustqa_command(), "build-dataset", "--input", str(HALF), "--recipe", recipe]
        command += ["--output", str(tmp / f"{recipe}.json"), *(["--variants", str(variants)] if variants else [])]
        shown = recipe + (f" --variants {variants}" if variants else "")
        for kind in ("cold", "cached"):
            seconds, peak = timed(command, tmp / recipe.replace("@", "-"))
            print(f"  {shown:<28} {kind:<7} {seconds:6.1f} s  {peak:7.0f} MiB")
    command = [sys.executable, str(REPO / "benchmarks" / "build_speed.py"), "--child", "nlpaug", "--input", str(HALF)]
    seconds, peak = timed(command, tmp / "nlpaug")
    print(
        f"  {'nlpaug SynonymAug(wordnet)':<28} {'-':<7} {seconds:6.1f} s  {peak:7.0f} MiB  (its augment loop, no file)"
    )


def judge_2_scores(edits: list[Any]) -> np.ndarray:
    """Judge 2's probability of each edit as a build computes it: judge 1 first, the gated edits' cosines encoded
    many questions at a time into the score table (a temporary cache folder), then `cascade_score`."""
    from perturbations.constraints.judged import cascade_score, edit_similarities, gated_questions

    previous = os.environ.get("ROBUSTQA_CACHE")
    with tempfile.TemporaryDirectory() as cache:
        os.environ["ROBUSTQA_CACHE"] = cache
        edit_similarities().fill(gated_questions(edits))
        scores = np.array([cascade_score(e.tokens, e.index, e.replacement, e.senses) for e in edits])
    if previous is None:
        del os.environ["ROBUSTQA_CACHE"]
    else:  # the speed runs that follow use their own cache folders; the caller's setting is given back
        os.environ["ROBUSTQA_CACHE"] = previous
    return scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-speed", action="store_true", help="quality only")
    args = parser.parse_args()
    from perturbations.judge import load_cascade, load_judge

    with recorded(__file__):
        rows, edits, _counts = tj.prepared(tj.HELD_OUT)
        held = [i for i, r in enumerate(rows) if r.article in tj.HELD_OUT]
        held_rows = [rows[i] for i in held]
        held_edits = [edits[i] for i in held]
        questions = {r.source_id for r in held_rows}
        print(
            f"held-out articles: {', '.join(tj.HELD_OUT)}; {len(questions):,} questions with judged edits, "
            f"{len(held_rows):,} edits ({100 * np.mean([r.label for r in held_rows]):.1f}% right by the strict label)"
        )
        print("coverage: share of those questions whose best edit clears the threshold; precision: share right")
        scored: dict[str, np.ndarray] = {}
        judge = load_judge()
        print(f"judge {judge.identity} (training data {judge.data_hash})")
        scores = scored["judge"] = judge.probability(held_edits)
        for line in curve_lines("judge", held_rows, scores):
            print(line)
        judge_details("qads-judge@1", judge, held_rows, held_edits, scores)
        pair = scored["pair lookup"] = np.array(
            [
                tj.pair_features(
                    tj.pair_keys(e.tokens[e.index].text, e.tokens[e.index].tag, e.replacement),
                    judge.tables,
                    judge.base_rate,
                )[1]
                for e in held_edits
            ]
        )
        for line in curve_lines("pair lookup", held_rows, pair):
            print(line)
        print(
            "paired differences of top-pick precision at equal coverage (points; 95% bootstrap interval over "
            f"the {len(questions):,} questions, {BOOTSTRAP} resamples, seed {SEED}):"
        )
        print("  judge - pair lookup:  " + paired_differences(held_rows, scored["judge"], scored["pair lookup"]))
        cascade = load_cascade()
        print(f"judge 2 {cascade.identity}: {cascade.first.identity}, then where it gives >= {cascade.gate:g} a second")
        print(f"  stage reading {cascade.vetted} and {cascade.encoder_identity} (training data {cascade.data_hash})")
        scores = scored["judge 2"] = judge_2_scores(held_edits)
        for line in curve_lines("judge 2", held_rows, scores):
            print(line)
        judge_details("qads-judge@3", judge, held_rows, held_edits, scores)
        print("  judge 2 - pair lookup:  " + paired_differences(held_rows, scored["judge 2"], scored["pair lookup"]))
        print("  judge 2 - judge:  " + paired_differences(held_rows, scored["judge 2"], scored["judge"]))
        for recipe in ("qads@2.2", "qads-judge@1", "qads-judge@3"):
            line, coverage = recipe_point(recipe, held_rows, questions)
            print(line)
            if recipe == "qads@2.2":
                at = ", ".join(
                    f"{name}'s {100 * tj.precision_at(tj.frontier(held_rows, s, 1), coverage):.1f}%"
                    for name, s in scored.items()
                )
                print(f"  top pick at the same coverage ({100 * coverage:.1f}%): {at}")
        if not args.skip_speed:
            with tempfile.TemporaryDirectory() as tmp:
                speed(Path(tmp))


if __name__ == "__main__":
    main()
