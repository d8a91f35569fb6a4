"""What kind of edit a substitution is: a synonym, or something a synonym list also yields.

WordNet lists as "synonyms" spellings of the same word (colour/color), short forms (year/yr), other forms of
the same lemma and rare or archaic words (year/twelvemonth). A model that fails on those fails at something
other than knowing synonyms, so every edit is given a kind and a report can count the kinds apart. The kind is
a pure function of the original word and its replacement: it is decided by the rules below, in this order
(the first that holds wins), and never by a model:

1. `spelling`: the same word spelt another way: British/American (-our/-or, -ise/-ize, -yse/-yze, -re/-er,
   -ogue/-og, -ence/-ense, ae/oe/e, doubled l or s, -eable, -dgement) or a listed pair (programme/program,
   grey/gray, ...), or the same letters split or joined differently (e-mail/email, set up/setup); also a
   replacement spelt the British way where the original is not (used/utilised): the model meets a spelling,
   not only a synonym.
2. `morphology`: another form of the same lemma (lemminflect's lemmas meet) or -ic/-ical (electric/electrical).
3. `abbreviation`: one side is a short form of the other: it ends in a full stop, is its initials (United
   States/US), a listed short form (number/no., automobile/auto), a clipping (examination/exam,
   approximately/approx: a prefix at most half as long, four letters allowed, whose remainder is neither a
   suffix nor a word: not war/warfare) or a contraction (year/yr, hour/hr: the first letter, then consonants
   of the long form in order).
4. `rare`: the replacement is much rarer than the original: wordfreq Zipf below `RARE_ZIPF` and at least
   `RARE_DROP` below the original's (year, 5.96 → twelvemonth, 1.55).
5. `synonym`: everything else.

No rule needs WordNet or the network: wordfreq and lemminflect ship their data.

The rules are versioned (`RULES`, by name): a file that stores kinds names the version that decided them, and a
change to any rule or list is a new version beside the old ones. `edit-kinds-1` is the first; `edit-kinds-2`
(`EDIT_KIND_RULES`, the current) adds to rule 1 what `edit-kinds-1` missed in `spelling@1`'s own table (31 of its
489 pairs, behavioural/behavioral to woollen/woolen): British -oural, -ogued, -gre, -chre, -lment/-lful against
American -llment/-llful, -llor/-llous/-llery and woollen against single l, sulph-, word-initial oe/ae, mould and
smoulder, moustache, sceptic-, chequer-, cosy; a listed pair with one ending added to both (plough/plow ->
ploughed/plowed, grey/gray -> greyish/grayish); and, last, any pair of the packaged table `spelling-1` (the rules
alone reach all 31). It also drops two false spellings of `edit-kinds-1`: -our after one letter (four/for,
tour/tor) and oe in poet/poem and before a final s (goes): bard -> poet is a synonym, not poet spelt "pet".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache

from perturbations.errors import UnknownEditKindRulesError


class EditKind(str, Enum):
    """The kinds of edit, by their value (the string in every file)."""

    SYNONYM = "synonym"
    RARE = "rare"
    SPELLING = "spelling"
    ABBREVIATION = "abbreviation"
    MORPHOLOGY = "morphology"

    def __str__(self) -> str:
        return self.value


EDIT_KINDS: tuple[str, ...] = tuple(kind.value for kind in EditKind)


RARE_ZIPF = 3.0  # under 1 in a million words
RARE_DROP = 1.5  # and at least 1.5 Zipf (a factor of ~30) rarer than the word it replaces

# British/American pairs (and other spellings of one word) that the rules below do not reach (edit-kinds-1).
_SPELLING_PAIRS_1: frozenset[frozenset[str]] = frozenset(
    frozenset(pair)
    for pair in (
        ("programme", "program"),
        ("programmes", "programs"),
        ("grey", "gray"),
        ("greys", "grays"),
        ("tyre", "tire"),
        ("tyres", "tires"),
        ("kerb", "curb"),
        ("plough", "plow"),
        ("cheque", "check"),
        ("aluminium", "aluminum"),
        ("mould", "mold"),
        ("moulds", "molds"),
        ("sceptic", "skeptic"),
        ("sceptical", "skeptical"),
        ("storey", "story"),
        ("storeys", "stories"),
        ("draught", "draft"),
        ("gaol", "jail"),
        ("pyjamas", "pajamas"),
        ("ageing", "aging"),
        ("connexion", "connection"),
        ("inflexion", "inflection"),
        ("whisky", "whiskey"),
        ("learnt", "learned"),
        ("spelt", "spelled"),
        ("burnt", "burned"),
        ("dreamt", "dreamed"),
        ("descendent", "descendant"),
        ("enrol", "enroll"),
        ("fulfil", "fulfill"),
        ("skilful", "skillful"),
        ("instil", "instill"),
        ("artefact", "artifact"),
        ("artefacts", "artifacts"),
        ("manoeuvre", "maneuver"),
        ("manoeuvres", "maneuvers"),
    )
)

# British spelling -> American, applied to both words: two different words that meet are one word spelt twice.
_BRITISH_TO_AMERICAN_1: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), replacement)
    for pattern, replacement in (
        (r"(?<=[a-z]{2})is(e|es|ed|ing|er|ers|ation|ations|able)\b", r"iz\1"),  # organise, organisation, utilised
        (r"(?<=[a-z])ys(e|es|ed|ing|er|ers)\b", r"yz\1"),  # analyse, paralysed
        (r"(?<=[a-z])our(s|ed|ing|ite|ites|ful|less|able|ably|er|ers|ism|ist|ists|hood|hoods|ly)?\b", r"or\1"),
        (r"(?<=[a-z][bt])re(s?)\b", r"er\1"),  # centre, fibre, theatres
        (r"(?<=[a-z][bt])r(ed|ing)\b", r"er\1"),  # centred, centring
        (r"(?<=[a-z])ogue(s?)\b", r"og\1"),  # catalogue, dialogue
        (r"(?<=[a-z])ence(s?)\b", r"ense\1"),  # defence, licence
        (r"(?<=[a-z]{2})enc(ed|ing)\b", r"ens\1"),  # licenced
        (r"(?<=[a-z])(?:ae|oe)(?=[a-z])", "e"),  # anaemia, encyclopaedia, foetus
        (r"(?<=[a-z])ll(ed|ing|er|ers|ation)\b", r"l\1"),  # travelled, modelling, cancellation
        (r"(?<=[a-z])eable\b", "able"),  # liveable, sizeable
        (r"(?<=[a-z]u)ss(ed|es|ing)\b", r"s\1"),  # focussed
        (r"dgement(s?)\b", r"dgment\1"),  # judgement, acknowledgement
    )
)

# edit-kinds-2: what edit-kinds-1 missed in spelling@1's own table, as rules (see the module's docstring)
_SPELLING_PAIRS_2 = _SPELLING_PAIRS_1 | {frozenset(("jewellery", "jewelry")), frozenset(("instal", "install"))}
_BRITISH_TO_AMERICAN_2: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), replacement)
    for pattern, replacement in (
        (r"(?<=[a-z]{2})is(e|es|ed|ing|er|ers|ation|ations|able)\b", r"iz\1"),
        (r"(?<=[a-z])ys(e|es|ed|ing|er|ers)\b", r"yz\1"),
        # after two letters at least (odour): four, hour, tour, your are no British spellings
        (
            r"(?<=[a-z]{2})our(s|ed|ing|ite|ites|ful|less|able|ably|er|ers|ism|ist|ists|hood|hoods|ly|al|ally)?\b",
            r"or\1",
        ),  # behavioural
        (r"(?<=[a-z][bt])re(s?)\b", r"er\1"),
        (r"(?<=[aeiou]{2}g)re(s?)\b", r"er\1"),  # meagre (not ogre, tigre)
        (r"(?<=[a-z]ch)re(s?)\b", r"er\1"),  # ochre, sepulchre
        (r"(?<=[a-z][bt])r(ed|ing)\b", r"er\1"),
        (r"(?<=[a-z])ogue(s?)\b", r"og\1"),
        (r"(?<=[a-z])ogu(ed|ing)\b", r"og\1"),  # catalogued
        (r"(?<=[a-z])ence(s?)\b", r"ense\1"),
        (r"(?<=[a-z]{2})enc(ed|ing)\b", r"ens\1"),
        (r"\b(?:ae|oe)(?=[a-z]{3})", "e"),  # oesophagus, oestrogen, aesthetic
        # within a word, but not poet/poem (pet, pem) nor goes/does/heroes
        (r"(?<=[a-z])(?:ae|(?<!\bp)oe)(?=[a-z])(?!s\b)", "e"),
        (r"(?<=[a-z])ll(ed|ing|er|ers|ation|or|ors|ous|ously|ery)\b", r"l\1"),  # counsellor, marvellous
        (r"(?<=oo)llen\b", "len"),  # woollen (not fallen, swollen, Gallen)
        (r"(?<=[a-z][aeiou])l(ment|ments|ful|fully|fulness)\b", r"ll\1"),  # enrolment, skilful
        (r"(?<=[a-z])eable\b", "able"),
        (r"(?<=[a-z]u)ss(ed|es|ing)\b", r"s\1"),
        (r"dgement(s?)\b", r"dgment\1"),
        (r"\bsulph", "sulf"),  # sulphur, sulphate
        (r"\b(s?m)oul(?=d)", r"\1ol"),  # mould, moulded, mouldy, moulder, smoulder
        (r"\bmoustach", "mustach"),
        (r"\bsceptic", "skeptic"),  # sceptics, scepticism
        (r"\bchequer", "checker"),  # chequered
        (r"\bcos(y|ier|iest|ily|iness)\b", r"coz\1"),
    )
)
# a listed pair still holds with one of these added to both words (plough/plow -> ploughed/plowed)
_PAIR_ENDINGS_2 = ("s", "es", "ed", "ing", "er", "ers", "y", "ish", "ly", "ness", "ment", "ments")


@dataclass(frozen=True)
class EditKindRules:
    """One version of the rules. The versions differ only in what rule 1 (spelling) reads so far: its listed
    pairs, its British -> American patterns, the endings a listed pair may take, and a packaged spelling table
    (`perturbations.spelling_tables`) whose every pair is a spelling ("" for none)."""

    name: str
    spelling_pairs: frozenset[frozenset[str]]
    british_to_american: tuple[tuple[re.Pattern[str], str], ...]
    pair_endings: tuple[str, ...] = ()
    spelling_table: str = ""


# Every version this engine has, by name; a version never changes (files and signatures name it).
RULES: dict[str, EditKindRules] = {
    rules.name: rules
    for rules in (
        EditKindRules("edit-kinds-1", _SPELLING_PAIRS_1, _BRITISH_TO_AMERICAN_1),
        EditKindRules("edit-kinds-2", _SPELLING_PAIRS_2, _BRITISH_TO_AMERICAN_2, _PAIR_ENDINGS_2, "spelling-1"),
    )
}
# The current version: what `edit_kind` and a record without a stored kind use.
EDIT_KIND_RULES = "edit-kinds-2"


def rules_named(name: str) -> EditKindRules:
    """A rules version by name; UnknownEditKindRulesError naming the versions there are when it does not exist."""
    try:
        return RULES[name]
    except KeyError:
        raise UnknownEditKindRulesError(f"no edit-kind rules '{name}'; rules: {', '.join(RULES)}") from None


# short forms whose letters are not a clipping of the long form
_SHORT_FORMS: frozenset[frozenset[str]] = frozenset(
    frozenset(pair)
    for pair in (
        ("number", "no"),
        ("numbers", "nos"),
        ("pound", "lb"),
        ("pounds", "lbs"),
        ("ounce", "oz"),
        ("ounces", "oz"),
        ("versus", "vs"),
        ("and", "&"),
        ("doctor", "dr"),
        ("mister", "mr"),
        ("automobile", "auto"),
        ("photograph", "photo"),
        ("telephone", "phone"),
        ("airplane", "plane"),
        ("aeroplane", "plane"),
        ("bicycle", "bike"),
        ("advertisement", "ad"),
        ("influenza", "flu"),
        ("refrigerator", "fridge"),
    )
)

_UPOS = ("NOUN", "VERB", "ADJ", "ADV")


def _fold(word: str) -> str:
    return word.strip().lower()


def _american(word: str, rules: EditKindRules) -> str:
    for pattern, replacement in rules.british_to_american:
        word = pattern.sub(replacement, word)
    return word


def _british_only(word: str, rules: EditKindRules) -> bool:
    """Whether `word` is spelt the British way and its American spelling is the more common word."""
    from perturbations.frequency import zipf

    american = _american(word, rules)
    return american != word and zipf(american) > zipf(word)


def _listed(a: str, b: str, rules: EditKindRules) -> bool:
    """Whether a and b are a listed pair, or one with the same ending added to both (ploughed/plowed)."""
    if frozenset((a, b)) in rules.spelling_pairs:
        return True
    return any(
        a.endswith(ending)
        and b.endswith(ending)
        and frozenset((a[: -len(ending)], b[: -len(ending)])) in rules.spelling_pairs
        for ending in rules.pair_endings
    )


def _in_table(a: str, b: str, rules: EditKindRules) -> bool:
    if not rules.spelling_table:
        return False
    from perturbations.spelling_tables import spelling_table

    british = spelling_table(rules.spelling_table).british
    return british.get(a) == b or british.get(b) == a


def is_spelling_variant(original: str, replacement: str, rules: str = EDIT_KIND_RULES) -> bool:
    """Whether two different strings are one word spelt two ways (colour/color, e-mail/email), or the
    replacement alone is spelt the British way (used/utilised: a synonym, in a spelling the original avoids),
    by the rules version `rules`."""
    version = rules_named(rules)
    a, b = _fold(original), _fold(replacement)
    if a == b:
        return False
    if _listed(a, b, version):
        return True
    joined_a, joined_b = re.sub(r"[\s\-]", "", a), re.sub(r"[\s\-]", "", b)
    if joined_a == joined_b:
        return True
    if _american(joined_a, version) == _american(joined_b, version):
        return True
    return (_british_only(b, version) and not _british_only(a, version)) or _in_table(a, b, version)


def _is_subsequence(short: str, long: str) -> bool:
    letters = iter(long)
    return all(letter in letters for letter in short)


def _initials(phrase: str) -> str:
    return "".join(part[0] for part in re.split(r"[\s\-]+", phrase) if part)


# what a word gains by derivation, not by being cut short (fortress is fort + ress, not a clipping of it)
_SUFFIXES = frozenset(
    "s es ed er ers ing ly al ally ness ment ments ation ations ition ity ure age ress istry ry ship hood dom ful "
    "less ive ous ist ism ize ise ization isation ic ical".split()
)
COMPOUND_ZIPF = 3.5  # a remainder at least this common is a word: war + fare, net + work, sun + light


def _is_clipping(short: str, long: str) -> bool:
    """`long` cut short to `short` (examination/exam, laboratory/lab), not `short` plus a suffix or a word."""
    from perturbations.frequency import zipf

    remainder = long[len(short) :]
    if not long.startswith(short) or len(remainder) < 3 or remainder in _SUFFIXES:
        return False
    return len(short) <= max(4, len(long) // 2) and zipf(remainder) < COMPOUND_ZIPF


def _is_contraction(short: str, long: str) -> bool:
    """Letters of `long`, not its beginning, without vowels after the first (year/yr, hour/hr, building/bldg)."""
    if len(short) > 4 or long.startswith(short) or re.search(r"[aeiou]", short[1:]):
        return False
    return _is_subsequence(short[1:], long[1:])


def _short_form_of(short: str, long: str) -> bool:
    """Whether `short` (as written) abbreviates `long`."""
    bare = _fold(short).replace(".", "")
    full = _fold(long)
    if not bare or len(bare) >= len(full.replace(" ", "")):
        return False
    if frozenset((bare, full)) in _SHORT_FORMS:
        return True
    if " " in full or "-" in full:
        return len(bare) > 1 and bare == _initials(full)
    if not bare.isalpha() or bare[0] != full[0] or not _is_subsequence(bare, full):
        return False
    return short.strip().endswith(".") or _is_clipping(bare, full) or _is_contraction(bare, full)


def is_abbreviation(original: str, replacement: str) -> bool:
    """Whether either word is a short form of the other (year/yr, number/no., United States/US)."""
    return _short_form_of(replacement, original) or _short_form_of(original, replacement)


@lru_cache(maxsize=100_000)
def _lemmas(word: str, upos: str) -> frozenset[str]:
    from lemminflect import getAllLemmas, getAllLemmasOOV

    found = getAllLemmas(word, upos).get(upos) or getAllLemmasOOV(word, upos).get(upos) or ()
    return frozenset(lemma.lower() for lemma in found) | {word}


def is_same_lemma(original: str, replacement: str) -> bool:
    """Whether the two are forms of one lemma (lemminflect, in any part of speech: a tagger's noun "running" is
    still a form of "run"), or -ic/-ical."""
    a, b = _fold(original), _fold(replacement)
    if a == b or " " in a or " " in b:
        return False
    short, long = sorted((a, b), key=len)
    if short.endswith("ic") and long == short + "al":
        return True
    return any(_lemmas(a, part) & _lemmas(b, part) for part in _UPOS)


def is_rare_replacement(original: str, replacement: str) -> bool:
    """Whether the replacement is much rarer than the original (see `RARE_ZIPF`, `RARE_DROP`)."""
    from perturbations.frequency import zipf

    new = zipf(_fold(replacement))
    return new < RARE_ZIPF and zipf(_fold(original)) - new >= RARE_DROP


def edit_kind(original: str, replacement: str, rules: str = EDIT_KIND_RULES) -> EditKind:
    """The kind of the edit `original` → `replacement`, by the rules version `rules` (the current one unless a
    file names another; the word's tag decides none of them: a spelling, a short form or a frequency is the same
    whatever the tagger said)."""
    if is_spelling_variant(original, replacement, rules):
        return EditKind.SPELLING
    if is_same_lemma(original, replacement):
        return EditKind.MORPHOLOGY
    if is_abbreviation(original, replacement):
        return EditKind.ABBREVIATION
    if is_rare_replacement(original, replacement):
        return EditKind.RARE
    return EditKind.SYNONYM
