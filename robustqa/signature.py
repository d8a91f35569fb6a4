"""Reproducibility signatures, in the spirit of sacrebleu's.

A signature is built from the state that actually ran (recipe and its parameters, WordNet version,
seed, model, decoding settings) and printed with every result as `key:value|key:value|...`, the tool
version last. Two results with the same signature were produced the same way.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from robustqa import __version__

_KEY = re.compile(r"^[A-Za-z0-9_.\-]+$")


def format_value(value: Any) -> str:
    """Render a parameter so that equal settings always print the same way."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return format(value, "g")
    if isinstance(value, (list, tuple, frozenset, set)):
        items = sorted(value) if isinstance(value, (set, frozenset)) else list(value)
        return ",".join(format_value(v) for v in items) or "none"
    text = str(value)
    return text.replace("|", "/").replace("\n", " ")


@dataclass(frozen=True)
class Signature:
    """An ordered, immutable list of (key, value) pairs; `robustqa:<version>` is always last."""

    items: tuple[tuple[str, str], ...]

    @classmethod
    def create(cls, fields: Mapping[str, Any], *, version: str = __version__) -> Signature:
        pairs = []
        for key, value in fields.items():
            if not _KEY.match(key):
                raise ValueError(f"signature key {key!r} must be letters, digits, '_', '.' or '-'")
            if key == "robustqa":
                continue
            pairs.append((key, format_value(value)))
        pairs.append(("robustqa", version))
        return cls(tuple(pairs))

    @classmethod
    def parse(cls, text: str) -> Signature:
        pairs = []
        for part in text.strip().split("|"):
            key, sep, value = part.partition(":")
            if not sep or not key:
                raise ValueError(f"not a robustqa signature: {text!r}")
            pairs.append((key, value))
        return cls(tuple(pairs))

    def format(self) -> str:
        return "|".join(f"{key}:{value}" for key, value in self.items)

    def to_dict(self) -> dict[str, str]:
        return dict(self.items)

    def get(self, key: str, default: str | None = None) -> str | None:
        return self.to_dict().get(key, default)

    def __str__(self) -> str:
        return self.format()
