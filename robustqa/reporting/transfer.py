"""The transfer matrix: each model's score on each adversarial set, from finished `robustqa eval` runs.

An adversarial set (adversarial.json of `robustqa attack`) is searched against one model; evaluating other
models on it says whether what broke that model breaks them too ("ELECTRA vs BERT on the same attack").
A run is on an adversarial set when its perturbed file's signature starts with `attack:`; the set is named
by its target model (and recipe), the row by the evaluated model. A cell gives the exact match on the set
and, in brackets, its change from the same model's clean exact match on the same questions; `*` marks the
set made against that very model (the white-box cell), where the drop is the attack's own success.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

from robustqa.render import signed
from robustqa.signature import Signature

if TYPE_CHECKING:
    from robustqa.runs.load import Run

MODEL_COLUMN = "Model"
TRANSFER_NOTE = (
    "Transfer: exact match (points) of each model (row) on each adversarial set (column, named by the model it was "
    "searched against and its recipe); in brackets the change from that model's clean exact match on the same "
    "questions; R→W: questions it got right on clean and wrong on the set; * the set made against that model."
)


@dataclass(frozen=True)
class AdversarialSet:
    """What an eval run's perturbed file was searched against."""

    recipe: str  # e.g. qads@1.1
    target_id: str  # model id (hub id or folder) of the target
    target_fingerprint: str

    @property
    def label(self) -> str:
        from robustqa.reporting.charts import short_model

        return f"vs {short_model(self.target_id)} ({self.recipe})"


@dataclass(frozen=True)
class TransferCell:
    model: str
    model_id: str
    fingerprint: str
    column: str
    exact: float | None
    drop_exact: float | None
    right_to_wrong: int | None
    white_box: bool

    def text(self) -> str:
        if self.exact is None:
            return "–"
        drop = f" ({signed(self.drop_exact)})" if self.drop_exact is not None else ""
        flips = f", {self.right_to_wrong} R→W" if self.right_to_wrong is not None else ""
        return f"{self.exact:.1f}{drop}{flips}{' *' if self.white_box else ''}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "model_id": self.model_id,
            "fingerprint": self.fingerprint,
            "set": self.column,
            "exact": self.exact,
            "drop_exact": self.drop_exact,
            "right_to_wrong": self.right_to_wrong,
            "white_box": self.white_box,
        }


def adversarial_set(run: Run) -> AdversarialSet | None:
    """The adversarial set a run evaluated, or None for any other run."""
    text = run.report.get("perturbed_signature")
    if not isinstance(text, str) or not text.startswith("attack:"):
        return None
    try:
        fields = Signature.parse(text).to_dict()
    except ValueError:
        return None
    target_id, _, fingerprint = fields.get("target", "").rpartition("@")
    return AdversarialSet(fields["attack"], target_id or fields.get("target", "?"), fingerprint)


def transfer_cells(runs: Sequence[Run]) -> list[TransferCell]:
    """One cell per model of every run on an adversarial set; sets that share a label are told apart by
    their run folder's name."""
    found = [(run, s) for run in runs if (s := adversarial_set(run)) is not None]
    labels = [s.label for _, s in found]
    if len(set(labels)) < len(labels):
        labels = [f"{label} [{run.path.name}]" for label, (run, _) in zip(labels, found)]
    cells = []
    for label, (run, target) in zip(labels, found):
        for entry in run.report.get("models", []):
            cells.append(_cell(entry, label, target))
    return cells


def _cell(entry: Mapping[str, Any], column: str, target: AdversarialSet) -> TransferCell:
    perturbed = entry.get("perturbed") or {}
    drop = entry.get("drop") or {}
    flips = entry.get("flips") or {}
    model_id, fingerprint = str(entry.get("model_id", entry.get("model"))), str(entry.get("fingerprint", ""))
    exact = perturbed.get("exact")
    return TransferCell(
        model=str(entry.get("model")),
        model_id=model_id,
        fingerprint=fingerprint,
        column=column,
        exact=float(exact) if exact is not None else None,
        drop_exact=float(drop["exact"]) if drop.get("exact") is not None else None,
        right_to_wrong=flips.get("right_to_wrong"),
        # a local model is named in signatures by its folder's name: its fingerprint identifies it
        white_box=bool(fingerprint)
        and fingerprint == target.target_fingerprint
        and target.target_id in (model_id, PurePath(model_id).name),
    )


def transfer_table(runs: Sequence[Run]) -> tuple[list[str], list[dict[str, str]]]:
    """(columns, rows) of the matrix: a row per model (by id and fingerprint, in order of appearance), a
    column per adversarial set; empty when no run is on an adversarial set. A model evaluated twice on one
    set keeps its first cell."""
    cells = transfer_cells(runs)
    if not cells:
        return [], []
    columns = list(dict.fromkeys(c.column for c in cells))
    rows: dict[tuple[str, str], dict[str, str]] = {}
    for c in cells:
        row = rows.setdefault((c.model_id, c.fingerprint), {MODEL_COLUMN: c.model})
        row.setdefault(c.column, c.text())
    return [MODEL_COLUMN, *columns], list(rows.values())
