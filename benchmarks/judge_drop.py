"""The certified set's headline beside the judge's: the shared models' answerable worst-of-K F1 drop on the
held-out articles, on certified variants and on `qads-judge@1` variants of the same questions.

The certified variants of the held-out questions (`certified@1`, kept by two reviewers, language-model
agents) and `qads-judge@1 --variants 3` built on the same file are restricted to the questions both sets
change; each is evaluated with `robustqa eval` as a user would. Per answerable question: its worst variant's
F1 minus its clean F1 (worst-of-K); then the mean over questions for each set and the paired difference
(certified minus judge, the same questions, bootstrap over questions). Does the set that needs no review
size the drop, and rank the two models, as the reviewed one does?

    NLTK_DATA=../shared/nltk_data python benchmarks/judge_drop.py [--work DIR]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from robustqa.stats import score_intervals

from _common import HELDOUT, REPO, SHARED, certified_heldout, evaluate, recorded, run_robustqa

RESAMPLES, SEED = 2000, 13
MODELS = (SHARED / "models" / "minilm-squad2-mini", SHARED / "models" / "minilm-squad2-wiki")


def restricted(path: Path, keep: set[str], out: Path) -> Path:
    """`path`'s variants of the questions in `keep` only, as their own perturbed file."""
    document = json.loads(path.read_text(encoding="utf-8"))
    data = []
    for article in document["data"]:
        paragraphs = [
            dict(p, qas=[qa for qa in p["qas"] if qa.get("source_id", qa["id"]) in keep]) for p in article["paragraphs"]
        ]
        paragraphs = [p for p in paragraphs if p["qas"]]
        if paragraphs:
            data.append(dict(article, paragraphs=paragraphs))
    out.write_text(json.dumps(dict(document, data=data), ensure_ascii=False), encoding="utf-8")
    return out


def changed_sources(path: Path) -> set[str]:
    document = json.loads(path.read_text(encoding="utf-8"))
    return {
        qa.get("source_id", qa["id"])
        for a in document["data"]
        for p in a["paragraphs"]
        for qa in p["qas"]
        if "original_question" in qa
    }


def worst_drops(run_dir: Path) -> dict[str, float]:
    """Answerable question -> its worst variant's F1 minus its clean F1, from the run's examples.jsonl."""
    worst: dict[str, float] = {}
    clean: dict[str, float] = {}
    for line in (run_dir / "examples.jsonl").read_text(encoding="utf-8").splitlines():
        example = json.loads(line)
        if not example.get("changed") or not example.get("answerable") or example["perturbed_f1"] is None:
            continue
        source = example["source_id"]
        clean[source] = example["clean_f1"]
        worst[source] = min(worst.get(source, 1.0), example["perturbed_f1"])
    return {s: worst[s] - clean[s] for s in worst}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=REPO / "runs" / "judge-drop")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    judged = args.work / "qads-judge-1-heldout.json"
    run_robustqa("build-dataset", "--input", HELDOUT, "--output", judged, "--recipe", "qads-judge@1", "--variants", "3")
    certified = certified_heldout(args.work)
    both = changed_sources(judged) & changed_sources(certified)
    files = {
        "certified@1": restricted(certified, both, args.work / "certified-common.json"),
        "qads-judge@1": restricted(judged, both, args.work / "judge-common.json"),
    }
    with recorded(__file__):
        print(
            f"{HELDOUT.name}: {len(both):,} questions changed by both certified@1 and qads-judge@1 --variants 3; "
            "official SQuAD 2.0 F1, points; answerable questions, worst variant per question"
        )
        print(f"{'model':<20} {'questions':>9} {'certified@1':>22} {'qads-judge@1':>22} {'certified - judge':>24}")
        for model in MODELS:
            drops = {}
            first: Path | None = None
            for name, path in files.items():
                run_dir = args.work / f"run-{model.name}-{name.replace('@', '-')}"
                evaluate(model, path, run_dir, first)
                first = first or run_dir
                drops[name] = worst_drops(run_dir)
            common = sorted(set(drops["certified@1"]) & set(drops["qads-judge@1"]))
            a = [drops["certified@1"][q] for q in common]
            b = [drops["qads-judge@1"][q] for q in common]
            (ca, cb, cd) = score_intervals([a, b, [x - y for x, y in zip(a, b)]], resamples=RESAMPLES, seed=SEED)
            mean = [100 * sum(v) / len(v) for v in (a, b, [x - y for x, y in zip(a, b)])]
            print(
                f"{model.name:<20} {len(common):>9,} "
                f"{mean[0]:+6.2f} [{ca[0]:+.2f}, {ca[1]:+.2f}] {mean[1]:+6.2f} [{cb[0]:+.2f}, {cb[1]:+.2f}] "
                f"{mean[2]:+7.2f} [{cd[0]:+.2f}, {cd[1]:+.2f}]"
            )


if __name__ == "__main__":
    main()
