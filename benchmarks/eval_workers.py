"""`robustqa eval` with 2 CPU processes (torchrun, gloo) against 1 process: wall time and identical output.

Both are the whole command in fresh processes over the held-out file with the shared model (clean set
only). The single process uses torch's default thread count; torchrun gives each of its processes one
thread (its OMP_NUM_THREADS default), so on a 2-core machine both sides use both cores and the figure
shows what sharding costs or saves, not extra hardware. Runs alternate so other work on a shared
machine hits both alike. No target on 2 cores: the point is that the result is identical.

    python benchmarks/eval_workers.py [--repeats 3] [--limit N] [--nproc 2]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from _common import recorded, timed_eval


def torchrun_command() -> list[str]:
    exe = shutil.which("torchrun", path=str(Path(sys.executable).parent))
    return [exe] if exe else [sys.executable, "-m", "torch.distributed.run"]


def run(out: Path, nproc: int, limit: int | None) -> float:
    launcher = torchrun_command() + ["--standalone", "--nproc_per_node", str(nproc)] if nproc > 1 else []
    return timed_eval(out, limit=limit, launcher=launcher)


def outputs(folder: Path) -> tuple[dict, dict, dict]:
    entry = json.loads((folder / "report.json").read_text())["models"][0]
    files = entry["files"]
    return (
        json.loads((folder / files["clean_predictions"]).read_text()),
        json.loads((folder / files["clean_null_odds"]).read_text()),
        entry["clean"],
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--nproc", type=int, default=2)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="robustqa-eval-workers-"))
    try:
        times: dict[int, list[float]] = {1: [], args.nproc: []}
        for rep in range(args.repeats):
            for nproc in (1, args.nproc):
                times[nproc].append(run(work / f"p{nproc}-{rep}", nproc, args.limit))
            print(
                f"  round {rep + 1}: 1 process {times[1][-1]:.1f} s, "
                f"{args.nproc} processes {times[args.nproc][-1]:.1f} s",
                flush=True,
            )
        reference = outputs(work / "p1-0")
        identical = all(outputs(work / f"p{n}-{r}") == reference for n in times for r in range(args.repeats))
        one, many = statistics.median(times[1]), statistics.median(times[args.nproc])
        print(f"1 process:  median {one:.1f} s (min {min(times[1]):.1f}, max {max(times[1]):.1f})")
        print(
            f"{args.nproc} processes (torchrun, gloo): median {many:.1f} s "
            f"(min {min(times[args.nproc]):.1f}, max {max(times[args.nproc]):.1f})"
        )
        print(f"speed-up {one / many:.2f}x; predictions, null odds and metrics identical in every run: {identical}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    with recorded(__file__):
        main()
