"""The options `robustqa eval` and `robustqa attack` share: how a model runs, declared once."""

from __future__ import annotations

import functools
from collections.abc import Callable
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
