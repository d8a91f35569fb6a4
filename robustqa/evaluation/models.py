"""Which model: aliases for public SQuAD 2.0 checkpoints, name resolution, loading with clear errors.

A user names a model by alias (`electra-large`), by hub id (`deepset/roberta-base-squad2`) or by a
local folder. Resolution is pure (no network, no torch) so the CLI can reject a typo before loading
anything; loading maps every way `from_pretrained` can fail (offline, no such repository, not a QA
model, remote code needed) to one `ModelLoadError` line that names the model and says what to do.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perturbations.fingerprint import folder_fingerprint
from robustqa.errors import ModelLoadError, ModelUnavailableError
from robustqa.hub import hub_known_unreachable, hub_offline, hub_reachable


@dataclass(frozen=True)
class ModelCard:
    """A public SQuAD 2.0 checkpoint and the dev-set scores its model card reports."""

    alias: str
    hub_id: str
    architecture: str
    reported_exact: float
    reported_f1: float
    source: str  # where the figures come from


def _card(alias: str, hub_id: str, architecture: str, exact: float, f1: float, where: str) -> ModelCard:
    return ModelCard(alias, hub_id, architecture, exact, f1, f"https://huggingface.co/{hub_id} ({where})")


# Figures as the model cards state them for the SQuAD 2.0 dev set (11,873 questions). deepset cards:
# the model-index entry for squad_v2/validation; ahotrod and mrm8488 cards: the results table of the README
# (official evaluate-v2.0 output of run_squad.py). ALBERT: squirro's card gives eval_exact/eval_f1 in its
# model-index (squad_v2; its eval_results.json names 11,873 questions); ktrapeznikov's and ahotrod's cards
# give the evaluate-v2.0 output of run_squad.py in their README (total 11873), rounded here to 4 decimals.
# The two larger ALBERT checkpoints ship only a SentencePiece model (spiece.model), which transformers turns
# into the fast tokenizer robustqa needs (with the `sentencepiece` and `protobuf` packages).
MODEL_ALIASES: dict[str, ModelCard] = {
    card.alias: card
    for card in (
        _card(
            "electra-large",
            "ahotrod/electra_large_discriminator_squad2_512",
            "electra",
            87.0968,
            89.9834,
            "README results",
        ),
        _card(
            "electra-base",
            "deepset/electra-base-squad2",
            "electra",
            77.6074,
            81.7181,
            "model-index, squad_v2 validation",
        ),
        _card(
            "electra-small", "mrm8488/electra-small-finetuned-squadv2", "electra", 69.7128, 73.4440, "README results"
        ),
        _card(
            "bert-large",
            "deepset/bert-large-uncased-whole-word-masking-squad2",
            "bert",
            80.8846,
            83.8765,
            "model-index, squad_v2 validation",
        ),
        _card(
            "bert-base",
            "deepset/bert-base-uncased-squad2",
            "bert",
            75.6529,
            78.6191,
            "model-index, squad_v2 validation",
        ),
        _card(
            "roberta-base",
            "deepset/roberta-base-squad2",
            "roberta",
            79.9309,
            82.9501,
            "model-index, squad_v2 validation",
        ),
        _card("albert-xxlarge", "ahotrod/albert_xxlargev1_squad2_512", "albert", 86.1113, 89.3537, "README results"),
        _card(
            "albert-xlarge",
            "ktrapeznikov/albert-xlarge-v2-squad-v2",
            "albert",
            84.4184,
            87.4628,
            "README evaluation table",
        ),
        _card(
            "albert-base",
            "squirro/albert-base-v2-squad_v2",
            "albert",
            78.8175,
            81.9984,
            "model-index eval_exact/eval_f1, squad_v2",
        ),
    )
}


@dataclass(frozen=True)
class ModelSpec:
    """A resolved model: what the user typed, what `from_pretrained` gets, and where it lives."""

    name: str
    model_id: str  # hub id or absolute folder path
    is_local: bool
    trust_remote_code: bool = False

    def identity(self, fingerprint: str) -> str:
        """The model as signatures name it: a hub id, or a local folder's name (not where it sits on this
        machine: the fingerprint, a hash of its files, identifies it), with the fingerprint."""
        return f"{Path(self.model_id).name if self.is_local else self.model_id}@{fingerprint}"


_HUB_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$")


def _looks_like_path(name: str) -> bool:
    return name.startswith((".", "/", "~")) or os.sep in name.strip("/") and not _HUB_ID.match(name)


def resolve_model(name: str, *, trust_remote_code: bool = False) -> ModelSpec:
    """Alias → hub id; existing folder → local spec; `owner/name` → hub spec; anything else is an error.

    A folder wins over a hub id of the same spelling, as in `from_pretrained`.
    """
    text = name.strip()
    if not text:
        raise ModelLoadError("empty model name; give an alias (see `robustqa models`), a hub id or a folder")
    if text in MODEL_ALIASES:
        return ModelSpec(text, MODEL_ALIASES[text].hub_id, False, trust_remote_code)
    path = Path(text).expanduser()
    if path.is_dir():
        return ModelSpec(text, str(path.resolve()), True, trust_remote_code)
    if path.exists():
        raise ModelLoadError(f"model '{text}': is a file, not a model folder; give the folder that holds config.json")
    if _looks_like_path(text):
        raise ModelLoadError(f"model '{text}': no such folder; check the path, or give an alias or a hub id")
    if _HUB_ID.match(text):
        return ModelSpec(text, text, False, trust_remote_code)
    close = difflib.get_close_matches(text, list(MODEL_ALIASES), n=1)
    hint = f"did you mean '{close[0]}'? " if close else ""
    raise ModelLoadError(
        f"unknown model '{text}': not an alias, a folder or a hub id (owner/name); {hint}"
        f"aliases: {', '.join(MODEL_ALIASES)}"
    )


def model_slug(name: str) -> str:
    """A filesystem-safe folder name for a model's run files (stable, readable, collision-resistant).

    A local folder is named by its own name and a hash of its fingerprint (what its files hold), not of how its
    path is spelled: `./m`, `m/` and `/abs/m` (or a copy of m) share one run folder and its prediction caches,
    and retrained weights in the same folder get another."""
    text = name.strip().rstrip("/\\")
    if text in MODEL_ALIASES:
        return text
    folder = Path(text).expanduser()
    if text and folder.is_dir():
        safe = re.sub(r"[^A-Za-z0-9._-]+", "--", folder.resolve().name).strip("-.") or "model"
        return f"{safe}-{hashlib.sha256(local_fingerprint(folder).encode('utf-8')).hexdigest()[:6]}"
    if text.startswith((".", "/", "~")) or not _HUB_ID.match(text):
        tail = Path(text).name or "model"  # a path that is no folder (yet): its name, plus a hash of the path below
    else:
        tail = text
    safe = re.sub(r"[^A-Za-z0-9._-]+", "--", tail.replace("/", "--")).strip("-.") or "model"
    if safe == text:
        return safe
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:6]
    return f"{safe}-{digest}"


# --------------------------------------------------------------------------- loading


def local_fingerprint(folder: str | Path) -> str:
    """A stable id of a local model folder, from what its files hold (`perturbations.fingerprint`): config,
    tokenizer and weight files by name and content, large files sampled. The same checkpoint copied to
    another folder or machine has the same fingerprint; a rewritten file changes it."""
    return "local:" + folder_fingerprint(Path(folder))


def _hub_revision(model_id: str, config: Any) -> str | None:
    commit = getattr(config, "_commit_hash", None)
    if commit:
        return str(commit)
    try:  # the snapshot folder of the hub cache is named after the commit
        from huggingface_hub import try_to_load_from_cache

        cached = try_to_load_from_cache(model_id, "config.json")
        if isinstance(cached, str):
            return Path(cached).parent.name
    except Exception:  # a missing fingerprint only weakens caching
        return None
    return None


def fingerprint(spec: ModelSpec, config: Any) -> str:
    if spec.is_local:
        return local_fingerprint(spec.model_id)
    revision = _hub_revision(spec.model_id, config)
    return f"hub:{spec.model_id}@{revision}" if revision else f"hub:{spec.model_id}"


def _diagnose(spec: ModelSpec, error: BaseException) -> tuple[str, str | None, str | None]:
    """A from_pretrained exception as (what is wrong, what to do, the setting that would fix it)."""
    text = str(error)
    lowered = text.lower()
    kind = type(error).__name__
    first_line = text.splitlines()[0] if text else ""
    if "trust_remote_code" in lowered:
        return "needs custom code from its repository", "allow trust_remote_code if you trust it", "trust_remote_code"
    if (
        kind in ("RepositoryNotFoundError", "GatedRepoError")
        or "is not a valid model identifier" in lowered
        or "404" in text
    ):
        return (
            "no such model on the Hugging Face hub (or it is private/gated)",
            "check the id or log in with `hf auth login`",
            None,
        )
    if spec.is_local:
        if "config.json" in lowered or "does not appear to have a file named" in lowered:
            return "the folder has no usable config.json/weights", "give a folder saved with save_pretrained", None
        return f"cannot load the folder ({kind}: {first_line})", None, None
    if (
        hub_offline()
        or kind in ("LocalEntryNotFoundError", "ConnectionError", "OfflineModeIsEnabled")
        or any(word in lowered for word in ("connect", "offline", "network", "resolve", "timed out", "cached files"))
    ):
        return (
            "cannot download it (no network, or HF_HUB_OFFLINE is set) and it is not in the local cache",
            "connect to the internet once, or download it elsewhere and pass the folder",
            None,
        )
    return f"cannot load it ({kind}: {first_line})", None, None


def _load_error(spec: ModelSpec, error: BaseException, *, where: str) -> ModelLoadError:
    reason, hint, setting = _diagnose(spec, error)
    return ModelLoadError(f"{where}: {reason}", hint=hint, setting=setting)


def _refuse_unreachable(spec: ModelSpec, where: str) -> None:
    """A hub model that is not cached, with a hub that does not answer one connection, fails now, not after a
    download's retries (`robustqa.hub`)."""
    if spec.is_local:
        return
    from huggingface_hub import try_to_load_from_cache

    if isinstance(try_to_load_from_cache(spec.model_id, "config.json"), str) or not hub_known_unreachable():
        return
    reason, hint, setting = _diagnose(spec, ConnectionError("cannot connect to the Hugging Face hub"))
    raise ModelLoadError(f"{where}: {reason}", hint=hint, setting=setting)


def check_available(spec: ModelSpec) -> None:
    """Raise `ModelUnavailableError` unless the model can be had now, before any other work starts.

    A local folder is checked when it loads. A hub model passes when the hub cache holds its config, or when
    the hub answers and the config downloads.
    """
    if spec.is_local:
        return
    from huggingface_hub import try_to_load_from_cache

    if isinstance(try_to_load_from_cache(spec.model_id, "config.json"), str):
        return
    offline = hub_offline()
    if offline or not hub_reachable():
        hub = "is switched off (HF_HUB_OFFLINE)" if offline else "cannot be reached"
        raise ModelUnavailableError(
            spec.name, spec.model_id, f"is not in the local cache and the Hugging Face hub {hub}"
        )
    from transformers import AutoConfig

    try:
        AutoConfig.from_pretrained(spec.model_id)
    except Exception as error:
        raise ModelUnavailableError(
            spec.name, spec.model_id, f"is not available: {_diagnose(spec, error)[0]}"
        ) from None


def load_model_and_tokenizer(spec: ModelSpec) -> tuple[Any, Any, str]:
    """Load an extractive-QA model and its fast tokenizer; return (model, tokenizer, fingerprint).

    Refuses checkpoints without a trained QA head (their span logits would be random).
    """
    import transformers
    from transformers import AutoConfig, AutoModelForQuestionAnswering, AutoTokenizer

    transformers.logging.set_verbosity_error()
    transformers.logging.disable_progress_bar()
    where = f"model '{spec.name}'" + (f" ({spec.model_id})" if spec.model_id != spec.name else "")
    if spec.is_local and not (Path(spec.model_id) / "config.json").is_file():
        raise ModelLoadError(f"{where}: the folder has no config.json; give a folder saved with save_pretrained")
    _refuse_unreachable(spec, where)
    trust = spec.trust_remote_code
    try:
        config = AutoConfig.from_pretrained(spec.model_id, trust_remote_code=trust)
    except Exception as error:  # every failure becomes one line
        raise _load_error(spec, error, where=where) from None
    try:
        model, info = AutoModelForQuestionAnswering.from_pretrained(
            spec.model_id, config=config, output_loading_info=True, trust_remote_code=trust
        )
    except ValueError as error:
        if "Unrecognized configuration class" in str(error) or "question" in str(error).lower():
            raise ModelLoadError(
                f"{where}: its architecture ({getattr(config, 'model_type', '?')}) has no extractive "
                "question-answering head; give a model fine-tuned for SQuAD-style QA"
            ) from None
        raise _load_error(spec, error, where=where) from None
    except Exception as error:
        raise _load_error(spec, error, where=where) from None
    missing = [key for key in info.get("missing_keys", ()) if "qa_outputs" in key or "qa_" in key]
    if missing:
        raise ModelLoadError(
            f"{where}: is not fine-tuned for question answering (its QA head weights are missing: "
            f"{', '.join(sorted(missing)[:2])}); give a SQuAD-fine-tuned checkpoint"
        )
    try:
        tokenizer = AutoTokenizer.from_pretrained(spec.model_id, use_fast=True, trust_remote_code=trust)
    except Exception as error:
        raise _load_error(spec, error, where=f"{where}: tokenizer") from None
    if not getattr(tokenizer, "is_fast", False):
        raise ModelLoadError(
            f"{where}: has no fast (Rust) tokenizer, which character offsets need; save a tokenizer.json with it"
        )
    request_segment_ids(tokenizer, config)
    model.eval()
    return model, tokenizer, fingerprint(spec, config)


def request_segment_ids(tokenizer: Any, config: Any) -> None:
    """Make the tokenizer return token_type_ids when the model has a segment embedding (type_vocab_size > 1).

    BERT, ELECTRA and ALBERT were fine-tuned with the context marked as segment 1. transformers 5 stopped
    returning token_type_ids from some of these tokenizers (ALBERT's among them: transformers issue #48128),
    so the model would see segment 0 everywhere, a silent loss of accuracy; asking for them restores what
    the model was trained with. Models without a segment embedding (RoBERTa) are left alone.
    """
    names = list(getattr(tokenizer, "model_input_names", []))
    if int(getattr(config, "type_vocab_size", 1) or 1) > 1 and "token_type_ids" not in names:
        tokenizer.model_input_names = [*names, "token_type_ids"]


def alias_table() -> list[dict[str, Any]]:
    """The aliases as plain rows, for `robustqa models` and the README."""
    return [
        {
            "alias": card.alias,
            "hub_id": card.hub_id,
            "architecture": card.architecture,
            "reported_exact": card.reported_exact,
            "reported_f1": card.reported_f1,
            "source": card.source,
        }
        for card in MODEL_ALIASES.values()
    ]
