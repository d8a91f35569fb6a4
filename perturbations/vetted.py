"""Vetted synonym tables: for a word (lemma and part of speech), the WordNet synonyms that reviewers found
safe in practically every question that uses the word, not only where WSD guessed its sense right.

Why a table: enhanced Lesk picks the right WordNet sense about half the time, and WordNet alone cannot tell
a synonym of the word from a synonym of one of its other senses ("bill" -> "note"), so every model-free
gate leaves wrong senses in. A pair judged once for all the word's common senses does not depend on WSD.
A table ships with the package, is read in milliseconds, and is named and hashed in every signature; a
changed table is a new file with a new name, so a published recipe keeps building the same questions.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import cache
from importlib import resources

from perturbations.errors import RecipeParameterError

_PREFIX = "vetted_synonyms-"


@dataclass(frozen=True)
class VettedTable:
    """One packaged table: `pairs` maps "lemma.pos" (pos a WordNet letter, "a" for every adjective) to
    the safe synonyms' WordNet lemma names, most frequent first (the vetting sheet's order); `sha256` is the
    file's digest, which signatures carry."""

    name: str
    sha256: str
    description: str
    pairs: dict[str, tuple[str, ...]]

    def allowed(self, lemma: str, pos: str) -> tuple[str, ...]:
        """The vetted synonyms of a word, or () when no reviewer vetted one."""
        return self.pairs.get(f"{lemma}.{'a' if pos == 's' else pos}", ())

    def describe(self) -> str:
        n_pairs = sum(len(v) for v in self.pairs.values())
        return f"{self.name} ({len(self.pairs)} words, {n_pairs} pairs, sha256 {self.sha256[:12]})"


def table_names() -> tuple[str, ...]:
    """The packaged tables, by name ("vetted-1", ...)."""
    folder = resources.files("perturbations") / "data"
    names = (p.name for p in folder.iterdir() if p.name.startswith(_PREFIX) and p.name.endswith(".json"))
    return tuple(sorted("vetted-" + n[len(_PREFIX) : -len(".json")] for n in names))


@cache
def vetted_table(name: str) -> VettedTable:
    """A packaged table by name; RecipeParameterError naming the tables there are when it does not exist."""
    if name not in table_names():
        raise RecipeParameterError(f"no vetted synonym table '{name}'; tables: {', '.join(table_names()) or 'none'}")
    raw = (resources.files("perturbations") / "data" / f"{_PREFIX}{name[len('vetted-') :]}.json").read_bytes()
    document = json.loads(raw)
    pairs = {key: tuple(names) for key, names in document["pairs"].items() if names}
    return VettedTable(name, hashlib.sha256(raw).hexdigest(), document.get("description", ""), pairs)
