"""`robustqa attack --variants`: the space is the variants a file lists (a reviewed set, a build with
--variants), searched in file order within the budget; eval on the adversarial set confirms every flip."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from rqa_attackfakes import FakeQA, fake_margin

import perturbations
from robustqa.attack.attack_folder import ADVERSARIAL_JSON, write_attack
from robustqa.attack.driver import AttackConfig, run_attack
from robustqa.build import build_dataset
from robustqa.cli import cli
from robustqa.cli.attack_cmd import attack_summary
from robustqa.evaluation.inference import InferenceSettings
from robustqa.squad import dumps_squad, load_squad


@pytest.fixture
def variants_file(attack_input: Path, tmp_path: Path) -> Path:
    """Three variants of each question the way `build-dataset --variants 3` writes them."""
    result = build_dataset(load_squad(attack_input), perturbations.get_recipe("qads@1.1"), seed=13, variants=3)
    path = tmp_path / "variants.json"
    path.write_text(dumps_squad(result.document), encoding="utf-8")
    return path


def _listed(path: Path) -> dict[str, list[dict]]:
    document = json.loads(path.read_text(encoding="utf-8"))
    out: dict[str, list[dict]] = {}
    for article in document["data"]:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                if qa["question"] != qa.get("original_question", qa["question"]):
                    out.setdefault(qa["source_id"], []).append(qa)
    return out


def _attack(attack_input: Path, variants: Path, out: Path, model: FakeQA, **overrides) -> dict:
    fields = dict(
        input_file=attack_input, output_dir=out, settings=InferenceSettings(), variants_file=variants, progress=False
    )
    fields.update(overrides)
    run = run_attack(str(out.parent), AttackConfig(**fields), scorer_factory=lambda spec, settings: model)
    assert run is not None
    return write_attack(run)


def test_only_the_listed_variants_are_queried_and_a_flip_keeps_its_records(
    attack_input: Path, variants_file: Path, tmp_path: Path
) -> None:
    model = FakeQA()
    record = _attack(attack_input, variants_file, tmp_path / "out", model)
    listed = _listed(variants_file)
    texts = {qa["question"] for qas in listed.values() for qa in qas}
    clean = {"a1", "a2", "a3", "a4", "b1", "b2"}
    asked = [question for qid, question in model.asked]
    searched = asked[len(clean) :]  # the clean round first
    assert searched and set(searched) <= texts  # nothing the file does not list
    detail = {q["id"]: q for q in record["questions_detail"]}
    assert detail["b2"]["status"] == "wrong-on-clean"
    for qid in clean - {"b2"}:
        expected = [qa["question"] for qa in listed.get(qid, [])]
        flips = [t for t in expected if fake_margin(qid, t) < -0.1 and fake_margin(qid, t) <= 0]
        assert detail[qid]["status"] == ("succeeded" if flips else "failed"), qid
        if flips:  # the first flip in file order, found after as many queries as variants before it
            assert detail[qid]["variant"] == flips[0]
            assert detail[qid]["queries_to_flip"] == expected.index(flips[0]) + 1
        elif not expected:
            assert detail[qid]["stop"] == "no-edit"
    assert record["recipe"]["name"] == "qads" and record["recipe"]["variants_file"] == "variants.json"
    assert f"{record['no_valid_edit']} with no listed variant)" in attack_summary(record)
    assert record["signature"].startswith(f"attack:qads@1.1|variants_file:{record['recipe']['variants_sha']}|target:")
    # the adversarial set carries the file's own edit records for each flip
    document = json.loads((tmp_path / "out" / ADVERSARIAL_JSON).read_text(encoding="utf-8"))
    written = {qa["id"]: qa for article in document["data"] for p in article["paragraphs"] for qa in p["qas"]}
    succeeded = [q for q in record["questions_detail"] if q["status"] == "succeeded"]
    assert succeeded
    for q in succeeded:
        source = next(qa for qa in listed[q["id"]] if qa["question"] == q["variant"])
        assert written[q["id"]]["question"] == source["question"]
        assert written[q["id"]]["substitutions"] == source["substitutions"]


def test_the_budget_cuts_the_listed_variants_in_file_order(
    attack_input: Path, variants_file: Path, tmp_path: Path
) -> None:
    model = FakeQA(fragile={})  # nothing flips: every search runs to its end
    record = _attack(attack_input, variants_file, tmp_path / "out", model, budget=1)
    listed = _listed(variants_file)
    for q in record["questions_detail"]:
        if q["status"] != "failed":
            continue
        distinct = list(dict.fromkeys(qa["question"] for qa in listed.get(q["id"], [])))
        assert q["queries"] == min(1, len(distinct))
        assert q["stop"] == ("no-edit" if not distinct else "budget" if len(distinct) > 1 else "exhausted")


def test_eval_on_the_adversarial_set_finds_exactly_the_claimed_flips(
    attack_input: Path, variants_file: Path, tmp_path: Path
) -> None:
    from robustqa.evaluation.run import EvalConfig, run_evaluation

    record = _attack(attack_input, variants_file, tmp_path / "out", FakeQA())
    claimed = {q["id"] for q in record["questions_detail"] if q["status"] == "succeeded"}
    config = EvalConfig(
        attack_input, tmp_path / "out" / ADVERSARIAL_JSON, tmp_path / "eval", InferenceSettings(), progress=False
    )
    result = run_evaluation([str(tmp_path)], config, runner_factory=lambda spec, settings: FakeQA())
    assert result is not None
    lines = [json.loads(line) for line in (tmp_path / "eval" / "examples.jsonl").read_text().splitlines()]
    assert {e["source_id"] for e in lines if e["clean_exact"] == 1 and e["perturbed_exact"] == 0} == claimed


def test_a_variant_of_another_question_is_refused(attack_input: Path, variants_file: Path, tmp_path: Path) -> None:
    document = json.loads(variants_file.read_text(encoding="utf-8"))
    changed = next(
        qa
        for article in document["data"]
        for p in article["paragraphs"]
        for qa in p["qas"]
        if qa.get("original_question") not in (None, qa["question"])
    )
    changed["original_question"] = "Something else entirely?"
    variants_file.write_text(json.dumps(document), encoding="utf-8")
    result = CliRunner().invoke(
        cli,
        ["attack", str(tmp_path), "--input", str(attack_input), "--variants", str(variants_file)]
        + ["--output-dir", str(tmp_path / "out")],
    )
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert f"variant {changed['id']} was made from another question" in result.output
    assert len(result.output.strip().splitlines()) == 1 and not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("extra", "named"),
    [(("--recipe", "qads@2.0"), "--recipe"), (("--beam", "2", "--max-edits", "1"), "--max-edits, --beam")],
)
def test_recipe_options_with_variants_are_refused(
    attack_input: Path, variants_file: Path, tmp_path: Path, extra: tuple[str, ...], named: str
) -> None:
    result = CliRunner().invoke(
        cli,
        ["attack", str(tmp_path), "--input", str(attack_input), "--variants", str(variants_file)]
        + ["--output-dir", str(tmp_path / "out"), *extra],
    )
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert f"robustqa: error: {named} shape a recipe's space" in result.output


def test_a_variants_file_needs_its_clean_file_and_a_packaged_set_brings_its_own(
    tmp_path: Path, variants_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = CliRunner().invoke(
        cli, ["attack", str(tmp_path), "--variants", str(variants_file), "--output-dir", str(tmp_path / "out")]
    )
    assert result.exit_code == 2 and "--variants FILE needs the clean questions it was built from" in result.output
    import robustqa.attack.driver as driver
    from robustqa.packaged import get_set

    seen: list[AttackConfig] = []
    monkeypatch.setattr(driver, "run_attack", lambda model, config: seen.append(config))
    result = CliRunner().invoke(
        cli, ["attack", "m", "--variants", "certified@1", "--output-dir", str(tmp_path / "out")]
    )
    assert result.exit_code == 0, result.output
    assert seen[0].input_file == get_set("certified@1").clean_path
    assert seen[0].variants_file == get_set("certified@1").perturbed_path
