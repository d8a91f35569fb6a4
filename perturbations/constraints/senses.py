"""Validity gates on the sense WSD chose (SENSE-stage candidate constraints of the 2.0 recipes).

They judge the word in the chosen sense, before any synonym: how much evidence WSD had for the sense, and
whether the sense makes the word part of a term.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from perturbations.constraints import Candidate, CandidateConstraint, Stage
from perturbations.errors import RecipeParameterError
from perturbations.lexicon import sense_names
from perturbations.wordnet_facts import has_pertainym


@dataclass(frozen=True)
class RelationalAdjective(CandidateConstraint):
    """An adjective in a "relating to X" sense (WordNet gives the lemma a pertainym in the chosen synset:
    "social" -> society, "financial" -> finance) directly before a noun classifies it ("social market
    economy", "immune system"): the pair is a term, and the adjective keeps its word."""

    stage: ClassVar[Stage] = Stage.SENSE
    reason: ClassVar[str] = "relational-adjective"
    GATE: ClassVar[bool] = True

    def rejects(self, candidate: Candidate) -> bool:
        position = candidate.position
        if candidate.pos != "a" or position is None:
            return False
        following = position.neighbour(1)
        if following is None or not following.tag.startswith("NN"):
            return False
        return has_pertainym(candidate.synset, candidate.lemma)

    def describe(self) -> str:
        return "RelationalAdjective(pertainym sense before a noun)"


@dataclass(frozen=True)
class SenseEvidence(CandidateConstraint):
    """WSD's probability for the chosen sense must be at least `min_probability`, and at least
    `min_probability_other` when it is not the word's most frequent WordNet sense (then context, not the
    prior, had to pick it: "poll" -> "canvass", "police" -> "law" were such picks)."""

    min_probability: float = 0.9
    min_probability_other: float = 0.95
    stage: ClassVar[Stage] = Stage.SENSE
    reason: ClassVar[str] = "weak-sense"
    GATE: ClassVar[bool] = True

    def rejects(self, candidate: Candidate) -> bool:
        probability = dict(candidate.senses).get(candidate.synset, 0.0)
        senses = sense_names(candidate.lemma, candidate.pos)
        first = senses[0][0] if senses else candidate.synset
        need = (
            self.min_probability if candidate.synset == first else max(self.min_probability, self.min_probability_other)
        )
        return probability < need

    def validate(self) -> None:
        for value in (self.min_probability, self.min_probability_other):
            if not 0.0 <= value <= 1.0:
                raise RecipeParameterError(f"SenseEvidence probabilities must be in [0, 1], not {value}")

    def describe(self) -> str:
        return (
            f"SenseEvidence(p >= {self.min_probability:g}; >= {self.min_probability_other:g} for a sense other than "
            "the first)"
        )
