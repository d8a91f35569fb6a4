"""What a run counts: variants by edit kind (`kinds`), questions by article (`articles`, `exclude_articles`), and
the warning when a model was trained on the articles it is evaluated on."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from robustqa.cli.options import titles_option
from robustqa.errors import InputError
from robustqa.evaluation.data import load_eval_data
from robustqa.evaluation.inference import InferenceSettings
from robustqa.evaluation.run import EvalConfig, run_evaluation
from robustqa.provenance import training_record, write_training_record
from robustqa.signature import Signature
from robustqa.squad import parse_squad

from rqa_evalfakes import clean_document, edit_record, perturbed_document, write_json


def with_edits(document: dict[str, Any]) -> dict[str, Any]:
    """The fake perturbed file with edit records: a1 a synonym (no kind: classified on reading), b1 a rare word,
    b3 a spelling variant (kinds as recorded)."""
    edits = {
        "a1": ("country", "nation", None),
        "b1": ("improved", "amended", "rare"),
        "b3": ("invented", "devised", "spelling"),
    }
    for article in document["data"]:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                if qa["id"] in edits:
                    original, replacement, kind = edits[qa["id"]]
                    qa["substitutions"] = [edit_record(original, replacement, qa["original_question"], kind)]
    return document


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    return write_json(tmp_path / "clean.json", clean_document()), write_json(
        tmp_path / "perturbed.json", with_edits(perturbed_document())
    )


def _changed(data) -> list[str]:
    return sorted(i for i, changed in data.changed.items() if changed)


def test_kinds_keep_only_variants_made_of_those_kinds(files: tuple[Path, Path]) -> None:
    clean, perturbed = files
    assert _changed(load_eval_data(clean, perturbed)) == ["a1", "b1", "b3"]
    data = load_eval_data(clean, perturbed, kinds=["rare", "synonym"])
    assert data.kinds == ("synonym", "rare")  # canonical order
    assert _changed(data) == ["a1", "b1"]
    assert len(data.perturbed or []) == 7  # the unchanged variants stay: they count as unchanged
    assert _changed(load_eval_data(clean, perturbed, kinds=["spelling"])) == ["b3"]


def test_headline_kinds_keep_every_variant(files: tuple[Path, Path]) -> None:
    """certified@2's default: every variant evaluated, the headline counting some kinds (checked, never a filter)."""
    clean, perturbed = files
    data = load_eval_data(clean, perturbed, headline_kinds=["rare", "synonym"])
    assert _changed(data) == ["a1", "b1", "b3"] and data.kinds is None
    assert data.headline_kinds == data.counted_kinds == ("synonym", "rare")
    assert load_eval_data(clean, perturbed, kinds=["spelling"]).counted_kinds == ("spelling",)
    with pytest.raises(InputError, match="no changed variant is made only of abbreviation"):
        load_eval_data(clean, perturbed, headline_kinds=["abbreviation"])


@pytest.mark.parametrize(
    ("kinds", "message"),
    [(["synonyms"], "unknown edit kind 'synonyms'"), (["abbreviation"], "no changed variant is made only of")],
)
def test_a_kind_selection_that_cannot_work_is_one_error(files: tuple[Path, Path], kinds, message) -> None:
    clean, perturbed = files
    with pytest.raises(InputError, match=message) as caught:
        load_eval_data(clean, perturbed, kinds=kinds)
    assert caught.value.setting == "kinds"


def test_kinds_need_edit_records(tmp_path: Path, squad_files: tuple[Path, Path]) -> None:
    clean, perturbed = squad_files  # variants without substitutions (an imported shift)
    with pytest.raises(InputError, match="carry no edit records"):
        load_eval_data(clean, perturbed, kinds=["synonym"])


def test_articles_select_and_exclude_by_title(files: tuple[Path, Path]) -> None:
    clean, perturbed = files
    only = load_eval_data(clean, perturbed, articles=["Steam"])
    assert {ex.title for ex in only.clean} == {"Steam"} and _changed(only) == ["b1", "b3"]
    assert [a.title for a in only.evaluated_articles] == ["Steam"]
    without = load_eval_data(clean, perturbed, exclude_articles=["Normans"])
    assert [ex.id for ex in without.clean] == [ex.id for ex in only.clean]
    limited = load_eval_data(clean, perturbed, exclude_articles=["Normans"], limit=2)  # the limit counts after
    assert [ex.id for ex in limited.clean] == ["b1", "b2"]


def test_an_unknown_title_is_named_with_the_closest_one(files: tuple[Path, Path]) -> None:
    clean, perturbed = files
    with pytest.raises(InputError) as caught:
        load_eval_data(clean, perturbed, exclude_articles=["Stean"])
    text = caught.value.text()
    assert "no article titled 'Stean'" in text and "did you mean 'Steam'" in text and "clean.json" in text
    with pytest.raises(InputError, match="leaves no question"):
        load_eval_data(clean, perturbed, exclude_articles=["Normans", "Steam"])


def test_titles_from_the_command_line_and_from_a_file(tmp_path: Path) -> None:
    listed = tmp_path / "titles.txt"
    listed.write_text("# held out\nNormans\n\n  Steam \n", encoding="utf-8")
    assert titles_option(("A,B", "C")) == ("A", "B", "C")
    assert titles_option((f"@{listed}",)) == ("Normans", "Steam")
    assert titles_option(()) is None
    with pytest.raises(InputError, match="file not found"):
        titles_option((f"@{tmp_path / 'missing.txt'}",))


def _config(tmp_path: Path, clean: Path, perturbed: Path, **kwargs: Any) -> EvalConfig:
    return EvalConfig(clean, perturbed, tmp_path / "run", InferenceSettings(), bootstrap=50, progress=False, **kwargs)


def test_the_selection_is_in_the_signature_and_examples_carry_kinds(
    tmp_path: Path, files: tuple[Path, Path], fake_factory
) -> None:
    clean, perturbed = files
    config = _config(tmp_path, clean, perturbed, kinds=("synonym", "rare"), exclude_articles=("Normans",))
    result = run_evaluation(["owner/fake-model"], config, runner_factory=fake_factory)
    assert result is not None
    signature = Signature.parse(result.report["signature"])
    assert signature.get("kinds") == "synonym,rare" and signature.get("exclude_articles") == "Normans"
    assert signature.get("articles") is None
    lines = [json.loads(line) for line in (tmp_path / "run" / "examples.jsonl").read_text().splitlines()]
    assert {line["id"] for line in lines if line["changed"]} == {"b1"}
    (b1,) = [line for line in lines if line["id"] == "b1"]
    assert [s["kind"] for s in b1["substitutions"]] == ["rare"]

    everything = run_evaluation(
        ["owner/fake-model"], _config(tmp_path / "all", clean, perturbed), runner_factory=fake_factory
    )
    assert everything is not None
    assert Signature.parse(everything.report["signature"]).get("kinds") is None
    lines = [json.loads(line) for line in (tmp_path / "all" / "run" / "examples.jsonl").read_text().splitlines()]
    kinds = {line["id"]: [s["kind"] for s in line["substitutions"]] for line in lines}
    assert kinds["a1"] == ["synonym"]  # classified from its words: the file gives no kind


def test_eval_reports_the_articles_a_model_was_trained_on(
    tmp_path: Path, files: tuple[Path, Path], fake_factory
) -> None:
    clean, perturbed = files
    model = tmp_path / "my-model"
    model.mkdir()
    (model / "config.json").write_text("{}", encoding="utf-8")
    trained_on = parse_squad(clean_document())
    write_training_record(model, training_record(trained_on, "train:fake"))
    result = run_evaluation([str(model)], _config(tmp_path, clean, perturbed), runner_factory=fake_factory)
    assert result is not None
    assert result.training_overlaps[str(model)].same_text == ("Normans", "Steam")
    held_out = _config(tmp_path / "held", clean, perturbed, exclude_articles=("Normans", "Steam"))
    with pytest.raises(InputError, match="leaves no question"):
        run_evaluation([str(model)], held_out, runner_factory=fake_factory)
    only_steam = run_evaluation(
        [str(model)], _config(tmp_path / "steam", clean, perturbed, articles=("Steam",)), runner_factory=fake_factory
    )
    assert only_steam is not None and only_steam.training_overlaps[str(model)].titles == ("Steam",)


def test_the_cli_warns_and_names_the_articles(tmp_path: Path, files: tuple[Path, Path], monkeypatch) -> None:
    from robustqa.cli import cli
    from robustqa.evaluation import run as run_module

    from rqa_evalfakes import FakeRunner

    clean, perturbed = files
    model = tmp_path / "my-model"
    model.mkdir()
    (model / "config.json").write_text("{}", encoding="utf-8")
    record = training_record(parse_squad(clean_document()), "train:fake")
    write_training_record(model, record)
    monkeypatch.setattr(run_module, "_default_runner_factory", lambda spec, settings: FakeRunner())
    args = ["eval", str(model), "--clean", str(clean), "--perturbed", str(perturbed), "--quiet", "--bootstrap", "50"]
    result = CliRunner().invoke(cli, [*args, "--output-dir", str(tmp_path / "run")])
    assert result.exit_code == 0, result.output
    assert "was trained on 2 of the evaluated articles (Normans, Steam;" in result.output
    assert "--exclude-articles" in result.output
    held = CliRunner().invoke(
        cli, [*args, "--output-dir", str(tmp_path / "held"), "--exclude-articles", "Normans", "--kinds", "all"]
    )
    assert held.exit_code == 0, held.output
    assert "articles (Steam;" in held.output and "Normans" not in held.output.split("trained on")[1]
    unknown = CliRunner().invoke(cli, [*args, "--output-dir", str(tmp_path / "x"), "--articles", "Nope"])
    assert unknown.exit_code == 2 and "no article titled 'Nope'" in unknown.output
    assert "Traceback" not in unknown.output
