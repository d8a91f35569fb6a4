"""Failure analysis of a `robustqa eval` run folder: the functions the notebook calls.

The notebook only calls and displays; every number it shows comes from here, so it is tested here. Tables
are lists of plain dicts (pandas is not a dependency); `html_table` and `text_table` render them.
Breakdowns are computed from `examples.jsonl` (one line per model and question present in both sets), so
they explain the headline drop of `report.json` without re-running any model.
"""

from __future__ import annotations

import html
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from robustqa.errors import InputError

RUN_ENV = "ROBUSTQA_RUN"
QUESTION_TYPES = ("what", "who", "when", "where", "which", "how", "why", "other")
COARSE_POS = ("noun", "verb", "adjective", "adverb", "other")
_EXAMPLE_KEYS = ("model", "id", "question", "perturbed_question", "clean_exact", "perturbed_exact", "clean_f1", "perturbed_f1")


@dataclass(frozen=True)
class Run:
    """One run folder as the analysis sees it: its report and its per-question lines."""

    path: Path
    report: Mapping[str, Any]
    examples: tuple[Mapping[str, Any], ...]

    @property
    def models(self) -> list[str]:
        return [str(m["model"]) for m in self.report.get("models", [])]

    @property
    def signature(self) -> str:
        return str(self.report.get("signature", ""))

    def examples_of(self, model: str | None = None) -> list[Mapping[str, Any]]:
        """The lines of one model (the first model when None)."""
        if model is None:
            if not self.models:
                return list(self.examples)
            model = self.models[0]
        return [e for e in self.examples if e.get("model") == model]


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


# ---------------------------------------------------------------------------------------------- loading


def find_run(run: str | os.PathLike[str] | None = None, runs_root: str | os.PathLike[str] = "runs") -> Path:
    """The run folder to analyse: the argument, else $ROBUSTQA_RUN, else the newest run under `runs_root`.

    A relative path that does not exist from the working folder is looked up from its parents.

    "Newest" is by the modification time of report.json, so a re-run folder counts as new.
    """
    chosen = run if run is not None else os.environ.get(RUN_ENV) or None
    if chosen is not None:
        return _locate(Path(chosen))
    root = Path(runs_root)
    candidates = [p.parent for p in root.glob("*/report.json")] if root.is_dir() else []
    if not candidates:
        raise InputError(
            "no run folder found",
            path=str(root),
            hint=f"set {RUN_ENV}=<run folder> or run `robustqa eval --output-dir {root}/<name>` first",
        )
    return max(candidates, key=lambda p: ((p / "report.json").stat().st_mtime, p.name))


def _locate(path: Path) -> Path:
    """A relative path as given, else relative to a parent of the working folder: a notebook's kernel starts in
    notebooks/, while `ROBUSTQA_RUN=runs/x jupyter notebook ...` is typed in the repository."""
    if path.is_absolute() or path.exists():
        return path
    for parent in Path.cwd().parents:
        if (parent / path).exists():
            return parent / path
    return path


def load_run(run: str | os.PathLike[str] | None = None, runs_root: str | os.PathLike[str] = "runs") -> Run:
    """Read report.json and examples.jsonl of a run folder (see `find_run` for which folder)."""
    path = find_run(run, runs_root)
    report_path = path / "report.json"
    examples_path = path / "examples.jsonl"
    if not path.is_dir():
        raise InputError("run folder not found", path=str(path), hint="give a folder written by `robustqa eval --output-dir`")
    for needed in (report_path, examples_path):
        if not needed.is_file():
            raise InputError(f"not a run folder: {needed.name} missing", path=str(path), hint="give a folder written by `robustqa eval --output-dir`")
    try:
        report = json.loads(report_path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise InputError(f"not valid JSON ({error})", path=str(report_path)) from None
    if not isinstance(report, dict) or not isinstance(report.get("models"), list):
        raise InputError("no 'models' list", path=str(report_path), hint="give a report.json written by `robustqa eval`")
    examples = []
    with examples_path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                example = json.loads(line)
            except json.JSONDecodeError as error:
                raise InputError(f"not valid JSON ({error})", path=str(examples_path), where=f"line {number}") from None
            missing = [k for k in _EXAMPLE_KEYS if not isinstance(example, dict) or k not in example]
            if missing:
                raise InputError(f"missing {', '.join(missing)}", path=str(examples_path), where=f"line {number}")
            examples.append(example)
    if examples and all(e["perturbed_exact"] is None for e in examples):
        raise InputError(
            "the run has no perturbed set (evaluated without --perturbed): nothing to compare",
            path=str(path),
            hint="rerun `robustqa eval` with --perturbed <file from robustqa build-dataset>",
        )
    return Run(path=path, report=report, examples=tuple(examples))


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
    return Run(path=runs[0].path, report=report, examples=tuple(examples))


# --------------------------------------------------------------------------------------------- headline


def headline(run: Run) -> list[dict[str, Any]]:
    """One row per model: clean and perturbed EM/F1, the drop with its interval, on all and on changed questions."""
    return headline_rows(run.report)


def headline_rows(report: Mapping[str, Any]) -> list[dict[str, Any]]:
    """`headline` from a report.json mapping alone (what `robustqa report` has, without examples)."""
    rows = []
    for entry in report.get("models", []):
        clean = entry.get("clean") or {}
        perturbed = entry.get("perturbed") or {}
        drop = entry.get("drop") or {}
        changed = drop.get("changed") or {}
        coverage = entry.get("coverage") or {}
        rows.append(
            {
                "model": entry.get("model"),
                "questions": clean.get("total"),
                "clean_em": clean.get("exact"),
                "perturbed_em": perturbed.get("exact"),
                "drop_em": drop.get("exact"),
                "drop_em_ci": _pair(drop.get("exact_ci")),
                "clean_f1": clean.get("f1"),
                "perturbed_f1": perturbed.get("f1"),
                "drop_f1": drop.get("f1"),
                "drop_f1_ci": _pair(drop.get("f1_ci")),
                "changed": changed.get("questions", coverage.get("changed")),
                "changed_drop_em": changed.get("exact"),
                "changed_drop_f1": changed.get("f1"),
                "changed_drop_f1_ci": _pair(changed.get("f1_ci")),
                "right_to_wrong": (entry.get("flips") or {}).get("right_to_wrong"),
                "wrong_to_right": (entry.get("flips") or {}).get("wrong_to_right"),
            }
        )
    return rows


def _pair(value: Any) -> tuple[float, float] | None:
    if isinstance(value, (list, tuple)) and len(value) == 2 and all(isinstance(v, (int, float)) for v in value):
        return (float(value[0]), float(value[1]))
    return None


# ---------------------------------------------------------------------------------------- highlighting


def _spans(substitutions: Iterable[Mapping[str, Any]], side: str) -> list[tuple[int, int, str]]:
    """(start, end, other word) per substitution in the chosen text, sorted, overlaps dropped."""
    start_key, end_key, other_key = ("start", "end", "replacement") if side == "original" else ("new_start", "new_end", "original")
    if side not in ("original", "perturbed"):
        raise ValueError(f"side must be 'original' or 'perturbed', not {side!r}")
    spans = sorted((int(s[start_key]), int(s[end_key]), str(s[other_key])) for s in substitutions)
    kept: list[tuple[int, int, str]] = []
    for span in spans:
        if not kept or span[0] >= kept[-1][1]:
            kept.append(span)
    return kept


def highlight_text(text: str, substitutions: Iterable[Mapping[str, Any]], side: str = "perturbed") -> str:
    """The text with each substituted word in [brackets] (plain-text reports, terminals, tests)."""
    out, cursor = [], 0
    for start, end, _ in _spans(substitutions, side):
        out.append(text[cursor:start])
        out.append(f"[{text[start:end]}]")
        cursor = end
    out.append(text[cursor:])
    return "".join(out)


def highlight_html(text: str, substitutions: Iterable[Mapping[str, Any]], side: str = "perturbed") -> str:
    """The text, HTML-escaped, with each substituted word in <mark> and the other side's word as its title."""
    out, cursor = [], 0
    for start, end, other in _spans(substitutions, side):
        out.append(html.escape(text[cursor:start]))
        out.append(f'<mark title="{html.escape(other, quote=True)}">{html.escape(text[start:end])}</mark>')
        cursor = end
    out.append(html.escape(text[cursor:]))
    return "".join(out)


# --------------------------------------------------------------------------------------------- flips


def is_right(example: Mapping[str, Any], side: str) -> bool:
    """Right means exact match 1 (docs/FORMATS.md)."""
    return int(example[f"{side}_exact"]) == 1


def flipped(run: Run, model: str | None = None, *, changed_only: bool = False) -> list[Flip]:
    """Questions right on clean and wrong on perturbed, in file order, for one model (first when None)."""
    flips = []
    for e in run.examples_of(model):
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
                "gold": " | ".join(flip.gold_answers) if flip.gold_answers else "(unanswerable)",
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


def coarse_pos(tag: str) -> str:
    """Penn tag -> noun / verb / adjective / adverb / other."""
    tag = tag.upper()
    if tag.startswith("NN"):
        return "noun"
    if tag.startswith("VB") or tag == "MD":
        return "verb"
    if tag.startswith("JJ"):
        return "adjective"
    if tag.startswith("RB") or tag == "WRB":
        return "adverb"
    return "other"


_WORD = re.compile(r"[a-z]+")
_WH = {"what": "what", "who": "who", "whom": "who", "whose": "who", "when": "when", "where": "where", "which": "which", "how": "how", "why": "why"}


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
    bootstrap: int = 1000,
    seed: int = 13,
) -> list[dict[str, Any]]:
    """The drop per group of questions, with a 95% paired-bootstrap interval of the F1 drop.

    `by` is one of BREAKDOWNS. Each row: group, n, clean/perturbed EM and F1 (percent), drops (points,
    perturbed minus clean), right->wrong and wrong->right counts. Empty groups are left out.
    """
    if by not in BREAKDOWNS:
        raise ValueError(f"unknown breakdown {by!r}; choose from {', '.join(BREAKDOWNS)}")
    grouper, order = BREAKDOWNS[by]
    examples = run.examples_of(model)
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
        rows.append({"group": name, **_scores(groups[name], bootstrap=bootstrap, seed=seed, key=f"{by}:{name}")})
    return rows


def _scores(examples: Sequence[Mapping[str, Any]], *, bootstrap: int, seed: int, key: str) -> dict[str, Any]:
    import numpy as np

    clean_em = np.array([float(e["clean_exact"]) for e in examples])
    pert_em = np.array([float(e["perturbed_exact"]) for e in examples])
    clean_f1 = np.array([float(e["clean_f1"]) for e in examples])
    pert_f1 = np.array([float(e["perturbed_f1"]) for e in examples])
    diff = pert_f1 - clean_f1
    ci: tuple[float, float] | None = None
    if bootstrap > 0 and len(examples) > 1:
        import hashlib

        rng = np.random.default_rng(int.from_bytes(hashlib.sha256(f"{seed}:{key}".encode()).digest()[:8], "big"))
        means = diff[rng.integers(0, len(diff), size=(bootstrap, len(diff)))].mean(axis=1)
        lo, hi = np.percentile(means, [2.5, 97.5])
        ci = (round(100.0 * float(lo), 2), round(100.0 * float(hi), 2))
    return {
        "n": len(examples),
        "clean_em": round(100.0 * float(clean_em.mean()), 2),
        "perturbed_em": round(100.0 * float(pert_em.mean()), 2),
        "drop_em": round(100.0 * float((pert_em - clean_em).mean()), 2),
        "clean_f1": round(100.0 * float(clean_f1.mean()), 2),
        "perturbed_f1": round(100.0 * float(pert_f1.mean()), 2),
        "drop_f1": round(100.0 * float(diff.mean()), 2),
        "drop_f1_ci": ci,
        "right_to_wrong": int(((clean_em == 1) & (pert_em == 0)).sum()),
        "wrong_to_right": int(((clean_em == 0) & (pert_em == 1)).sum()),
    }


def substituted_words(run: Run, model: str | None = None, top: int = 15) -> list[dict[str, Any]]:
    """The substitutions (original -> replacement) most often behind a right->wrong flip."""
    counts: dict[tuple[str, str, str], list[int]] = {}
    for e in run.examples_of(model):
        flip = is_right(e, "clean") and not is_right(e, "perturbed")
        for s in _subs(e):
            key = (str(s["original"]).lower(), str(s["replacement"]).lower(), coarse_pos(str(s["pos"])))
            seen = counts.setdefault(key, [0, 0])
            seen[0] += 1
            seen[1] += int(flip)
    ranked = sorted(counts.items(), key=lambda item: (-item[1][1], -item[1][0], item[0]))
    return [
        {"original": o, "replacement": r, "pos": p, "questions": n, "flipped": f}
        for (o, r, p), (n, f) in ranked[:top]
    ]


# ------------------------------------------------------------------------------------- several models


def shared_flips(run: Run) -> dict[str, Any]:
    """Which right->wrong flips the models share and which are each model's own.

    Questions are matched by `source_id` and only questions every model answered are compared. Returns
    {"models", "compared", "all" (ids every model flipped), "own" {model: ids only it flipped},
    "pairs" [{"a", "b", "both", "jaccard"}], "per_model" [{"model", "flips", "shared_with_all", "own"}]}.
    """
    models = run.models
    flips: dict[str, set[str]] = {}
    answered: dict[str, set[str]] = {}
    for model in models:
        lines = run.examples_of(model)
        answered[model] = {str(e.get("source_id", e["id"])) for e in lines}
        flips[model] = {str(e.get("source_id", e["id"])) for e in lines if is_right(e, "clean") and not is_right(e, "perturbed")}
    common = set.intersection(*answered.values()) if answered else set()
    flips = {m: f & common for m, f in flips.items()}
    every = set.intersection(*flips.values()) if flips else set()
    own = {m: flips[m] - set().union(*(flips[o] for o in models if o != m)) for m in models}
    pairs = []
    for i, a in enumerate(models):
        for b in models[i + 1 :]:
            both = flips[a] & flips[b]
            union = flips[a] | flips[b]
            pairs.append({"a": a, "b": b, "both": len(both), "jaccard": round(len(both) / len(union), 3) if union else None})
    return {
        "models": models,
        "compared": len(common),
        "all": sorted(every),
        "own": {m: sorted(ids) for m, ids in own.items()},
        "pairs": pairs,
        "per_model": [{"model": m, "flips": len(flips[m]), "shared_with_all": len(every), "own": len(own[m])} for m in models],
    }


# ---------------------------------------------------------------------------------------------- tables


def _cell(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.2f}"
    if isinstance(value, tuple) and len(value) == 2:
        return f"[{_cell(value[0])}, {_cell(value[1])}]"
    return str(value)


def text_table(rows: Sequence[Mapping[str, Any]], columns: Sequence[str] | None = None) -> str:
    """A fixed-width plain-text table (terminal, logs, test assertions)."""
    if not rows:
        return "(no rows)"
    columns = list(columns or rows[0].keys())
    cells = [[_cell(row.get(c)) for c in columns] for row in rows]
    widths = [max(len(c), *(len(r[i]) for r in cells)) for i, c in enumerate(columns)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(columns, widths))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(v.ljust(w) for v, w in zip(r, widths)) for r in cells]
    return "\n".join(lines)


def html_table(
    rows: Sequence[Mapping[str, Any]],
    columns: Sequence[str] | None = None,
    *,
    escape_columns: Iterable[str] | None = None,
) -> str:
    """An HTML table. Cells are escaped except where `escape_columns` leaves them out (pre-rendered HTML)."""
    if not rows:
        return "<p>(no rows)</p>"
    columns = list(columns or rows[0].keys())
    escaped = set(columns if escape_columns is None else escape_columns)
    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    body = []
    for row in rows:
        cells = []
        for c in columns:
            value = _cell(row.get(c))
            cells.append(f"<td style='text-align:left'>{html.escape(value) if c in escaped else value}</td>")
        body.append(f"<tr>{''.join(cells)}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


# ---------------------------------------------------------------------------------------------- plots


def plot_models(rows: Sequence[Mapping[str, Any]], ax: Any = None) -> Any:
    """Grouped bars per model: clean and perturbed EM and F1; the F1 drop interval as an error bar."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(max(5.0, 1.8 * len(rows) + 2), 3.6))
    names = [str(r["model"]) for r in rows]
    series = [("clean_em", "clean EM", "#9ecae1"), ("perturbed_em", "perturbed EM", "#3182bd"), ("clean_f1", "clean F1", "#fdae6b"), ("perturbed_f1", "perturbed F1", "#e6550d")]
    width = 0.8 / len(series)
    for k, (key, label, color) in enumerate(series):
        xs = [i + (k - (len(series) - 1) / 2) * width for i in range(len(rows))]
        values = [float(r.get(key) or 0.0) for r in rows]
        errors = None
        if key == "perturbed_f1":
            errors = _error_bars(rows, "drop_f1", "drop_f1_ci")
        ax.bar(xs, values, width, label=label, color=color, yerr=errors, capsize=3)
    ax.set_xticks(range(len(rows)), names)
    ax.set_ylabel("score (%)")
    ax.set_title("Clean vs perturbed (error bar: 95% interval of the F1 drop)")
    ax.legend(fontsize="small", ncols=2)
    return ax.figure


def _error_bars(rows: Sequence[Mapping[str, Any]], value_key: str, ci_key: str) -> list[list[float]] | None:
    """Asymmetric error bars from intervals; a row without one (a group of one question) gets none."""
    lower, upper = [], []
    for r in rows:
        value, ci = r.get(value_key), r.get(ci_key)
        if value is None or ci is None:
            lower.append(0.0)
            upper.append(0.0)
            continue
        lower.append(max(0.0, float(value) - float(ci[0])))
        upper.append(max(0.0, float(ci[1]) - float(value)))
    return [lower, upper] if any(lower) or any(upper) else None


def plot_breakdown(rows: Sequence[Mapping[str, Any]], title: str = "", metric: str = "f1", ax: Any = None) -> Any:
    """Horizontal bars of the drop per group, with its bootstrap interval and the group size."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(6.0, 0.45 * len(rows) + 1.2))
    labels = [f"{r['group']} (n={r['n']})" for r in rows]
    values = [float(r[f"drop_{metric}"]) for r in rows]
    errors = _error_bars(rows, "drop_f1", "drop_f1_ci") if metric == "f1" else None
    ax.barh(range(len(rows)), values, xerr=errors, color=["#e6550d" if v < 0 else "#31a354" for v in values], capsize=3)
    ax.set_yticks(range(len(rows)), labels)
    ax.invert_yaxis()
    ax.axvline(0.0, color="black", linewidth=0.8)
    ax.set_xlabel(f"{metric.upper()} drop (points, perturbed minus clean)")
    ax.set_title(title)
    ax.figure.tight_layout()
    return ax.figure
