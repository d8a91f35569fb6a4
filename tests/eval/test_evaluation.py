"""Evaluation orchestration with a fake runner: reuse, cache and resume, run-folder contents, bad inputs."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

import pytest

from robustqa.errors import InputError, ModelLoadError
from robustqa.evaluation.inference import InferenceSettings
from robustqa.evaluation.prediction_cache import PredictionCache
from robustqa.evaluation.run import EvalConfig, run_evaluation
from robustqa.metric import evaluate_files
from robustqa.signature import Signature
from robustqa.squad import load_squad

from rqa_evalfakes import clean_document, perturbed_document, write_json

MODEL = "owner/fake-model"


def config(tmp_path: Path, clean: Path, perturbed: Path | None, **kwargs) -> EvalConfig:
    return EvalConfig(clean, perturbed, tmp_path / "run", InferenceSettings(), bootstrap=200, progress=False, **kwargs)


def test_unchanged_questions_reuse_the_clean_prediction(tmp_path, squad_files, fake_factory):
    clean, perturbed = squad_files
    result = run_evaluation([MODEL], config(tmp_path, clean, perturbed), runner_factory=fake_factory)
    (runner,) = fake_factory.runners
    # 8 clean questions, then only the 3 perturbed questions whose text changed
    assert sorted(runner.seen[:8]) == ["a1", "a2", "a3", "a4", "b1", "b2", "b3", "b4"]
    assert sorted(runner.seen[8:]) == ["a1", "b1", "b3"]
    # work is ordered by length (question + context), so resumable chunks still batch like one global sort
    clean_examples = {ex.id: ex for ex in load_squad(clean).examples()}
    lengths = [len(clean_examples[i].context) + len(clean_examples[i].question) for i in runner.seen[:8]]
    assert lengths == sorted(lengths)
    entry = result.report["models"][0]
    assert entry["coverage"] == {
        "clean_questions": 8,
        "perturbed_questions": 8,
        "matched": 8,
        "changed": 3,
        "changed_share": 3 / 8,
        "reused_predictions": 5,
    }
    assert entry["clean"]["exact"] == 100.0 and entry["perturbed"]["exact"] == 62.5
    assert entry["drop"]["exact"] == pytest.approx(-37.5)
    assert entry["drop"]["changed"]["questions"] == 3 and entry["drop"]["changed"]["exact"] == pytest.approx(-100.0)
    assert entry["drop"]["NoAns_exact"] == pytest.approx(-50.0)
    assert entry["flips"] == {
        "right_to_wrong": 3,
        "wrong_to_right": 0,
        "changed_right_to_wrong": 3,
        "changed_wrong_to_right": 0,
    }
    assert "worst_case" not in entry["drop"]


def test_run_folder_follows_the_contract_and_matches_the_official_rules(tmp_path, squad_files, fake_factory):
    clean, perturbed = squad_files
    result = run_evaluation([MODEL], config(tmp_path, clean, perturbed), runner_factory=fake_factory)
    out = tmp_path / "run"
    report = json.loads((out / "report.json").read_text())
    assert report == json.loads(json.dumps(result.report))
    entry = report["models"][0]
    files = entry["files"]
    assert evaluate_files(clean, out / files["clean_predictions"], out / files["clean_null_odds"]) == entry["clean"]
    assert (
        evaluate_files(perturbed, out / files["perturbed_predictions"], out / files["perturbed_null_odds"])
        == entry["perturbed"]
    )
    assert sorted(p.name for p in out.iterdir()) == [
        "clean_vs_perturbed.png",
        "examples.jsonl",
        entry["slug"],
        "report.json",
        "report.md",
    ]
    assert (out / "clean_vs_perturbed.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (
        "| owner/fake-model | 8 paired | 100.00 | 100.00 | 62.50 | 62.50 | −37.50 [" in (out / "report.md").read_text()
    )
    rows = [json.loads(line) for line in (out / "examples.jsonl").read_text().splitlines()]
    assert len(rows) == 8
    a1 = next(r for r in rows if r["id"] == "a1")
    assert a1["question"] == "In what country is Normandy located?"
    assert a1["perturbed_question"] == "In what nation is Normandy situated?"
    assert (a1["changed"], a1["clean_exact"], a1["perturbed_exact"], a1["perturbed_prediction"]) == (
        True,
        1,
        0,
        "Belgium",
    )
    assert a1["gold_answers"] == ["France"] and a1["answerable"] is True
    sig = Signature.parse(report["signature"])
    assert list(sig.to_dict())[:4] == ["clean", "perturbed", "recipe", "models"]
    assert sig.get("recipe") == "qads@1.0" and sig.get("models") == "owner/fake-model@fake:1"
    assert (sig.get("bootstrap"), sig.get("seed"), sig.items[-1][0]) == ("200", "13", "robustqa")
    assert report["perturbed_signature"] == "recipe:qads@1.0|seed:13|robustqa:0.1.0"


def test_interrupted_run_resumes_where_it_stopped(tmp_path, squad_files, fake_factory):
    clean, perturbed = squad_files
    cfg = config(tmp_path, clean, perturbed, chunk_size=3)
    with pytest.raises(KeyboardInterrupt):
        run_evaluation([MODEL], cfg, runner_factory=partial(fake_factory, fail_after=1))
    assert not (tmp_path / "run" / "report.json").exists()
    (cache_file,) = (tmp_path / "run").glob("*/cache/clean-*.jsonl")
    cached = [json.loads(line)["id"] for line in cache_file.read_text().splitlines()]
    assert cached == fake_factory.runners[0].seen and len(cached) == 3
    result = run_evaluation([MODEL], cfg, runner_factory=fake_factory)
    everything = {"a1", "a2", "a3", "a4", "b1", "b2", "b3", "b4"}
    resumed = fake_factory.runners[1].seen
    assert sorted(resumed[:5]) == sorted(everything - set(cached))  # only what the cache lacked
    assert sorted(resumed[5:]) == ["a1", "b1", "b3"]
    outcome = result.outcomes[0]
    assert (outcome.clean.predicted, outcome.clean.from_cache) == (5, 3)
    assert result.report["models"][0]["clean"]["exact"] == 100.0
    # a finished run is served entirely from the cache
    run_evaluation([MODEL], cfg, runner_factory=fake_factory)
    assert fake_factory.runners[2].seen == []


def test_a_line_cut_short_by_a_crash_is_dropped(tmp_path):
    cache = PredictionCache(tmp_path / "c.jsonl")
    cache.append([("q1", "x", -1.0, "x"), ("q2", "", 2.0, "y z")])
    with open(cache.path, "a") as stream:
        stream.write('{"id": "q3", "te')
    assert cache.load() == {"q1": ("x", -1.0, "x"), "q2": ("", 2.0, "y z")}
    cache.append([("q3", "y", 0.5, None)])
    assert cache.load()["q3"] == ("y", 0.5, None)


def test_a_cache_of_the_first_format_is_never_read_as_the_second(tmp_path):
    """Format 1 lines had no best span: the format is part of the key (a new file), and such a line in a
    current file ends what is read (as a damaged line would), never passes for one with a span."""
    from robustqa.evaluation.prediction_cache import CACHE_FORMAT, cache_key

    assert CACHE_FORMAT == 2
    cache = PredictionCache(tmp_path / "c.jsonl")
    cache.append([("q1", "x", -1.0, "x")])
    with open(cache.path, "a") as stream:
        stream.write('{"id": "q2", "text": "", "null_odds": 2.0}\n')
    assert cache.load() == {"q1": ("x", -1.0, "x")}
    import robustqa.evaluation.prediction_cache as module

    key = cache_key("m", "f", "d", {"n_best": 20})
    original = module.CACHE_FORMAT
    try:
        module.CACHE_FORMAT = 1
        assert cache_key("m", "f", "d", {"n_best": 20}) != key
    finally:
        module.CACHE_FORMAT = original


def test_cache_is_keyed_by_the_settings_that_change_answers(tmp_path, squad_files, fake_factory):
    clean, _ = squad_files
    run_evaluation([MODEL], config(tmp_path, clean, None), runner_factory=fake_factory)
    cfg = EvalConfig(
        clean, None, tmp_path / "run", InferenceSettings(null_threshold=0.5), progress=False, overwrite=True
    )
    run_evaluation([MODEL], cfg, runner_factory=fake_factory)  # another run into the same folder: asked for
    assert len(fake_factory.runners[1].seen) == 8
    assert len(list((tmp_path / "run").glob("*/cache/clean-*.jsonl"))) == 2


def test_clean_only_run(tmp_path, squad_files, fake_factory):
    clean, _ = squad_files
    result = run_evaluation([MODEL, "owner/other"], config(tmp_path, clean, None, limit=5), runner_factory=fake_factory)
    assert [len(r.seen) for r in fake_factory.runners] == [5, 5]
    entry = result.report["models"][1]
    assert entry["perturbed"] is None and entry["drop"] is None and entry["flips"] is None
    assert entry["files"]["perturbed_predictions"] is None and entry["clean"]["total"] == 5
    assert Signature.parse(result.report["signature"]).get("limit") == "5"
    rows = (tmp_path / "run" / "examples.jsonl").read_text().splitlines()
    assert len(rows) == 10 and json.loads(rows[0])["perturbed_prediction"] is None


def test_several_variants_add_the_worst_case(tmp_path, fake_factory):
    clean = write_json(tmp_path / "clean.json", clean_document())
    perturbed = write_json(tmp_path / "variants.json", perturbed_document(variants=True))
    result = run_evaluation([MODEL], config(tmp_path, clean, perturbed), runner_factory=fake_factory)
    entry = result.report["models"][0]
    assert entry["coverage"]["matched"] == 16 and entry["coverage"]["changed"] == 7
    assert entry["coverage"]["reused_predictions"] == 9
    worst = entry["drop"]["worst_case"]
    assert worst["questions"] == 8 and worst["exact"] == pytest.approx(-37.5)
    assert worst["exact_ci"][0] <= worst["exact"] <= worst["exact_ci"][1]


def _no_output(tmp_path: Path) -> bool:
    return not (tmp_path / "run").exists()


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (
            lambda doc: doc["data"][0]["paragraphs"][0]["qas"].append(
                dict(doc["data"][0]["paragraphs"][0]["qas"][0], id="zz")
            ),
            "perturbed question zz matches no question of the clean file",
        ),
        (
            lambda doc: doc["data"][0]["paragraphs"][0]["qas"].append(dict(doc["data"][0]["paragraphs"][0]["qas"][0])),
            "question id a1 appears twice",
        ),
        (lambda doc: doc.update(data=[]), "the perturbed file has no questions"),
    ],
)
def test_bad_perturbed_files_fail_before_anything_runs(tmp_path, squad_files, fake_factory, mutate, message):
    clean, _ = squad_files
    doc = perturbed_document()
    mutate(doc)
    perturbed = write_json(tmp_path / "bad.json", doc)
    with pytest.raises(InputError, match=message):
        run_evaluation([MODEL], config(tmp_path, clean, perturbed), runner_factory=fake_factory)
    assert fake_factory.runners == [] and _no_output(tmp_path)


def test_unreadable_files_and_unknown_models(tmp_path, squad_files, fake_factory):
    clean, perturbed = squad_files
    (tmp_path / "broken.json").write_text('{"data": [')
    with pytest.raises(InputError, match="not valid JSON"):
        run_evaluation([MODEL], config(tmp_path, tmp_path / "broken.json", None), runner_factory=fake_factory)
    with pytest.raises(InputError, match="file not found"):
        run_evaluation([MODEL], config(tmp_path, clean, tmp_path / "missing.json"), runner_factory=fake_factory)
    with pytest.raises(ModelLoadError, match="unknown model 'electra-largee'"):
        run_evaluation([MODEL, "electra-largee"], config(tmp_path, clean, perturbed), runner_factory=fake_factory)
    with pytest.raises(InputError, match="given twice"):
        run_evaluation([MODEL, MODEL], config(tmp_path, clean, perturbed), runner_factory=fake_factory)
    assert fake_factory.runners == [] and _no_output(tmp_path)
