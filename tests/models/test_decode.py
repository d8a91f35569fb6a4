"""Decoding with hand-made logits: the SQuAD 2.0 rules, one at a time."""

from __future__ import annotations

import numpy as np
import pytest

from robustqa.evaluation.decode import NO_SPAN_NULL_ODDS, best_spans, decode_question

CONTEXT = "Watt improved the steam engine in 1781 ."
# token layout of one window: [CLS] who ? [SEP] Watt improved the steam engine in 1781 . [SEP]
WORDS = CONTEXT.split(" ")
N = 4 + len(WORDS) + 1


def _offsets(context_words: list[str], start_token: int = 4) -> np.ndarray:
    offsets = np.full((N, 2), -1, dtype=np.int64)
    pos = 0
    for i, word in enumerate(context_words):
        offsets[start_token + i] = (pos, pos + len(word))
        pos += len(word) + 1
    return offsets


OFFSETS = _offsets(WORDS)
MASK = OFFSETS[:, 0] >= 0


def _logits(**points: float) -> np.ndarray:
    """A window's logits: -5 everywhere, with chosen positions set (keys: t<index>)."""
    row = np.full(N, -5.0, dtype=np.float32)
    for key, value in points.items():
        row[int(key[1:])] = value
    return row


def _decode(starts, ends, *, offsets=None, threshold=0.0, n_best=20, max_answer_length=30):
    starts, ends = np.stack(starts), np.stack(ends)
    offsets = offsets or [OFFSETS] * len(starts)
    mask = np.stack([o[:, 0] >= 0 for o in offsets])
    choices = best_spans(
        starts, ends, mask, np.zeros(len(starts), dtype=np.int64), n_best=n_best, max_answer_length=max_answer_length
    )
    return decode_question(choices, offsets, CONTEXT, null_threshold=threshold)


def test_span_wins_and_text_is_sliced_from_the_context() -> None:
    # "steam engine" = tokens 7..8 ; CLS scores 0
    result = _decode([_logits(t0=0.0, t7=4.0)], [_logits(t0=0.0, t8=3.0)])
    assert result.text == "steam engine"
    assert result.null_odds == pytest.approx(0.0 - 7.0)


def test_null_wins_when_cls_beats_every_span() -> None:
    result = _decode([_logits(t0=6.0, t7=2.0)], [_logits(t0=6.0, t8=2.0)])
    assert result.text == ""
    assert result.null_odds == pytest.approx(12.0 - 4.0)
    assert result.best_span == "steam engine"  # what v1.1 rules answer: the best span, never abstaining


def test_threshold_moves_the_decision() -> None:
    starts, ends = [_logits(t0=3.0, t7=2.0)], [_logits(t0=2.5, t8=2.0)]  # null 5.5, span 4.0: odds 1.5
    abstained = _decode(starts, ends, threshold=0.0)
    assert abstained.text == "" and abstained.best_span == "steam engine"
    answered = _decode(starts, ends, threshold=2.0)
    assert answered.text == "steam engine" and answered.null_odds == pytest.approx(1.5)


def test_spans_outside_the_context_are_rejected() -> None:
    # the question tokens (1, 2) and the final [SEP] carry the highest logits; they must be ignored
    result = _decode([_logits(t1=9.0, t2=9.0, t12=9.0, t0=-9.0, t10=1.0)], [_logits(t2=9.0, t12=9.0, t0=-9.0, t10=1.0)])
    assert result.text == "1781"


def test_end_before_start_is_rejected() -> None:
    # best start is "1781" (10), best end is "Watt" (4): invalid pair; next best valid is 10..10 or 4..4
    result = _decode([_logits(t0=-9.0, t10=5.0, t4=1.0)], [_logits(t0=-9.0, t4=5.0, t10=2.0)])
    assert result.text == "1781"  # 5 + 2 = 7 beats "Watt" (1 + 5 = 6)


def test_max_answer_length_limits_spans() -> None:
    # the best pair spans tokens 4..10 (7 tokens); with max 3 tokens the best short span wins
    starts, ends = [_logits(t0=-9.0, t4=5.0, t9=1.0)], [_logits(t0=-9.0, t10=5.0, t9=0.5)]
    assert _decode(starts, ends).text == "Watt improved the steam engine in 1781"
    assert _decode(starts, ends, max_answer_length=3).text == "in 1781"  # 9..10: 1 + 5


def test_n_best_limits_candidates() -> None:
    # with n_best=1 only the single best start and end are candidates; an invalid pair leaves no span
    starts, ends = [_logits(t0=-9.0, t10=5.0, t4=4.0)], [_logits(t0=-9.0, t4=5.0, t10=4.0)]
    assert _decode(starts, ends, n_best=2).text == "Watt"  # 4 + 5 = 9 ties 10..10 (5+4); earlier start wins
    none = _decode(starts, ends, n_best=1)
    assert none.text == "" and none.null_odds == NO_SPAN_NULL_ODDS and none.best_span == ""


def test_span_across_windows_null_is_the_minimum_and_best_span_the_maximum() -> None:
    # window 2 starts later in the context: its tokens 4.. map to words 3.. ("steam engine in 1781 .")
    second_offsets = _offsets(WORDS[3:])
    shift = len(" ".join(WORDS[:3])) + 1
    second_offsets[second_offsets[:, 0] >= 0] += shift
    first = (_logits(t0=1.0, t4=2.0), _logits(t0=1.0, t4=2.0))  # null 2, "Watt" 4
    second = (_logits(t0=-1.0, t6=4.0), _logits(t0=0.5, t7=3.5))  # null -0.5, tokens 6..7 = "in 1781"
    result = _decode([first[0], second[0]], [first[1], second[1]], offsets=[OFFSETS, second_offsets])
    assert result.text == result.best_span == "in 1781"
    assert result.null_odds == pytest.approx(-0.5 - 7.5)


def test_question_without_windows_is_no_answer() -> None:
    assert decode_question([], [], CONTEXT).text == decode_question([], [], CONTEXT).best_span == ""


def test_vectorised_equals_brute_force_on_random_logits() -> None:
    rng = np.random.default_rng(7)
    windows, length = 40, 30
    start = rng.normal(size=(windows, length)).astype(np.float32)
    end = rng.normal(size=(windows, length)).astype(np.float32)
    mask = np.zeros((windows, length), dtype=bool)
    mask[:, 6:28] = True
    choices = best_spans(start, end, mask, np.zeros(windows, dtype=np.int64), n_best=length, max_answer_length=5)
    for w in range(windows):
        best = max(
            (start[w, i] + end[w, j], i, j)
            for i in range(length)
            for j in range(length)
            if mask[w, i] and mask[w, j] and 0 <= j - i < 5
        )
        assert choices[w].score == pytest.approx(float(best[0]))
        assert (choices[w].start, choices[w].end) == (best[1], best[2])
        assert choices[w].null_score == pytest.approx(float(start[w, 0] + end[w, 0]))
