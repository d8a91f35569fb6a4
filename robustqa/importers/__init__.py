"""Importers: published shifts of SQuAD as the clean/perturbed files `robustqa eval` reads.

Each format is one module with one `Importer` object; this registry lists them, so a new shift is one file
and one line here. Nothing heavy is imported until an importer reads (`datasets` only for hub inputs).
"""

from __future__ import annotations

from robustqa.errors import InputError
from robustqa.importers.addonesent import ADDONESENT
from robustqa.importers.addsent import ADDSENT
from robustqa.importers.adversarial_qa import ADVERSARIAL_QA
from robustqa.importers.base import (
    CLEAN_FILE,
    PERTURBED_FILE,
    ImportedSet,
    Importer,
    write_import,
)
from robustqa.importers.squad_shifts import SQUAD_SHIFTS

IMPORTERS: dict[str, Importer] = {
    importer.name: importer for importer in (ADDSENT, ADDONESENT, SQUAD_SHIFTS, ADVERSARIAL_QA)
}


def get_importer(name: str) -> Importer:
    try:
        return IMPORTERS[name]
    except KeyError:
        raise InputError(f"unknown format '{name}'", hint=f"choose one of {', '.join(IMPORTERS)}") from None


def importer_of_shift(shift: str | None) -> Importer | None:
    """The importer that wrote a file whose recipe field is `shift` (`addsent@1`); None for robustqa's own shifts."""
    return None if shift is None else IMPORTERS.get(shift.partition("@")[0])


def list_importers() -> list[Importer]:
    return list(IMPORTERS.values())


__all__ = [
    "CLEAN_FILE",
    "IMPORTERS",
    "PERTURBED_FILE",
    "ImportedSet",
    "Importer",
    "get_importer",
    "importer_of_shift",
    "list_importers",
    "write_import",
]
