"""Start/end logits → answer text and null odds, the SQuAD 2.0 way.

transformers 5 dropped the question-answering pipeline, so decoding lives here. The rules are those of
the reference `run_qa` post-processing: per question, the null score is the *minimum* over its windows of
the start+end logits at the CLS position; the best span is searched among the top `n_best` start and end
positions of each window that lie in the context (end >= start, at most `max_answer_length` tokens); the
answer is sliced from the original context by character offsets; it is "" when
`null_score - best_span_score > null_threshold`. The difference itself is the official na_prob value. The best
span itself is kept beside the answer: SQuAD v1.1 rules, which never abstain, answer with it.

Everything is vectorised over windows with numpy: the runner calls `best_spans` once per chunk of
windows, then `decode_question` per question only reduces a handful of numbers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

# Null odds of a question whose windows hold no admissible span at all (an empty context, say):
# large, finite (JSON has no infinity) and therefore always "no answer".
NO_SPAN_NULL_ODDS = 1.0e6


@dataclass(frozen=True)
class SpanChoice:
    """The best admissible span of one window and its CLS (null) score."""

    score: float  # start + end logit of the best span; -inf when the window has none
    start: int  # token index, -1 when none
    end: int
    null_score: float


def best_spans(
    start_logits: np.ndarray,
    end_logits: np.ndarray,
    context_mask: np.ndarray,
    cls_index: np.ndarray,
    *,
    n_best: int = 20,
    max_answer_length: int = 30,
) -> list[SpanChoice]:
    """Best span per window for a padded (windows × tokens) block of logits.

    `context_mask[w, t]` is True where token t of window w is a context token (sequence id of the
    context, offsets known); padding and question tokens are False. Candidates are the `n_best`
    highest start and end logits *among context tokens*, so a window never loses candidates to the
    question or to special tokens.
    """
    start = np.asarray(start_logits, dtype=np.float32)
    end = np.asarray(end_logits, dtype=np.float32)
    mask = np.asarray(context_mask, dtype=bool)
    windows, length = start.shape
    if windows == 0:
        return []
    rows = np.arange(windows)
    null = start[rows, cls_index] + end[rows, cls_index]
    k = max(1, min(n_best, length))
    neg_inf = np.float32(-np.inf)
    masked_start = np.where(mask, start, neg_inf)
    masked_end = np.where(mask, end, neg_inf)
    if k < length:
        top_s = np.argpartition(-masked_start, k - 1, axis=1)[:, :k]
        top_e = np.argpartition(-masked_end, k - 1, axis=1)[:, :k]
    else:
        top_s = np.broadcast_to(np.arange(length), (windows, length))
        top_e = top_s
    s_val = np.take_along_axis(masked_start, top_s, axis=1)  # (W, k)
    e_val = np.take_along_axis(masked_end, top_e, axis=1)
    scores = s_val[:, :, None] + e_val[:, None, :]  # (W, k, k)
    span_len = top_e[:, None, :] - top_s[:, :, None] + 1
    valid = (span_len >= 1) & (span_len <= max_answer_length) & np.isfinite(scores)
    scores = np.where(valid, scores, neg_inf)
    flat = scores.reshape(windows, -1)
    # Ties: prefer the earlier start, then the shorter span, so results never depend on argpartition order.
    best_value = flat.max(axis=1)
    choices = []
    for w in range(windows):
        value = float(best_value[w])
        if not np.isfinite(value):
            choices.append(SpanChoice(float("-inf"), -1, -1, float(null[w])))
            continue
        hits = np.flatnonzero(flat[w] == best_value[w])
        pairs = sorted((int(top_s[w, h // k]), int(top_e[w, h % k])) for h in hits)
        s_idx, e_idx = pairs[0]
        choices.append(SpanChoice(value, s_idx, e_idx, float(null[w])))
    return choices


@dataclass(frozen=True)
class Decoded:
    """The answer under SQuAD 2.0 rules (`text`, "" to abstain) and the best non-null span (`best_span`), which
    SQuAD v1.1 rules answer with: it never abstains, and needs no second forward pass. `best_span` is "" only
    when no window holds an admissible span."""

    text: str
    null_odds: float
    best_span: str = ""


def decode_question(
    choices: Sequence[SpanChoice],
    offsets: Sequence[np.ndarray],
    context: str,
    *,
    null_threshold: float = 0.0,
) -> Decoded:
    """Combine the windows of one question: min null score, max span score, slice the context.

    `offsets[i]` is the (tokens × 2) character offset array of window i (context tokens only need
    to be right). Null odds = null score − best span score; the text is "" when they exceed the
    threshold.
    """
    if not choices:
        return Decoded("", NO_SPAN_NULL_ODDS)
    null_score = min(c.null_score for c in choices)
    best_window = -1
    best_score = float("-inf")
    for i, choice in enumerate(choices):
        if choice.score > best_score:  # strict: the first window wins ties, as run_qa's stable sort does
            best_score, best_window = choice.score, i
    if best_window < 0:
        return Decoded("", NO_SPAN_NULL_ODDS)
    null_odds = null_score - best_score
    choice = choices[best_window]
    window_offsets = offsets[best_window]
    char_start = int(window_offsets[choice.start][0])
    char_end = int(window_offsets[choice.end][1])
    span = context[char_start:char_end]
    return Decoded("" if null_odds > null_threshold else span, float(null_odds), span)
