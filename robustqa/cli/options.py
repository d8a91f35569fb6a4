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
