"""Model names: aliases, folders, hub ids; one-line errors for every way loading fails (offline)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from robustqa.errors import InputError, ModelLoadError
from robustqa.evaluation.inference import InferenceSettings, QAModelRunner
from robustqa.evaluation.models import (
    MODEL_ALIASES,
    load_model_and_tokenizer,
    local_fingerprint,
    model_slug,
    resolve_model,
)


def test_aliases_resolve_to_the_public_checkpoints() -> None:
    assert resolve_model("electra-large").model_id == "ahotrod/electra_large_discriminator_squad2_512"
    assert resolve_model("bert-large").model_id == "deepset/bert-large-uncased-whole-word-masking-squad2"
    assert set(MODEL_ALIASES) == {
        "electra-large",
        "electra-base",
        "electra-small",
        "bert-large",
        "bert-base",
        "roberta-base",
        "albert-xxlarge",
        "albert-xlarge",
        "albert-base",
    }
    for card in MODEL_ALIASES.values():
        assert 60 < card.reported_exact < card.reported_f1 < 95 and card.source.startswith("https://huggingface.co/")


def test_hub_ids_and_folders(tmp_path: Path) -> None:
    spec = resolve_model("deepset/roberta-base-squad2", trust_remote_code=True)
    assert (spec.model_id, spec.is_local, spec.trust_remote_code) == ("deepset/roberta-base-squad2", False, True)
    local = resolve_model(str(tmp_path))
    assert local.is_local and local.model_id == str(tmp_path.resolve())


def test_unknown_alias_is_a_one_line_error_with_a_suggestion() -> None:
    with pytest.raises(ModelLoadError) as error:
        resolve_model("electra-larg")
    message = str(error.value)
    assert (
        "unknown model 'electra-larg'" in message and "did you mean 'electra-large'" in message and "\n" not in message
    )


def test_missing_folder_is_a_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(ModelLoadError, match="no such folder"):
        resolve_model(str(tmp_path / "nowhere"))
    with pytest.raises(ModelLoadError, match="no config.json"):
        load_model_and_tokenizer(resolve_model(str(tmp_path)))


def test_hub_model_offline_says_what_to_do(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ModelLoadError) as error:
        QAModelRunner(resolve_model("robustqa-tests/no-such-model"), InferenceSettings(device="cpu"))
    message = str(error.value)
    assert (
        message.startswith("model 'robustqa-tests/no-such-model': cannot download it") and "pass the folder" in message
    )
    assert "\n" not in message


def test_an_unreachable_hub_fails_at_once_without_a_download(monkeypatch: pytest.MonkeyPatch) -> None:
    """Not cached, and the hub does not answer one connection: one line before any download starts (a download
    would retry for half a minute); behind a proxy the download is left to find out."""
    import huggingface_hub
    import transformers

    import robustqa.hub as hub

    def no_download(*args: object, **kwargs: object) -> None:
        raise AssertionError("a download was attempted")

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    for variable in hub.PROXY_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setattr(huggingface_hub, "try_to_load_from_cache", lambda *args, **kwargs: None)
    monkeypatch.setattr(hub, "hub_reachable", lambda timeout=3.0: False)
    monkeypatch.setattr(transformers.AutoConfig, "from_pretrained", no_download)
    with pytest.raises(ModelLoadError) as error:
        load_model_and_tokenizer(resolve_model("electra-large"))
    message = str(error.value)
    assert message.startswith("model 'electra-large' (ahotrod/electra_large_discriminator_squad2_512): cannot download")
    assert "pass the folder" in message and "\n" not in message
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.invalid:3128")
    with pytest.raises(ModelLoadError, match="a download was attempted"):  # loading wraps every failure
        load_model_and_tokenizer(resolve_model("electra-large"))


def test_checkpoint_without_a_qa_head_is_refused(tmp_path: Path, tiny_models: dict[str, Path]) -> None:
    from transformers import AutoConfig, AutoModel

    AutoModel.from_config(AutoConfig.from_pretrained(tiny_models["bert"])).save_pretrained(tmp_path)
    with pytest.raises(ModelLoadError, match="not fine-tuned for question answering"):
        load_model_and_tokenizer(resolve_model(str(tmp_path)))


def test_architecture_without_qa_head_is_refused(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "clip"}))
    with pytest.raises(ModelLoadError, match="has no extractive question-answering head|cannot load"):
        load_model_and_tokenizer(resolve_model(str(tmp_path)))


def test_slugs_are_safe_and_distinct(tmp_path: Path) -> None:
    assert model_slug("electra-large") == "electra-large"
    hub = model_slug("deepset/roberta-base-squad2")
    assert "/" not in hub and hub.startswith("deepset--roberta-base-squad2")
    a, b = model_slug("/runs/a/model"), model_slug("/runs/b/model")
    assert a != b and a.startswith("model-") and "/" not in a


def test_fingerprint_changes_when_the_weights_change(tiny_models: dict[str, Path], tmp_path: Path) -> None:
    import shutil

    copy = Path(shutil.copytree(tiny_models["bert"], tmp_path / "bert"))
    before = local_fingerprint(copy)
    assert local_fingerprint(copy) == before
    weights = copy / "model.safetensors"
    weights.write_bytes(weights.read_bytes() + b"\0")
    assert local_fingerprint(copy) != before


def test_the_same_checkpoint_anywhere_has_the_same_fingerprint(tmp_path: Path) -> None:
    """Content, not place or time: a copy in another folder, with other file times, is the same model (so
    signatures from two machines agree); a changed byte of a large weight file is another model."""
    import os
    import random
    import shutil

    first = tmp_path / "a" / "model"
    first.mkdir(parents=True)
    (first / "config.json").write_text('{"model_type": "bert"}')
    (first / "tokenizer.json").write_text('{"version": "1.0"}')
    (first / "README.md").write_text("notes are not the model")
    weights = bytearray(random.Random(7).randbytes(5 << 20))  # large enough to be sampled, not read whole
    (first / "model.safetensors").write_bytes(bytes(weights))
    second = Path(shutil.copytree(first, tmp_path / "b" / "elsewhere"))
    for path in second.iterdir():
        os.utime(path, ns=(10**18, 10**18))
    (second / "README.md").write_text("other notes")
    assert local_fingerprint(first) == local_fingerprint(second)
    weights[0] ^= 1  # the first byte is in the first window
    (second / "model.safetensors").write_bytes(bytes(weights))
    assert local_fingerprint(first) != local_fingerprint(second)
    (second / "model.safetensors").write_bytes((first / "model.safetensors").read_bytes())
    (second / "config.json").write_text('{"model_type": "roberta"}')
    assert local_fingerprint(first) != local_fingerprint(second)


def test_bad_settings_are_input_errors() -> None:
    from robustqa.errors import InputError

    with pytest.raises(InputError, match="doc_stride"):
        InferenceSettings(max_seq_length=128, doc_stride=128)
    with pytest.raises(InputError, match="device 'tpu'"):
        InferenceSettings(device="tpu")
    assert InferenceSettings().signature_fields() == {
        "max_seq_length": 384,
        "doc_stride": 128,
        "n_best": 20,
        "max_answer_length": 30,
        "null_threshold": 0.0,
    }


def test_device_and_precision_choices(monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    from robustqa.errors import InputError
    from robustqa.evaluation.inference import _autocast_dtype, _resolve_device

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert _resolve_device("cpu") == "cpu"
    with pytest.raises(InputError, match="no CUDA GPU"):
        _resolve_device("cuda")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.setenv("LOCAL_RANK", "1")
    assert _resolve_device("auto") == "cuda:1" and _resolve_device("cuda:0") == "cuda:0"
    assert _autocast_dtype("cpu", "auto") is None and _autocast_dtype("cuda:1", "fp32") is None
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda: True)
    assert _autocast_dtype("cuda:0", "auto") is torch.bfloat16
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda: False)
    assert _autocast_dtype("cuda", "auto") is torch.float16 and _autocast_dtype("cuda", "bf16") is torch.bfloat16


def test_int8_with_autocast_is_refused_up_front() -> None:
    """Quantized Linear layers take fp32 activations: under bf16 autocast they crash mid-run."""
    from robustqa.errors import InputError
    from robustqa.evaluation.inference import InferenceSettings

    for precision in ("bf16", "fp16"):
        with pytest.raises(InputError, match="int8 cannot run under"):
            InferenceSettings(int8=True, precision=precision)
    assert InferenceSettings(int8=True, precision="auto").int8 and InferenceSettings(int8=True, precision="fp32").int8


def test_a_folder_s_slug_follows_its_fingerprint_not_its_spelling(
    tiny_models: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    folder = tiny_models["bert"]
    monkeypatch.chdir(folder.parent)
    spellings = [
        str(folder),
        f"{folder}/",
        f"./{folder.name}",
        folder.name,
        f"{folder.parent}/../{folder.parent.name}/{folder.name}",
    ]
    slugs = {model_slug(spelling) for spelling in spellings}
    assert len(slugs) == 1
    (slug,) = slugs
    assert slug.startswith(f"{folder.name}-") and len(slug) == len(folder.name) + 7
    copy = Path(shutil.copytree(folder, tmp_path / folder.name))
    assert model_slug(str(copy)) == slug  # the same model elsewhere: the same run folder and caches
    weights = next(p for p in copy.iterdir() if p.suffix in {".safetensors", ".bin"})
    weights.write_bytes(weights.read_bytes()[:-8] + b"\x00" * 8)
    assert model_slug(str(copy)) != slug  # other weights in a folder of the same name: another run folder


def test_two_spellings_of_one_folder_share_the_default_run_folder(tiny_models: dict[str, Path]) -> None:
    from robustqa.evaluation.run import default_run_folder

    folder = tiny_models["bert"]
    assert default_run_folder([str(folder)], "set") == default_run_folder([f"{folder}/"], "set")
    with pytest.raises(InputError, match="given twice"):
        from robustqa.evaluation.run import resolve_models

        resolve_models([str(folder), f"{folder}/"], trust_remote_code=False)
