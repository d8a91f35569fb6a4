"""The recipes robustqa ships, every published version (one recipe per paper, TextAttack's layout).

A published version never changes: a recipe whose behaviour changes is added here as a new `Recipe`
object with a new version, and the old one stays (so a published dataset can be rebuilt exactly).
"""

from __future__ import annotations

import dataclasses

from perturbations.constraints import Constraint, Soft
from perturbations.constraints.judged import CascadeJudgeScore, JudgeScore
from perturbations.constraints.model_rules import LanguageModelFit, MeaningKept
from perturbations.constraints.replacements import (
    Abbreviation,
    ArticleAgreement,
    AttestedSynonym,
    Countability,
    DominantSense,
    FrameSuperset,
    FunctionWord,
    Inflectable,
    LettersOnly,
    NoProperLemma,
    NotOwnForm,
    NotSelf,
    NoUnderscore,
    NumberAgreement,
    PossessiveAgreement,
    Rarity,
    Register,
    SingleWord,
)
from perturbations.constraints.senses import RelationalAdjective, SenseEvidence
from perturbations.constraints.words import (
    AUXILIARY,
    DATE,
    DETERMINER,
    PREPOSITION,
    PRONOUN,
    WH,
    ComplementPreposition,
    FixedTerm,
    FrozenSpans,
    GeneralVerb,
    KnownLemma,
    NoAdverbs,
    NounAsVerb,
    NounCompound,
    Numbers,
    ParagraphTerm,
    PartsOfSpeech,
    PhrasalVerb,
    ProperNouns,
    ProtectedWords,
    QuotedTerm,
    Stopwords,
    TagFitsWord,
    UncertainTag,
)
from perturbations.recipes import JudgedRecipe, Recipe
from perturbations.spelling import SpellingVariants
from perturbations.synonyms import AnySynonyms, VettedSynonyms, WordNetSynonyms
from perturbations.transformation import Budget


def constraints_1_1(pos: tuple[str, ...] = ("n", "v", "a", "r")) -> tuple[Constraint, ...]:
    """The constraints of every 1.1 recipe, in the order their reasons are decided."""
    return (
        FrozenSpans(),
        ProtectedWords(),
        WH,
        AUXILIARY,
        PRONOUN,
        DETERMINER,
        PREPOSITION,
        Numbers(),
        DATE,
        ProperNouns(),
        Stopwords(),
        PartsOfSpeech(pos),
        TagFitsWord(),
        NoProperLemma(),
        NotSelf(),
        LettersOnly(),
        Inflectable(),
        NotOwnForm(),
        NoUnderscore(),
        ArticleAgreement(),
        PossessiveAgreement(),
    )


def constraints_2_0(
    pos: tuple[str, ...] = ("n", "v", "a", "r"), *, strict: bool = False, dominance: int | None = None
) -> tuple[Constraint, ...]:
    """The constraints of the 2.0 recipes: those of 1.1, then the validity gates, in the order their
    reasons are decided.

    Balanced (`strict=False`, every 2.0 recipe but the strict ones): hard gates for the failure classes a
    blind review of 1.1 found (terms, phrasal verbs, quotes, tagger doubts, general verbs, relational
    adjectives, multiword, register, function words, number, countability, verb frames, rarity); the
    evidence that is often but not always wrong ranks instead (`Soft`): a selected preposition, a weak WSD
    margin, a synonym mostly used in another sense, a moderately rarer synonym. Strict: adverbs,
    selected prepositions, the paragraph's own terms and unattested synonyms are rejected too, and the
    synonym's dominant sense is required (`dominance`: or that many tagged uses in the sense; 0: none).
    """
    position = [
        FrozenSpans(),
        ProtectedWords(),
        WH,
        AUXILIARY,
        PRONOUN,
        DETERMINER,
        PREPOSITION,
        Numbers(),
        DATE,
        ProperNouns(),
        Stopwords(),
        PartsOfSpeech(pos),
        TagFitsWord(),
        KnownLemma(),
        QuotedTerm(),
        FixedTerm(),
        NounCompound(),
        PhrasalVerb(),
        UncertainTag(1.0),
        NounAsVerb(),
        GeneralVerb(5.5),
    ]
    if strict:
        position += [NoAdverbs(), ComplementPreposition(), ParagraphTerm()]
    lexical = [NoProperLemma(), NotSelf(), LettersOnly(), Inflectable(), NotOwnForm(), NoUnderscore()]
    synonym: list[Constraint] = [
        SingleWord(),
        Register(),
        Abbreviation(),
        FunctionWord(),
        NumberAgreement(),
        Countability(),
        FrameSuperset(),
        Rarity(floor=2.5, max_drop=2.0),
    ]
    if strict:
        synonym.append(AttestedSynonym())
        if dominance is not None:
            synonym.append(DominantSense(min_attested=dominance))
    edit = [ArticleAgreement(), PossessiveAgreement()]
    soft: list[Constraint] = [] if strict else [Soft(ComplementPreposition())]
    soft.append(Soft(SenseEvidence(0.9, 0.95)))
    if not strict:
        soft.append(Soft(DominantSense()))
    soft.append(Soft(Rarity(floor=3.0, max_drop=1.5)))
    return (*position, *lexical, RelationalAdjective(), *synonym, *edit, *soft)


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
    name="qads",
    version="1.1",
    fields=frozenset({"question"}),
    citation=_QADS,
    description="questions: content words (nouns, verbs, adjectives, adverbs) -> WordNet synonyms",
    transformation=WordNetSynonyms(),
    constraints=constraints_1_1(),
    budget=Budget(),
)
QADS_NOUNS_1_1 = Recipe(
    name="qads-nouns",
    version="1.1",
    fields=frozenset({"question"}),
    citation=_SIGDEL,
    description="questions: nouns only -> WordNet synonyms",
    transformation=WordNetSynonyms(),
    constraints=constraints_1_1(pos=("n",)),
    budget=Budget(),
)
CONTEXT_1_1 = Recipe(
    name="context",
    version="1.1",
    fields=frozenset({"context"}),
    citation=_QADS + " Applied to contexts instead of questions; answer spans are frozen.",
    description="contexts only: content words -> WordNet synonyms; answer spans never edited",
    transformation=WordNetSynonyms(use_context=False),
    constraints=constraints_1_1(),
    budget=Budget(rate=0.1, min_substitutions=1, max_substitutions=30),
)
BOTH_1_1 = Recipe(
    name="both",
    version="1.1",
    fields=frozenset({"question", "context"}),
    citation=_QADS + " Applied to questions and contexts; a word gets the same replacement in both.",
    description="questions and contexts: the same word gets the same replacement in both",
    transformation=WordNetSynonyms(),
    constraints=constraints_1_1(),
    budget=Budget(rate=0.1, min_substitutions=1, max_substitutions=30),
)

_GATES_2_0 = (
    " Version 2.0 adds validity gates found by a blind review of 1.1 (one edited question in four changed "
    "meaning): words inside terms, phrasal verbs and quotes, doubtful parts of speech, very general verbs, "
    "relational adjectives, multiword, rare, marked-register or function-word synonyms, number, countability "
    "and verb-frame mismatches are left alone; weak sense evidence, a synonym mostly used in another sense, a "
    "rarer synonym and a selected preposition rank an edit last."
)
_VETTED = (
    " Version 2.1 takes synonyms only from a vetted table (perturbations/data, named and hashed in the signature): "
    "the WordNet synonyms that one of two independent reviewers (agents with written rules), shown the word's "
    "candidates and example questions, found to keep the meaning in at least 19 of 20 questions using the word; "
    "found in any sense of the word, so no WSD error removes or adds one."
)
_ONE_EDIT = Budget(rate=0.25, min_substitutions=1, max_substitutions=1)

QADS_2_0 = Recipe(
    name="qads",
    version="2.0",
    fields=frozenset({"question"}),
    citation=_QADS + _GATES_2_0,
    description="questions: one content word -> a WordNet synonym that passes the validity gates",
    transformation=WordNetSynonyms(threshold=0.7),
    constraints=constraints_2_0(),
    budget=_ONE_EDIT,
)
QADS_2_1 = Recipe(
    name="qads",
    version="2.1",
    fields=frozenset({"question"}),
    citation=_QADS + _GATES_2_0 + _VETTED,
    description="questions: one content word -> a synonym from the vetted table (vetted-1) that passes the 2.0 gates",
    transformation=VettedSynonyms(table="vetted-1"),
    constraints=constraints_2_0(),
    budget=_ONE_EDIT,
)
QADS_STRICT_2_0 = Recipe(
    name="qads-strict",
    version="2.0",
    fields=frozenset({"question"}),
    citation=_QADS + _GATES_2_0 + " Strict: validity before coverage (see the recipe's constraints).",
    description="questions: as qads@2.0, with adverbs, selected prepositions, the paragraph's terms, unattested "
    "synonyms and synonyms not mostly used in the sense (unless tagged 10 times in it) left alone",
    transformation=WordNetSynonyms(threshold=0.7),
    constraints=constraints_2_0(strict=True, dominance=10),
    budget=_ONE_EDIT,
)
QADS_STRICTEST_2_0 = Recipe(
    name="qads-strictest",
    version="2.0",
    fields=frozenset({"question"}),
    citation=_QADS + _GATES_2_0 + " Strictest: as qads-strict, the synonym's dominant sense always required.",
    description=(
        "questions: as qads-strict@2.0, the synonym's most frequent sense must be the chosen one; WSD threshold 0.8"
    ),
    transformation=WordNetSynonyms(threshold=0.8),
    constraints=constraints_2_0(strict=True, dominance=0),
    budget=_ONE_EDIT,
)
QADS_LOOSE_2_0 = Recipe(
    name="qads-loose",
    version="2.0",
    fields=frozenset({"question"}),
    citation=_QADS + _GATES_2_0,
    description="questions: as qads@2.0, up to two words per question",
    transformation=WordNetSynonyms(threshold=0.7),
    constraints=constraints_2_0(),
    budget=Budget(rate=0.25, min_substitutions=1, max_substitutions=2),
)
QADS_NOUNS_2_0 = Recipe(
    name="qads-nouns",
    version="2.0",
    fields=frozenset({"question"}),
    citation=_SIGDEL + _GATES_2_0,
    description="questions: one noun -> a WordNet synonym that passes the validity gates",
    transformation=WordNetSynonyms(threshold=0.7),
    constraints=constraints_2_0(pos=("n",)),
    budget=_ONE_EDIT,
)
CONTEXT_2_0 = Recipe(
    name="context",
    version="2.0",
    fields=frozenset({"context"}),
    citation=_QADS + _GATES_2_0 + " Applied to contexts instead of questions; answer spans are frozen.",
    description=(
        "contexts only: content words -> WordNet synonyms that pass the validity gates; answer spans never edited"
    ),
    transformation=WordNetSynonyms(threshold=0.7, use_context=False),
    constraints=constraints_2_0(),
    budget=Budget(rate=0.1, min_substitutions=1, max_substitutions=30),
)
BOTH_2_0 = Recipe(
    name="both",
    version="2.0",
    fields=frozenset({"question", "context"}),
    citation=_QADS + _GATES_2_0 + " Applied to questions and contexts; a word gets the same replacement in both.",
    description="questions and contexts, validity gates: the same word gets the same replacement in both",
    transformation=WordNetSynonyms(threshold=0.7),
    constraints=constraints_2_0(),
    budget=Budget(rate=0.1, min_substitutions=1, max_substitutions=30),
)

QADS_LM_2_0 = Recipe(
    name="qads-lm",
    version="2.0",
    fields=frozenset({"question"}),
    citation=_QADS + _GATES_2_0 + " LM: a synonym is written only where a small causal language model "
    "(SmolLM2-135M-Instruct by default), reading the passage sentence nearest the question, finds the edited "
    "question at most 6 nats less likely than the original.",
    description="questions: as qads@2.0, and a small language model must find the edited question about as "
    "likely as the original (opt-in: needs robustqa[lm], minutes on a CPU)",
    transformation=WordNetSynonyms(threshold=0.7),
    constraints=(*constraints_2_0(), LanguageModelFit()),
    budget=_ONE_EDIT,
)
QADS_LM_2_1 = Recipe(
    name="qads-lm",
    version="2.1",
    fields=frozenset({"question"}),
    citation=_QADS + _GATES_2_0 + " LM 2.1: a synonym is written only where a sentence encoder (all-MiniLM-L6-v2 by "
    "default) finds the edited question at least 0.92 cosine-similar to the original, and a small causal language "
    "model (SmolLM2-135M-Instruct by default), reading the passage sentence nearest the question, finds it at most "
    "6 nats less likely than the original.",
    description="questions: as qads-lm@2.0, and a sentence encoder must find the edited question close in meaning to "
    "the original (opt-in: needs robustqa[lm], minutes on a CPU)",
    transformation=WordNetSynonyms(threshold=0.7),
    constraints=(*constraints_2_0(), MeaningKept(), LanguageModelFit()),
    budget=_ONE_EDIT,
)
QADS_LM_2_2 = Recipe(
    name="qads-lm",
    version="2.2",
    fields=frozenset({"question"}),
    citation=_QADS + _GATES_2_0 + " LM 2.2: as qads-lm@2.1 with the meaning rule at 0.96 cosine instead of 0.92: a "
    "blind review of 2.1 found 6 of its 27 edits below 0.96 changed the meaning, against 3 of 91 above.",
    description="questions: as qads-lm@2.1, the edited question at least 0.96 cosine-similar to the original "
    "(opt-in: needs robustqa[lm], minutes on a CPU)",
    transformation=WordNetSynonyms(threshold=0.7),
    constraints=(*constraints_2_0(), MeaningKept(meaning_threshold=0.96), LanguageModelFit()),
    budget=_ONE_EDIT,
)
QADS_LM_STRICT_2_1 = Recipe(
    name="qads-lm-strict",
    version="2.1",
    fields=frozenset({"question"}),
    citation=_QADS + _GATES_2_0 + " Strict, with the meaning rule and the language-model rule of qads-lm@2.1: "
    "validity before coverage.",
    description="questions: as qads-strict@2.0, then the meaning and language-model rules of qads-lm@2.1 "
    "(opt-in: needs robustqa[lm], minutes on a CPU)",
    transformation=WordNetSynonyms(threshold=0.7),
    constraints=(*constraints_2_0(strict=True, dominance=10), MeaningKept(), LanguageModelFit()),
    budget=_ONE_EDIT,
)

SPELLING_1 = Recipe(
    name="spelling",
    version="1",
    fields=frozenset({"question"}),
    citation="British/American spelling variants (no WordNet): a reader sees the same word, so a drop measures "
    "surface form alone. The table (perturbations/data/spelling_variants-1.json, tools/spelling_table.py) lists "
    "only pairs that are one word in every sense, and is named and hashed in the signature.",
    description="questions: up to 3 words with another national spelling (colour <-> color)",
    transformation=SpellingVariants(table="spelling-1", direction="both"),
    constraints=(FrozenSpans(), ProtectedWords(), ProperNouns(), ArticleAgreement(), PossessiveAgreement()),
    budget=Budget(rate=1.0, min_substitutions=1, max_substitutions=3),
)

QADS_JUDGE_1 = JudgedRecipe(
    name="qads-judge",
    version="1",
    fields=frozenset({"question"}),
    citation=_QADS + " Judge 1: the candidates are every WordNet synonym of any sense of one content word (the space "
    "the certified set's second review round drew from), common enough to read; a judge learned from the two "
    "reviewers' judgments of 32,337 such edits (perturbations/data/judge-1.json, trained on 12 of the 16 articles "
    "of the dev half, hashed in the signature) keeps those it finds likely to keep the meaning, best first.",
    description="questions: one content word -> any WordNet synonym that a judge learned from reviewer judgments "
    "scores >= 0.9 (calibrated probability that both reviewers keep it); variants best first",
    transformation=AnySynonyms(),
    constraints=(*constraints_1_1(), SingleWord(), Rarity(floor=2.5, max_drop=2.5), JudgeScore()),
    budget=Budget(rate=1.0, min_substitutions=1, max_substitutions=1),
)


def with_kinds(recipe: Recipe, version: str, rules: str) -> Recipe:
    """`recipe` published again as `version`, writing each substitution's kind by the edit-kind rules `rules`
    (named, never "the current": a published version keeps its rules): the same edits, byte for byte, with
    `kind` added to every record (the published version keeps writing none)."""
    kinds = (
        " Each substitution record carries its edit kind (synonym, rare, spelling, abbreviation, morphology) by "
        f"the rules {rules} of perturbations/edit_kinds.py, named in the signature."
    )
    return dataclasses.replace(
        recipe,
        version=version,
        citation=recipe.citation + kinds,
        description=f"{recipe.description}; as {recipe.ident}, each edit recorded with its kind",
        kind_rules=rules,
    )


QADS_2_2 = with_kinds(QADS_2_1, "2.2", "edit-kinds-2")
QADS_JUDGE_2 = with_kinds(QADS_JUDGE_1, "2", "edit-kinds-2")
SPELLING_2 = with_kinds(SPELLING_1, "2", "edit-kinds-2")

QADS_JUDGE_3 = dataclasses.replace(
    QADS_JUDGE_2,
    version="3",
    citation=_QADS + " Judge 2: the candidates of qads-judge@1; judge 1 scores each, and an edit it gives at least 0.5 "
    "is scored again by a second stage that also reads the vetted table vetted-1 and two cosines of the shared "
    "sentence encoder all-MiniLM-L6-v2 (the question before and after the edit, and the edited word in it), trained "
    "on the same 12 articles' judgments (perturbations/data/judge-2.json, hashed in the signature with the encoder's "
    "version). Each substitution record carries its edit kind by the rules edit-kinds-2.",
    description="questions: as qads-judge@2 (each edit recorded with its kind), judged by judge 2 (judge 1, then a "
    "sentence encoder's second look) >= 0.9; variants best first (opt-in: needs robustqa[lm] for the encoder)",
    constraints=(*QADS_JUDGE_2.constraints[:-1], CascadeJudgeScore()),
)

# (recipe, whether it is its name's default version)
BUILTIN: tuple[tuple[Recipe, bool], ...] = (
    (QADS_1_1, False),
    (QADS_NOUNS_1_1, False),
    (CONTEXT_1_1, False),
    (BOTH_1_1, False),
    (QADS_2_0, False),
    (QADS_2_1, False),
    (QADS_2_2, True),
    (QADS_STRICT_2_0, True),
    (QADS_STRICTEST_2_0, True),
    (QADS_LOOSE_2_0, True),
    (QADS_NOUNS_2_0, True),
    (CONTEXT_2_0, True),
    (BOTH_2_0, True),
    (QADS_LM_2_0, False),
    (QADS_LM_2_1, False),
    (QADS_LM_2_2, True),
    (QADS_LM_STRICT_2_1, True),
    (SPELLING_1, False),
    (SPELLING_2, True),
    (QADS_JUDGE_1, False),
    (QADS_JUDGE_2, True),
    (QADS_JUDGE_3, False),
)
