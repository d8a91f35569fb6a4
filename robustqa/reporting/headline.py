"""The headline of finished runs: per model, the three answers of `robustqa.estimands`, and each two models
compared, as rows that the terminal, report.md, the HTML page, the JSON document, the chart and the notebook
all read (so each says the same).

A model's estimands come from report.json (`estimands`); a run folder written before they existed has them
computed here from its examples.jsonl, so old runs still get the headline (without the threshold-free row
where its lines lack best spans). The edit kinds a headline covers are the run's `headline_kinds` setting
(`certified@2` by default: synonym and rare), else the kinds it selected (`kinds`), else every variant.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from robustqa.estimands import compare, estimands, headline_line, kinds_text, rate_text, verdict
from robustqa.render import signed, with_ci
from robustqa.reporting.tables import run_kind, run_labels, short_model_name
from robustqa.stats import DEFAULT_RESAMPLES, DEFAULT_SEED

if TYPE_CHECKING:
    from robustqa.reporting.breakdowns import ModelBreakdowns
    from robustqa.runs.load import Run

HEADLINE_TITLE = "robustqa: does the model still find the answer? (changed questions only, points)"
HEADLINE_NOTE = (
    "Every figure covers the questions the recipe changed, answerable and unanswerable apart (never netted). "
    "*ΔF1 worst of K*: each changed answerable question scored by its worst variant, minus its clean F1 "
    "(negative: the model lost the answer), paired bootstrap 95% interval. *Flip rate*: of the changed answerable "
    "questions right on clean (EM 1), the share wrong on their worst variant, Wilson 95% interval; the flips split "
    "into *abstained* on the variant and *answered something else*. *Abstention Δ*: change in the share of "
    "changed unanswerable questions the model abstains on (each by the mean of its variants): a rise means the model "
    "is less sure of the variant, not that it got better. *Threshold-free*: the same on the best non-null span "
    "(abstention off). The official SQuAD EM/F1 over all questions, which nets the two kinds, is in its own "
    "table below. Definitions: docs/metrics.md."
)
# the terminal's columns, the three answers first (columns are left out from the end when a terminal is narrow)
TERMINAL_COLUMNS = (
    "Model",
    "ΔF1 worst of K\nanswerable [CI]",
    "Flip rate\nanswerable [CI]",
    "Abstention Δ\nunanswerable [CI]",
    "Questions\nans. / unans.",
    "Clean F1\nanswerable",
    "Flips: abstained\n/ answered other",
)
MARKDOWN_COLUMNS = (
    "Model",
    "Changed answerable questions",
    "Clean EM / F1 on them",
    "ΔEM worst of K [95% CI]",
    "ΔF1 worst of K [95% CI]",
    "ΔF1 mean of K [95% CI]",
    "Flip rate [95% CI]",
    "Flips: abstained / answered other",
    "Threshold-free ΔF1 worst of K [95% CI]",
    "Threshold-free flip rate [95% CI]",
    "Changed unanswerable questions",
    "Abstention on unanswerable: clean → variant",
    "Abstention Δ unanswerable [95% CI]",
    "Abstention Δ answerable [95% CI]",
)
# report.md and the HTML page show that table in two, row for row, so that each fits a 1280-pixel page: the answerable
# figures, then abstention (the notebook shows it whole)
ANSWERABLE_DETAILS = MARKDOWN_COLUMNS[: MARKDOWN_COLUMNS.index("Changed unanswerable questions")]
ABSTENTION_DETAILS = ("Model", *MARKDOWN_COLUMNS[len(ANSWERABLE_DETAILS) :])
ABSTENTION_HEADING = "The same models: abstention on the changed unanswerable and answerable questions"


@dataclass(frozen=True)
class HeadlineRow:
    """One model of one run with its estimands (None: nothing to compare, e.g. a clean-only run)."""

    label: str
    model: str
    run: Run
    estimands: Mapping[str, Any] | None
    identity: tuple[str, str] = ("", "")  # (model id, fingerprint): one model on two sets is no comparison

    @property
    def kinds(self) -> tuple[str, ...] | None:
        """The edit kinds the headline covers (None: every variant)."""
        kinds = (self.estimands or {}).get("kinds")
        return tuple(kinds) if kinds else None

    @cached_property
    def breakdowns(self) -> ModelBreakdowns:
        """Which edits break it (`robustqa.reporting.breakdowns`), computed once for every document that shows
        them: every edit kind by kind, the headline's kinds in the other breakdowns."""
        from robustqa.reporting.breakdowns import model_breakdowns

        resamples, seed = run_settings(self.run)
        return model_breakdowns(self.run.examples_of(self.model), resamples=resamples, seed=seed, kinds=self.kinds)

    def numbers(self) -> dict[str, Any]:
        """The headline as numbers (report --format json, the notebook, the chart)."""
        est = self.estimands or {}
        ans, unans = est.get("answerable") or {}, est.get("unanswerable") or {}
        worst, flips = ans.get("worst") or {}, ans.get("flips") or {}
        free = est.get("threshold_free") or {}
        return {
            "model": self.model,
            "label": self.label,
            "run": str(self.run.path),
            "kinds": list(self.kinds) if self.kinds else None,
            "answerable_questions": ans.get("questions"),
            "clean_f1_answerable": ans.get("clean_f1"),
            "drop_f1_worst": worst.get("f1"),
            "drop_f1_worst_ci": worst.get("f1_ci"),
            "drop_em_worst": worst.get("exact"),
            "drop_em_worst_ci": worst.get("exact_ci"),
            "drop_f1_mean": (ans.get("mean") or {}).get("f1"),
            "drop_f1_mean_ci": (ans.get("mean") or {}).get("f1_ci"),
            "flip_rate": flips.get("rate"),
            "flip_rate_ci": flips.get("rate_ci"),
            "flipped": flips.get("flipped"),
            "right_on_clean": flips.get("right_on_clean"),
            "flips_abstained": flips.get("abstained"),
            "flips_answered_other": flips.get("answered_other"),
            "threshold_free_drop_f1_worst": (free.get("worst") or {}).get("f1"),
            "threshold_free_drop_f1_worst_ci": (free.get("worst") or {}).get("f1_ci"),
            "unanswerable_questions": unans.get("questions"),
            "abstention_clean": unans.get("clean"),
            "abstention_perturbed": unans.get("perturbed"),
            "abstention_shift": unans.get("shift"),
            "abstention_shift_ci": unans.get("shift_ci"),
            "reading": est.get("reading") or None,
        }

    def line(self) -> str:
        if self.estimands is None:
            return f"{self.label}: nothing to compare (no perturbed set)"
        return headline_line(self.label, self.estimands)

    def terminal_cells(self) -> dict[str, str]:
        n = self.numbers()
        flips = (self.estimands or {}).get("answerable", {}) or {}
        return {
            "Model": self.label,
            "ΔF1 worst of K\nanswerable [CI]": with_ci(n["drop_f1_worst"], n["drop_f1_worst_ci"]),
            "Flip rate\nanswerable [CI]": rate_text(flips.get("flips")),
            "Abstention Δ\nunanswerable [CI]": with_ci(n["abstention_shift"], n["abstention_shift_ci"]),
            "Questions\nans. / unans.": f"{_count(n['answerable_questions'])} / {_count(n['unanswerable_questions'])}",
            "Clean F1\nanswerable": _number(n["clean_f1_answerable"]),
            "Flips: abstained\n/ answered other": (
                f"{n['flips_abstained']} / {n['flips_answered_other']}" if n["flipped"] is not None else "–"
            ),
        }

    def markdown_cells(self) -> dict[str, str]:
        est = self.estimands or {}
        ans, free = est.get("answerable") or {}, est.get("threshold_free") or {}
        unans, ans_abst = est.get("unanswerable") or {}, est.get("answerable_abstention") or {}
        worst, mean, flips = ans.get("worst") or {}, ans.get("mean") or {}, ans.get("flips") or {}
        return {
            "Model": self.label,
            "Changed answerable questions": _count(ans.get("questions"))
            + (f" ({ans['variants']} variants)" if ans.get("variants") else ""),
            "Clean EM / F1 on them": f"{_number(ans.get('clean_exact'))} / {_number(ans.get('clean_f1'))}",
            "ΔEM worst of K [95% CI]": with_ci(worst.get("exact"), worst.get("exact_ci")),
            "ΔF1 worst of K [95% CI]": with_ci(worst.get("f1"), worst.get("f1_ci")),
            "ΔF1 mean of K [95% CI]": with_ci(mean.get("f1"), mean.get("f1_ci")),
            "Flip rate [95% CI]": rate_text(flips)
            + (f" ({flips['flipped']}/{flips['right_on_clean']} questions)" if flips else ""),
            "Flips: abstained / answered other": f"{flips['abstained']} / {flips['answered_other']}" if flips else "–",
            "Threshold-free ΔF1 worst of K [95% CI]": with_ci(
                (free.get("worst") or {}).get("f1"), (free.get("worst") or {}).get("f1_ci")
            )
            if free
            else "not recorded",
            "Threshold-free flip rate [95% CI]": rate_text(free.get("flips")) if free else "not recorded",
            "Changed unanswerable questions": _count(unans.get("questions")),
            "Abstention on unanswerable: clean → variant": (
                f"{unans['clean']:.1f}% → {unans['perturbed']:.1f}%" if unans else "–"
            ),
            "Abstention Δ unanswerable [95% CI]": with_ci(unans.get("shift"), unans.get("shift_ci")),
            "Abstention Δ answerable [95% CI]": with_ci(ans_abst.get("shift"), ans_abst.get("shift_ci")),
        }


def _count(value: Any) -> str:
    return "–" if value is None else str(value)


def _number(value: Any) -> str:
    return "–" if value is None else f"{value:.1f}"


def run_settings(run: Run) -> tuple[int, int]:
    settings = run.report.get("settings") or {}
    return int(settings.get("bootstrap") or DEFAULT_RESAMPLES), int(settings.get("seed", DEFAULT_SEED))


def headline_kinds(run: Run) -> tuple[str, ...] | None:
    """The edit kinds a run's headline covers: its `headline_kinds`, else the kinds it selected (runs made before
    headline kinds, where the selection was the headline's), else None (every variant)."""
    settings = run.report.get("settings") or {}
    kinds = settings.get("headline_kinds") or settings.get("kinds")
    return tuple(str(kind) for kind in kinds) if kinds else None


def model_estimands(run: Run, entry: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """A model's estimands: report.json's, else computed from examples.jsonl (run folders written before them);
    None for a run with no perturbed set. Each says which edit kinds it covers (`kinds`)."""
    kinds = headline_kinds(run)
    if entry.get("estimands"):
        stored = entry["estimands"]
        return stored if "kinds" in stored else {"kinds": list(kinds) if kinds else None, **stored}
    if run_kind(run) != "paired":
        return None
    resamples, seed = run_settings(run)
    return estimands(run.examples_of(str(entry["model"])), resamples=resamples, seed=seed, kinds=kinds)


def kinds_caption(rows: Sequence[HeadlineRow]) -> str:
    """Which edit kinds the headline counts, in a sentence ("" where every row counts every variant)."""
    if all(row.kinds is None for row in rows):
        return ""
    every = "; the breakdown by edit kind has a row for every kind"
    if len({row.kinds for row in rows}) == 1:
        return f"The headline counts {kinds_text(rows[0].kinds)} only{every}."
    each = "; ".join(f"{row.label}: {kinds_text(row.kinds) or 'every edit kind'}" for row in rows)
    return f"Edit kinds each headline counts: {each}{every}."


OFFICIAL_HEADING = "Official SQuAD EM/F1 (all questions and every edit kind: answerable and unanswerable netted)"


def official_caption(rows: Sequence[HeadlineRow]) -> str:
    """Why the official table's changed columns differ from the headline where the headline counts only some edit
    kinds ("" where it counts every variant): the official table counts every changed question of every kind."""
    kinds = {row.kinds for row in rows if row.kinds}
    if not kinds:
        return ""
    counted = kinds_text(kinds.pop()) if len(kinds) == 1 else "only some edit kinds"
    return (
        "This table counts every edit kind: its changed columns (ΔF1 changed, ΔF1 changed answerable, Flips, Changed) "
        f"cover every changed question, while the headline above counts {counted} only, so its ΔF1 worst of K is not "
        "this table's worst-of-K ΔF1 changed answerable."
    )


def _shared_kinds(a: HeadlineRow, b: HeadlineRow) -> tuple[str, ...] | None:
    """The edit kinds two rows' headlines both count (None: every variant)."""
    if a.kinds is None or b.kinds is None:
        return a.kinds or b.kinds
    return tuple(kind for kind in a.kinds if kind in b.kinds)


def headline_rows(runs: Sequence[Run]) -> list[HeadlineRow]:
    """One row per model of every paired run, in the order given."""
    rows = []
    for label, run in zip(run_labels(runs), runs):
        for entry in run.report.get("models", []):
            est = model_estimands(run, entry)
            if est is None:
                continue
            model = short_model_name(str(entry["model"]))
            identity = (str(entry.get("model_id")), str(entry.get("fingerprint")))
            rows.append(HeadlineRow(f"{label}: {model}" if label else model, str(entry["model"]), run, est, identity))
    return rows


def comparisons(runs: Sequence[Run]) -> list[dict[str, Any]]:
    """Each two different models shown that share changed answerable questions, compared
    (`robustqa.estimands.compare`): within a run from report.json's `comparisons`, across runs from the two runs'
    examples.jsonl. One model on two sets is not compared (that compares the sets, which the headline shows)."""
    rows = headline_rows(runs)
    out: list[dict[str, Any]] = []
    for i, a in enumerate(rows):
        for b in rows[i + 1 :]:
            if a.identity == b.identity:
                continue
            if a.run is b.run:
                stored = [
                    c for c in a.run.report.get("comparisons") or [] if (c.get("a"), c.get("b")) == (a.model, b.model)
                ]
                if stored:
                    found = {"kinds": list(a.kinds) if a.kinds else None, **stored[0], "a": a.label, "b": b.label}
                    out.append({**found, "verdict": verdict(found)})
                    continue
            resamples, seed = run_settings(a.run)
            result = compare(
                a.label,
                a.run.examples_of(a.model),
                b.label,
                b.run.examples_of(b.model),
                resamples=resamples,
                seed=seed,
                kinds=_shared_kinds(a, b),
            )
            if result["questions"]:
                out.append(result)
    return out


def comparison_cells(result: Mapping[str, Any]) -> dict[str, str]:
    flips = result["flips"]
    return {
        "A": str(result["a"]),
        "B": str(result["b"]),
        "Shared changed answerable questions (n of the F1 test)": str(result["questions"]),
        "ΔF1 worst of K: A / B": f"{signed(result['drop_f1_a'])} / {signed(result['drop_f1_b'])}",
        "A − B [95% CI] (positive: A loses less)": with_ci(result["difference"], result["difference_ci"]),
        "Flips only A / only B / both": f"{flips['only_a']} / {flips['only_b']} / {flips['both']}",
        "McNemar exact p (n: flipped by one only)": f"{flips['p_value']:.3g} (n = {flips['only_a'] + flips['only_b']})",
    }


COMPARISON_NOTE = (
    "Each two models over the changed answerable questions both were scored on (their clean question ids), each "
    "question by each model's worst variant: the difference of their worst-of-K ΔF1 with a bootstrap 95% interval "
    "over questions, and an exact McNemar test on the questions one model flips and the other does not (of those "
    "both got right on clean). The two tests count different questions, so each gives its own n: the F1 test every "
    "shared question, McNemar only those flipped by exactly one model."
)

COMPARISON_COLUMNS = (
    "A",
    "B",
    "Shared changed answerable questions (n of the F1 test)",
    "ΔF1 worst of K: A / B",
    "A − B [95% CI] (positive: A loses less)",
    "Flips only A / only B / both",
    "McNemar exact p (n: flipped by one only)",
)


def three_answers(runs: Sequence[Run], rows: Sequence[HeadlineRow] | None = None) -> str:
    """The three answers as markdown, for the top of the notebook and the analyze page: does the model
    understand the words, which edits break it, is it more robust than the other models shown. `rows`: the
    runs' `headline_rows` when the caller holds them already (their breakdowns are computed once)."""
    from robustqa.reporting.breakdowns import breaking_text

    rows = headline_rows(runs) if rows is None else rows
    if not rows:
        return "Nothing to compare: no run here has a perturbed set."
    lines = ["**1. Does it still find the answer?** (changed questions; answerable and unanswerable apart)", ""]
    caption = kinds_caption(rows)
    lines += [caption, ""] if caption else []
    lines += [f"- {row.line()}" for row in rows]
    lines += [
        f"- {row.label}: {row.estimands['reading']}" for row in rows if row.estimands and row.estimands.get("reading")
    ]
    lines += [
        "",
        "**2. Which edits break it?** (changed answerable questions, worst of K; every group whose ΔF1 "
        "interval lies below zero, at least 20 questions, n of N"
        + ("; by edit kind every kind, the other breakdowns the headline's kinds)" if caption else ")"),
        "",
    ]
    for row in rows:
        everything = ((row.estimands or {}).get("answerable") or {}).get("questions")
        lines.append(f"- {row.label}: {breaking_text(row.breakdowns, everything)}")
    lines += ["", "**3. Is it more robust than another model?** (paired over shared questions)", ""]
    compared = comparisons(runs)
    if compared:
        lines += [f"- {result['verdict']}" for result in compared]
    else:
        lines.append(
            "- one model here: evaluate several (`robustqa eval A B`) or compare runs (`robustqa report RUN_A RUN_B`)"
        )
    return "\n".join(lines)
