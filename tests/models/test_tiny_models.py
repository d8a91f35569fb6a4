"""ELECTRA, BERT, RoBERTa and ALBERT end to end with tiny random models: windows, batching, decoding.

The reference here is deliberately naive: every window on its own (no batching, no padding), every
(start, end) pair in the context tried. The runner must agree with it whatever the batch size.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from robustqa.evaluation.inference import InferenceSettings, QAModelRunner, build_windows
from robustqa.evaluation.models import resolve_model
from robustqa.squad import Answer, QAExample

LONG = (
    "The Normans were the people who in the 10th and 11th centuries gave their name to Normandy, a region in France. "
    "They were descended from Norse raiders and pirates from Denmark, Iceland and Norway who, under their leader "
    "Rollo, agreed to swear fealty to King Charles III of West Francia. Through generations of assimilation and "
    "mixing with the native Frankish and Roman-Gaulish populations, their descendants would gradually merge with "
    "the Carolingian cultures."
)
SHORT = "James Watt improved the steam engine in 1781."


def _example(qid: str, question: str, context: str) -> QAExample:
    return QAExample(qid, question, context, (Answer("x", 0),), False, "T", qid, question, context)


EXAMPLES = [
    _example("q1", "Who gave their name to Normandy?", LONG),
    _example("q2", "  When did Watt improve the steam engine?", SHORT),
    _example(
        "q3", "Who was the leader of the Norse raiders who agreed to swear fealty to the king of West Francia?", LONG
    ),
    _example("q4", "What did the engine use?", SHORT),
]


def _reference(
    runner: QAModelRunner, examples: list[QAExample], max_answer_length: int
) -> dict[str, tuple[str, float, str]]:
    """(answer under SQuAD 2.0 rules, null odds, best non-null span) per question, brute force."""
    import torch

    windows = build_windows(runner.tokenizer, examples, runner.settings.max_seq_length, runner.settings.doc_stride)
    per_question: dict[int, list[tuple[float, float, int, int, int]]] = {}
    for w, ids in enumerate(windows.input_ids):
        inputs = {"input_ids": torch.tensor([ids])}
        if windows.token_type_ids is not None:
            inputs["token_type_ids"] = torch.tensor([windows.token_type_ids[w]])
        with torch.no_grad():
            out = runner.model(**inputs)
        s, e = out.start_logits[0].numpy(), out.end_logits[0].numpy()
        ctx = np.flatnonzero(windows.offsets[w][:, 0] >= 0)
        best = max((s[i] + e[j], i, j) for i in ctx for j in ctx if 0 <= j - i < max_answer_length)
        per_question.setdefault(int(windows.example_index[w]), []).append(
            (float(s[0] + e[0]), float(best[0]), best[1], best[2], w)
        )
    out_map = {}
    for index, rows in per_question.items():
        null = min(r[0] for r in rows)
        _, score, i, j, w = max(rows, key=lambda r: r[1])
        offsets = windows.offsets[w]
        text = examples[index].context[offsets[i][0] : offsets[j][1]]
        odds = null - score
        out_map[examples[index].id] = ("" if odds > 0 else text, odds, text)
    return out_map


@pytest.mark.parametrize("architecture", ["electra", "bert", "roberta", "albert"])
def test_runner_matches_unbatched_brute_force(tiny_models: dict[str, Path], architecture: str) -> None:
    spec = resolve_model(str(tiny_models[architecture]))
    runner = QAModelRunner(spec, InferenceSettings(batch_size=3, n_best=10_000, device="cpu"))
    # capped by the model (64 positions), stride capped to half of it: long contexts need several windows
    assert runner.settings.max_seq_length == 64 and runner.settings.doc_stride == 32
    windows = build_windows(runner.tokenizer, EXAMPLES, 64, 32)
    assert len(windows) > len(EXAMPLES)
    progress: list[int] = []
    predictions = runner.predict(EXAMPLES, on_progress=progress.append)
    assert sum(progress) == len(EXAMPLES)
    reference = _reference(runner, EXAMPLES, max_answer_length=30)
    for qid, (text, odds, span) in reference.items():
        assert predictions[qid].text == text
        assert predictions[qid].null_odds == pytest.approx(odds, abs=1e-4)
        assert predictions[qid].best_span == span  # what SQuAD v1.1 rules answer, abstention or not
    # the type of the prediction and the contract of the text
    for example in EXAMPLES:
        p = predictions[example.id]
        assert p.id == example.id and (p.text == "" or p.text in example.context)
        assert (p.text == "") == (p.null_odds > 0)


@pytest.mark.parametrize("architecture", ["electra", "bert", "roberta", "albert"])
def test_batch_size_does_not_change_answers(tiny_models: dict[str, Path], architecture: str) -> None:
    spec = resolve_model(str(tiny_models[architecture]))
    one = QAModelRunner(spec, InferenceSettings(batch_size=1, device="cpu")).predict(EXAMPLES)
    many = QAModelRunner(spec, InferenceSettings(batch_size=16, device="cpu")).predict(EXAMPLES)
    assert {k: v.text for k, v in one.items()} == {k: v.text for k, v in many.items()}
    assert all(abs(one[k].null_odds - many[k].null_odds) < 1e-4 for k in one)


def test_threshold_setting_turns_answers_off(tiny_models: dict[str, Path]) -> None:
    spec = resolve_model(str(tiny_models["bert"]))
    default = QAModelRunner(spec, InferenceSettings(device="cpu")).predict(EXAMPLES)
    strict = QAModelRunner(spec, InferenceSettings(device="cpu", null_threshold=-1e9)).predict(EXAMPLES)
    assert all(p.text == "" for p in strict.values())
    # the best non-null span does not depend on the threshold: v1.1 rules always have an answer
    assert all(p.best_span for p in strict.values())
    assert {k: v.best_span for k, v in strict.items()} == {k: v.best_span for k, v in default.items()}
    assert {k: v.null_odds for k, v in default.items()} == pytest.approx({k: v.null_odds for k, v in strict.items()})


def test_int8_mode_runs_on_cpu(tiny_models: dict[str, Path]) -> None:
    import torch

    runner = QAModelRunner(resolve_model(str(tiny_models["electra"])), InferenceSettings(device="cpu", int8=True))
    assert any(isinstance(m, torch.ao.nn.quantized.dynamic.Linear) for m in runner.model.modules())
    predictions = runner.predict(EXAMPLES)
    assert set(predictions) == {e.id for e in EXAMPLES}
    assert runner.requested_settings.signature_fields()["int8"] is True


def test_bf16_autocast_runs_on_cpu_and_is_keyed_apart_from_fp32(tiny_models: dict[str, Path]) -> None:
    """`--precision bf16` on CPU (fast on AMX / AVX-512 BF16 CPUs): same questions answered, null odds
    close to fp32's, and a different cache key, so a bf16 run never reuses fp32 predictions."""
    spec = resolve_model(str(tiny_models["bert"]))
    fp32 = QAModelRunner(spec, InferenceSettings(device="cpu"))
    bf16 = QAModelRunner(spec, InferenceSettings(device="cpu", precision="bf16"))
    assert fp32.settings.precision == "fp32" and bf16.settings.precision == "bf16"
    assert "precision" not in fp32.settings.signature_fields()
    assert bf16.settings.signature_fields()["precision"] == "bf16"
    exact, rounded = fp32.predict(EXAMPLES), bf16.predict(EXAMPLES)
    assert set(rounded) == set(exact) == {e.id for e in EXAMPLES}
    assert {k: v.null_odds for k, v in rounded.items()} == pytest.approx(
        {k: v.null_odds for k, v in exact.items()}, abs=0.1
    )
    assert {k: v.null_odds for k, v in rounded.items()} != {
        k: v.null_odds for k, v in exact.items()
    }  # autocast did run


def test_empty_input_gives_empty_output(tiny_models: dict[str, Path]) -> None:
    runner = QAModelRunner(resolve_model(str(tiny_models["bert"])), InferenceSettings(device="cpu"))
    assert runner.predict([]) == {}
