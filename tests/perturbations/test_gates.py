"""The validity gates of the 2.0 recipes, one by one: each leaves alone what it is for (positive) and lets
through a similar text without the problem (negative). Examples are general cases of each failure class,
not the reviewed items.

Each gate is added alone to a permissive 1.1 recipe (every word may change, any confidence), so what it
does is all that differs from that recipe.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

import pytest

from perturbations import Candidate, Constraint, Position, PositionConstraint, Soft, get_recipe, list_recipes
from perturbations.constraints.replacements import (
    Abbreviation,
    AttestedSynonym,
    Countability,
    DominantSense,
    FrameSuperset,
    FunctionWord,
    NumberAgreement,
    Rarity,
    Register,
    SingleWord,
    spelling_variant,
)
from perturbations.constraints.senses import RelationalAdjective, SenseEvidence
from perturbations.constraints.words import (
    ComplementPreposition,
    FixedTerm,
    GeneralVerb,
    NoAdverbs,
    NounAsVerb,
    NounCompound,
    ParagraphTerm,
    PhrasalVerb,
    QuotedTerm,
    UncertainTag,
    suspected_verb,
)
from perturbations.frequency import zipf
from perturbations.text import tag, tag_margin, tag_words

PERMISSIVE = get_recipe("qads@1.1", threshold=0.0, rate=1.0, max_substitutions=50)


def with_gates(*gates: Constraint) -> object:
    return dataclasses.replace(PERMISSIVE, version="test", constraints=PERMISSIVE.constraints + gates)


def offered(text: str, *gates: Constraint, context: str | None = None) -> dict[str, list[str]]:
    """word -> the replacements the recipe (with `gates`) offers for it, for every word it may edit."""
    recipe = with_gates(*gates)
    space = recipe.search_space(text, wsd_context=context)  # type: ignore[attr-defined]
    return {p.word: [r.form for r in p.replacements] for p in space.all_positions}


def rejected(text: str, gate: Constraint, context: str | None = None) -> int:
    """How many words of `text` the recipe with `gate` leaves alone under the gate's reason."""
    space = with_gates(gate).search_space(text, wsd_context=context)  # type: ignore[attr-defined]
    return space.skipped_counts().get(gate.reason, 0)


def check(gate: Constraint, positive: tuple[str, str], negative: tuple[str, str], context: str | None = None) -> None:
    """The gate leaves alone the word of `positive` (which the permissive recipe would edit) and not the
    word of `negative`."""
    (text, word), (other, other_word) = positive, negative
    assert word in offered(text, context=context), "the example must be editable without the gate"
    assert word not in offered(text, gate, context=context) and rejected(text, gate, context) >= 1
    assert other_word in offered(other, context=context)
    assert other_word in offered(other, gate, context=context) and rejected(other, gate, context) == 0


# ---- word gates ---------------------------------------------------------------------------------------


def test_quoted_terms_are_cited_not_paraphrased() -> None:
    check(
        QuotedTerm(),
        ('What does the word "castle" mean?', "castle"),
        ('Which city did the author of "Hamlet" visit?', "city"),
    )


def test_multiword_terms_and_verb_particles_stay_whole() -> None:
    check(FixedTerm(), ("Who set up the company?", "set"), ("Where is the big pool?", "big"))
    assert not offered("Where is the swimming pool?", FixedTerm())  # "swimming pool": a WordNet noun
    assert rejected("Who set up the company?", FixedTerm()) == 1
    with pytest.raises(Exception, match="max_words >= 2"):
        FixedTerm(max_words=1).validate()


def test_noun_compounds_keep_their_nouns() -> None:
    check(
        NounCompound(),
        ("What is the population density of the town?", "density"),
        ("What is the density of the town?", "density"),
    )
    assert rejected("Which cutting tool did the workers use?", NounCompound()) == 2  # gerund modifier and its head


def test_phrasal_verbs_keep_their_verb() -> None:
    position = Position(tag("Who gave up the throne?"), 1)
    assert position.neighbour(1).tag == "RP" and PhrasalVerb().rejects(position)  # type: ignore[union-attr]
    assert not PhrasalVerb().rejects(Position(tag("Who gave the throne away?"), 1))


def test_an_uncertain_tag_leaves_the_word_alone() -> None:
    tokens = tag("What fish live in the lake?")
    assert tag_margin(tokens, 2) < 1.0 and tag_margin(tokens, 5) > 10  # "live" is nearly a noun; "lake" is not
    check(UncertainTag(1.0), ("What fish live in the lake?", "live"), ("What is the density of the town?", "density"))
    assert not UncertainTag(0.5).rejects(Position(tokens, 2))  # the margin is the parameter


def test_tag_margin_replays_the_tagger() -> None:
    """The margin is computed at the tag the tagger chose: replaying one step gives its own tag."""
    for text in ("What fish live in the lake?", "Who gave up the throne?", "How many workers does the factory employ?"):
        tokens = tag(text)
        assert [t.tag for t in tokens] == tag_words([t.text for t in tokens])
        assert all(tag_margin(tokens, i) >= 0 for i in range(len(tokens)))


def test_a_noun_tagged_main_verb_is_not_replaced_by_a_noun() -> None:
    tokens = tag("How many workers does the factory employ?")
    assert tokens[6].tag == "NN" and suspected_verb(tokens) == 6
    check(
        NounAsVerb(),
        ("How many workers does the factory employ?", "employ"),
        ("What is the main product of the factory?", "product"),
    )
    assert suspected_verb(tag("What is the main product of the factory?")) is None  # the question has its verb


def test_very_general_verbs_keep_their_word() -> None:
    assert zipf("make") >= 5.5 > zipf("forge")
    assert GeneralVerb().rejects(Position(tag("They make tools."), 1))
    assert not GeneralVerb().rejects(Position(tag("They forge tools."), 1))
    assert not GeneralVerb().rejects(Position(tag("The make of the car."), 1))  # a noun is not a verb
    assert GeneralVerb().WORD_ONLY and "5.5" in GeneralVerb().describe()


def test_adverbs_can_be_kept() -> None:
    check(NoAdverbs(), ("How quickly did the army march?", "quickly"), ("How did the army march?", "army"))
    assert offered("How quickly did the army march?", NoAdverbs()) == {"army": ["ground forces"]}


def test_a_selected_preposition_keeps_its_verb_but_an_infinitive_does_not() -> None:
    check(
        ComplementPreposition(),
        ("What is the castle associated with?", "associated"),
        ("What did they plan to build?", "build"),
    )
    assert not ComplementPreposition().rejects(Position(tag("What did they plan to build?"), 3))  # "to" + base verb
    assert ComplementPreposition().rejects(Position(tag("What did they refer to as home?"), 3))


def test_the_paragraphs_own_terms_are_kept() -> None:
    source = "In mathematics, connected graphs are graphs in which every pair of vertices is joined by a path."
    assert "connected" in offered("What are connected graphs?", context=source)
    assert offered("What are connected graphs?", ParagraphTerm(), context=source) == {}
    assert rejected("What are connected graphs?", ParagraphTerm(), source) == 2
    assert "connected" in offered(
        "What are connected graphs?", ParagraphTerm(), context="Graphs have vertices and edges."
    )
    assert rejected("What are connected graphs?", ParagraphTerm(), "Graphs have vertices and edges.") == 0


# ---- sense gates ---------------------------------------------------------------------------------------


def test_relational_adjectives_before_a_noun_are_terms() -> None:
    check(
        RelationalAdjective(),
        ("What caused the financial crisis?", "financial"),
        ("What caused the severe crisis?", "severe"),
    )


def sense(synset: str, probability: float) -> Candidate:
    """What a SENSE-stage rule sees of "bank" (noun), with WSD's probability for `synset`."""
    senses = (("bank.n.01", probability), ("depository_financial_institution.n.01", 1 - probability))
    if synset != "bank.n.01":
        senses = (("bank.n.01", 1 - probability), (synset, probability))
    return Candidate("bank", "NN", "bank", "n", synset, "", "", False, Position(tag("the bank"), 1), senses, None)


def test_a_sense_needs_evidence_and_more_when_it_is_not_the_first() -> None:
    gate = SenseEvidence(0.9, 0.95)
    assert not gate.rejects(sense("bank.n.01", 0.92))  # WordNet's first sense of "bank"
    assert gate.rejects(sense("bank.n.01", 0.85))
    assert gate.rejects(sense("depository_financial_institution.n.01", 0.92))  # another sense needs more
    assert not gate.rejects(sense("depository_financial_institution.n.01", 0.96))
    assert rejected("Where did the bank stand?", gate) >= 1  # in the engine: a weak sense is left alone


# ---- synonym gates -------------------------------------------------------------------------------------


def test_one_word_for_one_word() -> None:
    assert offered("Who was the mayor of the town?")["mayor"] == ["city manager"]
    check(SingleWord(), ("Who was the mayor of the town?", "mayor"), ("Who built the castle?", "castle"))


def test_marked_registers_are_refused() -> None:
    assert offered("Who shot the cop?")["cop"] == [
        "bull",
        "copper",
        "fuzz",
        "pig",
    ]  # WordNet marks the sense colloquial
    check(Register(), ("Who shot the cop?", "cop"), ("Who fixed the car?", "car"))


def test_abbreviations_are_refused() -> None:
    assert offered("How long is a year on Mars?", Abbreviation())["year"] == ["twelvemonth"]
    assert offered("How long is a year on Mars?")["year"] == ["yr", "twelvemonth"]
    assert offered("Who fixed the car?", Abbreviation()) == offered("Who fixed the car?")


def test_function_words_are_not_synonyms_of_content_words() -> None:
    check(FunctionWord(), ("What exists beneath the ice?", "exists"), ("Who built the castle?", "built"))


def test_number_and_countability_are_kept() -> None:
    assert offered("Who led the government?")["government"] == ["authorities", "regime"]
    assert offered("Who led the government?", NumberAgreement())["government"] == [
        "regime"
    ]  # a plural lemma for a singular
    check(
        Countability(), ("Who won a war?", "war"), ("Which war did they win?", "war")
    )  # "a warfare" / "which warfare"
    assert rejected("Who won the wars?", Countability()) == 1


def test_a_verb_keeps_its_frames() -> None:
    assert offered("Who helped establish the school?")["helped"] == ["aided", "assisted"]
    check(
        FrameSuperset(), ("Who helped establish the school?", "helped"), ("Who established the school?", "established")
    )


def test_rare_synonyms_are_refused_but_spelling_variants_are_not() -> None:
    check(
        Rarity(2.5, 2.0),
        ("What is the complexity of the problem?", "complexity"),
        ("What is the size of the problem?", "problem"),
    )
    assert (
        spelling_variant("colonised", "colonized")
        and spelling_variant("centre", "center")
        and not spelling_variant("centre", "middle")
    )
    candidate = Candidate(
        "colour", "NN", "colour", "n", "color.n.01", "color", "color", True, Position(tag("the colour"), 1), (), 1.0
    )
    assert not Rarity(9.0, 0.0).rejects(candidate)  # even an impossible floor: the same word spelled otherwise


def test_a_synonym_mostly_used_in_another_sense_is_refused() -> None:
    assert offered("Who led the police?")["police"] == ["law", "constabulary"]
    assert offered("Who led the police?", DominantSense())["police"] == ["constabulary"]  # "law" mostly means law
    check(DominantSense(), ("What is the size of the problem?", "problem"), ("Who built the castle?", "castle"))
    law = Candidate(
        "police", "NN", "police", "n", "police.n.01", "law", "law", True, Position(tag("the police"), 1), (), 1.0
    )
    assert DominantSense().rejects(law) and DominantSense(min_attested=2).rejects(law)  # tagged once in this sense
    assert not DominantSense(min_attested=1).rejects(law)  # enough attestation in the sense can stand in for dominance


def test_a_synonym_never_used_in_the_sense_is_refused() -> None:
    check(AttestedSynonym(), ("Who was the mayor of the town?", "mayor"), ("Who built the castle?", "castle"))


# ---- soft rules ----------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Nouns(PositionConstraint):
    """A test rule: every noun."""

    reason: ClassVar[str] = "test-noun"

    def rejects(self, position: Position) -> bool:
        return position.tag.startswith("NN")


def test_a_soft_rule_ranks_instead_of_rejecting() -> None:
    text = "Who led the police?"
    soft = with_gates(Soft(DominantSense()))
    space = soft.search_space(text)  # type: ignore[attr-defined]
    police = next(p for p in space.positions if p.word == "police")
    assert [r.form for r in police.replacements] == ["constabulary", "law"]  # "law" is kept, ranked last
    assert [(r.penalty, r.penalties) for r in police.replacements] == [(0.0, ()), (1.0, ("dominant-sense",))]
    assert police.penalty == 0.0 and rejected(text, Soft(DominantSense())) == 0
    result = soft.perturb(text, seed=1, key="k")  # type: ignore[attr-defined]
    assert result.perturbed.endswith("the constabulary?")
    heavy = with_gates(Soft(DominantSense(), weight=2.5)).search_space(text)  # type: ignore[attr-defined]
    assert [r.penalty for r in next(p for p in heavy.positions if p.word == "police").replacements] == [0.0, 2.5]


def test_the_budget_spends_on_the_lowest_penalty_first() -> None:
    """With one edit allowed, a word whose synonyms are all penalised loses to one whose are not, whatever
    their confidence; when it is written anyway, its penalty is counted."""
    text = "Who led the police?"
    budget = dataclasses.replace(PERMISSIVE.budget, max_substitutions=1)
    plain = dataclasses.replace(PERMISSIVE, budget=budget).perturb(text, seed=1, key="k")
    assert [s.original for s in plain.substitutions] == ["police"]  # the more confident word
    nouns_last = dataclasses.replace(with_gates(Soft(Nouns())), budget=budget)
    space = nouns_last.search_space(text)  # type: ignore[attr-defined]
    assert {p.word: p.penalty for p in space.positions} == {"led": 0.0, "police": 1.0}
    one = nouns_last.perturb(text, seed=1, key="k")  # type: ignore[attr-defined]
    assert [s.original for s in one.substitutions] == ["led"] and one.penalty_counts() == {}
    two = dataclasses.replace(nouns_last, budget=dataclasses.replace(budget, max_substitutions=2)).perturb(
        text, seed=1, key="k"
    )
    assert [s.original for s in two.substitutions] == ["led", "police"] and two.penalty_counts() == {"test-noun": 1}


def test_only_position_sense_and_context_rules_can_rank() -> None:
    from perturbations.constraints import ConstraintPlan
    from perturbations.constraints.replacements import ArticleAgreement, NotSelf

    for rule in (NotSelf(), ArticleAgreement(), Soft(NoAdverbs())):
        with pytest.raises(TypeError, match="can rank"):
            ConstraintPlan.of((Soft(rule),))


def test_what_a_gate_prints_comes_from_its_parameters() -> None:
    """Every gate of every recipe describes itself from its fields: another value prints another line."""
    seen = set()
    for recipe in list_recipes():
        for constraint in recipe.constraints:
            rule = constraint.rule if isinstance(constraint, Soft) else constraint
            if not rule.GATE or type(rule) in seen:
                continue
            seen.add(type(rule))
            for f in dataclasses.fields(rule):
                value = getattr(rule, f.name)
                other = {
                    float: lambda v: v + 0.5,
                    int: lambda v: v + 1,
                    frozenset: lambda v: frozenset({"zzz"}),
                    str: lambda v: v + "-other",
                }[type(value)](value)
                assert dataclasses.replace(rule, **{f.name: other}).describe() != rule.describe(), (rule, f.name)
    assert len(seen) >= 20  # every gate class of the 2.0 recipes
