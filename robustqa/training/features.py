"""Training windows: the standard doc-stride preparation (as `run_qa.py` does it) on eval's own windows.

Each question is cut into the same overlapping windows inference uses (`inference.build_windows`), so a
model is trained on exactly the inputs it is later evaluated on. A window's target is the token span of the
first gold answer when that answer lies wholly inside the window's context; otherwise (an unanswerable
question, or an answer outside this window) the target is the CLS token, which is how SQuAD 2.0 models
learn to abstain.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from robustqa.errors import InputError
from robustqa.evaluation.inference import build_windows
from robustqa.squad import QAExample


def answer_tokens(offsets: np.ndarray, start_char: int, end_char: int) -> tuple[int, int] | None:
    """The first and last token of the window's context that cover [start_char, end_char), or None when the
    answer is not wholly inside the window (offsets of tokens outside the context are -1)."""
    inside = offsets[:, 0] >= 0
    if not inside.any():
        return None
    positions = np.nonzero(inside)[0]
    first, last = positions[0], positions[-1]
    if offsets[first, 0] > start_char or offsets[last, 1] < end_char:
        return None
    start = first + int(np.searchsorted(offsets[first : last + 1, 1], start_char, side="right"))
    end = first + int(np.searchsorted(offsets[first : last + 1, 0], end_char, side="left")) - 1
    if start > end or start < first or end > last:
        return None
    return start, end


def training_features(
    tokenizer: Any, examples: Sequence[QAExample], max_seq_length: int, doc_stride: int
) -> list[dict[str, Any]]:
    """One feature (input ids, segment ids, start/end positions) per window of every example."""
    for example in examples:
        if not example.is_impossible and not example.answers:
            raise InputError(
                f"question {example.id} is answerable but has no answer span",
                where=f"article '{example.title}'",
                hint="give a SQuAD 2.0 training file with an answer for every answerable question",
            )
    windows = build_windows(tokenizer, examples, max_seq_length, doc_stride)
    features = []
    for w, ids in enumerate(windows.input_ids):
        example = examples[int(windows.example_index[w])]
        cls = int(windows.cls_index[w])
        span = None
        if not example.is_impossible:
            answer = example.answers[0]
            span = answer_tokens(windows.offsets[w], answer.answer_start, answer.answer_start + len(answer.text))
        start, end = span if span is not None else (cls, cls)
        feature: dict[str, Any] = {
            "input_ids": ids,
            "attention_mask": [1] * len(ids),
            "start_positions": start,
            "end_positions": end,
        }
        if windows.token_type_ids is not None:
            feature["token_type_ids"] = windows.token_type_ids[w]
        features.append(feature)
    return features
