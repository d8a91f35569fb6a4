"""The shared real model on the held-out file: robustqa's clean predictions against an independent,
straightforward run_qa-style implementation (per-question tokenization, plain padded forward passes,
HF `postprocess_qa_predictions` logic), written here without robustqa's inference or decoding code.

Slow (one more full pass of the model over 1,494 questions); the robustqa side is the `real_run` session
fixture (tests/conftest.py) that other tests share.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.slow


@pytest.fixture(autouse=True)
def one_torch_thread():  # overrides the package-wide one: the real model wants every core
    yield


def _run_qa_predictions(
    model_dir: Path, squad_file: Path, *, n_best: int = 20, max_answer_length: int = 30
) -> dict[str, str]:
    import torch
    from transformers import AutoModelForQuestionAnswering, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model_dir, use_fast=True)
    model = AutoModelForQuestionAnswering.from_pretrained(model_dir).eval()
    rows = [
        (qa["id"], qa["question"].lstrip(), paragraph["context"])
        for article in json.loads(squad_file.read_text())["data"]
        for paragraph in article["paragraphs"]
        for qa in paragraph["qas"]
    ]
    rows.sort(key=lambda r: len(r[2]))  # similar lengths together: less padding (predictions are keyed by id)
    predictions: dict[str, str] = {}
    for first in range(0, len(rows), 32):
        chunk = rows[first : first + 32]
        features = tokenizer(
            [r[1] for r in chunk],
            [r[2] for r in chunk],
            truncation="only_second",
            max_length=384,
            stride=128,
            return_overflowing_tokens=True,
            return_offsets_mapping=True,
            padding="longest",
            return_tensors="pt",
        )
        with torch.no_grad():
            out = model(
                input_ids=features["input_ids"],
                attention_mask=features["attention_mask"],
                token_type_ids=features["token_type_ids"],
            )
        starts, ends = out.start_logits.numpy(), out.end_logits.numpy()
        by_example: dict[int, list[int]] = {}
        for f, example in enumerate(features["overflow_to_sample_mapping"].tolist()):
            by_example.setdefault(example, []).append(f)
        for example, feature_ids in by_example.items():
            qid, _, context = chunk[example]
            null_score, candidates = None, []
            for f in feature_ids:
                seq = features.sequence_ids(f)
                offsets = [o if seq[k] == 1 else None for k, o in enumerate(features["offset_mapping"][f].tolist())]
                s, e = starts[f], ends[f]
                feature_null = s[0] + e[0]
                if null_score is None or feature_null < null_score:
                    null_score = feature_null
                # run_qa: the n_best highest positions overall, then discard those outside the context
                for i in np.argsort(s)[-1 : -n_best - 1 : -1]:
                    for j in np.argsort(e)[-1 : -n_best - 1 : -1]:
                        if i >= len(offsets) or j >= len(offsets) or offsets[i] is None or offsets[j] is None:
                            continue
                        if j < i or j - i + 1 > max_answer_length:
                            continue
                        candidates.append((s[i] + e[j], context[offsets[i][0] : offsets[j][1]]))
            best = max(candidates, key=lambda c: c[0]) if candidates else None
            predictions[qid] = "" if best is None or null_score - best[0] > 0.0 else best[1]
    return predictions


def test_clean_predictions_match_independent_run_qa_decoding(
    real_run: Path, squad_heldout_path: Path, shared_model_path: Path
) -> None:
    report = json.loads((real_run / "report.json").read_text())
    ours = json.loads((real_run / report["models"][0]["files"]["clean_predictions"]).read_text())
    reference = _run_qa_predictions(shared_model_path, squad_heldout_path)
    assert set(ours) == set(reference) and len(ours) == 1494
    agree = sum(ours[qid] == reference[qid] for qid in reference) / len(reference)
    print(f"agreement with run_qa-style decoding: {agree:.4%} of {len(reference)} questions")
    assert agree >= 0.995
