"""The options `robustqa eval` and `robustqa attack` share: how a model runs, declared once."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

_PRECISION_HELP = (
    "auto: bf16/fp16 autocast on GPU, fp32 on CPU. bf16 on CPU is opt-in "
    "(faster where the CPU has native bf16 units; docs/benchmarks.md)."
)


def inference_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """--batch-size, --device, --precision, --max-seq-length, --doc-stride, --null-threshold, --trust-remote-code."""
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
                "--trust-remote-code",
                is_flag=True,
                help="Allow a hub model to run its own code (only for models you trust).",
            ),
        )
    ):
        command = option(command)
    return command
