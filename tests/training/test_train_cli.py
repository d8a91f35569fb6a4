"""`robustqa train` on the tiny random models: a few steps, a folder eval loads, resume, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from rqa_trainhelpers import SAMPLE, one_line

from robustqa.cli import cli
from robustqa.provenance import TRAINING_FORMAT as RECORD_FORMAT
from robustqa.provenance import TRAINING_RECORD as RECORD_NAME
from robustqa.provenance import article_sha256

from tiny import ARCHITECTURES

TINY = ("--max-seq-length", "64", "--doc-stride", "16", "--batch-size", "4", "--device", "cpu", "--threads", "1")


def train(model: Path, out: Path, *extra: str, data: Path = SAMPLE):
    return CliRunner().invoke(
        cli,
        ["train", str(model), "--train", str(data), "--output-dir", str(out), *TINY, *extra],
        catch_exceptions=False,
    )


@pytest.mark.parametrize("arch", ARCHITECTURES)
def test_train_writes_a_folder_eval_loads(tiny_models, tmp_path, arch):
    out = tmp_path / "trained"
    result = train(tiny_models[arch], out, "--steps", "2", "--save-steps", "1")
    assert result.exit_code == 0, result.output
    assert "2 steps" in result.output
    record = json.loads((out / RECORD_NAME).read_text())
    document = json.loads(SAMPLE.read_text())
    assert record["format"] == RECORD_FORMAT
    assert record["questions"] == 30
    assert record["signature"] == (out / "robustqa-train-signature.txt").read_text().strip()
    assert [a["title"] for a in record["articles"]] == [a["title"] for a in document["data"]]
    first = document["data"][0]
    assert record["articles"][0]["sha256"] == article_sha256([p["context"] for p in first["paragraphs"]])
    assert "base:" in record["signature"] and "train:" in record["signature"] and "seed:13" in record["signature"]
    assert "precision:fp32" in record["signature"]  # "auto" as it ran on this CPU
    log = [json.loads(line) for line in (out / "training-log.jsonl").read_text().splitlines()]
    assert log and log[-1]["step"] == 2
    evaluated = CliRunner().invoke(
        cli,
        ["eval", str(out), "--clean", str(SAMPLE), "--output-dir", str(tmp_path / "run"), "--quiet"]
        + ["--max-seq-length", "64", "--doc-stride", "16", "--device", "cpu"],
        catch_exceptions=False,
    )
    assert evaluated.exit_code == 0, evaluated.output
    assert json.loads((tmp_path / "run" / "report.json").read_text())["models"][0]["clean"]["f1"] >= 0


def _weights(folder: Path) -> dict:
    from safetensors.torch import load_file

    return load_file(str(folder / "model.safetensors"))


class Interrupt(Exception):
    pass


@pytest.mark.parametrize("arch", ARCHITECTURES)
def test_an_interrupted_run_resumes_to_the_same_weights(tiny_models, tmp_path, arch):
    import torch
    from transformers import TrainerCallback

    from robustqa.evaluation.models import resolve_model
    from robustqa.squad import load_squad
    from robustqa.training.run import TrainData, TrainSettings
    from robustqa.training.run import train as run_training

    class StopAfterFirstCheckpoint(TrainerCallback):
        def on_save(self, args, state, control, **kwargs):
            raise Interrupt  # the machine went down right after checkpoint-2

    spec = resolve_model(str(tiny_models[arch]))
    data = TrainData(load_squad(SAMPLE), "sample")
    settings = TrainSettings(
        max_seq_length=64, doc_stride=16, steps=4, batch_size=4, save_steps=2, device="cpu", progress=False
    )
    run_training(spec, data, tmp_path / "whole", settings)
    with pytest.raises(Interrupt):
        run_training(spec, data, tmp_path / "broken", settings, callbacks=[StopAfterFirstCheckpoint()])
    assert not (tmp_path / "broken" / "model.safetensors").exists()
    resumed = run_training(spec, data, tmp_path / "broken", settings)
    assert resumed.resumed_from == "checkpoint-2"
    whole, again = _weights(tmp_path / "whole"), _weights(tmp_path / "broken")
    assert whole.keys() == again.keys()
    for key in whole:
        assert torch.allclose(whole[key], again[key], atol=1e-6), key
    base = _weights(tiny_models[arch])
    assert any(not torch.equal(base[k], whole[k]) for k in whole if k in base)  # training changed the weights


def _write(path: Path, document: dict) -> Path:
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def test_an_answerable_question_without_answer_spans_isone_line(tiny_models, tmp_path, sample_document):
    qa = next(q for a in sample_document["data"] for p in a["paragraphs"] for q in p["qas"] if q["answers"])
    qa["answers"] = []
    qa["is_impossible"] = False
    data = _write(tmp_path / "bad.json", sample_document)
    line = one_line(CliRunner().invoke(cli, ["train", str(tiny_models["bert"]), "--train", str(data),
                                              "--output-dir", str(tmp_path / "out"), *TINY]))  # fmt: skip
    assert qa["id"] in line and "no answer span" in line and "bad.json" in line
    assert not (tmp_path / "out").exists()


def test_a_squad_v1_file_isone_line(tiny_models, tmp_path, sample_document):
    for article in sample_document["data"]:
        for paragraph in article["paragraphs"]:
            paragraph["qas"] = [q for q in paragraph["qas"] if q["answers"]]
            for q in paragraph["qas"]:
                q.pop("is_impossible", None)
    sample_document["version"] = "1.1"
    data = _write(tmp_path / "v1.json", sample_document)
    line = one_line(train(tiny_models["bert"], tmp_path / "out", "--steps", "1", data=data))
    assert "v1.1" in line and "v1.json" in line and "SQuAD 2.0" in line
    assert not (tmp_path / "out").exists()


def test_a_model_without_a_qa_head_isone_line(tmp_path):
    from transformers import AutoModel

    from tiny import build_tiny_model

    folder = build_tiny_model(tmp_path / "tiny", "bert")
    AutoModel.from_pretrained(folder).save_pretrained(tmp_path / "bare")  # the encoder alone, no QA head
    for name in ("tokenizer.json", "tokenizer_config.json"):
        (tmp_path / "bare" / name).write_bytes((folder / name).read_bytes())
    line = one_line(train(tmp_path / "bare", tmp_path / "out", "--steps", "1"))
    assert "question answering" in line and "bare" in line
    assert not (tmp_path / "out").exists()


def test_a_folder_of_another_run_is_refused(tiny_models, tmp_path):
    out = tmp_path / "trained"
    assert train(tiny_models["bert"], out, "--steps", "1").exit_code == 0
    line = one_line(train(tiny_models["bert"], out, "--steps", "1", "--seed", "14"))
    assert "another training run" in line


@pytest.mark.parametrize("augment", ["qads", "certified", "certified@1"])
def test_train_with_variants_records_them(tiny_models, tmp_path, augment):
    out = tmp_path / "trained"
    result = train(tiny_models["bert"], out, "--steps", "1", "--augment", augment, "--variants", "1")
    assert result.exit_code == 0, result.output
    record = json.loads((out / RECORD_NAME).read_text())
    assert record["questions"] > 30  # the sample's 30 questions and their variants
    assert f"augment:{augment}" in record["signature"] and "variants:1" in record["signature"]
