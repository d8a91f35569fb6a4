"""The attack's scorer gives eval's answers (same runner, same decoding) and a margin that agrees with them,
on tiny random models of two architectures and on the shared real model."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "models"))

from robustqa.attack.scorer import ModelScorer, Query
from robustqa.evaluation.inference import InferenceSettings, QAModelRunner
from robustqa.evaluation.models import resolve_model
from robustqa.squad import Answer, QAExample

from tiny import build_tiny_model

CONTEXTS = [
    "Normandy is a region in France. The Normans gave their name to it in the 10th century.",
    "The steam engine uses steam pressure to do work. James Watt improved it in 1781. " * 3,
]
QUESTIONS = [
    "In what country is Normandy located?",
    "Who improved the steam engine?",
    "What does the engine use to do work?",
]


def _example(i: int, question: str, context: str, answer: str | None) -> QAExample:
    answers = (Answer(answer, context.find(answer)),) if answer else ()
    return QAExample(f"q{i}", question, context, answers, not answers, "t", f"q{i}", question, context)


@pytest.mark.parametrize("architecture", ["bert", "roberta"])
def test_scores_agree_with_predictions(tmp_path: Path, architecture: str) -> None:
    import torch

    torch.set_num_threads(1)
    folder = build_tiny_model(tmp_path / architecture, architecture, max_positions=64)
    settings = InferenceSettings(max_seq_length=48, doc_stride=16, batch_size=4, device="cpu")
    runner = QAModelRunner(resolve_model(str(folder)), settings)
    bare = [_example(i, q, c, None) for i, (q, c) in enumerate((q, c) for q in QUESTIONS for c in CONTEXTS)]
    predicted = runner.predict(bare)
    examples = []
    for i, ex in enumerate(bare):  # gold: the model's own answer for even questions, another span for odd ones
        text = predicted[ex.id].text
        gold = text if i % 2 == 0 and text else ("France" if "France" in ex.context else "James Watt")
        examples.append(_example(i, ex.question, ex.context, gold if i % 3 else None))
    scored = ModelScorer(runner).score([Query(ex.id, ex.question, ex) for ex in examples])
    assert [s.text for s in scored] == [predicted[ex.id].text for ex in examples]
    assert [s.null_odds for s in scored] == pytest.approx([predicted[ex.id].null_odds for ex in examples])
    for s in scored:
        assert (s.margin > 0) == s.right


@pytest.mark.slow
def test_the_shared_model_is_scored_as_eval_predicts(shared_model_path: Path, squad_heldout_path: Path) -> None:
    from robustqa.squad import load_squad

    examples = load_squad(squad_heldout_path).examples()[:12]
    runner = QAModelRunner(resolve_model(str(shared_model_path)), InferenceSettings(device="cpu"))
    predicted = runner.predict(examples)
    scored = ModelScorer(runner).score([Query(ex.id, ex.question, ex) for ex in examples])
    assert [s.text for s in scored] == [predicted[ex.id].text for ex in examples]
    assert sum(s.right for s in scored) >= 3
    for s in scored:
        assert (s.margin > 0) == s.right
