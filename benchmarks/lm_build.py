"""Cost and coverage of the opt-in model recipes `qads-lm@2.2` and `qads-lm@2.1` (meaning rule at 0.96 and
0.92, then language model) and `qads-lm@2.0` (language model) against `qads@2.0`, on the shared SQuAD
questions, with the whole `robustqa build-dataset` command timed from outside (process start, model loading
and file writing included). `qads-lm@2.2` runs twice on one cache folder: *cold* (empty: the models score
every candidate, the lexicon tables are derived) and *warm* (the folder the cold run filled: every score
comes from the tables on disk, as when rebuilding with the same models); then on that folder
`qads-lm@2.1` (*partly* warm: its language model must also read the candidates between the two meaning
thresholds), `qads-lm-strict@2.1` (warm: its candidates are a subset of qads-lm@2.1's), `qads-lm@2.0`
(partly warm: its language model must also read the candidates the meaning rule rejected), and
`qads@2.0` last. Only the files' summaries are read (the perturbed questions are not printed). The
model's threads follow torch's default unless `OMP_NUM_THREADS` is set (printed below).

    NLTK_DATA=../shared/nltk_data python benchmarks/lm_build.py [--input FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
import time
from pathlib import Path

from _common import REPO, recorded, robustqa_command

DEFAULT_INPUT = REPO.parent / "shared" / "squad" / "squad2-dev-half.json"


def build(input_path: Path, output: Path, recipe: str, cache: Path) -> tuple[float, dict]:
    """Wall seconds of one `build-dataset` run, and the summary its file records."""
    command = [
        *robustqa_command(),
        "build-dataset",
        "--input",
        str(input_path),
        "--output",
        str(output),
        "--recipe",
        recipe,
    ]
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=dict(os.environ, ROBUSTQA_CACHE=str(cache)))
    seconds = time.perf_counter() - started
    summary = json.loads(output.read_text(encoding="utf-8"))["robustqa"]["summary"]
    output.unlink()
    return seconds, summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--input", type=Path, default=DEFAULT_INPUT)
    args = parser.parse_args()
    with recorded(__file__), tempfile.TemporaryDirectory() as tmp:
        cache, out = Path(tmp) / "cache", Path(tmp) / "out.json"
        import torch

        print(
            f"input: {args.input.name}; OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', '(unset)')}, "
            f"torch threads {torch.get_num_threads()}"
        )
        runs = [
            ("qads-lm@2.2", "cold"),
            ("qads-lm@2.2", "warm"),
            ("qads-lm@2.1", "partly"),
            ("qads-lm-strict@2.1", "warm"),
            ("qads-lm@2.0", "partly"),
            ("qads@2.0", "warm"),
        ]
        rows = []
        scored = embedded = 0
        for recipe, state in runs:
            seconds, summary = build(args.input, out, recipe, cache)
            if state == "cold":
                scored = sum(len(p.read_text(encoding="utf-8").splitlines()) for p in cache.glob("lm-scores-*.jsonl"))
                embedded = sum(
                    len(p.read_text(encoding="utf-8").splitlines()) for p in cache.glob("similarity-*.jsonl")
                )
            rows.append((recipe, state, seconds, summary))
        n = rows[0][3]["questions"]
        print(f"{'recipe':18s} {'cache':6s} {'wall s':>8s} {'changed':>16s} {'meaning-fit':>12s} {'lm-fit':>7s}")
        for recipe, state, seconds, summary in rows:
            changed = summary["changed"]
            rejected = summary.get("gates", {}).get("rejected", {})
            meaning, lm = rejected.get("meaning-fit", "-"), rejected.get("lm-fit", "-")
            print(
                f"{recipe:18s} {state:6s} {seconds:8.0f} {changed:6d} ({100 * changed / n:4.1f}%) "
                f"{meaning!s:>12s} {lm!s:>7s}"
            )
        cold = rows[0][2]
        print(
            f"{n} questions; the cold {rows[0][0]} run had the language model score {scored} texts "
            "and the encoder embed "
            f"{embedded} candidates: {(scored + embedded) / cold:.1f} texts/s over the whole command"
        )
        print(
            "a rule's count: words whose first-ranked synonym it rejected "
            "(a word whose first synonym another rule rejected counts there)"
        )


if __name__ == "__main__":
    main()
