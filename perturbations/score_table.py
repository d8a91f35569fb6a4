"""Scores a model gives to texts, kept by hash so each text is scored once, in memory and on disk.

Why a table in front of a model: a build asks a model rule (the language-model rule, the meaning rule)
about every candidate of every question, and a model call per candidate would be slow. A pre-pass (the
rule's `prepare`) scores each question's candidates in one batch; the rule then finds every score here. A
score missing from the table is computed on the spot (one small batch), so results do not depend on
whether the pre-pass ran (up to float noise in the last digits, which the rules round away), only the speed
does. The table is also kept on disk in the robustqa cache folder (`$ROBUSTQA_CACHE`, "off" disables it),
keyed by the kind of score, how it is computed and the model's identity, so a rebuild with another
threshold costs no model call.

`register_scorer` is the extension point: any object with `score(prefix, texts)` can stand in for a model
(tests use tiny deterministic ones).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from perturbations import store

# what a table keeps per text: two numbers (a score and a token count, or two scores)
Score = tuple[float, float]


class Scorer(Protocol):
    """What a table needs of a model: for each text read against `prefix` (a passage for a language model,
    the original question for a sentence encoder), two numbers (a score and a token count, or two scores)."""

    def score(self, prefix: str, texts: Sequence[str]) -> Sequence[Score]: ...


class ManyScorer(Scorer, Protocol):
    """A scorer that also scores many (prefix, texts) at once, in batches that mix them (faster: fewer,
    fuller batches); `ScoreTable.fill` uses it when the model offers it."""

    def score_many(self, asked: Sequence[tuple[str, Sequence[str]]]) -> list[Sequence[Score]]: ...


@dataclass(frozen=True)
class ScoreKind:
    """One kind of score: `name` names its disk tables; `method` says how a text is scored (part of every
    key, changed whenever the method changes, so no table mixes two methods); `identity` tells two models
    apart (a package version, a file's size and time); `load` loads the model a spec names."""

    name: str
    method: str
    identity: Callable[[str], str]
    load: Callable[[str], Scorer]


class ScoreTable:
    """Scores of one model by (prefix, text), loading the model only when a score is missing."""

    def __init__(self, kind: ScoreKind, spec: str, identity: str | None = None, scorer: Scorer | None = None) -> None:
        self.kind = kind
        self.spec = spec
        self._identity = identity
        self._scorer = scorer
        self._scores: dict[str, Score] = {}
        self._disk_read = False
        self.computed = 0  # texts this process scored with the model (not found in the table)

    @property
    def identity(self) -> str:
        if self._identity is None:
            self._identity = self.kind.identity(self.spec)
        return self._identity

    def key(self, prefix: str, text: str) -> str:
        return hashlib.sha256(f"{self.kind.method}\0{self.identity}\0{prefix}\0{text}".encode()).hexdigest()[:32]

    def get(self, prefix: str, texts: Sequence[str]) -> list[Score]:
        """The two numbers of each text against `prefix` (see `Scorer`); the missing ones scored in one call."""
        self._read_disk()
        keys = [self.key(prefix, t) for t in texts]
        todo = list(dict.fromkeys(t for t, k in zip(texts, keys) if k not in self._scores))
        if todo:
            self._keep({self.key(prefix, t): found for t, found in zip(todo, self.scorer.score(prefix, todo))})
        return [self._scores[k] for k in keys]

    def fill(self, asked: Sequence[tuple[str, Sequence[str]]]) -> None:
        """Score every text of `asked` ((prefix, texts) pairs) the table lacks: in one call when the model
        scores many prefixes at once (`ManyScorer`), else one call per prefix."""
        self._read_disk()
        todo = [(p, [t for t in dict.fromkeys(texts) if self.key(p, t) not in self._scores]) for p, texts in asked]
        todo = [(p, texts) for p, texts in todo if texts]
        if not todo:
            return
        many = getattr(self.scorer, "score_many", None)
        found = many(todo) if many is not None else [self.scorer.score(p, texts) for p, texts in todo]
        self._keep({self.key(p, t): f for (p, texts), row in zip(todo, found) for t, f in zip(texts, row)})

    def _keep(self, found: dict[str, Score]) -> None:
        new = {key: (float(first), second) for key, (first, second) in found.items()}
        self._scores.update(new)
        self.computed += len(new)
        self._write_disk(new)

    def missing(self, prefix: str, texts: Sequence[str]) -> bool:
        """Whether any of `texts` against `prefix` still needs the model."""
        self._read_disk()
        return any(self.key(prefix, t) not in self._scores for t in texts)

    @property
    def scorer(self) -> Scorer:
        if self._scorer is None:
            self._scorer = self.kind.load(self.spec)
        return self._scorer

    def _path(self) -> Path | None:
        folder = store.cache_folder()
        if folder is None:
            return None
        digest = hashlib.sha256(f"{self.kind.method}\0{self.identity}".encode()).hexdigest()[:24]
        return folder / f"{self.kind.name}-{digest}.jsonl"

    def _read_disk(self) -> None:
        if self._disk_read:
            return
        self._disk_read = True
        path = self._path()
        if path is None or not path.is_file():
            return
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError:
            return
        for line in lines:
            try:
                key, first, second = json.loads(line)
                self._scores.setdefault(str(key), (float(first), second))
            except (ValueError, TypeError):
                continue  # a torn last line of an interrupted run: ignored, recomputed when needed

    def _write_disk(self, new: dict[str, Score]) -> None:
        path = self._path()
        if path is None or not new:
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("a", encoding="utf-8") as handle:
                handle.write("".join(json.dumps([k, s, n]) + "\n" for k, (s, n) in new.items()))
        except OSError:
            pass  # an unwritable cache folder only means nothing is kept for the next process


_TABLES: dict[tuple[str, str], ScoreTable] = {}


def table_for(kind: ScoreKind, spec: str) -> ScoreTable:
    """The score table of the model `spec` names, for scores of `kind` (one per process, made on first use)."""
    table = _TABLES.get((kind.name, spec))
    if table is None:
        table = _TABLES[(kind.name, spec)] = ScoreTable(kind, spec)
    return table


def register_scorer(kind: ScoreKind, spec: str, scorer: Scorer, *, identity: str) -> ScoreTable:
    """Make `spec` mean `scorer` for scores of `kind` in this process (a stand-in model, or one already
    loaded); `identity` keys its scores in the disk table, so give every different scorer its own."""
    table = _TABLES[(kind.name, spec)] = ScoreTable(kind, spec, identity, scorer)
    return table


def forget_scorers() -> None:
    """Drop every table and loaded model of this process (the next use starts afresh)."""
    _TABLES.clear()
