"""What the shared MiniLM QA model costs on CPU, as `robustqa eval` measures it during a run (report.json's
`cost`), beside a bare forward loop over the same windows.

Over the held-out SQuAD 2.0 file (1,494 questions), each configuration (fp32, and the opt-in int8) is run as a
fresh `robustqa eval` (new folder, no cache) `--repeats` times; its own figures are read from report.json:
parameters, windows per second in the forward passes, milliseconds per question (tokenizing, forward passes,
decoding). Baseline: the same windows through the model in a bare loop (eval_speed.py's `BareForward`:
pre-padded, length-sorted batches, only `model(**batch)` timed), interleaved with the runs. The ratio of the
run's windows/s to the bare loop's says how much of the reported speed is the model itself (near 1: the
figure is the model's speed, not robustqa's overhead). Medians, with the spread (min–max).

    python benchmarks/model_cost.py [--repeats 3] [--limit N]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import DATA, MODEL, BareForward, recorded, robustqa_command

CONFIGURATIONS = {"fp32": [], "int8": ["--int8"]}


def run_cost(out: Path, extra: list[str], limit: int | None, batch_size: int) -> dict:
    """report.json's `cost` of one fresh `robustqa eval` of the held-out file."""
    command = [
        *robustqa_command(),
        "eval",
        str(MODEL),
        "--clean",
        str(DATA),
        "--output-dir",
        str(out),
        "--quiet",
        "--device",
        "cpu",
        "--batch-size",
        str(batch_size),
        *extra,
    ]
    if limit:
        command += ["--limit", str(limit)]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command[:4])} ... failed: {done.stderr[-2000:]}")
    return json.loads((out / "report.json").read_text())["models"][0]["cost"]


def spread(values: list[float], digits: int = 1) -> str:
    return f"{statistics.median(values):.{digits}f} ({min(values):.{digits}f}–{max(values):.{digits}f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--limit", type=int, default=None, help="first N questions only (quick check)")
    parser.add_argument("--batch-size", type=int, default=32)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="robustqa-model-cost-"))
    try:
        import torch

        bare = BareForward(args.batch_size, args.limit)
        print(
            f"{MODEL.name} on {DATA.name} ({args.limit or 'all'} questions, {bare.windows} windows), "
            f"batch {args.batch_size}, "
            f"torch threads {torch.get_num_threads()}, load average {os.getloadavg()[0]:.1f}",
            flush=True,
        )
        costs: dict[str, list[dict]] = {name: [] for name in CONFIGURATIONS}
        bare_rates: list[float] = []
        for rep in range(args.repeats):
            for name, extra in CONFIGURATIONS.items():
                costs[name].append(run_cost(work / f"{name}-{rep}", extra, args.limit, args.batch_size))
            bare_rates.append(bare.windows / bare.run())
            print(
                f"  round {rep + 1}: "
                + ", ".join(f"{name} {c[-1]['windows_per_second']:.1f} windows/s" for name, c in costs.items())
                + f", bare fp32 loop {bare_rates[-1]:.1f} windows/s",
                flush=True,
            )
        first = costs["fp32"][0]
        print()
        print(f"device: {first['device']} ({first['device_name']}); parameters: {first['parameters']:,}")
        print(
            f"{'configuration':<15} {'questions':>9} {'windows':>8} {'windows/s (forward passes)':>28} "
            f"{'ms/question (whole predict)':>29} {'vs bare fp32 loop':>18}"
        )
        bare_median = statistics.median(bare_rates)
        for name, runs in costs.items():
            rates = [c["windows_per_second"] for c in runs]
            per_question = [c["ms_per_question"] for c in runs]
            print(
                f"robustqa {name:<6} {runs[0]['questions']:>9} {runs[0]['windows']:>8} {spread(rates):>28} "
                f"{spread(per_question):>29} "
                f"{statistics.median(rates) / bare_median:>17.2f}x"
            )
        print(f"{'bare fp32 loop':<15} {'':>9} {bare.windows:>8} {spread(bare_rates):>28} {'':>29} {1.0:>17.2f}x")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    with recorded(__file__):
        main()
