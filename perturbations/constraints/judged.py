"""The learned judge as a rule: a synonym is written only where the judge (`perturbations/judge.py`) finds it
likely enough that two reviewers would both keep it.

Why a rule of its own: the judge reads the candidate in its question (the word's tag, its neighbours, its
senses in context) and the pair's record in the certification review, which no hand-written gate combines;
as a CONTEXT-stage constraint after the cheap gates it sees exactly the candidates a recipe would write, and
its threshold is a calibrated probability, so `judge_threshold=0.9` keeps edits that about nine in ten
times both reviewers kept. The judge's weights file is hashed into the recipe's parameters (and so into
every signature, beside the hash of the data it was trained on); its scores are kept in the persistent lexicon
cache under that hash.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from perturbations.components import as_float
from perturbations.constraints import Candidate, CandidateConstraint, Stage
from perturbations.errors import RecipeParameterError
from perturbations.judge import Edit, load_judge
from perturbations.records import Token
from perturbations.store import persistent

DECIMALS = 4  # scores are rounded before the threshold compares them and before records carry them


@persistent("judge_scores")
def _score(identity: str, tokens: tuple[Token, ...], index: int, form: str, senses: tuple[Any, ...]) -> float:
    judge = load_judge()
    if judge.identity != identity:  # pragma: no cover - one packaged judge per process
        raise RecipeParameterError(f"the packaged judge is {judge.identity}, not {identity}")
    return round(float(judge.probability([Edit(tokens, index, form, senses)])[0]), DECIMALS)


def judge_score(tokens: tuple[Token, ...], index: int, form: str, senses: tuple[tuple[str, float], ...]) -> float:
    """The packaged judge's calibrated probability (rounded) that writing `form` for word `index` keeps the
    question's meaning and reads acceptably; `senses` is the word's sense distribution in context."""
    return _score(load_judge().identity, tokens, index, form, senses)


@dataclass(frozen=True)
class JudgeScore(CandidateConstraint):
    """Reject a synonym whose judge probability (calibrated on articles the judge was not fitted on) is below
    `judge_threshold`."""

    judge_threshold: float = 0.9
    stage: ClassVar[Stage] = Stage.CONTEXT
    reason: ClassVar[str] = "judge"
    GATE: ClassVar[bool] = True
    PARAMETERS: ClassVar[dict[str, Callable[[Any], Any]]] = {"judge_threshold": as_float}

    def validate(self) -> None:
        if not (math.isfinite(self.judge_threshold) and 0.0 <= self.judge_threshold <= 1.0):
            raise RecipeParameterError(f"judge_threshold must be a probability in [0, 1], not {self.judge_threshold}")

    def parameters(self) -> dict[str, object]:
        judge = load_judge()
        return super().parameters() | {"judge": judge.identity, "judge_data": judge.data_hash}

    def describe(self) -> str:
        return (
            f"JudgeScore(judge={load_judge().identity}, probability that two reviewers keep the edit >= "
            f"{self.judge_threshold:g})"
        )

    def identity(self) -> str:
        return super().identity() + load_judge().identity

    def score(self, candidate: Candidate) -> float:
        """The judge's probability for a candidate seen in its text (0 before the CONTEXT stage)."""
        position = candidate.position
        if position is None:
            return 0.0
        return judge_score(position.tokens, position.index, candidate.form, candidate.senses)

    def rejects(self, candidate: Candidate) -> bool:
        if candidate.position is None:  # not asked before the CONTEXT stage
            return False
        return self.score(candidate) < self.judge_threshold
