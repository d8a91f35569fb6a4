"""The recipes robustqa ships, every published version (one recipe per paper, TextAttack's layout).

A published version never changes: a recipe whose behaviour changes is added here as a new `Recipe`
object with a new version, and the old one stays (so a published dataset can be rebuilt exactly).
"""

from __future__ import annotations

from perturbations.candidate_constraints import (
    ArticleAgreement,
    Inflectable,
    LettersOnly,
    NoProperLemma,
    NotOwnForm,
    NotSelf,
    NoUnderscore,
    PossessiveAgreement,
)
from perturbations.constraints import Constraint
from perturbations.position_constraints import (
    AUXILIARY,
    DATE,
    DETERMINER,
    PREPOSITION,
    PRONOUN,
    WH,
    FrozenSpans,
    Numbers,
    PartsOfSpeech,
    ProperNouns,
    ProtectedWords,
    Stopwords,
    TagFitsWord,
)
from perturbations.recipes import Budget, Recipe, WordNetSynonyms


def constraints_1_1(pos: tuple[str, ...] = ("n", "v", "a", "r")) -> tuple[Constraint, ...]:
    """The constraints of every 1.1 recipe, in the order their reasons are decided."""
    return (
        FrozenSpans(), ProtectedWords(), WH, AUXILIARY, PRONOUN, DETERMINER, PREPOSITION, Numbers(), DATE,
        ProperNouns(), Stopwords(), PartsOfSpeech(pos), TagFitsWord(),
        NoProperLemma(), NotSelf(), LettersOnly(), Inflectable(), NotOwnForm(), NoUnderscore(),
        ArticleAgreement(), PossessiveAgreement(),
    )


_QADS = (
    "Lin et al. (2020), QADS: SQuAD 2.0 questions with content words replaced by WordNet synonyms, "
    "arXiv:2010.13049: synonyms of the sense chosen by an enhanced Lesk WSD. Differs: the Lesk score is combined "
    "with the cntlist sense prior and words below a confidence threshold are left alone; candidates are "
    "re-inflected with lemminflect; names, numbers and function words are protected; no human validation."
)
_SIGDEL = (
    "Sigdel et al. (2020), the companion study of QADS: only the nouns of SQuAD questions replaced by WordNet "
    "synonyms. Differs: sense chosen by enhanced Lesk with a confidence threshold (as in qads) instead of the "
    "first synonym found."
)

QADS_1_1 = Recipe(
    name="qads", version="1.1", fields=frozenset({"question"}), citation=_QADS,
    description="questions: content words (nouns, verbs, adjectives, adverbs) -> WordNet synonyms",
    transformation=WordNetSynonyms(), constraints=constraints_1_1(), budget=Budget(),
)
QADS_NOUNS_1_1 = Recipe(
    name="qads-nouns", version="1.1", fields=frozenset({"question"}), citation=_SIGDEL,
    description="questions: nouns only -> WordNet synonyms",
    transformation=WordNetSynonyms(), constraints=constraints_1_1(pos=("n",)), budget=Budget(),
)
CONTEXT_1_1 = Recipe(
    name="context", version="1.1", fields=frozenset({"context"}),
    citation=_QADS + " Applied to contexts instead of questions; answer spans are frozen.",
    description="contexts only: content words -> WordNet synonyms; answer spans never edited",
    transformation=WordNetSynonyms(use_context=False), constraints=constraints_1_1(),
    budget=Budget(rate=0.1, min_substitutions=1, max_substitutions=30),
)
BOTH_1_1 = Recipe(
    name="both", version="1.1", fields=frozenset({"question", "context"}),
    citation=_QADS + " Applied to questions and contexts; a word gets the same replacement in both.",
    description="questions and contexts: the same word gets the same replacement in both",
    transformation=WordNetSynonyms(), constraints=constraints_1_1(),
    budget=Budget(rate=0.1, min_substitutions=1, max_substitutions=30),
)

# (recipe, whether it is its name's default version)
BUILTIN: tuple[tuple[Recipe, bool], ...] = (
    (QADS_1_1, True),
    (QADS_NOUNS_1_1, True),
    (CONTEXT_1_1, True),
    (BOTH_1_1, True),
)
