"""Failure analysis of a `robustqa eval` run folder: the functions the notebook calls.

The notebook only calls and displays; every number it shows comes from here (or from `robustqa.reporting.tables`
and `robustqa.reporting.charts`, which the reports share), so it is tested here. Runs are read by `robustqa.runs`;
tables are lists of plain dicts (pandas is not a dependency). Breakdowns are computed from `examples.jsonl`
(one line per model and question present in both sets), so they explain the headline drop of
`report.json` without re-running any model, and their intervals are drawn as report.json's are
(`robustqa.stats`: clean questions resampled, a generator from the seed for each interval).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perturbations.edit_kinds import edit_kind
from robustqa.edits import COARSE_POS, coarse_pos, highlight_html, highlight_text
from robustqa.errors import InputError
from robustqa.notebook import CALLER_CWD_ENV
from robustqa.render import html_table
from robustqa.reporting.tables import short_model_name
from robustqa.runs.load import Run
from robustqa.stats import DEFAULT_RESAMPLES, DEFAULT_SEED, Pair, drop_with_interval, flip_counts

QUESTION_TYPES = ("what", "who", "when", "where", "which", "how", "why", "other")


def shown_path(path: Path, cwd: Path | None = None) -> str:
    """`path` relative to `cwd` when it lies under it (`runs/my-run`), else absolute: a page that may be shared
    should not carry the user's home folder when a shorter name says the same. `cwd` defaults to the folder named by
    ROBUSTQA_CALLER_CWD (set by `robustqa analyze`), else the working directory."""
    here = Path(cwd if cwd is not None else os.environ.get(CALLER_CWD_ENV) or Path.cwd()).resolve()
    whole = Path(path).resolve()
    try:
        return str(whole.relative_to(here)) if whole != here else "."
    except ValueError:
        return str(whole)


@dataclass(frozen=True)
class Flip:
    """A question the model got right on the clean set and wrong on the perturbed one."""

    model: str
    id: str
    source_id: str
    title: str
    question: str
    perturbed_question: str
    gold_answers: tuple[str, ...]
    clean_prediction: str
    perturbed_prediction: str
    answerable: bool
    substitutions: tuple[Mapping[str, Any], ...]

    @property
    def question_html(self) -> str:
        return highlight_html(self.question, self.substitutions, side="original")

    @property
    def perturbed_html(self) -> str:
        return highlight_html(self.perturbed_question, self.substitutions, side="perturbed")

    @property
    def question_text(self) -> str:
        return highlight_text(self.question, self.substitutions, side="original")

    @property
    def perturbed_text(self) -> str:
        return highlight_text(self.perturbed_question, self.substitutions, side="perturbed")


def merge_runs(runs: Sequence[Run]) -> Run:
    """Several run folders (one model each, same clean file) seen as one multi-model run.

    Models keep their names; a model appearing in two runs is named `<model>@<folder>` so both stay apart.
    """
    if len(runs) == 1:
        return runs[0]
    seen: dict[str, int] = {}
    for run in runs:
        for model in run.models:
            seen[model] = seen.get(model, 0) + 1
    models: list[dict[str, Any]] = []
    examples: list[Mapping[str, Any]] = []
    for run in runs:
        rename = {m: (f"{m}@{run.path.name}" if seen[m] > 1 else m) for m in run.models}
        for entry in run.report.get("models", []):
            models.append({**entry, "model": rename[str(entry["model"])]})
        for example in run.examples:
            examples.append({**example, "model": rename.get(str(example["model"]), example["model"])})
    report = {"signature": " + ".join(r.signature for r in runs), "models": models}
    return Run(runs[0].path, report, given_examples=tuple(examples))


def compared(run: Run, model: str | None = None) -> list[Mapping[str, Any]]:
    """The examples.jsonl lines of one model (the first when None), refused when the run has nothing to compare."""
    lines = run.examples_of(model)
    if lines and all(e["perturbed_exact"] is None for e in lines):
        raise InputError(
            "the run has no perturbed set (evaluated on the clean file only): nothing to compare",
            path=str(run.path),
            hint="evaluate again with a perturbed file from `robustqa build-dataset`",
        )
    return lines


# --------------------------------------------------------------------------------------------- flips


def is_right(example: Mapping[str, Any], side: str) -> bool:
    """Right means exact match 1 (docs/FORMATS.md)."""
    return int(example[f"{side}_exact"]) == 1


def flipped(run: Run, model: str | None = None, *, changed_only: bool = False) -> list[Flip]:
    """Questions right on clean and wrong on perturbed, in file order, for one model (first when None)."""
    flips = []
    for e in compared(run, model):
        if not (is_right(e, "clean") and not is_right(e, "perturbed")):
            continue
        if changed_only and not e.get("changed", True):
            continue
        flips.append(
            Flip(
                model=str(e["model"]),
                id=str(e["id"]),
                source_id=str(e.get("source_id", e["id"])),
                title=str(e.get("title", "")),
                question=str(e["question"]),
                perturbed_question=str(e["perturbed_question"]),
                gold_answers=tuple(str(a) for a in e.get("gold_answers", ())),
                clean_prediction=str(e.get("clean_prediction", "")),
                perturbed_prediction=str(e.get("perturbed_prediction", "")),
                answerable=bool(e.get("answerable", True)),
                substitutions=tuple(e.get("substitutions") or ()),
            )
        )
    return flips


def _shown(prediction: str) -> str:
    return prediction if prediction else "(no answer)"


def flips_rows(flips: Sequence[Flip], *, html_marks: bool = False) -> list[dict[str, Any]]:
    """Flips as table rows: both questions highlighted, gold answers, both predictions side by side."""
    rows = []
    for flip in flips:
        rows.append(
            {
                "id": flip.source_id,
                "question": flip.question_html if html_marks else flip.question_text,
                "perturbed question": flip.perturbed_html if html_marks else flip.perturbed_text,
                "gold": " | ".join(dict.fromkeys(flip.gold_answers)) if flip.gold_answers else "(unanswerable)",
                "clean prediction": _shown(flip.clean_prediction),
                "perturbed prediction": _shown(flip.perturbed_prediction),
            }
        )
    return rows


def flips_html(flips: Sequence[Flip], limit: int | None = None) -> str:
    """An HTML table of flips with <mark>ed substitutions, for the notebook."""
    shown = list(flips)[:limit] if limit is not None else list(flips)
    rows = flips_rows(shown, html_marks=True)
    return html_table(rows, escape_columns={"id", "gold", "clean prediction", "perturbed prediction"})


# ----------------------------------------------------------------------------------------- breakdowns


_WORD = re.compile(r"[a-z]+")
_WH = {
    "what": "what",
    "who": "who",
    "whom": "who",
    "whose": "who",
    "when": "when",
    "where": "where",
    "which": "which",
    "how": "how",
    "why": "why",
}


def question_type(question: str) -> str:
    """The first wh-word of the question ("In what year ..." is a what-question); `other` when none."""
    for word in _WORD.findall(question.lower()):
        if word in _WH:
            return _WH[word]
    return "other"


def confidence_edges(values: Sequence[float], bins: int = 4) -> list[float]:
    """Quantile edges of WSD confidences: recipes keep only confident senses (qads: >= 0.8), so fixed bins
    over [0, 1] would put every question in one bin; quantiles split what the recipe actually kept."""
    if not values:
        return []
    ordered = sorted(values)
    edges = [ordered[min(len(ordered) - 1, (len(ordered) * k) // bins)] for k in range(bins)] + [ordered[-1]]
    unique: list[float] = []
    for edge in edges:
        if not unique or edge > unique[-1]:
            unique.append(edge)
    return unique if len(unique) > 1 else [unique[0], unique[0]]


def confidence_bin(confidence: float, edges: Sequence[float]) -> str:
    """The label `lo-hi` of the bin holding `confidence`; bins are [lo, hi) except the last, [lo, hi]."""
    for k, (low, high) in enumerate(zip(edges, edges[1:])):
        last = k == len(edges) - 2
        if low <= confidence < high or (last and low <= confidence <= high):
            return f"{low:.3f}-{high:.3f}"
    raise ValueError(f"WSD confidence {confidence} is outside the bins {list(edges)}")


def _subs(example: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return list(example.get("substitutions") or ())


def _pos_groups(example: Mapping[str, Any]) -> list[str]:
    subs = _subs(example)
    return sorted({coarse_pos(str(s["pos"])) for s in subs}) if subs else ["unchanged"]


def _count_group(example: Mapping[str, Any]) -> list[str]:
    n = len(_subs(example))
    return [str(n) if n < 3 else "3+"]


def _least_confidence(example: Mapping[str, Any]) -> float | None:
    subs = _subs(example)
    return min(float(s["confidence"]) for s in subs) if subs else None


def _qtype_group(example: Mapping[str, Any]) -> list[str]:
    return [question_type(str(example["question"]))]


def _answerable_group(example: Mapping[str, Any]) -> list[str]:
    return ["answerable" if example.get("answerable", True) else "unanswerable"]


# name -> (groups of one example, display order). POS groups overlap: a question with a noun and a verb
# substituted counts in both rows. The confidence of a question is its least confident substitution, binned
# by quartiles over the run's changed questions.
BREAKDOWNS: dict[str, tuple[Callable[[Mapping[str, Any]], list[str]], tuple[str, ...]]] = {
    "pos": (_pos_groups, COARSE_POS + ("unchanged",)),
    "substitutions": (_count_group, ("0", "1", "2", "3+")),
    "question_type": (_qtype_group, QUESTION_TYPES),
    "confidence": (lambda e: [], ()),  # quantile bins over the run: see `breakdown`
    "answerable": (_answerable_group, ("answerable", "unanswerable")),
}


def breakdown(
    run: Run,
    by: str,
    model: str | None = None,
    *,
    bootstrap: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> list[dict[str, Any]]:
    """The official drop per group of questions (every pair, answerable and unanswerable together), with a 95%
    paired-bootstrap interval of the F1 drop. The documents and the notebook show
    `robustqa.reporting.breakdowns` instead (answerable questions, unanswerable apart); this stays for scripts.

    `by` is one of BREAKDOWNS. Each row: group, n, clean/perturbed EM and F1 (percent), drops (points,
    perturbed minus clean), right->wrong and wrong->right counts. Empty groups are left out. The interval
    is drawn as report.json's are (`robustqa.stats.drop_with_interval`), so a group holding every question
    gets report.json's interval; `bootstrap=0` or a group of one question gets none.
    """
    if by not in BREAKDOWNS:
        raise ValueError(f"unknown breakdown {by!r}; choose from {', '.join(BREAKDOWNS)}")
    grouper, order = BREAKDOWNS[by]
    examples = compared(run, model)
    if by == "confidence":
        values = [_least_confidence(e) for e in examples]
        edges = confidence_edges([c for c in values if c is not None])
        labels = [f"{lo:.3f}-{hi:.3f}" for lo, hi in zip(edges, edges[1:])]
        order = tuple(labels) + ("unchanged",)

        def grouper(example: Mapping[str, Any]) -> list[str]:
            least = _least_confidence(example)
            return ["unchanged"] if least is None else [confidence_bin(least, edges)]

    groups: dict[str, list[Mapping[str, Any]]] = {}
    for example in examples:
        for name in grouper(example):
            groups.setdefault(name, []).append(example)
    rows = []
    for name in [g for g in order if g in groups] + sorted(g for g in groups if g not in order):
        rows.append({"group": name, **_scores(groups[name], bootstrap=bootstrap, seed=seed)})
    return rows


def lines_as_pairs(examples: Iterable[Mapping[str, Any]]) -> list[Pair]:
    """examples.jsonl lines as the clean/perturbed pairs `robustqa.stats` works on."""
    return [
        Pair(
            perturbed_id=str(e["id"]),
            source_id=str(e.get("source_id", e["id"])),
            changed=bool(e.get("changed", True)),
            has_answer=bool(e.get("answerable", True)),
            clean_exact=float(e["clean_exact"]),
            clean_f1=float(e["clean_f1"]),
            perturbed_exact=float(e["perturbed_exact"]),
            perturbed_f1=float(e["perturbed_f1"]),
        )
        for e in examples
    ]


def _percent(values: Iterable[float], n: int) -> float:
    return round(100.0 * sum(values) / n, 2)


def _scores(examples: Sequence[Mapping[str, Any]], *, bootstrap: int, seed: int) -> dict[str, Any]:
    pairs = lines_as_pairs(examples)
    n = len(pairs)
    drop = drop_with_interval(pairs, resamples=bootstrap if n > 1 else 0, seed=seed)
    interval = drop["f1_ci"]
    flips = flip_counts(pairs)
    return {
        "n": n,
        "clean_em": _percent((p.clean_exact for p in pairs), n),
        "perturbed_em": _percent((p.perturbed_exact for p in pairs), n),
        "drop_em": round(drop["exact"], 2),
        "clean_f1": _percent((p.clean_f1 for p in pairs), n),
        "perturbed_f1": _percent((p.perturbed_f1 for p in pairs), n),
        "drop_f1": round(drop["f1"], 2),
        "drop_f1_ci": (round(interval[0], 2), round(interval[1], 2)) if interval is not None else None,
        "right_to_wrong": flips["right_to_wrong"],
        "wrong_to_right": flips["wrong_to_right"],
    }


def substituted_words(run: Run, model: str | None = None, top: int = 15) -> list[dict[str, Any]]:
    """The substitutions (original -> replacement) most often behind a right->wrong flip, each with its edit kind,
    so that an abbreviation or a spelling variant at the top is not read as a synonym that breaks the model."""
    counts: dict[tuple[str, str, str, str], list[int]] = {}
    for e in compared(run, model):
        flip = is_right(e, "clean") and not is_right(e, "perturbed")
        for s in _subs(e):
            original, replacement = str(s["original"]), str(s["replacement"])
            kind = str(s.get("kind") or edit_kind(original, replacement).value)
            key = (original.lower(), replacement.lower(), coarse_pos(str(s["pos"])), kind)
            seen = counts.setdefault(key, [0, 0])
            seen[0] += 1
            seen[1] += int(flip)
    ranked = sorted(counts.items(), key=lambda item: (-item[1][1], -item[1][0], item[0]))
    return [
        {"original": o, "replacement": r, "pos": p, "kind": k, "questions": n, "flipped": f}
        for (o, r, p, k), (n, f) in ranked[:top]
    ]


# ------------------------------------------------------------------------------------- several models


# the columns of `shared_flips`' tables: each says what it counts, as several flip counts sit on one page
FLIPPED = "questions flipped (any variant, any kind)"
EVERY = "of them flipped by every model"
OWN = "of them flipped by this model only"
BOTH = "questions flipped by both (any variant, any kind)"
SHARED_SCOPE = (
    "answerable and unanswerable questions, every edit kind; a question counts as flipped when any of its variants "
    "is right on clean and wrong on perturbed"
)


def shared_flips(run: Run) -> dict[str, Any]:
    """Which right->wrong flips the models share and which are each model's own.

    Counted per question, not per variant: a question is flipped when any of its variants, of any edit kind, is
    right on clean and wrong on perturbed; answerable and unanswerable questions alike. So these counts are wider
    than the headline's and McNemar's (changed answerable questions of the headline's kinds, worst variant):
    `SHARED_SCOPE` says so wherever they are shown. Questions are matched by `source_id` and only questions every
    model answered are compared. Returns {"models", "compared", "all" (ids every model flipped), "own" {model: ids
    only it flipped}, "pairs" [{"a", "b", BOTH, "jaccard"}], "per_model" [{"model", FLIPPED, EVERY, OWN}]}; the
    rows of "pairs" and "per_model" name models short, as the report's tables do.
    """
    models = run.models
    flips: dict[str, set[str]] = {}
    answered: dict[str, set[str]] = {}
    for model in models:
        lines = compared(run, model)
        answered[model] = {str(e.get("source_id", e["id"])) for e in lines}
        flips[model] = {
            str(e.get("source_id", e["id"])) for e in lines if is_right(e, "clean") and not is_right(e, "perturbed")
        }
    common = set.intersection(*answered.values()) if answered else set()
    flips = {m: f & common for m, f in flips.items()}
    every = set.intersection(*flips.values()) if flips else set()
    own = {m: flips[m] - set().union(*(flips[o] for o in models if o != m)) for m in models}
    pairs = []
    name = {m: short_model_name(m) for m in models}  # the tables' rows name models as the report does
    for i, a in enumerate(models):
        for b in models[i + 1 :]:
            both = flips[a] & flips[b]
            union = flips[a] | flips[b]
            pairs.append(
                {
                    "a": name[a],
                    "b": name[b],
                    BOTH: len(both),
                    "jaccard": round(len(both) / len(union), 3) if union else None,
                }
            )
    return {
        "models": models,
        "compared": len(common),
        "all": sorted(every),
        "own": {m: sorted(ids) for m, ids in own.items()},
        "pairs": pairs,
        "per_model": [{"model": name[m], FLIPPED: len(flips[m]), EVERY: len(every), OWN: len(own[m])} for m in models],
    }


def shared_flips_caption(shared: Mapping[str, Any]) -> str:
    """The line above `shared_flips`' tables. It sits under the McNemar test, whose "both" counts something
    narrower (changed answerable questions of the headline's kinds that both models had right, worst variant), so
    it says which questions it counts and that it is not that number."""
    return (
        f"{shared['compared']} questions answered by every model ({SHARED_SCOPE}): {len(shared['all'])} of them "
        'flipped by every model. Not the McNemar "both" above, which counts only changed answerable questions of '
        "the headline's edit kinds that both models had right, by their worst variant."
    )


def flipped_heading(model: str, flips: Sequence[Flip], shown: int) -> str:
    """The heading of one model's flipped questions: per variant and per question, and which questions."""
    questions = len({flip.source_id for flip in flips})
    return (
        f"{short_model_name(model)}: {questions} questions flipped right → wrong on at least one variant "
        f"({len(flips)} variants; changed questions, answerable and unanswerable, every edit kind; "
        f"showing {min(shown, len(flips))} variants)"
    )
