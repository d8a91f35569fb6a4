"""AddOneSent (Jia & Liang 2017): like AddSent, but each original question has a single adversarial copy."""

from __future__ import annotations

from robustqa.importers.addsent import CITATION, LICENCE, URL, AdversarialCopiesImporter

ADDONESENT = AdversarialCopiesImporter(
    name="addonesent",
    title="AddOneSent",
    citation=CITATION,
    url=URL,
    licence=LICENCE,
    paired=True,
    version="1",
    accepts="the authors' AddOneSent JSON file (originals and one adversarial copy each)",
    max_copies=1,
)
