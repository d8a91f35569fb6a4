"""Training windows: the target span is the answer's tokens where the window holds it, else CLS."""

from __future__ import annotations

import numpy as np
import pytest
from rqa_trainhelpers import SAMPLE

from robustqa.errors import InputError
from robustqa.evaluation.inference import build_windows
from robustqa.squad import Answer, QAExample, load_squad
from robustqa.training.features import answer_tokens, training_features

from tiny import ARCHITECTURES


@pytest.mark.parametrize("arch", ARCHITECTURES)
def test_targets_cover_the_answer_or_point_at_cls(tiny_models, arch):
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(tiny_models[arch])
    examples = load_squad(SAMPLE).examples()
    features = training_features(tokenizer, examples, 64, 16)
    windows = build_windows(tokenizer, examples, 64, 16)
    assert len(features) == len(windows)
    answered = set()
    for w, feature in enumerate(features):
        example = examples[int(windows.example_index[w])]
        start, end = feature["start_positions"], feature["end_positions"]
        if start == end == int(windows.cls_index[w]):
            continue
        assert not example.is_impossible
        answer = example.answers[0]
        offsets = windows.offsets[w]
        text = example.context[offsets[start][0] : offsets[end][1]]
        gold = example.context[answer.answer_start : answer.answer_start + len(answer.text)]
        assert gold.strip() in text and len(text) <= len(gold) + 12  # whole tokens around the answer, no more
        answered.add(example.id)
    assert answered  # some windows hold their answer
    assert not any(e.is_impossible for e in examples if e.id in answered)


def test_answer_tokens_outside_the_window_is_none():
    offsets = np.array([[-1, -1], [0, 5], [6, 10], [11, 15], [-1, -1]])
    assert answer_tokens(offsets, 6, 10) == (2, 2)
    assert answer_tokens(offsets, 0, 15) == (1, 3)
    assert answer_tokens(offsets, 14, 20) is None  # runs past the window's context
    assert answer_tokens(np.array([[-1, -1]]), 0, 1) is None


def test_an_answerable_question_without_answers_is_refused(tiny_models):
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(tiny_models["bert"])
    bad = QAExample("q1", "Who?", "Some text.", (), False, "T", "q1", "Who?", "Some text.")
    with pytest.raises(InputError, match="q1"):
        training_features(tokenizer, [bad], 64, 16)
    good = QAExample("q2", "Who?", "Some text.", (Answer("text", 5),), False, "T", "q2", "Who?", "Some text.")
    assert training_features(tokenizer, [good], 64, 16)[0]["start_positions"] > 0
