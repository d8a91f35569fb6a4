"""The clean answer's margin agrees with decoding: positive exactly when the decoded answer is right."""

from __future__ import annotations

import numpy as np
import pytest

from robustqa.attack.margin import FAR, gold_set, question_margin
from robustqa.evaluation.decode import best_spans, decode_question
from robustqa.metric import normalize_answer

CONTEXT = "the Normans built castles in Rouen and Caen in the tenth century near the sea"


def _window(rng: np.random.Generator, words: list[tuple[int, int]], first: int, count: int, length: int = 24):
    """A window: CLS, 3 question tokens, SEP, `count` context words from `first`, SEP, random logits."""
    offsets = np.full((length, 2), -1, dtype=np.int64)
    for t, (s, e) in enumerate(words[first : first + count]):
        offsets[5 + t] = (s, e)
    start = rng.normal(0, 2, length).astype(np.float32)
    end = rng.normal(0, 2, length).astype(np.float32)
    return start, end, offsets, 0


def _decoded(windows, n_best: int, max_len: int, threshold: float) -> str:
    width = max(len(w[0]) for w in windows)
    start = np.full((len(windows), width), -np.inf, dtype=np.float32)
    end = np.full_like(start, -np.inf)
    mask = np.zeros(start.shape, dtype=bool)
    for i, (s, e, off, _) in enumerate(windows):
        start[i, : len(s)], end[i, : len(e)] = s, e
        mask[i, : len(s)] = off[:, 0] >= 0
    choices = best_spans(
        start, end, mask, np.zeros(len(windows), dtype=np.int64), n_best=n_best, max_answer_length=max_len
    )
    return decode_question(choices, [w[2] for w in windows], CONTEXT, null_threshold=threshold).text


@pytest.mark.parametrize("seed", range(40))
def test_the_margin_is_positive_exactly_when_the_answer_is_right(seed: int) -> None:
    rng = np.random.default_rng(seed)
    words = [(m.start(), m.end()) for m in __import__("re").finditer(r"\S+", CONTEXT)]
    windows = [_window(rng, words, 0, 10), _window(rng, words, 6, 10)]
    n_best, max_len, threshold = int(rng.integers(2, 8)), int(rng.integers(1, 5)), float(rng.normal(0, 1))
    answer = _decoded(windows, n_best, max_len, threshold)
    for golds in (gold_set([answer]) if answer else frozenset(), gold_set(["castles"]), frozenset()):
        margin = question_margin(
            windows, CONTEXT, golds, n_best=n_best, max_answer_length=max_len, null_threshold=threshold
        )
        right = normalize_answer(answer) in golds if golds else answer == ""
        assert (margin > 0) == right, (golds, answer, margin)


def test_no_window_and_no_span() -> None:
    assert question_margin([], CONTEXT, frozenset(), n_best=5, max_answer_length=5, null_threshold=0.0) == FAR
    assert question_margin([], CONTEXT, gold_set(["x"]), n_best=5, max_answer_length=5, null_threshold=0.0) == -FAR


def test_gold_set_normalises_and_drops_empty_answers() -> None:
    assert gold_set(["The Normans", "a", "castles."]) == frozenset({"normans", "castles"})
