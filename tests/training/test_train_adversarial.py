"""`robustqa train --adversarial` on the tiny random models: it runs and eval loads the folder, each epoch's flips
are added and recorded, an interrupted run resumes to the same weights, and bad settings are one line.

The tiny random models answer no question right, so nothing they are asked can flip; the tests that need flips
let the attack ask the attack tests' fake model (`attack_scorer`) while the tiny model is trained on its data.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from rqa_trainhelpers import SAMPLE, assert_eval_loads, one_line

from robustqa.cli import cli
from robustqa.provenance import TRAINING_RECORD

sys.path.insert(0, str(Path(__file__).parents[1] / "attack"))

from rqa_attackfakes import FakeQA, write_document

TINY = ("--max-seq-length", "64", "--doc-stride", "16", "--batch-size", "4", "--device", "cpu", "--threads", "1")


def _cli_train(model: Path, out: Path, *extra: str):
    return CliRunner().invoke(
        cli,
        ["train", str(model), "--train", str(SAMPLE), "--output-dir", str(out), *TINY, *extra],
        catch_exceptions=False,
    )


def test_adversarial_training_runs_and_the_folder_loads_in_eval(tiny_models, tmp_path):
    out = tmp_path / "trained"
    result = _cli_train(
        tiny_models["electra"], out, "--steps", "2", "--adversarial", "--adversarial-sample", "6",
        "--adversarial-budget", "4",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "adversarial, epoch 1 (weights of step 0)" in result.output
    record = json.loads((out / TRAINING_RECORD).read_text())
    assert record["adversarial"]["sample"] == 6 and record["adversarial"]["budget"] == 4
    assert record["adversarial"]["recipe"].startswith("qads@")
    [epoch] = record["adversarial"]["epochs"]
    assert epoch["epoch"] == 1 and epoch["step"] == 0 and epoch["sampled"] == 6
    assert (out / epoch["file"]).is_file()
    signature = (out / "robustqa-train-signature.txt").read_text()
    assert "adversarial:qads@" in signature and "adversarial_sample:6" in signature
    assert "adversarial_budget:4" in signature
    assert_eval_loads(out, tmp_path)


def _settings(**changes):
    from robustqa.training.adversarial import AdversarialSettings
    from robustqa.training.run import TrainSettings

    fields = dict(
        max_seq_length=64,
        doc_stride=16,
        epochs=2,
        batch_size=4,
        save_steps=100,
        device="cpu",
        progress=False,
        adversarial=AdversarialSettings(sample=4, budget=20, recipe="qads@1.1"),
    )
    fields.update(changes)
    return TrainSettings(**fields)


def _train(model: Path, data: Path, out: Path, settings, **kwargs):
    from robustqa.evaluation.models import resolve_model
    from robustqa.squad import load_squad
    from robustqa.training.run import TrainData
    from robustqa.training.run import train as run_training

    return run_training(
        resolve_model(str(model)),
        TrainData(load_squad(data), "fake"),
        out,
        settings,
        attack_scorer=lambda model: FakeQA(),
        **kwargs,
    )


def _weights(folder: Path) -> dict:
    from safetensors.torch import load_file

    return load_file(str(folder / "model.safetensors"))


def test_each_epoch_adds_the_flipped_variants_and_records_them(tiny_models, tmp_path):
    import torch

    from robustqa.squad import load_squad

    data = write_document(tmp_path / "train.json")
    done = _train(tiny_models["bert"], data, tmp_path / "adv", _settings())
    assert [a.epoch for a in done.adversarial] == [1, 2]
    per_epoch = done.steps // 2
    assert [a.step for a in done.adversarial] == [0, per_epoch]
    training = {e.id: e for e in load_squad(data).examples()}
    for additions in done.adversarial:
        assert additions.sampled == 4 and additions.flipped > 0
        assert additions.attempted <= additions.sampled and additions.queries <= 20 * additions.attempted
        variants = additions.examples()
        assert len(variants) == additions.flipped
        for variant in variants:
            original = training[variant.source_id]  # a training question, never anything else
            assert variant.id == f"{original.id}-adv{additions.epoch}"
            assert variant.original_question == original.question != variant.question
            assert variant.context == original.context and variant.answers == original.answers  # span-safe
            assert variant.substitutions
            for edit in variant.substitutions:  # every edit record points at its words
                assert variant.question[edit.new_start : edit.new_end] == edit.replacement
                assert original.question[edit.start : edit.end] == edit.original
    record = json.loads((tmp_path / "adv" / TRAINING_RECORD).read_text())
    assert record["questions"] == 6 + sum(a.flipped for a in done.adversarial)
    assert [e["flipped"] for e in record["adversarial"]["epochs"]] == [a.flipped for a in done.adversarial]
    assert {a["title"] for a in record["articles"]} == {"Normans", "Steam"}
    # the flips were trained on: the same run without them ends elsewhere
    plain = _train(tiny_models["bert"], data, tmp_path / "plain", _settings(adversarial=None))
    assert plain.steps == done.steps and not plain.adversarial
    adv, clean = _weights(tmp_path / "adv"), _weights(tmp_path / "plain")
    assert any(not torch.allclose(adv[k], clean[k]) for k in adv)


class Interrupt(Exception):
    pass


@pytest.mark.parametrize("epoch", [1, 2])
def test_an_interrupted_adversarial_run_resumes_to_the_same_weights(tiny_models, tmp_path, epoch):
    """Interrupted in the first epoch, and in the second (after its attack, which the resumed run reads back)."""
    import torch
    from transformers import TrainerCallback

    data = write_document(tmp_path / "train.json")
    settings = _settings(save_steps=1)
    whole = _train(tiny_models["roberta"], data, tmp_path / "whole", settings)
    per_epoch = whole.steps // 2
    assert per_epoch >= 2
    stop_at = 1 if epoch == 1 else per_epoch + 1

    class StopAtCheckpoint(TrainerCallback):
        def on_save(self, args, state, control, **kwargs):
            if state.global_step == stop_at:
                raise Interrupt

    with pytest.raises(Interrupt):
        _train(tiny_models["roberta"], data, tmp_path / "broken", settings, callbacks=[StopAtCheckpoint()])
    assert len(list((tmp_path / "broken" / "adversarial").glob("epoch-*.json"))) == epoch
    resumed = _train(tiny_models["roberta"], data, tmp_path / "broken", settings)
    assert resumed.resumed_from is not None and resumed.resumed_from.endswith(f"-{stop_at}")
    assert [a.document for a in resumed.adversarial] == [a.document for a in whole.adversarial]
    a, b = _weights(tmp_path / "whole"), _weights(tmp_path / "broken")
    for key in a:
        assert torch.allclose(a[key], b[key], atol=1e-6), key


def test_a_resumed_epoch_without_its_additions_is_refused(tiny_models, tmp_path):
    from transformers import TrainerCallback

    from robustqa.errors import OutputError

    class StopAtCheckpoint(TrainerCallback):
        def on_save(self, args, state, control, **kwargs):
            raise Interrupt

    data = write_document(tmp_path / "train.json")
    settings = _settings(save_steps=1)
    with pytest.raises(Interrupt):
        _train(tiny_models["bert"], data, tmp_path / "broken", settings, callbacks=[StopAtCheckpoint()])
    (tmp_path / "broken" / "adversarial" / "epoch-1.json").unlink()
    with pytest.raises(OutputError, match="epoch-1.json: is missing"):
        _train(tiny_models["bert"], data, tmp_path / "broken", settings)


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        (("--adversarial-sample", "5"), "--adversarial-sample needs --adversarial"),
        (("--adversarial-budget", "5", "--adversarial-recipe", "qads"), "need --adversarial"),
        (("--adversarial", "--adversarial-sample", "0"), "give --adversarial-sample a positive number"),
        (("--adversarial", "--adversarial-budget", "0"), "give --adversarial-budget a positive number"),
        (("--adversarial", "--adversarial-recipe", "nosuch"), "unknown recipe 'nosuch'"),
        (("--adversarial", "--adversarial-recipe", "both"), "the attack searches question edits only"),
    ],
)
def test_bad_adversarial_settings_areone_line(tiny_models, tmp_path, extra, expected):
    result = CliRunner().invoke(
        cli, ["train", str(tiny_models["bert"]), "--train", str(SAMPLE), "--output-dir", str(tmp_path / "out"), *extra]
    )
    assert expected in one_line(result)
    assert not (tmp_path / "out").exists()
