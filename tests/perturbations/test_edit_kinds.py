"""The kind of every edit, decided by rules and tested on lists (perturbations/edit_kinds.py), in every rules
version the engine has: each list keeps its kinds under each version, and a new version fixes what the older
one got wrong without changing it."""

from __future__ import annotations

import dataclasses

import pytest

from perturbations.edit_kinds import (
    EDIT_KIND_RULES,
    EDIT_KINDS,
    RULES,
    EditKind,
    edit_kind,
)
from perturbations.errors import UnknownEditKindRulesError
from perturbations.spelling_tables import spelling_table

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

# What edit-kinds-1 called something else in spelling@1's own table (31 of its 489 pairs; all of them are also
# in that table, which edit-kinds-2 reads last: these are decided by its rules before it). edit-kinds-1 keeps
# its answers (its kinds are stored in certified@2).
SPELLING_SINCE_2 = [
    ("behavioural", "behavioral", "synonym"),
    ("catalogued", "cataloged", "synonym"),
    ("cosy", "cozy", "synonym"),
    ("counsellor", "counselor", "synonym"),
    ("counsellors", "counselors", "synonym"),
    ("enrolment", "enrollment", "synonym"),
    ("enrolments", "enrollments", "synonym"),
    ("enrols", "enrolls", "synonym"),
    ("fulfilment", "fulfillment", "synonym"),
    ("fulfils", "fulfills", "morphology"),
    ("greyish", "grayish", "synonym"),
    ("instalment", "installment", "synonym"),
    ("instalments", "installments", "synonym"),
    ("jewellery", "jewelry", "synonym"),
    ("marvellous", "marvelous", "synonym"),
    ("meagre", "meager", "synonym"),
    ("moulded", "molded", "synonym"),
    ("mouldy", "moldy", "synonym"),
    ("moustache", "mustache", "synonym"),
    ("oesophagus", "esophagus", "synonym"),
    ("oestrogen", "estrogen", "synonym"),
    ("ploughed", "plowed", "synonym"),
    ("ploughs", "plows", "synonym"),
    ("scepticism", "skepticism", "synonym"),
    ("sceptics", "skeptics", "synonym"),
    ("skilfully", "skillfully", "synonym"),
    ("sulphate", "sulfate", "synonym"),
    ("sulphur", "sulfur", "synonym"),
    ("sulphuric", "sulfuric", "synonym"),
    ("wilful", "willful", "synonym"),
    ("woollen", "woolen", "synonym"),
]

# not in the table, reached by edit-kinds-2's general rules: one word spelt two ways (moulder is British for
# molder, in both its senses: to decay, one who moulds), a listed pair with an ending (descendent/descendant)
SPELLING_2_RULES = [
    ("molder", "moulder"),
    ("smoldering", "smouldering"),
    ("councilor", "councillor"),
    ("aesthetic", "esthetic"),
    ("ocher", "ochre"),
    ("checkered", "chequered"),
    ("descendants", "descendents"),
]

# edit-kinds-1 read these as spellings (its -our and oe rules reach "four" -> "for", "poet" -> "pet", and the
# more common "American" form made the replacement British); they are not, and edit-kinds-2 says so
NOT_SPELLING_SINCE_2 = [
    ("4", "four", "synonym"),
    ("bard", "poet", "synonym"),
    ("tor", "tour", "synonym"),
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


LISTED = (
    [(o, r, EditKind.SPELLING) for o, r in SPELLING]
    + [(o, r, EditKind.ABBREVIATION) for o, r in ABBREVIATION]
    + [(o, r, EditKind.MORPHOLOGY) for o, r in MORPHOLOGY]
    + [(o, r, EditKind.RARE) for o, r in RARE]
    + [(o, r, EditKind.SYNONYM) for o, r in SYNONYM]
)


@pytest.mark.parametrize("rules", sorted(RULES))
@pytest.mark.parametrize(("original", "replacement", "kind"), LISTED)
def test_the_kind_of_each_listed_edit_in_every_rules_version(
    original: str, replacement: str, kind: EditKind, rules: str
) -> None:
    assert edit_kind(original, replacement, rules) is kind


def test_the_current_rules_are_the_newest_and_the_default() -> None:
    assert list(RULES) == ["edit-kinds-1", "edit-kinds-2"] and EDIT_KIND_RULES == "edit-kinds-2"
    assert [edit_kind(o, r) for o, r, _ in SPELLING_SINCE_2] == [EditKind.SPELLING] * len(SPELLING_SINCE_2)


def test_every_pair_of_the_spelling_table_is_a_spelling_both_ways_by_edit_kinds_2() -> None:
    table = spelling_table("spelling-1")
    assert len(table.british) == 489
    missed = [
        (gb, us)
        for gb, us in table.british.items()
        if edit_kind(gb, us, "edit-kinds-2") is not EditKind.SPELLING
        or edit_kind(us, gb, "edit-kinds-2") is not EditKind.SPELLING
    ]
    assert not missed


def test_the_rules_alone_reach_every_pair_edit_kinds_1_missed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The table is edit-kinds-2's last resort, not its rule: without it, the same pairs are spellings."""
    monkeypatch.setitem(RULES, "rules-only", dataclasses.replace(RULES["edit-kinds-2"], spelling_table=""))
    pairs = [(o, r) for o, r, _ in SPELLING_SINCE_2] + SPELLING_2_RULES
    assert {edit_kind(a, b, "rules-only") for o, r in pairs for a, b in ((o, r), (r, o))} == {EditKind.SPELLING}


@pytest.mark.parametrize(("british", "american", "kind_1"), SPELLING_SINCE_2)
def test_edit_kinds_1_keeps_its_answers_on_the_pairs_it_missed(british: str, american: str, kind_1: str) -> None:
    assert edit_kind(british, american, "edit-kinds-1").value == kind_1
    assert edit_kind(american, british, "edit-kinds-1").value == kind_1
    assert edit_kind(british, american, "edit-kinds-2") is EditKind.SPELLING


@pytest.mark.parametrize(("original", "replacement"), SPELLING_2_RULES)
def test_spellings_the_table_does_not_list_by_edit_kinds_2(original: str, replacement: str) -> None:
    assert edit_kind(original, replacement, "edit-kinds-2") is EditKind.SPELLING
    assert edit_kind(replacement, original, "edit-kinds-2") is EditKind.SPELLING


@pytest.mark.parametrize(("original", "replacement", "kind"), NOT_SPELLING_SINCE_2)
def test_false_spellings_of_edit_kinds_1_are_fixed_in_edit_kinds_2(original: str, replacement: str, kind: str) -> None:
    assert edit_kind(original, replacement, "edit-kinds-1") is EditKind.SPELLING
    assert edit_kind(original, replacement, "edit-kinds-2").value == kind


def test_rules_the_engine_does_not_have_are_named_with_the_ones_it_has() -> None:
    with pytest.raises(UnknownEditKindRulesError, match="no edit-kind rules 'edit-kinds-0'; rules: edit-kinds-1, "):
        edit_kind("colour", "color", "edit-kinds-0")


def test_the_kinds_are_the_strings_every_file_uses() -> None:
    assert EDIT_KINDS == ("synonym", "rare", "spelling", "abbreviation", "morphology")
    assert str(EditKind.RARE) == "rare" and EditKind("spelling") is EditKind.SPELLING


def test_a_british_original_with_a_neutral_replacement_is_a_synonym() -> None:
    # the spelling rule looks at the replacement's spelling, not at the original's
    assert edit_kind("colour", "hue") is EditKind.SYNONYM
