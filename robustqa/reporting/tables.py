"""The one table pipeline: report.json entries -> rows -> text, markdown, HTML or a rich table.

Every table robustqa shows of finished runs (report.md, `robustqa report` in each format, the eval command's
terminal table, the notebook's headline) starts from `model_rows`: one `ModelRow` per (run, model,
comparison), which gives either the numbers (`numbers`, for scripts, JSON and the notebook) or the display
cells of the report table (`cells`). The renderers below take plain rows (dicts) and know nothing of runs.

Runs of different shifts go side by side, each row saying what it compares (`Comparison`):
- `worst-of-k`: with several changed variants per question (`--variants K`, the certified set), each changed
  question scored by its worst variant (report.json's `variants.worst`): the headline row of such a run;
- `mean-of-k`: the same questions, each scored by the mean of its variants (`variants.mean`);
- `paired`: each perturbed question against the clean question it was made from (qads, AddSent copies);
- `worst-copy`: the authors' protocol of AddSent, each clean question by its worst copy (report.json's
  `worst_copy`), a second row of the same run;
- `unpaired`: a clean-only set (new questions: SQuAD-Shifts, AdversarialQA) against the clean SQuAD score of
  the same model (same fingerprint, same rules) from another run given alongside, with a two-sample
  bootstrap interval of the difference (from the two runs' per-question score files);
- `alone`: a clean-only set with no such run: its score and its own interval;
- `clean`: a run on clean SQuAD alone (the reference itself).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

from robustqa.render import with_ci
from robustqa.review.status import ReviewStatus
from robustqa.signature import Signature

if TYPE_CHECKING:
    from robustqa.runs.load import Run

PAIRED, WORST_COPY, UNPAIRED, ALONE, CLEAN = "paired", "worst-copy", "unpaired", "alone", "clean"
REVIEWED_VALID = "reviewed-valid"
WORST_OF_K, MEAN_OF_K = "worst-of-k", "mean-of-k"
VARIANT_VIEWS = {WORST_OF_K: "worst", MEAN_OF_K: "mean"}  # comparison -> its part of report.json's `variants`

# The columns of the eval command's terminal table (and the first columns of every report table).
COLUMNS = (
    "Model",
    "Questions",
    "Clean EM",
    "Clean F1",
    "Pert. EM",
    "Pert. F1",
    "ΔEM [95% CI]",
    "ΔF1 [95% CI]",
    "ΔF1 changed [95% CI]",
    "ΔF1 changed answerable [95% CI]",
    "Flips R→W / W→R",
    "Changed",
    "Reused",
)
# The terminal's compact table (the rest is in report.md, report.json and `--wide`): short model names, one
# decimal, two-line headers, so that it reads at 100 columns. Left out from the end when a terminal is narrower.
COMPACT_COLUMNS = (
    "Model",
    "Compared",
    "Clean\nF1",
    "Pert.\nF1",
    "ΔF1\n[95% CI]",
    "ΔF1 changed\nanswerable [CI]",
    "Changed",
    "Flips\nR→W/W→R",
)
SHORT_COMPARISON = {
    WORST_OF_K: "worst of K",
    MEAN_OF_K: "mean of K",
    PAIRED: "all pairs",
    REVIEWED_VALID: "reviewed-valid",
    WORST_COPY: "worst copy",
    UNPAIRED: "unpaired",
    ALONE: "alone",
    CLEAN: "clean",
}
# What each row compares and on which shift; then what running the model cost in that run.
SHIFT_COLUMNS = ("Shift", "Comparison")
COST_COLUMNS = ("Params", "Windows/s", "ms/question", "Device")
# `robustqa report --wide` and the notebook: everything in one table.
REPORT_COLUMNS = COLUMNS + SHIFT_COLUMNS + COST_COLUMNS
# report.md and the HTML page show that table in two, row for row, so that each fits a 1280-pixel page: the scores
# (COLUMNS), then what each row compares and what running the model cost (ROW_COLUMNS).
ROW_COLUMNS = ("Model", *SHIFT_COLUMNS, *COST_COLUMNS)
ROW_HEADING = "What each row compares, and what running the model cost"

# A column left out where it repeats another in every row (every question of the run changed, say).
REPEATED_COLUMNS = {"ΔF1 changed [95% CI]": "ΔF1 [95% CI]"}

# What the report table's columns mean (report.md, the HTML page).
TABLE_NOTE = (
    "Δ = perturbed − clean over the paired questions (negative: the model fell), with a paired bootstrap 95% "
    "interval; *changed*: only the questions the recipe changed; *answerable*: only those with a gold answer (a model "
    "that abstains more often gains on the others). *Shift*: what shifted the data and which official rules scored it. "
    "*Comparison* says what each row compares: with several variants per question, a *worst of K* row (the headline) "
    "scores each changed question by its worst variant and a *mean of K* row by the mean of its variants; a "
    "*worst copy* row scores each clean question by its worst perturbed copy (the AddSent authors' protocol); an "
    "*unpaired* row sets a set of new questions beside the same model's clean SQuAD score (two-sample bootstrap "
    "interval); an *alone* row gives a set's score with its own interval. Cost: parameters, and the speed of the "
    "forward passes that ran in that run (windows/s) and of whole predictions (ms/question) on the device named; "
    "*from cache* when none ran."
)

# The keys of `ModelRow.numbers`, in order (the notebook's headline and `robustqa report --format json`).
HEADLINE_KEYS = (
    "model",
    "questions",
    "clean_em",
    "perturbed_em",
    "drop_em",
    "drop_em_ci",
    "clean_f1",
    "perturbed_f1",
    "drop_f1",
    "drop_f1_ci",
    "changed",
    "changed_drop_em",
    "changed_drop_f1",
    "changed_drop_f1_ci",
    "right_to_wrong",
    "wrong_to_right",
    "shift",
    "comparison",
    "rules",
    "reference",
    "perturbed_em_ci",
    "perturbed_f1_ci",
    "parameters",
    "windows_per_second",
    "ms_per_question",
    "device",
    "precision",
)


@dataclass(frozen=True)
class Reference:
    """The clean SQuAD score a clean-only set is compared with, and the unpaired difference (in points)."""

    label: str  # the reference run's label and model
    exact: float
    f1: float
    drop_exact: float
    drop_f1: float
    exact_ci: tuple[float, float] | None  # two-sample bootstrap; None when a run lacks its scores files
    f1_ci: tuple[float, float] | None


@dataclass(frozen=True)
class ModelRow:
    """One comparison of one model of one run, as every table and chart sees it."""

    run_label: str  # the run's folder name when several runs are shown together, else ""
    run_dir: str
    recipe: str  # the shift from the run's data (`qads@1.1`, `addsent@1`); "-" when it names none
    entry: Mapping[str, Any]  # the model's element of report.json's `models`
    comparison: str = PAIRED
    rules: str = "2.0"
    reference: Reference | None = None  # UNPAIRED only
    review: str = ""  # whether people reviewed the shifted questions (paired runs that recorded it)

    @property
    def label(self) -> str:
        model = short_model_name(str(self.entry["model"]))
        return f"{self.run_label}: {model}" if self.run_label else model

    def _part(self, key: str) -> Mapping[str, Any]:
        return self.entry.get(key) or {}

    def _scores(self) -> dict[str, Any]:
        """Reference score, shifted score and their difference (EM and F1) as this row's comparison reads them."""
        clean, perturbed, drop = self._part("clean"), self._part("perturbed"), self._part("drop")
        own = self._part("clean_ci")
        none = {
            "clean_em": None,
            "clean_f1": None,
            "perturbed_em": None,
            "perturbed_f1": None,
            "drop_em": None,
            "drop_f1": None,
            "drop_em_ci": None,
            "drop_f1_ci": None,
            "perturbed_em_ci": None,
            "perturbed_f1_ci": None,
            "questions": clean.get("total"),
        }
        if self.comparison == PAIRED:
            # both sides over the pairs, so that perturbed − clean is the drop (runs before drop.pairs: official)
            over = drop.get("pairs") or {"clean": clean, "perturbed": perturbed}
            return {
                **none,
                "questions": over.get("questions", clean.get("total")),
                **_compared(over["clean"], over["perturbed"], drop),
            }
        if self.comparison == REVIEWED_VALID or self.comparison in VARIANT_VIEWS:
            # a subset scored on its own: {questions, clean, perturbed, drop} (stats.score_means and the drop)
            view = self._part("valid") if self.comparison == REVIEWED_VALID else self._variant_view()
            compared = _compared(view.get("clean") or {}, view.get("perturbed") or {}, view.get("drop") or {})
            return {**none, "questions": view.get("questions"), **compared}
        if self.comparison == WORST_COPY:
            worst = self._part("worst_copy")  # its own exact/f1 are the perturbed side
            return {**none, "questions": worst.get("questions"), **_compared(clean, worst, worst.get("drop") or {})}
        if self.comparison == UNPAIRED and self.reference is not None:
            ref = self.reference
            return {
                **none,
                "clean_em": ref.exact,
                "clean_f1": ref.f1,
                "perturbed_em": clean.get("exact"),
                "perturbed_f1": clean.get("f1"),
                "drop_em": ref.drop_exact,
                "drop_f1": ref.drop_f1,
                "drop_em_ci": ref.exact_ci,
                "drop_f1_ci": ref.f1_ci,
            }
        if self.comparison == ALONE:
            return {
                **none,
                "perturbed_em": clean.get("exact"),
                "perturbed_f1": clean.get("f1"),
                "perturbed_em_ci": _pair(own.get("exact")),
                "perturbed_f1_ci": _pair(own.get("f1")),
            }
        return {**none, "clean_em": clean.get("exact"), "clean_f1": clean.get("f1")}

    def _variant_view(self) -> Mapping[str, Any]:
        """The worst-of-K or mean-of-K part of report.json's `variants` this row shows."""
        return self._part("variants").get(VARIANT_VIEWS[self.comparison]) or {}

    def numbers(self) -> dict[str, Any]:
        """Scores, differences with their intervals and flips, as numbers (None where the row has none)."""
        scores = self._scores()
        paired = self.comparison == PAIRED
        changed = self._changed_drop()
        flips = self._flips() or {}
        cost = self._part("cost")
        if self.comparison == REVIEWED_VALID:
            changed_count = self._part("valid").get("changed")
        elif self.comparison == WORST_COPY:
            changed_count = self._part("worst_copy").get("with_copies")
        elif self.comparison in VARIANT_VIEWS:
            changed_count = self._variant_view().get("questions")
        else:
            changed_count = changed.get("questions", self._part("coverage").get("changed")) if paired else None
        return {
            "model": self.entry.get("model"),
            "questions": scores["questions"],
            "clean_em": scores["clean_em"],
            "perturbed_em": scores["perturbed_em"],
            "drop_em": scores["drop_em"],
            "drop_em_ci": scores["drop_em_ci"],
            "clean_f1": scores["clean_f1"],
            "perturbed_f1": scores["perturbed_f1"],
            "drop_f1": scores["drop_f1"],
            "drop_f1_ci": scores["drop_f1_ci"],
            "changed": changed_count,
            "changed_drop_em": changed.get("exact"),
            "changed_drop_f1": changed.get("f1"),
            "changed_drop_f1_ci": _pair(changed.get("f1_ci")),
            "right_to_wrong": flips.get("right_to_wrong"),
            "wrong_to_right": flips.get("wrong_to_right"),
            "shift": self.recipe,
            "comparison": self.comparison,
            "rules": self.rules,
            "review": self.review or None,
            "reference": self.reference.label if self.reference is not None else None,
            "perturbed_em_ci": scores["perturbed_em_ci"],
            "perturbed_f1_ci": scores["perturbed_f1_ci"],
            "parameters": cost.get("parameters"),
            "windows_per_second": cost.get("windows_per_second"),
            "ms_per_question": cost.get("ms_per_question"),
            "device": cost.get("device_name"),
            "precision": cost.get("precision"),
        }

    def _changed_drop(self) -> Mapping[str, Any]:
        """The drop over the changed questions this row counts (all of them, or the reviewed-valid ones)."""
        if self.comparison == PAIRED:
            return self._part("drop").get("changed") or {}
        if self.comparison == REVIEWED_VALID:
            return (self._part("valid").get("drop") or {}).get("changed") or {}
        if self.comparison in VARIANT_VIEWS:  # only changed questions: its drop is the changed drop
            return self._variant_view().get("drop") or {}
        return {}

    def _flips(self) -> Mapping[str, int] | None:
        if self.comparison == PAIRED:
            return self.entry.get("flips")
        if self.comparison == REVIEWED_VALID:
            return self._part("valid").get("flips")
        if self.comparison == WORST_OF_K:
            return self._variant_view().get("flips")
        return None

    def describe(self) -> str:
        """What the row compares, for the Comparison column."""
        if self.comparison == PAIRED:
            return "paired: each perturbed question vs its clean question"
        if self.comparison == REVIEWED_VALID:
            return "paired, reviewed-valid: changed questions people did not accept are left out"
        if self.comparison == WORST_OF_K:
            k = self._part("variants").get("variants_per_question")
            return (
                f"worst of K: each changed question by its worst variant (K = {k:.2f} on average)"
                if k
                else "worst of K"
            )
        if self.comparison == MEAN_OF_K:
            return "mean of K: each changed question by the mean of its variants"
        if self.comparison == WORST_COPY:
            return "paired: each clean question's worst copy (authors' protocol)"
        if self.comparison == UNPAIRED and self.reference is not None:
            return f"unpaired: new questions vs clean SQuAD of {self.reference.label}"
        if self.comparison == ALONE:
            return (
                f"alone: new questions, own 95% CI (no clean SQuAD run of this model under v{self.rules} rules given)"
            )
        return "clean SQuAD only (a reference)"

    def cells(self) -> dict[str, str]:
        """The row of the report table (REPORT_COLUMNS), as display strings."""
        n = self.numbers()
        paired = self.comparison == PAIRED
        coverage = self._part("coverage")
        share = coverage.get("changed_share")
        changed = self._changed_drop()
        flips = self._flips()
        if self.comparison == REVIEWED_VALID:
            changed_cell = f"{n['changed']} accepted of {coverage.get('changed', 0)} changed"
        elif paired:
            changed_cell = (
                f"{coverage.get('changed', 0)}/{coverage.get('matched', 0)} ({100 * share:.1f}%)"
                if share is not None
                else "–"
            )
        elif self.comparison in VARIANT_VIEWS:
            changed_cell = f"{n['changed']} questions, {self._part('variants').get('variants', 0)} variants"
        elif self.comparison == WORST_COPY and n["questions"]:
            changed_cell = f"{n['changed']}/{n['questions']} with copies"
        else:
            changed_cell = "–"
        several = bool(self.entry.get("variants")) and self.comparison in (PAIRED, REVIEWED_VALID)
        unit = " variants" if several else (" questions" if self.comparison == WORST_OF_K else "")
        covered = "variants" if several else QUESTIONS_COVERED.get(self.comparison, "")
        return {
            "Model": self.label,
            "Questions": f"{_count(n['questions'])} {covered}",
            "Clean EM": _number(n["clean_em"]),
            "Clean F1": _number(n["clean_f1"]),
            "Pert. EM": _number_with_interval(n["perturbed_em"], n["perturbed_em_ci"]),
            "Pert. F1": _number_with_interval(n["perturbed_f1"], n["perturbed_f1_ci"]),
            "ΔEM [95% CI]": with_ci(n["drop_em"], n["drop_em_ci"], 2),
            "ΔF1 [95% CI]": with_ci(n["drop_f1"], n["drop_f1_ci"], 2),
            "ΔF1 changed [95% CI]": with_ci(changed.get("f1"), changed.get("f1_ci"), 2),
            "ΔF1 changed answerable [95% CI]": with_ci(changed.get("HasAns_f1"), changed.get("HasAns_f1_ci"), 2),
            "Flips R→W / W→R": f"{flips['right_to_wrong']} / {flips['wrong_to_right']}{unit}" if flips else "–",
            "Changed": changed_cell,
            "Reused": str(coverage.get("reused_predictions", 0)) if paired and self.entry.get("perturbed") else "–",
            "Shift": f"{self.recipe} ({rules_name(self.rules)}{'; ' + self.review if self.review else ''})",
            "Comparison": self.describe(),
            **cost_cells(self.entry.get("cost")),
        }

    def compact_cells(self) -> dict[str, str]:
        """The row of the terminal's compact table (COMPACT_COLUMNS)."""
        n = self.numbers()
        full = self.cells()
        changed = self._changed_drop()
        flips = self._flips()
        return {
            "Model": self.label,
            "Compared": SHORT_COMPARISON.get(self.comparison, self.comparison),
            "Clean\nF1": _number(n["clean_f1"], 1),
            "Pert.\nF1": _number(n["perturbed_f1"], 1),
            "ΔF1\n[95% CI]": with_ci(n["drop_f1"], n["drop_f1_ci"]),
            "ΔF1 changed\nanswerable [CI]": with_ci(changed.get("HasAns_f1"), changed.get("HasAns_f1_ci")),
            "Changed": full["Changed"].replace(" questions, ", " q, ").replace(" variants", " var."),
            "Flips\nR→W/W→R": f"{flips['right_to_wrong']}/{flips['wrong_to_right']}" if flips else "–",
        }


def short_model_name(model: str) -> str:
    """A model as tables and charts name it: an alias or hub id as given, a local folder by its name (the
    full path and the fingerprint are in the signature)."""
    text = model.rstrip("/\\")
    if text.startswith((".", "/", "~")) or "\\" in text or text.count("/") > 1:
        return PurePath(text).name or text
    return text  # an alias or a hub id (owner/name)


def cost_cells(cost: Mapping[str, Any] | None) -> dict[str, str]:
    """The cost columns of a model entry's `cost` (docs/FORMATS.md); "–" for runs that measured none."""
    if not cost:
        return dict.fromkeys(COST_COLUMNS, "–")
    timed = bool(cost.get("questions"))
    return {
        "Params": parameters_text(cost.get("parameters")),
        "Windows/s": f"{cost['windows_per_second']:.1f}" if timed and cost.get("windows_per_second") else "from cache",
        "ms/question": f"{cost['ms_per_question']:.1f}"
        if timed and cost.get("ms_per_question") is not None
        else "from cache",
        "Device": f"{cost.get('device_name')} ({cost.get('device')}, {cost.get('precision')})",
    }


def parameters_text(count: Any) -> str:
    if not isinstance(count, int):
        return "–"
    return f"{count / 1e9:.2f}B" if count >= 1e9 else f"{count / 1e6:.1f}M"


def cost_summary(cost: Mapping[str, Any] | None) -> str:
    """One line on a model's cost in a run (the eval command prints it), saying what was timed."""
    if not cost:
        return "no cost measured (the runner reports none)"
    where = (
        f"on {cost.get('device')} ({cost.get('device_name')}), {cost.get('precision')}, batch {cost.get('batch_size')}"
    )
    if cost.get("processes", 1) > 1:
        where += f", {cost['processes']} processes"
    head = f"{parameters_text(cost.get('parameters'))} parameters"
    if not cost.get("questions"):
        return f"{head}; every prediction came from the cache, so nothing was timed"
    return (
        f"{head}; {cost['questions']} questions ({cost['windows']} windows) predicted in "
        f"{cost['predict_seconds']:.2f} s {where}: "
        f"{cost['windows_per_second']:.1f} windows/s in forward passes ({cost['forward_seconds']:.2f} s), "
        f"{cost['ms_per_question']:.1f} ms/question tokenizing, running and decoding"
    )


def run_labels(runs: Sequence[Run]) -> list[str]:
    """Run labels (folder names), made unique; empty when only one run is shown."""
    if len(runs) <= 1:
        return [""] * len(runs)
    names = [_without_model(run.path.name, run) or f"run{i + 1}" for i, run in enumerate(runs)]
    if len(set(names)) < len(names):
        names = [f"{name}#{i + 1}" for i, name in enumerate(names)]
    return names


def _without_model(name: str, run: Run) -> str:
    """A default run folder (`<model slug>-<set>`) labelled by its set alone: the row names the model."""
    slugs = "+".join(str(entry.get("slug")) for entry in run.report.get("models", []))
    return name[len(slugs) + 1 :] if slugs and name.startswith(slugs + "-") else name


def recipe_of(run: Run) -> str:
    """The shift of a run: report.json's `shift`, else the recipe its signature names (`qads@1.1`); `-` for none."""
    shift = run.report.get("shift")
    if isinstance(shift, str) and shift:
        return shift
    try:
        recipe = Signature.parse(run.signature).get("recipe")
    except ValueError:
        return "-"
    return recipe if recipe and recipe != "none" else "-"


def rules_of(run: Run) -> str:
    """The SQuAD rules that scored a run ("2.0" for runs made before robustqa recorded them)."""
    return str(run.report.get("rules") or "2.0")


def run_kind(run: Run) -> str:
    """`paired` (a perturbed file), `clean-only` (an imported set of new questions) or `clean` (clean SQuAD)."""
    if run.report.get("perturbed_file"):
        return "paired"
    return "clean-only" if recipe_of(run) != "-" else "clean"


def model_rows(runs: Sequence[Run]) -> list[ModelRow]:
    """The rows of every model of every run, runs in the order given: a paired run's worst-of-K and mean-of-K
    rows where its questions have several variants, its row (and its worst-copy row where report.json has
    one and no worst-of-K row says it); a clean-only set's row against a reference run, or alone; a clean row."""
    rows: list[ModelRow] = []
    labels = run_labels(runs)
    for label, run in zip(labels, runs):
        kind, recipe, rules = run_kind(run), recipe_of(run), rules_of(run)
        status = ReviewStatus.from_dict(run.report.get("review"))
        review = status.short() if status is not None else ""
        for entry in run.report.get("models", []):
            if kind == "paired":
                if entry.get("variants"):  # several variants per question: worst-of-K is the headline
                    rows.append(ModelRow(label, str(run.path), recipe, entry, WORST_OF_K, rules, review=review))
                    rows.append(ModelRow(label, str(run.path), recipe, entry, MEAN_OF_K, rules, review=review))
                rows.append(ModelRow(label, str(run.path), recipe, entry, PAIRED, rules, review=review))
                if (entry.get("valid") or {}).get("changed"):  # nothing accepted: no row that measured nothing
                    rows.append(ModelRow(label, str(run.path), recipe, entry, REVIEWED_VALID, rules, review=review))
                if entry.get("worst_copy") and not entry.get(
                    "variants"
                ):  # worst-of-K says it without the unchanged questions
                    rows.append(ModelRow(label, str(run.path), recipe, entry, WORST_COPY, rules))
            elif kind == "clean-only":
                reference = _reference(run, entry, runs, labels)
                rows.append(
                    ModelRow(label, str(run.path), recipe, entry, UNPAIRED if reference else ALONE, rules, reference)
                )
            else:
                rows.append(ModelRow(label, str(run.path), recipe, entry, CLEAN, rules))
    return rows


def review_notes(runs: Sequence[Run]) -> list[str]:
    """What each run's perturbed set went through, and why a reviewed-valid row is missing when reviewers
    accepted none of its changed questions (a row of unchanged questions alone would read as no drop)."""
    notes = []
    for label, run in zip(run_labels(runs), runs):
        status = ReviewStatus.from_dict(run.report.get("review"))
        if status is None:
            continue
        prefix = f"{label}: " if label else ""
        notes.append(f"{prefix}perturbed set {status.describe()}.")
        if accepted_none(run.report):
            notes.append(
                f"{prefix}the reviewers accepted none of the changed questions, so there is no reviewed-valid row."
            )
    return notes


def accepted_none(report: Mapping[str, Any]) -> bool:
    """Whether reviewers accepted none of a run's changed questions (so it has no reviewed-valid row)."""
    return any(
        entry.get("valid") is not None and not entry["valid"].get("changed") for entry in report.get("models", [])
    )


def _reference(run: Run, entry: Mapping[str, Any], runs: Sequence[Run], labels: Sequence[str]) -> Reference | None:
    """The first other run given whose clean set is clean SQuAD, of the same model (fingerprint) under the
    same rules, with the unpaired difference of `entry`'s clean-only set from it."""
    for label, other in zip(labels, runs):
        if other is run or run_kind(other) == "clean-only" or rules_of(other) != rules_of(run):
            continue
        for candidate in other.report.get("models", []):
            if (candidate.get("model_id"), candidate.get("fingerprint")) == (
                entry.get("model_id"),
                entry.get("fingerprint"),
            ):
                return _unpaired(
                    run,
                    entry,
                    other,
                    candidate,
                    f"{label}: {candidate.get('model')}" if label else str(candidate.get("model")),
                )
    return None


def _unpaired(run: Run, entry: Mapping[str, Any], other: Run, candidate: Mapping[str, Any], label: str) -> Reference:
    from robustqa.stats import unpaired_difference_intervals

    shifted, reference = entry["clean"], candidate["clean"]
    drop_exact, drop_f1 = shifted["exact"] - reference["exact"], shifted["f1"] - reference["f1"]
    exact_ci = f1_ci = None
    a, b = _question_scores(run, entry), _question_scores(other, candidate)
    if a is not None and b is not None:
        settings = run.report.get("settings") or {}
        exact_ci, f1_ci = unpaired_difference_intervals(
            [a[0], a[1]],
            [b[0], b[1]],
            resamples=int(settings.get("bootstrap", 1000)),
            seed=int(settings.get("seed", 13)),
        )
    return Reference(label, reference["exact"], reference["f1"], drop_exact, drop_f1, _pair(exact_ci), _pair(f1_ci))


def _question_scores(run: Run, entry: Mapping[str, Any]) -> tuple[list[float], list[float]] | None:
    """Per-question clean EM and F1 (0..1) from the run's scores file; None for runs made before it existed."""
    from robustqa.errors import InputError

    name = (entry.get("files") or {}).get("clean_scores")
    if not name or not (run.path / name).is_file():
        return None
    path = run.path / name
    try:
        scores = json.loads(path.read_text(encoding="utf-8"))
        return [float(s["exact"]) for s in scores.values()], [float(s["f1"]) for s in scores.values()]
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError, AttributeError) as error:
        raise InputError(
            f"cannot read the per-question scores ({type(error).__name__}: {error})",
            path=str(path),
            hint="evaluate the run again to rewrite it",
        ) from None


def signatures(runs: Sequence[Run]) -> list[tuple[str, str]]:
    """(label, signature) of each run, labels as in `run_labels`."""
    return [(label, run.signature) for label, run in zip(run_labels(runs), runs)]


def rules_name(rules: str) -> str:
    return "SQuAD v1.1" if rules == "1.1" else "SQuAD 2.0"


def rules_text(runs: Sequence[Run]) -> str:
    """Which official rules scored the runs shown: one rule set, or each run's own."""
    rules = {rules_of(run) for run in runs}
    if len(rules) == 1:
        return f"official {rules_name(rules.pop())} EM/F1"
    return "official SQuAD EM/F1, each run under its own rules (in the Shift column)"


def plain(rows: Sequence[ModelRow]) -> bool:
    """Rows that need no word on what they compare: one shift, each row paired (or a clean run alone)."""
    return len({row.recipe for row in rows}) <= 1 and all(row.comparison in (PAIRED, CLEAN) for row in rows)


def _pair(value: Any) -> tuple[float, float] | None:
    if isinstance(value, (list, tuple)) and len(value) == 2 and all(isinstance(v, (int, float)) for v in value):
        return (float(value[0]), float(value[1]))
    return None


def _compared(clean: Mapping[str, Any], perturbed: Mapping[str, Any], drop: Mapping[str, Any]) -> dict[str, Any]:
    """A row's two sides and their difference, from report.json parts that hold `exact` and `f1` (the drop
    also its intervals): the paired, subset (worst/mean of K, reviewed-valid) and worst-copy rows."""
    return {
        "clean_em": clean.get("exact"),
        "clean_f1": clean.get("f1"),
        "perturbed_em": perturbed.get("exact"),
        "perturbed_f1": perturbed.get("f1"),
        "drop_em": drop.get("exact"),
        "drop_f1": drop.get("f1"),
        "drop_em_ci": _pair(drop.get("exact_ci")),
        "drop_f1_ci": _pair(drop.get("f1_ci")),
    }


# what the Questions column counts in each kind of row
QUESTIONS_COVERED = {
    WORST_OF_K: "changed",
    MEAN_OF_K: "changed",
    PAIRED: "paired",
    REVIEWED_VALID: "paired, reviewed",
    WORST_COPY: "clean",
    UNPAIRED: "new",
    ALONE: "new",
    CLEAN: "clean",
}


def _count(value: Any) -> str:
    return "–" if value is None else str(value)


def _number(value: Any, digits: int = 2) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _number_with_interval(value: Any, interval: Any) -> str:
    if value is None or not interval:
        return _number(value)
    return f"{value:.2f} [{interval[0]:.2f}, {interval[1]:.2f}]"


# ------------------------------------------------------------------------------------------- renderers


def compact_cells(runs: Sequence[Run]) -> list[dict[str, str]]:
    """The terminal's compact rows (COMPACT_COLUMNS) of every comparison of every model of every run. Where a
    model has worst-of-K and mean-of-K rows, its every-variant row stays in report.md: its clean and perturbed
    scores are each file's own, over different questions, which the compact table has no column to say."""
    return [
        row.compact_cells() for row in model_rows(runs) if not (row.comparison == PAIRED and row.entry.get("variants"))
    ]


def report_cells(runs: Sequence[Run]) -> list[dict[str, str]]:
    """The report table's rows (REPORT_COLUMNS) of every comparison of every model of every run."""
    return [row.cells() for row in model_rows(runs)]


def official_cells(runs: Sequence[Run]) -> list[dict[str, str]]:
    """The rows of report.md's and the HTML page's official table, which comes in two (COLUMNS, then ROW_COLUMNS):
    the Model cell also says what the row compares (`minilm-squad2-mini (worst of K)`) where rows compare different
    things, so that each part reads alone."""
    rows = model_rows(runs)
    if plain(rows):
        return [row.cells() for row in rows]
    return [
        row.cells() | {"Model": f"{row.label} ({SHORT_COMPARISON.get(row.comparison, row.comparison)})"} for row in rows
    ]
