"""The attack's view of a file of variants (a reviewed set such as `certified@1`, or a build with `--variants`):
each question's space is the variants the file lists for it, nothing the recipe could make besides.

Why: a reviewed set's variants were judged one by one; searching only them keeps every flip the attack
reports inside what reviewers accepted, where a recipe's space holds edits nobody judged. The variants keep
the file's own edit records, so the adversarial set carries them as the file does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perturbations.records import Perturbation, Substitution
from robustqa.attack.attack_space import Choice, Slot, Space
from robustqa.attack.search import Search, Variant, search_listed
from robustqa.errors import InputError
from robustqa.evaluation.data import EvalData
from robustqa.squad import QAExample


def listed_variants(data: EvalData, path: Path) -> dict[str, tuple[QAExample, ...]]:
    """The changed variants of each clean question, in file order. A variant must edit the clean question it
    names (its edit records point into that text) and leave the context alone (the attack edits questions)."""
    clean = data.clean_by_id
    listed: dict[str, list[QAExample]] = {}
    for variant in data.perturbed or ():
        source = clean[data.mapping[variant.id]]
        if data.context_changed.get(variant.id):
            raise InputError(
                f"variant {variant.id} changes its context; the attack searches question edits only",
                path=str(path),
                hint="give a file of question variants",
            )
        if not data.changed.get(variant.id):
            continue
        if variant.original_question != source.question:
            raise InputError(
                f"variant {variant.id} was made from another question than {source.id}'s "
                f"({variant.original_question!r}, not {source.question!r})",
                path=str(path),
                hint="give the clean file the variants were built from",
            )
        listed.setdefault(source.id, []).append(variant)
    return {qid: tuple(variants) for qid, variants in listed.items()}


def listed_space(question: str, variants: Sequence[QAExample], ident: str) -> tuple[Space, tuple[Variant, ...]]:
    """The question's slots (every place a listed variant edits, with every replacement listed there, in the
    order first listed) and the listed variants as the search scores them, each with its own edit records."""
    places = sorted({(sub.start, sub.end) for variant in variants for sub in variant.substitutions})
    index = {place: k for k, place in enumerate(places)}
    choices: dict[tuple[int, int], dict[str, Choice]] = {place: {} for place in places}
    heads: dict[tuple[int, int], Substitution] = {}  # the first listed edit of each place names its word
    for variant in variants:
        for sub in variant.substitutions:
            place, form = (sub.start, sub.end), sub.replacement.lower()
            heads.setdefault(place, sub)
            if form not in choices[place]:
                choices[place][form] = Choice(index[place], len(choices[place]), form, form, sub.confidence)
    slots = tuple(
        Slot(index[p], heads[p].original, p[0], p[1], heads[p].pos, heads[p].synset, tuple(choices[p].values()))
        for p in places
    )
    listed = tuple(
        Variant(
            tuple(choices[(s.start, s.end)][s.replacement.lower()] for s in sorted(v.substitutions, key=_start)),
            Perturbation(question, v.question, v.substitutions, recipe=ident),
        )
        for v in variants
    )
    return Space(question, ident, slots, max((len(v.choices) for v in listed), default=0), 1), listed


def _start(sub: Substitution) -> int:
    return sub.start


@dataclass(frozen=True)
class ListedSpaces:
    """What the attack searches when given a file of variants: each question's listed variants, in file order,
    at most the budget of them (see `robustqa.attack.driver.RecipeSpaces` for a recipe's space)."""

    ident: str  # the set's recipe as its file names it (certified@1, qads@1.1, ...)
    path: Path
    sha: str
    build_signature: str | None
    review: dict[str, Any] | None
    variants: dict[str, tuple[QAExample, ...]]
    budget: int

    def record(self) -> dict[str, Any]:
        """attack.json's and adversarial.json's account of the space (a recipe's would be its recipe record)."""
        name, _, version = self.ident.partition("@")
        return {
            "name": name,
            "version": version,
            "variants_file": self.path.name,
            "variants_sha": self.sha,
            "signature": self.build_signature,
            "review": self.review,
        }

    def signature_fields(self) -> tuple[dict[str, Any], list[str]]:
        """The set and the file's hash: the variants are what they are, no parameter changes them."""
        return {"attack": self.ident, "variants_file": self.sha}, []

    def check_resources(self) -> None:
        """Nothing to check: the file was read and checked already."""

    def prepare(self, examples: Sequence[QAExample]) -> None:
        """Nothing to prepare: the variants are written already."""

    def plan(self, example: QAExample) -> tuple[Space, int, Search]:
        space, variants = listed_space(example.question, self.variants.get(example.id, ()), self.ident)
        return space, space.limit, search_listed(variants, budget=self.budget)
