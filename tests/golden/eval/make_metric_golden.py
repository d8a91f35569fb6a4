"""Regenerate the metric golden files (run by hand, never by the test suite).

The official `evaluate-v2.0.py` cannot be downloaded here, so the reference numbers come from an independent
port of it: transformers 4.x's `transformers/data/metrics/squad_metrics.py` (`squad_evaluate`), run from its
own virtual environment (transformers 5 dropped it). Nothing of it is copied into robustqa.

    python -m venv --system-site-packages .bench/metricref
    .bench/metricref/bin/pip install "transformers>=4.46,<5" "huggingface_hub<1.0" "tokenizers<0.23"
    .bench/metricref/bin/python tests/golden/eval/make_metric_golden.py ../shared/squad/squad2-dev-heldout.json

Writes `metric_predictions.json` and `metric_na_probs.json` (synthetic predictions over the held-out file,
seeded, covering exact answers, articles, punctuation, partial overlaps, abstentions and tied
probabilities) and `metric_reference.json` (the reference scores for several thresholds).

    .bench/metricref/bin/python tests/golden/eval/make_metric_golden.py --check-run RUN_DIR CLEAN_FILE

compares a `robustqa eval` run folder's report.json with the reference recomputed on the prediction and
null-odds files the run wrote (prints the largest difference per set; exits 1 above 1e-9).
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from types import SimpleNamespace

HERE = Path(__file__).resolve().parent
SEED = 2026
THRESHOLDS = [1.0, 0.5, 0.0, -1.5]


def synthetic_predictions(data: dict) -> tuple[dict[str, str], dict[str, float]]:
    rng = random.Random(SEED)
    preds: dict[str, str] = {}
    na_probs: dict[str, float] = {}
    for article in data["data"]:
        for paragraph in article["paragraphs"]:
            context = paragraph["context"]
            words = context.split()
            for qa in paragraph["qas"]:
                golds = (
                    [a["text"] for a in qa["answers"]]
                    or [a["text"] for a in qa.get("plausible_answers", [])]
                    or ["nothing"]
                )
                gold = rng.choice(golds)
                kind = rng.randrange(7)
                if kind == 0:
                    text = gold
                elif kind == 1:
                    text = f"The {gold}." if rng.random() < 0.5 else f"an  {gold.upper()}!"
                elif kind == 2:
                    tokens = gold.split()
                    text = " ".join(tokens[: max(1, len(tokens) // 2)])
                elif kind == 3:
                    start = rng.randrange(len(words))
                    text = " ".join(words[start : start + rng.randint(1, 6)])
                elif kind == 4:
                    text = ""
                elif kind == 5:
                    text = f"{gold} {rng.choice(words)}"
                else:
                    text = rng.choice(["the", "a", ".", "The, a", gold])
                preds[qa["id"]] = text
                # lower when the answer is likely right, so the threshold sweep has a real optimum;
                # rounded to one decimal so that many probabilities tie
                mean = -1.0 if qa["answers"] and kind in (0, 1, 5) else 1.0
                na_probs[qa["id"]] = round(rng.gauss(mean, 1.5), 1)
    return preds, na_probs


def main(data_path: str) -> None:
    from transformers.data.metrics import squad_metrics  # transformers 4.x, in .bench/metricref

    data = json.loads(Path(data_path).read_text(encoding="utf-8"))
    preds, na_probs = synthetic_predictions(data)
    examples = [
        SimpleNamespace(qas_id=qa["id"], answers=qa["answers"])
        for article in data["data"]
        for paragraph in article["paragraphs"]
        for qa in paragraph["qas"]
    ]
    reference = {
        "produced_by": f"transformers {__import__('transformers').__version__} squad_metrics.squad_evaluate",
        "data": Path(data_path).name,
        "with_na_probs": {str(t): dict(squad_metrics.squad_evaluate(examples, preds, na_probs, t)) for t in THRESHOLDS},
        # without a no-answer file the port still adds best_* (the official script does not): tests drop them
        "without_na_probs": dict(squad_metrics.squad_evaluate(examples, preds)),
    }
    (HERE / "metric_predictions.json").write_text(json.dumps(preds, indent=0, sort_keys=True) + "\n")
    (HERE / "metric_na_probs.json").write_text(json.dumps(na_probs, indent=0) + "\n")
    (HERE / "metric_reference.json").write_text(json.dumps(reference, indent=2) + "\n")


def check_run(run_dir: str, clean_file: str) -> int:
    from transformers.data.metrics import squad_metrics

    run = Path(run_dir)
    report = json.loads((run / "report.json").read_text(encoding="utf-8"))
    thresh = report["settings"]["na_prob_thresh"]
    worst = 0.0
    for entry in report["models"]:
        for role, data_file in (("clean", clean_file), ("perturbed", report["perturbed_file"])):
            if entry[role] is None:
                continue
            data = json.loads(Path(data_file).read_text(encoding="utf-8"))
            examples = [
                SimpleNamespace(qas_id=qa["id"], answers=qa["answers"])
                for article in data["data"]
                for paragraph in article["paragraphs"]
                for qa in paragraph["qas"]
            ]
            preds = json.loads((run / entry["files"][f"{role}_predictions"]).read_text(encoding="utf-8"))
            odds = json.loads((run / entry["files"][f"{role}_null_odds"]).read_text(encoding="utf-8"))
            expected = squad_metrics.squad_evaluate(examples, preds, odds, thresh)
            diff = max(abs(entry[role][k] - expected[k]) for k in expected)
            worst = max(worst, diff)
            print(
                f"{entry['model']} {role}: {len(expected)} keys, max |report - reference| = {diff:.3g}; "
                f"exact {expected['exact']:.4f} f1 {expected['f1']:.4f}"
            )
    return 0 if worst <= 1e-9 else 1


if __name__ == "__main__":
    if sys.argv[1] == "--check-run":
        sys.exit(check_run(sys.argv[2], sys.argv[3]))
    main(sys.argv[1])
