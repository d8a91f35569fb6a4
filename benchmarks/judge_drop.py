"""The certified set's headline beside the judges': the shared models' answerable worst-of-K F1 drop on the
held-out articles, on certified variants and on `qads-judge@1` and `qads-judge@3` (judge 2) variants of the same
questions.

The certified variants of the held-out questions (`certified@1`, kept by two reviewers, language-model
agents) and each judge recipe's `--variants 3` build of the same file are restricted to the questions all three
sets change; each is evaluated with `robustqa eval` as a user would. Per answerable question: its worst variant's
F1 minus its clean F1 (worst-of-K), and, since the sets hold different numbers of variants, the same for each
set's first variant alone (a judge's best-scored edit); then the mean over questions for each set and the paired
difference (certified minus judge, the same questions, bootstrap over questions), and on each set the paired
difference between the two models. Does a set that needs no review size the drop, and rank the two models, as
the reviewed one does?

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
JUDGES = ("qads-judge@1", "qads-judge@3")


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


def worst_drops(run_dir: Path, first_only: bool = False) -> dict[str, float]:
    """Answerable question -> its worst variant's F1 minus its clean F1, from the run's examples.jsonl (with
    `first_only`, its first variant's: the lowest variant number)."""
    rows: dict[str, list[tuple[int, float]]] = {}
    clean: dict[str, float] = {}
    for line in (run_dir / "examples.jsonl").read_text(encoding="utf-8").splitlines():
        example = json.loads(line)
        if not example.get("changed") or not example.get("answerable") or example["perturbed_f1"] is None:
            continue
        source = example["source_id"]
        clean[source] = example["clean_f1"]
        number = int("".join(c for c in example["id"].rsplit("-", 1)[1] if c.isdigit()) or 0)
        rows.setdefault(source, []).append((number, example["perturbed_f1"]))
    pick = (lambda v: min(v)[1]) if first_only else (lambda v: min(f for _, f in v))
    return {s: pick(v) - clean[s] for s, v in rows.items()}


def interval(values: list[float]) -> str:
    ((low, high),) = score_intervals([values], resamples=RESAMPLES, seed=SEED)
    return f"{100 * sum(values) / len(values):+6.2f} [{low:+.2f}, {high:+.2f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=REPO / "runs" / "judge-drop")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    built = {}
    for recipe in JUDGES:
        built[recipe] = args.work / f"{recipe.replace('@', '-')}-heldout.json"
        run_robustqa(
            "build-dataset", "--input", HELDOUT, "--output", built[recipe], "--recipe", recipe, "--variants", "3"
        )
    certified = certified_heldout(args.work)
    common = changed_sources(certified).intersection(*(changed_sources(p) for p in built.values()))
    files = {"certified@1": restricted(certified, common, args.work / "certified-common.json")}
    files |= {r: restricted(p, common, args.work / f"{r.replace('@', '-')}-common.json") for r, p in built.items()}
    runs: dict[tuple[str, str], Path] = {}
    for model in MODELS:
        first: Path | None = None
        for name, path in files.items():
            run_dir = runs[model.name, name] = args.work / f"run-{model.name}-{name.replace('@', '-')}"
            evaluate(model, path, run_dir, first)
            first = first or run_dir
    with recorded(__file__):
        print(
            f"{HELDOUT.name}: {len(common):,} questions changed by certified@1, {' and '.join(JUDGES)} (--variants 3); "
            "official SQuAD 2.0 F1, points; answerable questions; mean [95% bootstrap interval]"
        )
        for first_only in (False, True):
            print("first variant only (a judge's best-scored edit)" if first_only else "worst variant per question")
            print(f"  {'model':<20} {'questions':>9} " + " ".join(f"{n:>22}" for n in files))
            drops = {k: worst_drops(v, first_only) for k, v in runs.items()}
            for model in MODELS:
                shared = sorted(set.intersection(*(set(drops[model.name, n]) for n in files)))
                cells = [interval([drops[model.name, n][q] for q in shared]) for n in files]
                print(f"  {model.name:<20} {len(shared):>9,} " + " ".join(f"{c:>22}" for c in cells))
                for judge in JUDGES:
                    a = [drops[model.name, "certified@1"][q] - drops[model.name, judge][q] for q in shared]
                    print(f"    certified@1 - {judge}: {interval(a)}")
            mini, wiki = (m.name for m in MODELS)
            for name in files:
                shared = sorted(set(drops[mini, name]) & set(drops[wiki, name]))
                gap = [drops[mini, name][q] - drops[wiki, name][q] for q in shared]
                print(f"  {mini} - {wiki} on {name}: {interval(gap)} ({len(shared)} questions)")


if __name__ == "__main__":
    main()
