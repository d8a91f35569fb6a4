"""The transformation and the budget of a recipe: which synonyms a word may get, and how many words change.

A transformation proposes (TextAttack's `Transformation`): `candidates` turns one word into its ranked
synonym candidates, and the engine hands them to the recipe's constraints. They sit below the engine
(`perturbations.engine` imports them; they import nothing of recipes or the engine), so a recipe is built
from parts that know nothing of one another; `EngineRecipe` is what the engine needs of a recipe, so that
the engine and `perturbations.recipes` never import each other.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple, Protocol

from perturbations.components import Component, as_bool, as_count, as_float, as_str
from perturbations.constraints import Candidate, ConstraintPlan, Position
from perturbations.errors import RecipeParameterError
from perturbations.inflect import inflect
from perturbations.lexicon import synset_lemmas
from perturbations.store import persistent
from perturbations.vetted import vetted_table
from perturbations.wsd import METHODS, choose, posterior_names

# Reasons the transformation gives for leaving a word alone (the constraints name their own).
TRANSFORMATION_REASONS = ("no-sense", "no-candidate", "low-confidence")

# The synonyms of one sense (synset name) that the recipe's LEMMA and FORM constraints accept for the word:
# (lemma name, form, inflected), ranked by cntlist count. The engine supplies it, so the transformation
# proposes only writable synonyms without knowing the constraints.
SenseSynonyms = Callable[[str], tuple[tuple[str, str, bool], ...]]


class Word(NamedTuple):
    """A word the transformation is asked about: `low` lower-cased, its Penn `tag`, its WordNet `lemma`
    and `pos`, `senses` (synset name, cntlist count) of every WordNet sense of the lemma, `context` the
    words WSD reads, and `position` where it is (None when no constraint of the recipe looks at the place,
    so candidates need not carry it)."""

    low: str
    tag: str
    lemma: str
    pos: str
    senses: tuple[tuple[str, int], ...]
    context: frozenset[str]
    position: Position | None


@persistent("synset_forms")
def _synset_forms(synset_name: str, tag_: str) -> frozenset[str]:
    """Every lemma of a synset inflected for one tag."""
    return frozenset(f for f in (inflect(name, tag_) for name, _ in synset_lemmas(synset_name)) if f)


def synonym_mass(form: str, tag_: str, dist: list[tuple[str, float]]) -> float:
    """Probability that `form` is a synonym of the word in context: the posterior mass of every
    sense of the word that has `form` among its (inflected) lemmas."""
    total = 0.0
    for name, p in dist:
        if form in _synset_forms(name, tag_):
            total += p
    return min(1.0, total)


@dataclass(frozen=True)
class WordNetSynonyms(Component):
    """Transformation: a word's synonyms from the one WordNet synset its WSD picks.

    Candidates are the synset's other lemmas ranked by cntlist count (ties by name), multiword lemmas
    rendered with spaces, re-inflected to the original Penn tag with case kept. A candidate's confidence
    is the WSD probability mass of every sense of the word that has it among its lemmas; candidates below
    `threshold` are dropped. `use_context` adds the caller's `wsd_context` (a question's paragraph) to the
    words WSD looks at.
    """

    wsd: str = "enhanced-lesk"
    threshold: float = 0.8
    use_context: bool = True
    PARAMETERS: ClassVar[dict[str, Callable[[Any], Any]]] = {
        "wsd": as_str,
        "threshold": as_float,
        "use_context": as_bool,
    }
    REASONS: ClassVar[tuple[str, ...]] = TRANSFORMATION_REASONS

    def validate(self) -> None:
        if self.wsd not in METHODS:
            raise RecipeParameterError(f"wsd must be one of {', '.join(METHODS)}, not '{self.wsd}'")
        if not 0.0 <= self.threshold <= 1.0:
            raise RecipeParameterError(f"threshold must be in [0, 1], not {self.threshold}")

    def candidates(self, word: Word, synonyms: SenseSynonyms) -> list[Candidate] | str:
        """The word's candidates, best first, each with its confidence and the WSD distribution; or the
        reason there are none ("no-candidate", "low-confidence").

        WSD runs only when some sense of the word has a synonym the constraints accept: most words have none."""
        if not any(synonyms(name) for name, _ in word.senses):
            return "no-candidate"
        dist = posterior_names(self.wsd, word.lemma, word.pos, word.context)
        chosen = choose(self.wsd, dist)[0]
        forms = synonyms(chosen)
        if not forms:
            return "no-candidate"
        senses = tuple(dist)
        sure = [
            Candidate(
                word.low, word.tag, word.lemma, word.pos, chosen, name, form, inflected, word.position, senses, conf
            )
            for name, form, inflected in forms
            if (conf := synonym_mass(form, word.tag, dist)) >= self.threshold
        ]
        return sure or "low-confidence"

    def describe(self) -> str:
        return (
            f"WordNetSynonyms(wsd={self.wsd}, threshold={self.threshold}, use_context={self.use_context}, "
            "ranking=cntlist, inflection=lemminflect)"
        )


@dataclass(frozen=True)
class VettedSynonyms(WordNetSynonyms):
    """Transformation: a word's synonyms from any of its WordNet senses, but only those a vetted table
    (`perturbations.vetted`) lists for the word.

    Why every sense: a vetted pair keeps the meaning whichever common sense the word has, so the pair must
    not wait for WSD to pick the one synset that holds it. WSD still orders the candidates (a candidate's
    confidence is, as for `WordNetSynonyms`, the WSD mass of the word's senses that have it), names the
    sense the gates check, and drops candidates below `threshold`. A word the table does not list is left
    alone ("not-vetted").
    """

    threshold: float = 0.0
    table: str = "vetted-1"
    PARAMETERS: ClassVar[dict[str, Callable[[Any], Any]]] = {**WordNetSynonyms.PARAMETERS, "table": as_str}
    REASONS: ClassVar[tuple[str, ...]] = (*TRANSFORMATION_REASONS, "not-vetted")

    def validate(self) -> None:
        super().validate()
        vetted_table(self.table)

    def candidates(self, word: Word, synonyms: SenseSynonyms) -> list[Candidate] | str:
        """The table's synonyms of the word found in any of its senses, each from the most probable sense
        that has it, most confident first (ties in the table's order); or why there are none
        ("not-vetted", "no-candidate", "low-confidence")."""
        vetted = vetted_table(self.table).allowed(word.lemma, word.pos)
        if not vetted:
            return "not-vetted"
        return _any_sense_candidates(word, synonyms, vetted, self.wsd, self.threshold)

    def parameters(self) -> dict[str, object]:
        return super().parameters() | {"table_sha256": vetted_table(self.table).sha256[:12]}

    def describe(self) -> str:
        return (
            f"VettedSynonyms(table={vetted_table(self.table).describe()}, senses=all, wsd={self.wsd}, "
            f"threshold={self.threshold}, use_context={self.use_context}, ranking=WSD synonym mass, "
            "inflection=lemminflect)"
        )


def _any_sense_candidates(
    word: Word, synonyms: SenseSynonyms, allowed: tuple[str, ...], wsd: str, threshold: float
) -> list[Candidate] | str:
    """The synonyms named in `allowed` (lemma names, lower-case ones match) found in any sense of the word,
    each from the most probable sense that has it, most confident first (ties in `allowed`'s order), those
    below `threshold` dropped; or why there are none ("no-candidate", "low-confidence")."""
    dist = posterior_names(wsd, word.lemma, word.pos, word.context)
    probability = dict(dist)
    order = {name: k for k, name in enumerate(allowed)}
    found: dict[str, tuple[float, str, str, bool]] = {}  # form -> (sense probability, sense, name, inflected)
    for sense, _count in word.senses:
        for name, form, inflected in synonyms(sense):
            if name.lower() in order and (form not in found or probability.get(sense, 0.0) > found[form][0]):
                found[form] = (probability.get(sense, 0.0), sense, name, inflected)
    if not found:
        return "no-candidate"
    senses = tuple(dist)
    ranked = sorted(
        (
            Candidate(
                word.low,
                word.tag,
                word.lemma,
                word.pos,
                sense,
                name,
                form,
                inflected,
                word.position,
                senses,
                synonym_mass(form, word.tag, dist),
            )
            for form, (_p, sense, name, inflected) in found.items()
        ),
        key=lambda c: (-(c.confidence or 0.0), order[c.name.lower()]),
    )
    return [c for c in ranked if (c.confidence or 0.0) >= threshold] or "low-confidence"


@dataclass(frozen=True)
class AnySynonyms(WordNetSynonyms):
    """Transformation: every WordNet synonym of every sense of a word, the wide space certification drew
    its round-2 variants from (`tools/certify.py`) and the coverage ceiling measures
    (`benchmarks/coverage_ceiling.py`).

    Why: with no table and no WSD choice in the way, the space holds every synonym a reviewer (or a learned
    judge) could accept, wrong senses included; whatever gates the recipe adds decide. Ranked as
    `VettedSynonyms` ranks its table's pairs (WSD synonym mass, ties in sense then cntlist order), each
    candidate from the most probable sense that has it, candidates below `threshold` dropped.
    """

    threshold: float = 0.0

    def candidates(self, word: Word, synonyms: SenseSynonyms) -> list[Candidate] | str:
        """Every synonym of the word found in any of its senses (a capitalised lemma name only where its
        lower-case spelling is a lemma too), most confident first; or why there are none ("no-candidate",
        "low-confidence")."""
        every = tuple(dict.fromkeys(name for sense, _ in word.senses for name, _count in synset_lemmas(sense)))
        return _any_sense_candidates(word, synonyms, every, self.wsd, self.threshold)

    def describe(self) -> str:
        return (
            f"AnySynonyms(senses=all, wsd={self.wsd}, threshold={self.threshold}, use_context={self.use_context}, "
            "ranking=WSD synonym mass, inflection=lemminflect)"
        )


@dataclass(frozen=True)
class Budget(Component):
    """How many words may change: at most `rate` of the words, within [min, max] per text.

    The budget keeps the most confident candidate words; a text with fewer than
    `min_substitutions` possible edits is left unchanged.
    """

    rate: float = 0.25
    min_substitutions: int = 1
    max_substitutions: int = 3
    PARAMETERS: ClassVar[dict[str, Callable[[Any], Any]]] = {
        "rate": as_float,
        "min_substitutions": as_count,
        "max_substitutions": as_count,
    }

    def validate(self) -> None:
        if not 0.0 < self.rate <= 1.0:
            raise RecipeParameterError(f"rate must be in (0, 1], not {self.rate}")
        if self.min_substitutions < 0 or self.max_substitutions < max(1, self.min_substitutions):
            raise RecipeParameterError(
                f"need 0 <= min_substitutions <= max_substitutions and max_substitutions >= 1, "
                f"not {self.min_substitutions}/{self.max_substitutions}"
            )

    def describe(self) -> str:
        return (
            f"Budget(rate={self.rate}, min_substitutions={self.min_substitutions}, "
            f"max_substitutions={self.max_substitutions})"
        )


class EngineRecipe(Protocol):
    """What the engine reads of a recipe (`perturbations.recipes.Recipe` is one)."""

    @property
    def ident(self) -> str: ...

    @property
    def transformation(self) -> WordNetSynonyms: ...

    @property
    def plan(self) -> ConstraintPlan: ...

    @property
    def budget(self) -> Budget: ...
