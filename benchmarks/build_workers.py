"""`robustqa build-dataset --workers 2` against `--workers 1`: speed-up and byte-identical output.

Each run is the whole command in a fresh process; runs alternate between 1 and 2 workers so load from other
work on the machine hits both alike. Reported: median wall time of the command, median build time (the
summary's `seconds`, without process start and file writing), the CPU time all processes used, the
speed-ups, and whether all outputs are byte-identical. On a machine shared with other work the wall-clock
speed-up understates what the split allows; the CPU-time figure shows the work the split adds.

The lexicon cache (`$ROBUSTQA_CACHE`) is stated for each figure: `warm` (a folder filled by one untimed
build first: normal use, and what the parent shares with its forked workers) and `cold` (an empty folder
per run: every process derives the WordNet tables itself; the workers send theirs back to be saved).

`--copies K` builds a file holding the input K times (ids and titles suffixed, so every copy is a new
question): a larger set with the same per-question work, to show how the whole command's speed-up grows
as the fixed serial part (process start, reading the cache and the input, writing the output) shrinks
relative to the build.

    NLTK_DATA=../shared/nltk_data python benchmarks/build_workers.py [--repeats 3] [--workers 2] [--copies K]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import resource
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from _common import REPO, recorded, robustqa_command


def run(path: str, output: Path, workers: int, cache: str) -> tuple[float, float, str, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        robustqa_command() + ["build-dataset", "--input", path, "--output", str(output), "--workers", str(workers)],
        check=True,
        capture_output=True,
        text=True,
        env=dict(os.environ, ROBUSTQA_CACHE=cache),
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    match = re.search(r"seconds +([0-9.]+)", done.stdout)
    build = float(match.group(1)) if match else float("nan")
    return wall, build, hashlib.sha256(output.read_bytes()).hexdigest(), cpu


def repeated_input(path: str, copies: int) -> str:
    """The input K times over, every question id and article title suffixed with its copy number."""
    document = json.loads(Path(path).read_text(encoding="utf-8"))
    articles = []
    for k in range(copies):
        for article in json.loads(json.dumps(document["data"])):
            article["title"] = f"{article['title']}-copy{k}"
            for paragraph in article["paragraphs"]:
                for qa in paragraph["qas"]:
                    qa["id"] = f"{qa['id']}-copy{k}"
            articles.append(article)
    out = Path(tempfile.mkdtemp(prefix="robustqa-build-workers-")) / f"{Path(path).stem}-x{copies}.json"
    out.write_text(json.dumps({"version": document.get("version", "v2.0"), "data": articles}), encoding="utf-8")
    questions = sum(len(p["qas"]) for a in articles for p in a["paragraphs"])
    print(f"--copies {copies}: {questions} questions in {out}")
    return str(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--input", default=str(REPO.parent / "shared" / "squad" / "squad2-dev-half.json"))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--cache", choices=["warm", "cold", "both"], default="both")
    parser.add_argument("--copies", type=int, default=1, help="build the input repeated K times (a larger set)")
    args = parser.parse_args()
    if args.copies > 1:
        args.input = repeated_input(args.input, args.copies)
    states = ["warm", "cold"] if args.cache == "both" else [args.cache]
    print(f"input: {args.input}; {args.repeats} repetitions per setting, alternating; {os.cpu_count()} CPUs")
    for state in states:
        results: dict[int, list[tuple[float, float, str, float]]] = {1: [], args.workers: []}
        loads = []
        with tempfile.TemporaryDirectory() as folder:
            warm_cache = str(Path(folder) / "warm-cache")
            if state == "warm":
                run(args.input, Path(folder) / "fill.json", 1, warm_cache)
            for k in range(args.repeats):
                for workers in results:
                    cache = warm_cache if state == "warm" else str(Path(folder) / f"cold-{k}-{workers}")
                    results[workers].append(run(args.input, Path(folder) / f"out-{workers}.json", workers, cache))
                loads.append(os.getloadavg()[0])
        report(state, results, args.workers, loads)


def report(state: str, results: dict[int, list[tuple[float, float, str, float]]], n: int, loads: list[float]) -> None:
    print(f" lexicon cache {state}:")
    medians = {}
    for workers, rows in results.items():
        walls, builds = [r[0] for r in rows], [r[1] for r in rows]
        medians[workers] = (statistics.median(walls), statistics.median(builds), statistics.median(r[3] for r in rows))
        print(
            f"  --workers {workers}: command {medians[workers][0]:.1f} s, build {medians[workers][1]:.2f} s, "
            f"CPU time of all processes {medians[workers][2]:.1f} s "
            f"(medians; command runs {', '.join(f'{w:.1f}' for w in walls)}; "
            f"build runs {', '.join(f'{b:.2f}' for b in builds)})"
        )
    one, many = medians[1], medians[n]
    print(f"  speed-up, whole command: {one[0] / many[0]:.2f}x; build only: {one[1] / many[1]:.2f}x   (target >= 1.7x)")
    # with idle cores the wall time of N workers is about their CPU time / N: the speed-up the split allows
    print(
        f"  speed-up the split allows on idle cores (CPU time 1 worker / (CPU time {n} workers / {n})): "
        f"{one[2] / (many[2] / n):.2f}x"
    )
    digests = {r[2] for rows in results.values() for r in rows}
    print(f"  outputs byte-identical across all runs: {'yes' if len(digests) == 1 else 'NO'}")
    print(
        f"  1-minute load average after each repetition: {', '.join(f'{x:.1f}' for x in loads)} "
        "(other work on the machine competes for the same CPUs)"
    )


if __name__ == "__main__":
    with recorded(__file__):
        main()
