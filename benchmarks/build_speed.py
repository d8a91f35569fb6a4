"""Speed of dataset building against nlpaug's WordNet SynonymAug, on the same questions in the same run.

Each repetition runs each tool in a fresh process, interleaved so that load from other work on the machine
hits both alike; medians are reported with their ratio. robustqa runs twice per repetition: with its
persistent lexicon cache (`$ROBUSTQA_CACHE`) *cold* (an empty cache folder: every WordNet table is derived
from the data files, as on a first build) and *warm* (the folder a previous build filled: normal use from
the second build on). Per run three figures: `loop` excludes loading NLTK's tagger and WordNet (each tool
first handles one unrelated sentence), `with loading` includes it, `cpu` is the loop in CPU seconds of the
process (robust to other work on a shared machine). robustqa's loop is the whole in-process build (tagging,
WSD, inflection, span-safe rewriting, answer checks, the document); nlpaug's is its augment loop over the
question strings. Then the whole `robustqa build-dataset` command, process start and file writing
included, is timed from outside, with a cold and a warm cache. Each recipe given (by default the default
`qads@2.0`, whose validity gates add work per word, and `qads@1.1`) is timed this way.

    NLTK_DATA=../shared/nltk_data python benchmarks/build_speed.py [--repeats 3] [--input FILE] [--recipe qads@2.0 ...]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import REPO, recorded, robustqa_command

WARM_UP = "The old farmer walked slowly across the wide field."


DEFAULT_RECIPES = ("qads@2.0", "qads@1.1")


def child_robustqa(path: str, workers: int, spec: str) -> dict[str, float]:
    started = time.perf_counter()
    import perturbations
    from robustqa.build import build_dataset
    from robustqa.squad import load_squad

    dataset = load_squad(path, check_answers=True)
    recipe = perturbations.get_recipe(spec)
    loaded = time.perf_counter()
    recipe.perturb(WARM_UP, seed=13, key="warm-up")
    warm, cpu = time.perf_counter(), time.process_time()
    result = build_dataset(dataset, recipe, seed=13, workers=workers)
    done = time.perf_counter()
    return {
        "questions": result.summary.questions,
        "loop": done - warm,
        "with loading": done - loaded,
        "total": done - started,
        "cpu": time.process_time() - cpu,
    }


def child_nlpaug(path: str) -> dict[str, float]:
    started = time.perf_counter()
    import random

    import nlpaug.augmenter.word as naw
    import numpy as np

    questions = [
        q["question"]
        for a in json.loads(Path(path).read_text(encoding="utf-8"))["data"]
        for p in a["paragraphs"]
        for q in p["qas"]
    ]
    random.seed(13)
    np.random.seed(13)
    loaded = time.perf_counter()
    aug = naw.SynonymAug(aug_src="wordnet")
    aug.augment(WARM_UP)
    warm, cpu = time.perf_counter(), time.process_time()
    for q in questions:
        aug.augment(q)
    done = time.perf_counter()
    return {
        "questions": len(questions),
        "loop": done - warm,
        "with loading": done - loaded,
        "total": done - started,
        "cpu": time.process_time() - cpu,
    }


def in_child(tool: str, path: str, cache: str | None = None, recipe: str = DEFAULT_RECIPES[0]) -> dict[str, float]:
    env = dict(os.environ)
    if cache is not None:
        env["ROBUSTQA_CACHE"] = cache
    command = [sys.executable, __file__, "--child", tool, "--input", path, "--recipe", recipe]
    out = subprocess.run(command, check=True, capture_output=True, text=True, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--input", default=str(REPO.parent / "shared" / "squad" / "squad2-dev-half.json"))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--recipe", action="append", help=f"recipe to time, repeatable (default: {', '.join(DEFAULT_RECIPES)})"
    )
    parser.add_argument("--child", choices=["robustqa", "nlpaug"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.recipe = args.recipe or list(DEFAULT_RECIPES)
    if args.child == "robustqa":
        print(json.dumps(child_robustqa(args.input, 1, args.recipe[0])))
        return
    if args.child == "nlpaug":
        print(json.dumps(child_nlpaug(args.input)))
        return
    with recorded(__file__):
        report(args)


def report(args: argparse.Namespace) -> None:
    tools = [f"robustqa {spec} {kind}" for spec in args.recipe for kind in ("cold cache", "warm cache")] + ["nlpaug"]
    runs: dict[str, list[dict[str, float]]] = {t: [] for t in tools}
    walls: dict[str, list[float]] = {
        f"{spec}, {kind}": [] for spec in args.recipe for kind in ("cold cache", "warm cache")
    }
    loads: list[float] = []
    with tempfile.TemporaryDirectory() as folder:
        warm_cache = str(Path(folder) / "warm-cache")
        for spec in args.recipe:
            in_child("robustqa", args.input, warm_cache, spec)  # fills the warm cache (not timed)
        for k in range(args.repeats):
            for spec in args.recipe:
                cold_cache = str(Path(folder) / f"cold-cache-{spec}-{k}")
                runs[f"robustqa {spec} cold cache"].append(in_child("robustqa", args.input, cold_cache, spec))
                runs[f"robustqa {spec} warm cache"].append(in_child("robustqa", args.input, warm_cache, spec))
            runs["nlpaug"].append(in_child("nlpaug", args.input))
            for spec in args.recipe:
                for kind, cache in (
                    ("cold cache", str(Path(folder) / f"cold-cache-cmd-{spec}-{k}")),
                    ("warm cache", warm_cache),
                ):
                    started = time.perf_counter()
                    env = dict(os.environ, ROBUSTQA_CACHE=cache)
                    command = robustqa_command() + [
                        "build-dataset",
                        "--input",
                        args.input,
                        "--output",
                        str(Path(folder) / "out.json"),
                        "--recipe",
                        spec,
                    ]
                    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=env)
                    walls[f"{spec}, {kind}"].append(time.perf_counter() - started)
            loads.append(os.getloadavg()[0])

    n = runs[tools[0]][0]["questions"]
    print(f"input: {args.input} ({n:,} questions), {args.repeats} repetitions, fresh process per run, medians")
    rates = {}
    for tool in tools:
        for kind in ("loop", "with loading", "cpu"):
            seconds = [r[kind] for r in runs[tool]]
            rates[tool, kind] = n / statistics.median(seconds)
            label = tool + (" build" if tool.startswith("robustqa") else " SynonymAug")
            print(
                f"  {label:<40} {kind:>12}: {rates[tool, kind]:8,.0f} questions/s   "
                f"(runs: {', '.join(f'{s:.2f}s' for s in seconds)})"
            )
    for tool in tools[:-1]:
        for kind in ("loop", "with loading", "cpu"):
            print(
                f"  ratio {tool} / nlpaug ({kind}): {rates[tool, kind] / rates['nlpaug', kind]:.2f}x   (target >= 1.5x)"
            )
    for label, values in walls.items():
        print(
            f"  whole `robustqa build-dataset --recipe {label.split(',')[0]}` command, "
            f"process start included,{label.split(',')[1]}: median {statistics.median(values):.1f} s "
            f"(runs: {', '.join(f'{w:.1f}s' for w in values)}; target < 20 s)"
        )
    print(
        f"  1-minute load average after each repetition: {', '.join(f'{x:.1f}' for x in loads)} "
        f"on {os.cpu_count()} CPUs (other work on the machine slows both tools)"
    )


if __name__ == "__main__":
    main()
