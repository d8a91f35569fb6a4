"""The official SQuAD 2.0 metric (exact match and F1), rule for rule, and the SQuAD v1.1 one beside it.

The numbers must equal the official `evaluate-v2.0.py` on the same files, because readers compare them with
published results: so the rules below follow it to the letter, quirks included. Answers are normalized
(lower case, punctuation and the articles a/an/the removed, whitespace collapsed); a question scores the
maximum over its gold answers, where gold answers that normalize to nothing are dropped and an empty list
means the only right answer is ""; HasAns/NoAns split by whether the *raw* answer list is empty; a question
whose no-answer probability exceeds the threshold (1.0 by default) is scored as if the model abstained; with
no-answer probabilities given, `best_exact`/`best_f1` report the best threshold found by sweeping them.

Besides the official file inputs it accepts Hugging Face `evaluate`'s squad_v2 input format, so a user can
cross-check with that library's numbers (which always include the `best_*` keys).
"""

from __future__ import annotations

import json
import re
import string
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from robustqa.errors import InputError, invalid_json

DEFAULT_NA_PROB_THRESHOLD = 1.0

# The two rule sets, as report.json and the run signature name them.
RULES_V2 = "2.0"  # evaluate-v2.0.py: the model may abstain; no-answer threshold; HasAns/NoAns split
RULES_V1 = "1.1"  # evaluate-v1.1.py: every question has an answer and the model always gives one
RULES = (RULES_V2, RULES_V1)

_ARTICLES = re.compile(r"\b(a|an|the)\b", re.UNICODE)
_PUNCTUATION = frozenset(string.punctuation)


def normalize_answer(text: str) -> str:
    """Lower-case, drop ASCII punctuation and the articles a/an/the, collapse whitespace (in that order)."""
    text = text.lower()
    text = "".join(ch for ch in text if ch not in _PUNCTUATION)
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def answer_tokens(text: str) -> list[str]:
    return normalize_answer(text).split() if text else []


def compute_exact(gold: str, prediction: str) -> int:
    return int(normalize_answer(gold) == normalize_answer(prediction))


def compute_f1(gold: str, prediction: str) -> float:
    """Token-overlap F1; if either side is empty, 1 when both are and 0 otherwise (an int, as officially)."""
    gold_tokens = answer_tokens(gold)
    pred_tokens = answer_tokens(prediction)
    if not gold_tokens or not pred_tokens:
        return int(gold_tokens == pred_tokens)
    same = sum((Counter(gold_tokens) & Counter(pred_tokens)).values())
    if same == 0:
        return 0
    precision = same / len(pred_tokens)
    recall = same / len(gold_tokens)
    return (2 * precision * recall) / (precision + recall)


@dataclass(frozen=True)
class QuestionScores:
    """Per-question scores of one prediction set, in dataset order.

    `exact_raw`/`f1_raw` are before the no-answer threshold, `exact`/`f1` after it: the latter are what the
    totals average, so drops computed from them add up to the reported totals.
    """

    has_answer: dict[str, bool]
    exact_raw: dict[str, float]
    f1_raw: dict[str, float]
    exact: dict[str, float]
    f1: dict[str, float]


def gold_answers_of_squad(data: Any) -> dict[str, list[str]]:
    """Raw gold answer texts per question id, in file order, from decoded SQuAD JSON or a `SquadDataset`."""
    if hasattr(data, "iter_examples"):
        return {ex.id: [a.text for a in ex.answers] for ex in data.iter_examples()}
    if isinstance(data, Mapping):
        data = data.get("data")
    if not isinstance(data, list):
        raise InputError("not a SQuAD file: no top-level 'data' list", hint="give an official SQuAD 2.0 JSON file")
    gold: dict[str, list[str]] = {}
    for article in data:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                gold[str(qa["id"])] = [str(a["text"]) for a in qa["answers"]]
    return gold


def score_questions(
    gold: Mapping[str, Sequence[str]],
    predictions: Mapping[str, str],
    na_probs: Mapping[str, float] | None = None,
    na_prob_thresh: float = DEFAULT_NA_PROB_THRESHOLD,
) -> QuestionScores:
    """Score every gold question; a question without a prediction (or no-answer probability) is an error.

    The official script prints and skips a missing prediction, then fails on it when it splits HasAns/NoAns;
    here that is a one-line `InputError` naming the question instead.
    """
    has_answer = {qid: bool(answers) for qid, answers in gold.items()}
    exact_raw: dict[str, float] = {}
    f1_raw: dict[str, float] = {}
    for qid, answers in gold.items():
        if qid not in predictions:
            raise InputError(f"no prediction for question {qid}", hint="predict every question of the data file")
        prediction = predictions[qid]
        golds = [a for a in answers if normalize_answer(a)] or [""]
        exact_raw[qid] = max(compute_exact(a, prediction) for a in golds)
        f1_raw[qid] = max(compute_f1(a, prediction) for a in golds)
    probs = na_probs if na_probs is not None else dict.fromkeys(predictions, 0.0)
    exact: dict[str, float] = {}
    f1: dict[str, float] = {}
    for qid in exact_raw:
        if qid not in probs:
            raise InputError(f"no no-answer probability for question {qid}", hint="give one for every question")
        if probs[qid] > na_prob_thresh:
            exact[qid] = f1[qid] = float(not has_answer[qid])
        else:
            exact[qid] = exact_raw[qid]
            f1[qid] = f1_raw[qid]
    return QuestionScores(has_answer, exact_raw, f1_raw, exact, f1)


def _totals(exact: Mapping[str, float], f1: Mapping[str, float], ids: Iterable[str]) -> dict[str, Any]:
    ids = list(ids)
    total = len(ids)
    return {
        "exact": 100.0 * sum(exact[k] for k in ids) / total,
        "f1": 100.0 * sum(f1[k] for k in ids) / total,
        "total": total,
    }


def find_best_threshold(
    predictions: Mapping[str, str],
    scores: Mapping[str, float],
    na_probs: Mapping[str, float],
    has_answer: Mapping[str, bool],
) -> tuple[float, float]:
    """Sweep the no-answer threshold over the sorted probabilities; return (best score, its threshold).

    Starting from "abstain everywhere" (every unanswerable question right), each question in rising
    probability order switches to answering: an answerable one gains its score, an unanswerable one loses a
    point if the model gave a non-empty answer. Ties keep the probabilities' own order (a stable sort).
    """
    current: float = sum(1 for k in has_answer if not has_answer[k])
    best, best_thresh = current, 0.0
    for qid in sorted(na_probs, key=lambda k: na_probs[k]):
        if qid not in scores:
            continue
        if has_answer[qid]:
            diff = scores[qid]
        else:
            diff = -1.0 if predictions[qid] else 0.0
        current += diff
        if current > best:
            best, best_thresh = current, na_probs[qid]
    return 100.0 * best / len(scores), best_thresh


def summarize(
    scores: QuestionScores,
    predictions: Mapping[str, str],
    na_probs: Mapping[str, float] | None,
) -> dict[str, Any]:
    """The official result dict, keys in the official order; `best_*` only when probabilities were given."""
    result = _totals(scores.exact, scores.f1, scores.exact)
    has_ids = [k for k, v in scores.has_answer.items() if v]
    no_ids = [k for k, v in scores.has_answer.items() if not v]
    for prefix, ids in (("HasAns", has_ids), ("NoAns", no_ids)):
        if ids:
            for key, value in _totals(scores.exact, scores.f1, ids).items():
                result[f"{prefix}_{key}"] = value
    if na_probs is not None:
        result["best_exact"], result["best_exact_thresh"] = find_best_threshold(
            predictions, scores.exact_raw, na_probs, scores.has_answer
        )
        result["best_f1"], result["best_f1_thresh"] = find_best_threshold(
            predictions, scores.f1_raw, na_probs, scores.has_answer
        )
    return result


def evaluate(
    gold: Mapping[str, Sequence[str]],
    predictions: Mapping[str, str],
    na_probs: Mapping[str, float] | None = None,
    na_prob_thresh: float = DEFAULT_NA_PROB_THRESHOLD,
) -> dict[str, Any]:
    """Official SQuAD 2.0 scores of `predictions` (id -> text) against `gold` (id -> raw answer texts)."""
    if not gold:
        raise InputError("no questions to score", hint="give a SQuAD file with at least one question")
    scores = score_questions(gold, predictions, na_probs, na_prob_thresh)
    return summarize(scores, predictions, na_probs)


def _read_json(path: str | Path, what: str) -> Any:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"{what} not found", path=str(path), hint="check the path") from None
    except OSError as error:
        raise InputError(f"cannot read {what} ({error.strerror})", path=str(path)) from None
    except UnicodeDecodeError as error:
        raise InputError(f"{what} is not UTF-8 text ({error.reason})", path=str(path)) from None
    except json.JSONDecodeError as error:
        raise invalid_json(error, path=str(path), hint=f"give the {what} as JSON") from None


def _mapping(raw: Any, path: str | Path, what: str, value_type: type | tuple[type, ...]) -> dict[str, Any]:
    if not isinstance(raw, dict) or not all(
        isinstance(v, value_type) and not isinstance(v, bool) for v in raw.values()
    ):
        kind = "text" if value_type is str else "a number"
        raise InputError(f"{what} must map each question id to {kind}", path=str(path))
    return raw


def evaluate_files(
    data_file: str | Path,
    prediction_file: str | Path,
    na_prob_file: str | Path | None = None,
    na_prob_thresh: float = DEFAULT_NA_PROB_THRESHOLD,
) -> dict[str, Any]:
    """`evaluate-v2.0.py data_file pred_file [--na-prob-file F] [--na-prob-thresh T]`, as a function."""
    gold = gold_answers_of_squad(_read_json(data_file, "data file"))
    predictions = _mapping(_read_json(prediction_file, "prediction file"), prediction_file, "prediction file", str)
    na_probs = None
    if na_prob_file is not None:
        na_probs = _mapping(
            _read_json(na_prob_file, "no-answer probability file"), na_prob_file, "no-answer file", (int, float)
        )
    return evaluate(gold, predictions, na_probs, na_prob_thresh)


def evaluate_hf_format(
    predictions: Sequence[Mapping[str, Any]],
    references: Sequence[Mapping[str, Any]],
    no_answer_threshold: float = DEFAULT_NA_PROB_THRESHOLD,
) -> dict[str, Any]:
    """Hugging Face `evaluate`'s squad_v2 inputs: predictions `{"id", "prediction_text",
    "no_answer_probability"}` and references `{"id", "answers": {"text": [...], "answer_start": [...]}}`.

    Like that metric, the no-answer probabilities are always applied, so `best_*` is always present.
    """
    try:
        gold = {str(r["id"]): [str(t) for t in r["answers"]["text"]] for r in references}
        texts = {str(p["id"]): str(p["prediction_text"]) for p in predictions}
        na_probs = {str(p["id"]): float(p["no_answer_probability"]) for p in predictions}
    except (KeyError, TypeError) as error:
        raise InputError(
            f"not evaluate's squad_v2 format (missing {error})",
            hint=(
                'predictions need "id", "prediction_text", "no_answer_probability"; references "id", "answers": '
                '{"text", "answer_start"}'
            ),
        ) from None
    return evaluate(gold, texts, na_probs, no_answer_threshold)


# --- SQuAD v1.1 rules -------------------------------------------------------------------------------
#
# The official `evaluate-v1.1.py` normalizes answers the same way, but differs in three rules: F1 is 0
# whenever prediction and gold share no token, even when both normalize to nothing (v2.0 gives 1 then);
# every gold answer counts, even one that normalizes to nothing (v2.0 drops those); and there is no
# abstention: every question has an answer, "" is simply a wrong one, and there are no no-answer
# probabilities, thresholds or HasAns/NoAns split.


def compute_f1_v1(gold: str, prediction: str) -> float:
    """v1.1 token-overlap F1: 0 when no token is shared (including when either side is empty)."""
    pred_tokens = normalize_answer(prediction).split()
    gold_tokens = normalize_answer(gold).split()
    same = sum((Counter(pred_tokens) & Counter(gold_tokens)).values())
    if same == 0:
        return 0
    precision = same / len(pred_tokens)
    recall = same / len(gold_tokens)
    return (2 * precision * recall) / (precision + recall)


def score_questions_v1(gold: Mapping[str, Sequence[str]], predictions: Mapping[str, str]) -> QuestionScores:
    """Per-question v1.1 scores: the maximum over all gold answers, nothing thresholded.

    `has_answer` is True for every question and `exact_raw`/`f1_raw` equal `exact`/`f1`, so the drop and
    bootstrap code reads v1.1 scores exactly like v2.0 ones. The official script gives a question without
    a prediction 0 and prints a line; here, as for v2.0, it is an `InputError` naming the question, since
    robustqa always predicts every question and a missing one is a broken prediction file.
    """
    exact: dict[str, float] = {}
    f1: dict[str, float] = {}
    for qid, answers in gold.items():
        if not answers:
            raise InputError(
                f"question {qid} has no gold answer, which SQuAD v1.1 rules cannot score",
                hint="score sets with unanswerable questions with the SQuAD 2.0 rules",
            )
        if qid not in predictions:
            raise InputError(f"no prediction for question {qid}", hint="predict every question of the data file")
        prediction = predictions[qid]
        exact[qid] = max(compute_exact(a, prediction) for a in answers)
        f1[qid] = max(compute_f1_v1(a, prediction) for a in answers)
    return QuestionScores(dict.fromkeys(gold, True), exact, f1, dict(exact), dict(f1))


def summarize_v1(scores: QuestionScores) -> dict[str, Any]:
    """`{"exact", "f1", "total"}` in points, as the v1.1 script's `exact_match`/`f1` (robustqa's key names)."""
    return _totals(scores.exact, scores.f1, scores.exact)


def evaluate_v1(gold: Mapping[str, Sequence[str]], predictions: Mapping[str, str]) -> dict[str, Any]:
    """Official SQuAD v1.1 scores of `predictions` (id -> text) against `gold` (id -> raw answer texts)."""
    if not gold:
        raise InputError("no questions to score", hint="give a SQuAD file with at least one question")
    return summarize_v1(score_questions_v1(gold, predictions))


def evaluate_v1_files(data_file: str | Path, prediction_file: str | Path) -> dict[str, Any]:
    """`evaluate-v1.1.py data_file pred_file`, as a function (keys `exact`, `f1`, `total`)."""
    gold = gold_answers_of_squad(_read_json(data_file, "data file"))
    predictions = _mapping(_read_json(prediction_file, "prediction file"), prediction_file, "prediction file", str)
    return evaluate_v1(gold, predictions)


def evaluate_hf_squad_format(
    predictions: Sequence[Mapping[str, Any]], references: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    """Hugging Face `evaluate`'s squad (v1.1) inputs: predictions `{"id", "prediction_text"}`, references
    `{"id", "answers": {"text": [...], "answer_start": [...]}}`; keys `exact_match` and `f1` as that metric's."""
    try:
        gold = {str(r["id"]): [str(t) for t in r["answers"]["text"]] for r in references}
        texts = {str(p["id"]): str(p["prediction_text"]) for p in predictions}
    except (KeyError, TypeError) as error:
        raise InputError(
            f"not evaluate's squad format (missing {error})",
            hint='predictions need "id", "prediction_text"; references "id", "answers": {"text", "answer_start"}',
        ) from None
    result = evaluate_v1(gold, texts)
    return {"exact_match": result["exact"], "f1": result["f1"]}
