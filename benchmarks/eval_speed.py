"""`robustqa eval` speed on CPU, side by side with its two baselines, in one run.

Over the held-out SQuAD 2.0 file (1,494 questions) with the shared MiniLM QA model:

(a) robustqa's whole eval (the `robustqa eval` command in a fresh process: imports, model load,
    tokenization, inference, decoding, official scoring, all report files) against the transformers 4.x
    question-answering pipeline (its own virtual environment, `handle_impossible_answer=True`, batch size
    tuned on a subset first), also a whole fresh process. Target: at least 1.4× its throughput.
(b) the same robustqa eval against a bare length-sorted fp32 forward pass over the same windows
    (pre-padded batches, nothing but `model(**batch)` timed): what tokenization, decoding, scoring and
    I/O add on top of the machine's limit. Target: at most 15%.
(c) the opt-in int8 mode (`--int8`): speed and F1 against fp32.
(d) the opt-in bf16 autocast on CPU (`--precision bf16`), fast where the CPU has native bf16 matrix units
    (Intel AMX, AVX-512 BF16): speed and F1 against fp32 and the pipeline.

Runs are interleaved (robustqa, bare, pipeline, int8, then again) so load from other work on a shared
machine hits all alike; medians and the spread (min–max) are printed.

One-off set-up of the baseline's environment (git-ignored):
    python -m venv .bench/tf4 && .bench/tf4/bin/pip install torch==2.13.0 'transformers<5'

    python benchmarks/eval_speed.py [--repeats 3] [--limit N]
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
import time
from pathlib import Path

from _common import DATA, MODEL, REPO, BareForward, recorded, spread, timed_eval

TF4_PYTHON = REPO / ".bench" / "tf4" / "bin" / "python"

PIPELINE_SCRIPT = (
    r"""
import json, sys, time
t0 = time.perf_counter()
from transformers import pipeline
model, data, out, batch_size, limit = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
qa = pipeline("question-answering", model=model, tokenizer=model, device=-1)
rows = [(q["id"], q["question"], p["context"]) for a in json.load(open(data))["data"]"""
    r""" for p in a["paragraphs"] for q in p["qas"]]
rows = rows[:limit] if limit else rows
t1 = time.perf_counter()
answers = qa(question=[r[1] for r in rows], context=[r[2] for r in rows], batch_size=batch_size,
             handle_impossible_answer=True, max_seq_len=384, doc_stride=128)
answers = answers if isinstance(answers, list) else [answers]
t2 = time.perf_counter()
json.dump({r[0]: a["answer"] for r, a in zip(rows, answers)}, open(out, "w"))
print(json.dumps({"setup": t1 - t0, "run": t2 - t1, "total": time.perf_counter() - t0}))
"""
)


def timed_clean_eval(out: Path, *extra: str, limit: int | None = None) -> tuple[float, dict]:
    """Wall time of one eval and the clean score it reports."""
    wall = timed_eval(out, *extra, limit=limit)
    return wall, json.loads((out / "report.json").read_text())["models"][0]["clean"]


def run_pipeline(out: Path, batch_size: int, limit: int | None) -> tuple[float, dict]:
    script = out.parent / "pipeline_qa.py"
    script.write_text(PIPELINE_SCRIPT)
    start = time.perf_counter()
    done = subprocess.run(
        [str(TF4_PYTHON), str(script), str(MODEL), str(DATA), str(out), str(batch_size), str(limit or 0)],
        capture_output=True,
        text=True,
        env=dict(os.environ, TRANSFORMERS_VERBOSITY="error"),
    )
    wall = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"the transformers 4.x pipeline failed: {done.stderr[-2000:]}")
    return wall, json.loads(done.stdout.strip().splitlines()[-1])


def pipeline_f1(predictions: Path) -> float:
    from robustqa.metric import evaluate, gold_answers_of_squad

    answers = json.loads(predictions.read_text())
    gold = {qid: texts for qid, texts in gold_answers_of_squad(json.loads(DATA.read_text())).items() if qid in answers}
    return float(evaluate(gold, answers)["f1"])


def tune_pipeline(work: Path, limit: int) -> int:
    """The pipeline's fastest batch size on a subset (the figure the comparison then uses)."""
    timings = {}
    for batch_size in (1, 8, 16, 32):
        _, inner = run_pipeline(work / f"tune-{batch_size}.json", batch_size, limit)
        timings[batch_size] = inner["run"]
        print(f"  pipeline batch_size={batch_size:<3} {limit} questions: {inner['run']:.1f} s", flush=True)
    return min(timings, key=timings.__getitem__)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--limit", type=int, default=None, help="first N questions only (quick check)")
    parser.add_argument("--batch-size", type=int, default=32, help="robustqa's and the bare pass's batch size")
    parser.add_argument("--pipeline-batch-size", type=int, default=None, help="skip tuning, use this batch size")
    parser.add_argument("--skip-pipeline", action="store_true")
    args = parser.parse_args()
    if not args.skip_pipeline and not TF4_PYTHON.exists():
        sys.exit(
            f"{TF4_PYTHON} is missing; create it: python -m venv .bench/tf4 && "
            ".bench/tf4/bin/pip install torch==2.13.0 'transformers<5'"
        )
    questions = args.limit or sum(
        1 for a in json.loads(DATA.read_text())["data"] for p in a["paragraphs"] for _ in p["qas"]
    )
    work = Path(tempfile.mkdtemp(prefix="robustqa-eval-speed-"))
    try:
        import torch

        print(
            f"{questions} questions, {MODEL.name}, torch threads {torch.get_num_threads()}, "
            f"load average {os.getloadavg()[0]:.1f}",
            flush=True,
        )
        bare = BareForward(args.batch_size, args.limit)
        print(f"{bare.windows} windows", flush=True)
        pipeline_bs = args.pipeline_batch_size
        if not args.skip_pipeline and pipeline_bs is None:
            pipeline_bs = tune_pipeline(work, min(questions, 150))
        times: dict[str, list[float]] = {
            "robustqa": [],
            "fixed": [],
            "bare": [],
            "pipeline": [],
            "pipeline_run": [],
            "int8": [],
            "bf16": [],
        }
        f1 = {}
        for rep in range(args.repeats):
            wall, clean = timed_clean_eval(work / f"fp32-{rep}", "--batch-size", str(args.batch_size), limit=args.limit)
            times["robustqa"].append(wall)
            f1["fp32"] = clean["f1"]
            # the same command on one question: process start, imports, model load, writing the run folder
            times["fixed"].append(
                timed_clean_eval(work / f"fixed-{rep}", "--batch-size", str(args.batch_size), limit=1)[0]
            )
            times["bare"].append(bare.run())
            if not args.skip_pipeline:
                wall, inner = run_pipeline(work / f"pipeline-{rep}.json", pipeline_bs, args.limit)
                times["pipeline"].append(wall)
                times["pipeline_run"].append(inner["run"])
            wall, clean = timed_clean_eval(
                work / f"int8-{rep}", "--int8", "--batch-size", str(args.batch_size), limit=args.limit
            )
            times["int8"].append(wall)
            f1["int8"] = clean["f1"]
            wall, clean = timed_clean_eval(
                work / f"bf16-{rep}",
                "--precision",
                "bf16",
                "--device",
                "cpu",
                "--batch-size",
                str(args.batch_size),
                limit=args.limit,
            )
            times["bf16"].append(wall)
            f1["bf16"] = clean["f1"]
            print(f"  round {rep + 1}: " + ", ".join(f"{k} {v[-1]:.1f} s" for k, v in times.items() if v), flush=True)
        med = {k: statistics.median(v) for k, v in times.items() if v}
        print()
        print(
            f"robustqa eval (whole command, fp32)   {spread(times['robustqa'])}  {questions / med['robustqa']:.1f} q/s"
        )
        print(f"bare sorted fp32 forward pass         {spread(times['bare'])}")
        print(f"(b) overhead of everything else: {100 * (med['robustqa'] / med['bare'] - 1):+.1f}% (target <= +15%)")
        per_question = med["robustqa"] - med["fixed"]
        print(
            "    fixed cost (same command on 1 question: start, imports, model load, run folder) "
            f"{spread(times['fixed'])}"
        )
        print(
            f"    whole command minus that fixed cost: {per_question:.1f} s, "
            f"{100 * (per_question / med['bare'] - 1):+.1f}% over the bare pass"
            " (tokenization, batching, decoding, scoring, I/O of all questions)"
        )
        if times["pipeline"]:
            pf1 = pipeline_f1(work / f"pipeline-{args.repeats - 1}.json")
            print(
                f"transformers 4.x pipeline (bs {pipeline_bs}, whole process) {spread(times['pipeline'])}  "
                f"{questions / med['pipeline']:.1f} q/s"
                f"  [pipeline call alone: median {med['pipeline_run']:.1f} s]"
            )
            print(
                f"(a) throughput robustqa / pipeline: {med['pipeline'] / med['robustqa']:.2f}x (target >= 1.4x);"
                f" pipeline call alone vs whole robustqa command: {med['pipeline_run'] / med['robustqa']:.2f}x"
            )
            print(
                f"    F1 (official rules): robustqa {f1['fp32']:.2f}, pipeline {pf1:.2f} "
                "(max_answer_len 15, probability scores)"
            )
        print(f"robustqa eval --int8                  {spread(times['int8'])}")
        print(
            f"(c) int8 speed-up {med['robustqa'] / med['int8']:.2f}x; F1 int8 {f1['int8']:.2f} vs fp32 {f1['fp32']:.2f}"
            f" ({f1['int8'] - f1['fp32']:+.2f} points; target within 1)"
        )
        print(f"robustqa eval --precision bf16 (CPU)  {spread(times['bf16'])}")
        print(
            f"(d) bf16 speed-up {med['robustqa'] / med['bf16']:.2f}x; F1 bf16 {f1['bf16']:.2f} vs fp32 {f1['fp32']:.2f}"
            f" ({f1['bf16'] - f1['fp32']:+.2f} points)"
            + (f"; {med['pipeline'] / med['bf16']:.2f}x the pipeline" if times["pipeline"] else "")
        )
        if times["pipeline"]:
            print(
                f"    opt-in modes against the pipeline: int8 {med['pipeline'] / med['int8']:.2f}x, "
                f"bf16 {med['pipeline'] / med['bf16']:.2f}x"
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    with recorded(__file__):
        main()
