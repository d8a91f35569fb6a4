"""ALBERT: public SQuAD 2.0 aliases, and a tiny random ALBERT loaded the way the public checkpoints are
(a bare SentencePiece model converted to a fast tokenizer) with its segment ids restored."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from test_tiny_models import EXAMPLES

from robustqa.evaluation.inference import InferenceSettings, QAModelRunner, build_windows
from robustqa.evaluation.models import (
    MODEL_ALIASES,
    load_model_and_tokenizer,
    request_segment_ids,
    resolve_model,
)


def test_albert_aliases_name_their_cards():
    albert = {alias: card for alias, card in MODEL_ALIASES.items() if card.architecture == "albert"}
    assert set(albert) == {"albert-base", "albert-xlarge", "albert-xxlarge"}
    for alias, card in albert.items():
        assert resolve_model(alias).model_id == card.hub_id and not resolve_model(alias).is_local
        assert card.source.startswith(f"https://huggingface.co/{card.hub_id} (")
        assert 0 < card.reported_exact < card.reported_f1 < 100


def test_bare_sentencepiece_model_loads_as_a_fast_tokenizer(tiny_models: dict[str, Path]):
    folder = tiny_models["albert"]
    assert (folder / "spiece.model").is_file() and not (folder / "tokenizer.json").exists()
    model, tokenizer, fingerprint = load_model_and_tokenizer(resolve_model(str(folder)))
    assert tokenizer.is_fast and model.config.model_type == "albert" and fingerprint.startswith("local:")


def test_context_tokens_carry_segment_id_one(tiny_models: dict[str, Path]):
    """ALBERT was fine-tuned with the context as segment 1; transformers 5's ALBERT tokenizer no longer returns
    token_type_ids by default, so the loader asks for them and the runner passes them to the model."""
    runner = QAModelRunner(resolve_model(str(tiny_models["albert"])), InferenceSettings(device="cpu"))
    assert "token_type_ids" in runner.tokenizer.model_input_names and runner._pass_token_types
    windows = build_windows(runner.tokenizer, EXAMPLES, 64, 32)
    assert windows.token_type_ids is not None
    for types, offsets in zip(windows.token_type_ids, windows.offsets):
        types = np.asarray(types)
        in_context = offsets[:, 0] >= 0
        assert in_context.any() and (types[in_context] == 1).all()
        assert types[0] == 0  # [CLS] and the question are segment 0


def test_sentencepiece_offsets_slice_the_token_text(tiny_models: dict[str, Path]):
    _, tokenizer, _ = load_model_and_tokenizer(resolve_model(str(tiny_models["albert"])))
    windows = build_windows(tokenizer, EXAMPLES, 64, 32)
    for w, ids in enumerate(windows.input_ids):
        context = EXAMPLES[windows.example_index[w]].context
        offsets = windows.offsets[w]
        tokens = tokenizer.convert_ids_to_tokens(ids)
        for token, (start, end) in zip(np.asarray(tokens)[offsets[:, 0] >= 0], offsets[offsets[:, 0] >= 0]):
            piece = token.removeprefix("\u2581")
            if piece and token != "<unk>":
                assert context[start:end].lower() == piece


def test_models_without_a_segment_embedding_are_left_alone():
    class Tokenizer:
        def __init__(self) -> None:
            self.model_input_names = ["input_ids", "attention_mask"]

    class Config:
        type_vocab_size = 1

    tokenizer = Tokenizer()
    request_segment_ids(tokenizer, Config())
    assert tokenizer.model_input_names == ["input_ids", "attention_mask"]
    Config.type_vocab_size = 2
    request_segment_ids(tokenizer, Config())
    assert tokenizer.model_input_names == ["input_ids", "attention_mask", "token_type_ids"]


def test_long_question_cut_for_a_unigram_tokenizer_fits_its_window(tiny_models: dict[str, Path]):
    """Cut at a token boundary, this question re-tokenizes into one token more than it had as a prefix (the
    unigram segmentation of the cut word changes); the cut is repeated until it fits, instead of the
    tokenizer aborting on a window with no room for the context."""
    from robustqa.squad import QAExample

    _, tokenizer, _ = load_model_and_tokenizer(resolve_model(str(tiny_models["albert"])))
    question = 'Who was one man who joined hands and said "Lord of the Church, we are united in Thee...?"'
    context = "The Methodist and Evangelical United Brethren churches joined hands in 1968."
    windows = build_windows(
        tokenizer, [QAExample("q", question, context, (), True, "T", "q", question, context)], 64, 32
    )
    assert len(windows) >= 1 and all(len(ids) <= 64 for ids in windows.input_ids)
