"""Reproducibility signatures, in the spirit of sacrebleu's.

A signature is built from the state that actually ran (recipe and its parameters, WordNet version,
seed, model, decoding settings) and printed with every result as `key:value|key:value|...`, the tool
version last. Two results with the same signature were produced the same way.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
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


RECIPE_PARAMETERS = "<recipe parameters>"  # where a schema takes the recipe's own fields, in the recipe's order
INFERENCE_SETTINGS = "<inference settings>"  # where it takes the answer-changing inference settings
_SLOTS = (RECIPE_PARAMETERS, INFERENCE_SETTINGS)


@dataclass(frozen=True)
class Schema:
    """The keys of one kind of signature, declared once, in the order they are written. A field not declared
    is a programming error (a new key is added here first); optional keys may be left out."""

    kind: str
    keys: tuple[str, ...]

    def create(
        self, fields: Mapping[str, Any], *, recipe_keys: Sequence[str] = (), setting_keys: Sequence[str] = ()
    ) -> Signature:
        """The signature of `fields` in this schema's order; `recipe_keys` are the recipe's own fields and
        `setting_keys` the inference settings', each written where this schema's slot for them stands."""
        return Signature.create(self.ordered(fields, recipe_keys=recipe_keys, setting_keys=setting_keys))

    def ordered(
        self, fields: Mapping[str, Any], *, recipe_keys: Sequence[str] = (), setting_keys: Sequence[str] = ()
    ) -> dict[str, Any]:
        """`fields` in this schema's order, for a signature that adds them to another's keys."""
        declared = [key for key in self.keys if key not in _SLOTS]
        slots = {RECIPE_PARAMETERS: list(recipe_keys), INFERENCE_SETTINGS: list(setting_keys)}
        opened = {key for keys in slots.values() for key in keys}
        unknown = [key for key in fields if key not in declared and key not in opened]
        if unknown:
            raise ValueError(f"{self.kind} signature: undeclared keys {unknown}; declare them in robustqa.signature")
        ordered: dict[str, Any] = {}
        for key in self.keys:
            if key in slots:
                ordered.update((k, fields[k]) for k in slots[key] if k in fields and k not in declared)
            elif key in fields:
                ordered[key] = fields[key]
        return ordered


# A built file: the recipe and its parameters, the build's own settings.
BUILD = Schema("build", ("recipe", RECIPE_PARAMETERS, "variants", "seed", "wordnet"))
# An evaluation run: the data, the shift, the models, what changes answers, the bootstrap.
RUN = Schema(
    "run",
    (
        "clean",
        "perturbed",
        "recipe",
        "kinds",
        "headline_kinds",
        "rules",
        "validated",
        "articles",
        "exclude_articles",
        "limit",
        "models",
        INFERENCE_SETTINGS,
        "na_prob_thresh",
        "bootstrap",
        "seed",
    ),
)
# An attack: the recipe and its parameters, the target, the input, the search, what changes answers.
ATTACK = Schema(
    "attack",
    (
        "attack",
        RECIPE_PARAMETERS,
        "variants_file",
        "target",
        "input",
        "limit",
        "budget",
        "max_edits",
        "beam",
        "penalised",
        "flip_margin",
        "seed",
        INFERENCE_SETTINGS,
        "wordnet",
    ),
)
# An imported shift (AddSent, SQuAD-Shifts, ...): the set and its input file.
IMPORT = Schema("import", ("shift", "input"))
# A training set with variants beside its questions: where the variants come from, how many, the input's hash
# (the recipe's build signature or the variants file's signature follows).
AUGMENT = Schema("augment", ("augment", "variants", "input"))
# A fine-tuned model: the base model, the data, the variants, the settings that change the weights.
TRAIN = Schema(
    "train",
    (
        "base",
        "train",
        "augment",
        "variants",
        "adversarial",
        "adversarial_sample",
        "adversarial_budget",
        "max_seq_length",
        "doc_stride",
        "steps",
        "epochs",
        "batch_size",
        "learning_rate",
        "weight_decay",
        "warmup_ratio",
        "precision",
        "seed",
    ),
)
# What a review adds to a built file's signature (its own keys follow the file's).
VALIDATION = Schema("validation", ("validated", "accepted", "rejected", "unreviewed"))
