"""The packaged spelling tables (`data/spelling_variants-<n>.json`, built by `tools/spelling_table.py`): British
spellings and the American spelling of the same word form, named and hashed.

Why a module of their own: two readers need them, the spelling transformation (`perturbations.spelling`) and the
edit-kind rules (`perturbations.edit_kinds`, which call every pair of a table a spelling); the rules sit below the
records every transformation writes, so they cannot import a transformation.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import cache
from importlib import resources

from perturbations.errors import RecipeParameterError

_PREFIX = "spelling_variants-"


@dataclass(frozen=True)
class SpellingTable:
    """One packaged table: `british` maps a British spelling to the American one of the same word form."""

    name: str
    sha256: str
    british: dict[str, str]

    def other(self, word: str, direction: str) -> tuple[str, str] | None:
        """The other spelling of a lower-case word and which way it goes ("en-GB>en-US"), or None."""
        if direction != "to-british" and word in self.british:
            return self.british[word], "en-GB>en-US"
        if direction != "to-american" and word in self.american:
            return self.american[word], "en-US>en-GB"
        return None

    @property
    def american(self) -> dict[str, str]:
        return _inverse(self.name)

    def describe(self) -> str:
        return f"{self.name} ({len(self.british)} pairs, sha256 {self.sha256[:12]})"


def table_names() -> tuple[str, ...]:
    """The packaged spelling tables, by name ("spelling-1", ...)."""
    folder = resources.files("perturbations") / "data"
    names = (p.name for p in folder.iterdir() if p.name.startswith(_PREFIX) and p.name.endswith(".json"))
    return tuple(sorted("spelling-" + n[len(_PREFIX) : -len(".json")] for n in names))


@cache
def spelling_table(name: str) -> SpellingTable:
    """A packaged table by name; RecipeParameterError naming the tables there are when it does not exist."""
    if name not in table_names():
        raise RecipeParameterError(f"no spelling table '{name}'; tables: {', '.join(table_names()) or 'none'}")
    raw = (resources.files("perturbations") / "data" / f"{_PREFIX}{name[len('spelling-') :]}.json").read_bytes()
    return SpellingTable(name, hashlib.sha256(raw).hexdigest(), dict(json.loads(raw)["pairs"]))


@cache
def _inverse(name: str) -> dict[str, str]:
    return {us: gb for gb, us in spelling_table(name).british.items()}
