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
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from perturbations.components import as_float
from perturbations.constraints import Candidate, CandidateConstraint, Stage
from perturbations.errors import LanguageModelError, RecipeParameterError
from perturbations.judge import Edit, load_cascade, load_judge
from perturbations.records import Token
from perturbations.score_table import ScoreKind, ScoreTable, table_for
from perturbations.store import persistent
from perturbations.variants import text_of, variant_text

if TYPE_CHECKING:
    from perturbations.records import TextToPerturb
    from perturbations.space import SearchSpace

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
        return self.edit_score(position.tokens, position.index, candidate.form, candidate.senses)

    def edit_score(
        self, tokens: tuple[Token, ...], index: int, form: str, senses: tuple[tuple[str, float], ...]
    ) -> float:
        """The judge's probability (rounded) for writing `form` at word `index` (what a judged recipe ranks by)."""
        return judge_score(tokens, index, form, senses)

    def rejects(self, candidate: Candidate) -> bool:
        if candidate.position is None:  # not asked before the CONTEXT stage
            return False
        return self.score(candidate) < self.judge_threshold


# -------------------- Judge 2 as a rule: judge 1, then the second stage where judge 1 gives at least the gate.


def _encoder_spec(spec: str) -> str:
    """The identity of the encoder `spec` names, refused unless it is the one judge 2 was trained with: another
    encoder (or another version of its package) gives other cosines, and the trees would read them wrongly."""
    from perturbations.sentence_encoder import encoder_identity

    cascade = load_cascade()
    installed = encoder_identity(spec)
    if installed != cascade.encoder_identity:
        raise LanguageModelError(
            f"judge 2 reads the encoder {cascade.encoder_identity}, but {installed} is installed; install "
            f"{cascade.encoder_identity} (pip install '{cascade.encoder_identity}')"
        )
    return installed


def _edit_similarity(spec: str) -> Any:
    from perturbations.edit_similarity import EditSimilarity

    return EditSimilarity.load(spec)


def edit_similarity_kind() -> ScoreKind:
    from perturbations.edit_similarity import METHOD

    return ScoreKind(name="edit-similarity", method=METHOD, identity=_encoder_spec, load=_edit_similarity)


def edit_similarities() -> ScoreTable:
    """Judge 2's encoder cosines by (original question, edited question), one table per process (stand-ins
    through `score_table.register_scorer(edit_similarity_kind(), ...)` in tests)."""
    return table_for(edit_similarity_kind(), load_cascade().encoder)


@persistent("judge_2_scores")
def _second_score(
    identity: str,
    tokens: tuple[Token, ...],
    index: int,
    form: str,
    senses: tuple[Any, ...],
    first: float,
    cosines: tuple[float, float],
) -> float:
    cascade = load_cascade()
    if cascade.identity != identity:  # pragma: no cover - one packaged judge per process
        raise RecipeParameterError(f"the packaged judge 2 is {cascade.identity}, not {identity}")
    edit = Edit(tokens, index, form, senses)
    return round(float(cascade.probability([edit], [first], [cosines])[0]), DECIMALS)


def cascade_score(tokens: tuple[Token, ...], index: int, form: str, senses: tuple[tuple[str, float], ...]) -> float:
    """Judge 2's calibrated probability (rounded) that writing `form` at word `index` keeps the question's
    meaning and reads acceptably: judge 1's where that is below the gate, else the second stage's."""
    cascade = load_cascade()
    first = judge_score(tokens, index, form, senses)
    if first < cascade.gate:
        return first
    (cosines,) = edit_similarities().get(text_of(tokens), [variant_text(tokens, index, form)])
    return _second_score(cascade.identity, tokens, index, form, senses, first, (cosines[0], cosines[1]))


def gated_questions(edits: Iterable[Edit]) -> list[tuple[str, list[str]]]:
    """(question, its edited texts) for the edits judge 1 gives at least judge 2's gate, question by question in
    the order met: what judge 2's encoder is asked about (`edit_similarities().fill`)."""
    gate = load_cascade().gate
    asked: dict[str, list[str]] = {}
    for e in edits:
        if judge_score(e.tokens, e.index, e.replacement, e.senses) >= gate:
            asked.setdefault(text_of(e.tokens), []).append(variant_text(e.tokens, e.index, e.replacement))
    return list(asked.items())


@dataclass(frozen=True)
class CascadeJudgeScore(JudgeScore):
    """Reject a synonym whose judge 2 probability is below `judge_threshold`: judge 1's probability where it
    is below judge 2's gate, else the probability of a second stage that also reads the vetted table and a
    sentence encoder's two cosines of the question before and after the edit (`perturbations.judge.Cascade`).
    Needs the encoder (robustqa[lm]); a build's pre-pass (`prepare`) encodes, many questions per batch, only
    the candidates that clear the gate."""

    # `Recipe.prepare` hands this rule each text's search space (judge 1 decides which candidates to encode)
    PREPARES_SPACES: ClassVar[bool] = True

    def parameters(self) -> dict[str, object]:
        cascade = load_cascade()
        return CandidateConstraint.parameters(self) | {
            "judge": cascade.identity,
            "judge_data": cascade.data_hash,
            "first_stage": cascade.first.identity,
            "gate": cascade.gate,
            "encoder": cascade.encoder_identity,
        }

    def describe(self) -> str:
        cascade = load_cascade()
        return (
            f"CascadeJudgeScore(judge={cascade.identity}: {cascade.first.identity}, then where it gives >= "
            f"{cascade.gate:g} a second stage reading {cascade.vetted} and {cascade.encoder_identity}; probability "
            f"that two reviewers keep the edit >= {self.judge_threshold:g})"
        )

    def identity(self) -> str:
        return CandidateConstraint.identity(self) + load_cascade().identity

    def edit_score(
        self, tokens: tuple[Token, ...], index: int, form: str, senses: tuple[tuple[str, float], ...]
    ) -> float:
        return cascade_score(tokens, index, form, senses)

    def prepare(
        self, spaces: Iterable[tuple[TextToPerturb, SearchSpace]], progress: Callable[[int], None] | None = None
    ) -> None:
        """Encode, in batches of many questions, every candidate this rule will be asked about that judge 1
        gives at least the gate (the candidates below it need no encoder); `progress(n)` after each call, for the n
        texts it covered."""
        table = edit_similarities()
        asked: list[tuple[str, list[str]]] = []
        done = 0
        for _, space in spaces:
            candidates = (
                Edit(space.tokens, p.index, r.form, p.senses) for p in space.all_positions for r in p.replacements
            )
            asked += gated_questions(candidates)
            done += 1
            if len(asked) >= PREPARE_QUESTIONS:
                table.fill(asked)
                asked = []
                if progress is not None:
                    progress(done)
                done = 0
        table.fill(asked)
        if progress is not None and done:
            progress(done)


PREPARE_QUESTIONS = 256  # questions whose candidates one pre-pass call encodes together
