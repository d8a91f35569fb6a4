"""The kind of every edit, decided by rules and tested on lists (perturbations/edit_kinds.py)."""

from __future__ import annotations

import pytest

from perturbations.edit_kinds import EDIT_KINDS, EditKind, edit_kind

SPELLING = [
    ("color", "colour"),
    ("organization", "organisation"),
    ("organizations", "organisations"),
    ("recognized", "recognised"),
    ("characterized", "characterised"),
    ("utilized", "utilised"),
    ("analyze", "analyse"),
    ("analyzing", "analysing"),
    ("program", "programme"),
    ("programmes", "programs"),
    ("gray", "grey"),
    ("center", "centre"),
    ("centers", "centres"),
    ("theatre", "theater"),
    ("meters", "metres"),
    ("defense", "defence"),
    ("license", "licence"),
    ("licensed", "licenced"),
    ("catalog", "catalogue"),
    ("tumor", "tumour"),
    ("neighborhood", "neighbourhood"),
    ("behavior", "behaviour"),
    ("travelers", "travellers"),
    ("modeling", "modelling"),
    ("anemia", "anaemia"),
    ("fetus", "foetus"),
    ("liveable", "livable"),
    ("judgment", "judgement"),
    ("focused", "focussed"),
    ("connection", "connexion"),
    ("artifact", "artefact"),
    ("email", "e-mail"),
    ("healthcare", "health care"),
    ("Tumor", "Tumour"),
    # a synonym in a spelling the original avoids
    ("used", "utilised"),
    ("efforts", "endeavours"),
]

ABBREVIATION = [
    ("year", "yr"),
    ("hour", "hr"),
    ("number", "no."),
    ("approximately", "approx"),
    ("approximately", "approx."),
    ("information", "info"),
    ("examination", "exam"),
    ("mathematics", "math"),
    ("math", "mathematics"),
    ("laboratory", "lab"),
    ("corporation", "corp"),
    ("equivalent", "eq"),
    ("minute", "min"),
    ("pound", "lb"),
    ("television", "tv"),
    ("automobile", "auto"),
    ("United States", "US"),
    ("government", "govt."),
]

MORPHOLOGY = [
    ("electric", "electrical"),
    ("theoretical", "theoretic"),
    ("geographic", "geographical"),
    ("running", "run"),
    ("curved", "curving"),
    ("proven", "proved"),
    ("countries", "country"),
]

RARE = [
    ("year", "twelvemonth"),
    ("located", "sited"),
    ("building", "edifice"),
    ("lived", "dwelt"),
    ("father", "begetter"),
    ("immunity", "unsusceptibility"),
    ("former", "erstwhile"),
    ("week", "hebdomad"),
]

SYNONYM = [
    ("used", "employed"),
    ("used", "utilized"),
    ("kind", "sort"),
    ("country", "nation"),
    ("founded", "set up"),
    ("percentage", "percent"),
    ("war", "warfare"),
    ("fort", "fortress"),
    ("network", "net"),
    ("art", "artistry"),
    ("arch", "archway"),
    ("use", "usage"),
    ("valley", "vale"),
    ("car", "automobile"),
    ("city", "urban center"),
    ("law", "jurisprudence"),
    ("large", "big"),
    ("often", "oft"),
    ("tax", "taxation"),
]


@pytest.mark.parametrize(
    ("original", "replacement", "kind"),
    [(o, r, EditKind.SPELLING) for o, r in SPELLING]
    + [(o, r, EditKind.ABBREVIATION) for o, r in ABBREVIATION]
    + [(o, r, EditKind.MORPHOLOGY) for o, r in MORPHOLOGY]
    + [(o, r, EditKind.RARE) for o, r in RARE]
    + [(o, r, EditKind.SYNONYM) for o, r in SYNONYM],
)
def test_the_kind_of_each_listed_edit(original: str, replacement: str, kind: EditKind) -> None:
    assert edit_kind(original, replacement) is kind


def test_the_kinds_are_the_strings_every_file_uses() -> None:
    assert EDIT_KINDS == ("synonym", "rare", "spelling", "abbreviation", "morphology")
    assert str(EditKind.RARE) == "rare" and EditKind("spelling") is EditKind.SPELLING


def test_a_british_original_with_a_neutral_replacement_is_a_synonym() -> None:
    # the spelling rule looks at the replacement's spelling, not at the original's
    assert edit_kind("colour", "hue") is EditKind.SYNONYM
