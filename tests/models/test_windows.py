"""Window construction: offsets map back to the exact context text, windows overlap by the stride."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from test_tiny_models import EXAMPLES, LONG

from robustqa.evaluation.inference import build_windows, length_sorted_batches
from robustqa.squad import QAExample


def _tokenizer(folder: Path):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(folder, use_fast=True)


def test_wordpiece_offsets_slice_the_exact_token_text(tiny_models: dict[str, Path]) -> None:
    tokenizer = _tokenizer(tiny_models["bert"])
    windows = build_windows(tokenizer, EXAMPLES, 64, 32)
    for w, ids in enumerate(windows.input_ids):
        context = EXAMPLES[windows.example_index[w]].context
        offsets = windows.offsets[w]
        tokens = tokenizer.convert_ids_to_tokens(ids)
        in_context = offsets[:, 0] >= 0
        assert in_context.any() and not in_context[windows.cls_index[w]]
        for token, (start, end) in zip(np.asarray(tokens)[in_context], offsets[in_context]):
            assert 0 <= start < end <= len(context)
            if token != "[UNK]":
                assert context[start:end].lower() == token.removeprefix("##")


def test_windows_cover_the_context_and_overlap_by_the_stride(tiny_models: dict[str, Path]) -> None:
    tokenizer = _tokenizer(tiny_models["roberta"])
    example = [QAExample("x", "Who?", LONG, (), True, "T", "x", "Who?", LONG)]
    windows = build_windows(tokenizer, example, 64, 32)
    assert len(windows) >= 3 and all(len(ids) <= 64 for ids in windows.input_ids)
    # doc_stride tokens shared by neighbouring windows
    context_ids = [np.asarray(ids)[o[:, 0] >= 0].tolist() for ids, o in zip(windows.input_ids, windows.offsets)]
    for previous, current in zip(context_ids, context_ids[1:]):
        assert previous[-32:] == current[:32]
    covered = np.zeros(len(LONG), dtype=bool)
    for o in windows.offsets:
        for start, end in o[o[:, 0] >= 0]:
            covered[start:end] = True
    assert all(covered[i] for i, ch in enumerate(LONG) if not ch.isspace())


def test_long_questions_are_cut_to_leave_room_for_the_context(tiny_models: dict[str, Path]) -> None:
    tokenizer = _tokenizer(tiny_models["bert"])
    question = " ".join(["Who gave their name to Normandy"] * 20)
    windows = build_windows(tokenizer, [QAExample("x", question, LONG, (), True, "T", "x", question, LONG)], 64, 32)
    assert len(windows) >= 2 and all(len(ids) <= 64 for ids in windows.input_ids)
    assert all((o[:, 0] >= 0).sum() > 32 for o in windows.offsets[:-1])


def test_batches_are_length_sorted_and_complete() -> None:
    lengths = np.array([5, 9, 1, 9, 3, 7, 2])
    batches = length_sorted_batches(lengths, 3)
    flat = np.concatenate(batches)
    assert sorted(flat.tolist()) == list(range(len(lengths)))
    assert list(lengths[flat]) == sorted(lengths, reverse=True)
    assert [len(b) for b in batches] == [3, 3, 1]
