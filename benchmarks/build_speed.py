"""Speed of dataset building against nlpaug's WordNet SynonymAug, on the same questions in the same run.

Each repetition runs each tool in a fresh process (cold caches for both), interleaved so that load from
other work on the machine hits both alike; medians are reported with their ratio. Two throughputs per tool:
`warm` excludes loading NLTK's tagger and WordNet (each tool first handles one unrelated sentence), `cold`
includes it, `cpu` is the warm part in CPU seconds of the process (robust to other work on a shared machine). robustqa's figure is the whole in-process build (tagging, WSD, inflection, span-safe
rewriting, answer checks, the document); nlpaug's is its augment loop over the question strings. Then the
whole `robustqa build-dataset` command, process start and file writing included, is timed from outside.

    NLTK_DATA=../shared/nltk_data python benchmarks/build_speed.py [--repeats 3] [--input FILE]
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

REPO = Path(__file__).resolve().parents[1]
os.environ.setdefault("NLTK_DATA", str(REPO.parent / "shared" / "nltk_data"))
WARM_UP = "The old farmer walked slowly across the wide field."


def child_robustqa(path: str, workers: int) -> dict[str, float]:
    started = time.perf_counter()
    import perturbations
    from robustqa.build import build_dataset
    from robustqa.squad import load_squad

    dataset = load_squad(path, check_answers=True)
    recipe = perturbations.get_recipe("qads")
    loaded = time.perf_counter()
    recipe.perturb(WARM_UP, seed=13, key="warm-up")
    warm, cpu = time.perf_counter(), time.process_time()
    result = build_dataset(dataset, recipe, seed=13, workers=workers)
    done = time.perf_counter()
    return {"questions": result.summary.questions, "warm": done - warm, "cold": done - loaded, "total": done - started, "cpu": time.process_time() - cpu}


def child_nlpaug(path: str) -> dict[str, float]:
    started = time.perf_counter()
    import random

    import numpy as np
    import nlpaug.augmenter.word as naw

    questions = [q["question"] for a in json.loads(Path(path).read_text(encoding="utf-8"))["data"] for p in a["paragraphs"] for q in p["qas"]]
    random.seed(13)
    np.random.seed(13)
    loaded = time.perf_counter()
    aug = naw.SynonymAug(aug_src="wordnet")
    aug.augment(WARM_UP)
    warm, cpu = time.perf_counter(), time.process_time()
    for q in questions:
        aug.augment(q)
    done = time.perf_counter()
    return {"questions": len(questions), "warm": done - warm, "cold": done - loaded, "total": done - started, "cpu": time.process_time() - cpu}


def in_child(tool: str, path: str) -> dict[str, float]:
    out = subprocess.run([sys.executable, __file__, "--child", tool, "--input", path], check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def robustqa_command() -> list[str]:
    script = Path(sys.executable).with_name("robustqa")
    return [str(script)] if script.exists() else [sys.executable, "-c", "from robustqa.cli import main; main()"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--input", default=str(REPO.parent / "shared" / "squad" / "squad2-dev-half.json"))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--child", choices=["robustqa", "nlpaug"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child == "robustqa":
        print(json.dumps(child_robustqa(args.input, 1)))
        return
    if args.child == "nlpaug":
        print(json.dumps(child_nlpaug(args.input)))
        return

    runs: dict[str, list[dict[str, float]]] = {"robustqa": [], "nlpaug": []}
    walls: list[float] = []
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(args.repeats):
            for tool in ("robustqa", "nlpaug"):
                runs[tool].append(in_child(tool, args.input))
            started = time.perf_counter()
            subprocess.run(robustqa_command() + ["build-dataset", "--input", args.input, "--output", str(Path(folder) / "out.json")], check=True, stdout=subprocess.DEVNULL)
            walls.append(time.perf_counter() - started)

    n = runs["robustqa"][0]["questions"]
    print(f"input: {args.input} ({n:,} questions), {args.repeats} repetitions, fresh process per run, medians")
    rates = {}
    for tool in ("robustqa", "nlpaug"):
        for kind in ("warm", "cold", "cpu"):
            seconds = [r[kind] for r in runs[tool]]
            rates[tool, kind] = n / statistics.median(seconds)
            print(f"  {tool + ' qads build' if tool == 'robustqa' else tool + ' SynonymAug':<24} {kind}: {rates[tool, kind]:8,.0f} questions/s   (runs: {', '.join(f'{s:.2f}s' for s in seconds)})")
    for kind in ("warm", "cold", "cpu"):
        print(f"  ratio robustqa / nlpaug ({kind}): {rates['robustqa', kind] / rates['nlpaug', kind]:.2f}x   (target >= 1.5x)")
    print(f"  whole `robustqa build-dataset` command, process start included: median {statistics.median(walls):.1f} s (runs: {', '.join(f'{w:.1f}s' for w in walls)}; target < 20 s)")
    load = os.getloadavg()[0]
    print(f"  load average at the end: {load:.1f} on {os.cpu_count()} CPUs (other work on the machine slows both tools)")


if __name__ == "__main__":
    main()
