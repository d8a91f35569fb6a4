"""Log-probabilities of questions under a language model, in a score table (see `score_table`): each text
is scored once, the pre-pass of `LanguageModelFit.prepare` in one batch per question.

The disk tables keep the name and key they had before other kinds of score shared the table code
("lm-scores-<hash of method and model>.jsonl"), so scores cached by earlier builds are still found.
"""

from __future__ import annotations

from perturbations.language_model import CausalLM, resolve
from perturbations.score_table import ScoreKind, Scorer, ScoreTable, forget_scorers, table_for
from perturbations.score_table import register_scorer as _register

# changed whenever how a text is scored changes (the text before the prefix, the prefix's form)
SCORING = "v1:document-start+prefix+space+question"

LM_SCORES = ScoreKind(
    name="lm-scores",
    method=SCORING,
    identity=lambda spec: resolve(spec).identity,
    load=lambda spec: CausalLM.load(resolve(spec)),
)


def scores_for(spec: str) -> ScoreTable:
    """The log-probability table of the language model `spec` names (one per process)."""
    return table_for(LM_SCORES, spec)


def register_scorer(spec: str, scorer: Scorer, *, identity: str) -> ScoreTable:
    """Make `spec` mean `scorer` (an object with `score(prefix, questions)` giving (sum of log p, token
    count) per question) for the language-model rule in this process."""
    return _register(LM_SCORES, spec, scorer, identity=identity)


__all__ = ["LM_SCORES", "SCORING", "forget_scorers", "register_scorer", "scores_for"]
