"""The data of an evaluation, checked before any model loads: clean questions, perturbed questions matched
to them, and what changed.

Everything that can be wrong with the inputs (unreadable files, duplicate ids, perturbed questions that
match no clean question, an empty set) fails here, before any model is downloaded or loaded.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from robustqa.errors import InputError
from robustqa.signature import Signature
from robustqa.squad import QAExample, SquadDataset, check_unique_ids, load_squad
from robustqa.stats import match_to_clean


@dataclass(frozen=True)
class EvalData:
    """The validated inputs: clean examples, perturbed examples matched to them, and what changed."""

    clean: list[QAExample]
    perturbed: list[QAExample] | None
    mapping: dict[str, str]  # perturbed id -> clean id
    changed: dict[str, bool]  # perturbed id -> question or context differs from its clean question
    context_changed: dict[str, bool]
    clean_sha: str
    perturbed_sha: str | None
    recipe: str | None
    perturbed_signature: str | None

    @property
    def clean_by_id(self) -> dict[str, QAExample]:
        return {ex.id: ex for ex in self.clean}


def file_sha12(path: Path) -> str:
    """The first 12 hex digits of a file's SHA-256: the data's identity in signatures and cache keys."""
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:12]


def recipe_of(dataset: SquadDataset) -> tuple[str | None, str | None]:
    """(recipe name@version, build signature) of a robustqa-built file; (None, None) for any other file."""
    build_signature = dataset.extra.get("signature")
    meta = dataset.extra.get("robustqa")
    recipe = None
    if isinstance(meta, dict):
        info = meta.get("recipe")
        if isinstance(info, dict) and info.get("name"):
            recipe = f"{info['name']}@{info.get('version', '?')}"
        elif isinstance(meta.get("signature"), dict):
            recipe = meta["signature"].get("recipe")
    if recipe is None and isinstance(build_signature, str):
        try:
            recipe = Signature.parse(build_signature).get("recipe")
        except ValueError:
            recipe = None
    return recipe, build_signature if isinstance(build_signature, str) else None


def _load(path: Path, role: str) -> SquadDataset:
    dataset = load_squad(path)
    check_unique_ids(dataset)
    if len(dataset) == 0:
        raise InputError(f"the {role} file has no questions", path=str(path), hint="give a SQuAD 2.0 file with questions")
    return dataset


def load_eval_data(clean_file: Path, perturbed_file: Path | None, *, limit: int | None = None) -> EvalData:
    """Read and cross-check the clean and perturbed files; `limit` keeps the first N clean questions."""
    if limit is not None and limit < 1:
        raise InputError(f"limit {limit} leaves no questions", hint="give a positive number")
    clean_set = _load(Path(clean_file), "clean")
    clean = clean_set.examples()
    if limit is not None:
        clean = clean[:limit]
    clean_sha = file_sha12(Path(clean_file))
    if perturbed_file is None:
        return EvalData(clean, None, {}, {}, {}, clean_sha, None, None, None)
    perturbed_set = _load(Path(perturbed_file), "perturbed")
    perturbed_all = perturbed_set.examples()
    mapping_all = match_to_clean(perturbed_all, (ex.id for ex in clean_set.iter_examples()), path=str(perturbed_file))
    kept_ids = {ex.id for ex in clean}
    perturbed = [ex for ex in perturbed_all if mapping_all[ex.id] in kept_ids]
    if not perturbed:
        raise InputError(
            f"no perturbed question matches the first {limit} clean questions",
            path=str(perturbed_file),
            hint="evaluate more of the clean questions, or all of them",
            setting="limit",
        )
    by_id = {ex.id: ex for ex in clean}
    mapping = {ex.id: mapping_all[ex.id] for ex in perturbed}
    context_changed = {ex.id: ex.context != by_id[mapping[ex.id]].context for ex in perturbed}
    changed = {ex.id: context_changed[ex.id] or ex.question != by_id[mapping[ex.id]].question for ex in perturbed}
    recipe, build_signature = recipe_of(perturbed_set)
    return EvalData(
        clean, perturbed, mapping, changed, context_changed, clean_sha, file_sha12(Path(perturbed_file)), recipe or "unknown", build_signature
    )
