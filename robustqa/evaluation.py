"""One `robustqa eval` run: validate the data, predict (reusing, caching, resuming), score, compare.

Everything that can be wrong with the inputs is checked before any model loads, so a typo costs
seconds, not a model download. Predictions are the expensive part: a perturbed question whose question and
context equal its clean question's takes the clean prediction (it would be the same), and every prediction is
appended to a per-model cache as soon as its chunk is done, keyed by the model fingerprint, the data file and
the settings that change answers, so a killed run resumes where it stopped. Under `torchrun` every process
runs the same chunk loop (the runner's collectives need that); only the main process decides what is left to
do (and broadcasts it) and only it writes files. Nothing is written to the run folder but the cache until
every model has been scored; report.json is written last.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Protocol, Sequence

from robustqa import distributed
from robustqa.errors import InputError, OutputError
from robustqa.metric import DEFAULT_NA_PROB_THRESHOLD, QuestionScores, score_questions, summarize
from robustqa.models import ModelSpec, model_slug, resolve_model
from robustqa.signature import Signature
from robustqa.squad import QAExample, SquadDataset, check_unique_ids, load_squad
from robustqa.stats import DEFAULT_RESAMPLES, DEFAULT_SEED, Pair, build_pairs, compute_drop, flip_counts, match_to_clean

CACHE_FORMAT = 1
DEFAULT_CHUNK = 256


class Runner(Protocol):
    """What evaluation needs from a model runner (robustqa.inference.QAModelRunner, or a test double)."""

    model_fingerprint: str

    def predict(self, examples: Sequence[QAExample], *, on_progress: Callable[[int], None] | None = None) -> Mapping[str, Any]:
        ...


RunnerFactory = Callable[[ModelSpec, Any], Runner]


@dataclass(frozen=True)
class EvalConfig:
    clean_file: Path
    perturbed_file: Path | None
    output_dir: Path
    settings: Any  # robustqa.inference.InferenceSettings; kept loose so importing this module stays light
    bootstrap: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED
    limit: int | None = None
    trust_remote_code: bool = False
    chunk_size: int = DEFAULT_CHUNK
    progress: bool = True


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


@dataclass(frozen=True)
class SetPredictions:
    """Texts and null odds of one set, and how they were obtained."""

    texts: dict[str, str]
    null_odds: dict[str, float]
    predicted: int = 0
    from_cache: int = 0
    reused: int = 0


@dataclass
class ModelOutcome:
    spec: ModelSpec
    slug: str
    fingerprint: str
    settings_fields: dict[str, Any]
    clean: SetPredictions
    perturbed: SetPredictions | None
    clean_scores: QuestionScores
    perturbed_scores: QuestionScores | None
    entry: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class EvalResult:
    report: dict[str, Any]
    signature: Signature
    output_dir: Path
    outcomes: list[ModelOutcome]


# --------------------------------------------------------------------------- data


def file_sha12(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:12]


def _recipe_of(dataset: SquadDataset) -> tuple[str | None, str | None]:
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
        raise InputError(f"--limit {limit} leaves no questions", hint="give a positive number")
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
            hint="raise --limit or drop it",
        )
    by_id = {ex.id: ex for ex in clean}
    mapping = {ex.id: mapping_all[ex.id] for ex in perturbed}
    context_changed = {ex.id: ex.context != by_id[mapping[ex.id]].context for ex in perturbed}
    changed = {ex.id: context_changed[ex.id] or ex.question != by_id[mapping[ex.id]].question for ex in perturbed}
    recipe, build_signature = _recipe_of(perturbed_set)
    return EvalData(
        clean, perturbed, mapping, changed, context_changed, clean_sha, file_sha12(Path(perturbed_file)), recipe or "unknown", build_signature
    )


def gold_of(examples: Iterable[QAExample]) -> dict[str, list[str]]:
    return {ex.id: [a.text for a in ex.answers] for ex in examples}


# --------------------------------------------------------------------------- cache


def cache_key(model_id: str, fingerprint: str, data_sha: str, settings_fields: Mapping[str, Any]) -> str:
    payload = json.dumps(
        {"format": CACHE_FORMAT, "model": model_id, "fingerprint": fingerprint, "data": data_sha, "settings": dict(settings_fields)},
        sort_keys=True,
        default=str,
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


class PredictionCache:
    """Append-only JSONL of `{"id", "text", "null_odds"}`, flushed after every chunk.

    A line cut short by a crash is dropped (and cut off the file) when the cache is opened again.
    """

    def __init__(self, path: Path) -> None:
        self.path = path

    def load(self) -> dict[str, tuple[str, float]]:
        if not self.path.exists():
            return {}
        done: dict[str, tuple[str, float]] = {}
        good_bytes = 0
        with open(self.path, "rb") as stream:
            for line in stream:
                if not line.endswith(b"\n"):
                    break
                try:
                    record = json.loads(line)
                    done[str(record["id"])] = (str(record["text"]), float(record["null_odds"]))
                except (ValueError, KeyError, TypeError):
                    break
                good_bytes += len(line)
        if good_bytes != self.path.stat().st_size:
            with open(self.path, "r+b") as stream:
                stream.truncate(good_bytes)
        return done

    def append(self, predictions: Iterable[tuple[str, str, float]]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        lines = "".join(
            json.dumps({"id": pid, "text": text, "null_odds": odds}, ensure_ascii=False) + "\n" for pid, text, odds in predictions
        )
        with open(self.path, "a", encoding="utf-8") as stream:
            stream.write(lines)
            stream.flush()
            os.fsync(stream.fileno())


def _progress_bar(total: int, description: str, enabled: bool) -> Any:
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=description, unit="q", file=sys.stderr, disable=not enabled, dynamic_ncols=True, leave=True)


def predict_set(
    runner: Runner,
    examples: Sequence[QAExample],
    cache: PredictionCache,
    *,
    chunk_size: int,
    description: str,
    progress: bool,
) -> SetPredictions:
    """Predict every example not yet in the cache, chunk by chunk, appending each chunk to the cache."""
    main = distributed.is_main_process()
    done = cache.load() if main else {}
    todo_ids: list[str] = [ex.id for ex in examples if ex.id not in done] if main else []
    todo_ids = distributed.broadcast_object(todo_ids)
    wanted = set(todo_ids)
    # Chunks exist for resuming; ordering the work by length first keeps each chunk's windows of similar
    # size, so the runner's length-sorted batches pad as little as one global sort would.
    todo = sorted((ex for ex in examples if ex.id in wanted), key=lambda ex: len(ex.context) + len(ex.question))
    bar = _progress_bar(len(todo), description, progress and main and bool(todo))
    try:
        for start in range(0, len(todo), chunk_size):
            chunk = todo[start : start + chunk_size]
            predictions = runner.predict(chunk, on_progress=bar.update)
            if main:
                missing = [ex.id for ex in chunk if ex.id not in predictions]
                if missing:
                    raise RuntimeError(f"the model runner returned no prediction for question {missing[0]}")
                rows = [(ex.id, predictions[ex.id].text, float(predictions[ex.id].null_odds)) for ex in chunk]
                cache.append(rows)
                done.update((pid, (text, odds)) for pid, text, odds in rows)
    finally:
        bar.close()
    if not main:
        return SetPredictions({}, {}, predicted=len(todo))
    texts = {ex.id: done[ex.id][0] for ex in examples}
    odds = {ex.id: done[ex.id][1] for ex in examples}
    return SetPredictions(texts, odds, predicted=len(todo), from_cache=len(examples) - len(todo))


# --------------------------------------------------------------------------- one model


def _cache_path(output_dir: Path, slug: str, role: str, key: str) -> Path:
    return output_dir / slug / "cache" / f"{role}-{key}.jsonl"


def run_model(
    spec: ModelSpec,
    runner: Runner,
    data: EvalData,
    config: EvalConfig,
    na_prob_thresh: float,
) -> ModelOutcome | None:
    """Predict both sets with one model and score them; None on processes other than the main one."""
    slug = model_slug(spec.name)
    actual = getattr(runner, "settings", config.settings)
    fields = dict(actual.signature_fields())
    fingerprint = runner.model_fingerprint
    clean_cache = PredictionCache(_cache_path(config.output_dir, slug, "clean", cache_key(spec.model_id, fingerprint, data.clean_sha, fields)))
    clean = predict_set(runner, data.clean, clean_cache, chunk_size=config.chunk_size, description=f"{slug} clean", progress=config.progress)
    perturbed: SetPredictions | None = None
    if data.perturbed is not None and data.perturbed_sha is not None:
        to_run = [ex for ex in data.perturbed if data.changed[ex.id]]
        key = cache_key(spec.model_id, fingerprint, data.perturbed_sha, fields)
        ran = predict_set(
            runner,
            to_run,
            PredictionCache(_cache_path(config.output_dir, slug, "perturbed", key)),
            chunk_size=config.chunk_size,
            description=f"{slug} perturbed",
            progress=config.progress,
        )
        if distributed.is_main_process():
            texts: dict[str, str] = {}
            odds: dict[str, float] = {}
            for ex in data.perturbed:
                source = data.mapping[ex.id]
                texts[ex.id] = ran.texts[ex.id] if data.changed[ex.id] else clean.texts[source]
                odds[ex.id] = ran.null_odds[ex.id] if data.changed[ex.id] else clean.null_odds[source]
            reused = len(data.perturbed) - len(to_run)
            perturbed = SetPredictions(texts, odds, ran.predicted, ran.from_cache, reused)
    if not distributed.is_main_process():
        return None
    clean_scores = score_questions(gold_of(data.clean), clean.texts, clean.null_odds, na_prob_thresh)
    perturbed_scores = None
    if perturbed is not None and data.perturbed is not None:
        perturbed_scores = score_questions(gold_of(data.perturbed), perturbed.texts, perturbed.null_odds, na_prob_thresh)
    return ModelOutcome(spec, slug, fingerprint, fields, clean, perturbed, clean_scores, perturbed_scores)


def pairs_of(outcome: ModelOutcome, data: EvalData) -> list[Pair]:
    if outcome.perturbed_scores is None:
        return []
    c, p = outcome.clean_scores, outcome.perturbed_scores
    return build_pairs(data.mapping, data.changed, c.has_answer, c.exact, c.f1, p.exact, p.f1)


def model_entry(outcome: ModelOutcome, data: EvalData, config: EvalConfig) -> dict[str, Any]:
    """One element of report.json's `models` (docs/FORMATS.md)."""
    clean_result = summarize(outcome.clean_scores, outcome.clean.texts, outcome.clean.null_odds)
    files: dict[str, str | None] = {
        "clean_predictions": f"{outcome.slug}/clean_predictions.json",
        "perturbed_predictions": None,
        "clean_null_odds": f"{outcome.slug}/clean_null_odds.json",
        "perturbed_null_odds": None,
    }
    entry: dict[str, Any] = {
        "model": outcome.spec.name,
        "model_id": outcome.spec.model_id,
        "slug": outcome.slug,
        "fingerprint": outcome.fingerprint,
        "clean": clean_result,
        "perturbed": None,
        "drop": None,
        "flips": None,
    }
    coverage: dict[str, Any] = {
        "clean_questions": len(data.clean),
        "perturbed_questions": 0,
        "matched": 0,
        "changed": 0,
        "changed_share": None,
        "reused_predictions": 0,
    }
    if outcome.perturbed is not None and outcome.perturbed_scores is not None and data.perturbed is not None:
        entry["perturbed"] = summarize(outcome.perturbed_scores, outcome.perturbed.texts, outcome.perturbed.null_odds)
        pairs = pairs_of(outcome, data)
        entry["drop"] = compute_drop(pairs, resamples=config.bootstrap, seed=config.seed)
        entry["flips"] = flip_counts(pairs)
        n_changed = sum(1 for p in pairs if p.changed)
        coverage.update(
            perturbed_questions=len(data.perturbed),
            matched=len(pairs),
            changed=n_changed,
            changed_share=n_changed / len(pairs),
            reused_predictions=outcome.perturbed.reused,
        )
        files["perturbed_predictions"] = f"{outcome.slug}/perturbed_predictions.json"
        files["perturbed_null_odds"] = f"{outcome.slug}/perturbed_null_odds.json"
    entry["coverage"] = coverage
    entry["files"] = files
    return entry


def example_rows(outcome: ModelOutcome, data: EvalData) -> list[dict[str, Any]]:
    """The examples.jsonl lines of one model: one per perturbed question (per clean question without one)."""
    c_scores, c_pred = outcome.clean_scores, outcome.clean
    clean_by_id = data.clean_by_id
    rows = []
    if data.perturbed is None or outcome.perturbed is None or outcome.perturbed_scores is None:
        for ex in data.clean:
            rows.append(_row(outcome.spec.name, ex, None, ex.id, False, False, c_scores, c_pred, None, None))
        return rows
    for ex in data.perturbed:
        source = clean_by_id[data.mapping[ex.id]]
        rows.append(
            _row(outcome.spec.name, source, ex, ex.id, data.changed[ex.id], data.context_changed[ex.id],
                 c_scores, c_pred, outcome.perturbed_scores, outcome.perturbed)
        )
    return rows


def _row(
    model: str,
    clean: QAExample,
    perturbed: QAExample | None,
    pid: str,
    changed: bool,
    context_changed: bool,
    c_scores: QuestionScores,
    c_pred: SetPredictions,
    p_scores: QuestionScores | None,
    p_pred: SetPredictions | None,
) -> dict[str, Any]:
    have_p = perturbed is not None and p_scores is not None and p_pred is not None
    return {
        "model": model,
        "id": pid,
        "source_id": clean.id,
        "title": clean.title,
        "question": clean.question,
        "perturbed_question": perturbed.question if perturbed is not None else None,
        "changed": changed,
        "context_changed": context_changed,
        "answerable": bool(clean.answers),
        "gold_answers": [a.text for a in clean.answers],
        "clean_prediction": c_pred.texts[clean.id],
        "perturbed_prediction": p_pred.texts[pid] if have_p else None,  # type: ignore[union-attr]
        "clean_exact": int(c_scores.exact[clean.id]),
        "clean_f1": float(c_scores.f1[clean.id]),
        "perturbed_exact": int(p_scores.exact[pid]) if have_p else None,  # type: ignore[union-attr]
        "perturbed_f1": float(p_scores.f1[pid]) if have_p else None,  # type: ignore[union-attr]
        "clean_null_odds": c_pred.null_odds[clean.id],
        "perturbed_null_odds": p_pred.null_odds[pid] if have_p else None,  # type: ignore[union-attr]
        "substitutions": [s.to_dict() for s in perturbed.substitutions] if perturbed is not None else [],
    }


# --------------------------------------------------------------------------- the run


def eval_signature(data: EvalData, outcomes: Sequence[ModelOutcome], config: EvalConfig, na_prob_thresh: float) -> Signature:
    """Data hashes, recipe, models with fingerprints, answer-changing settings, bootstrap, seed; version last."""
    fields: dict[str, Any] = {
        "clean": data.clean_sha,
        "perturbed": data.perturbed_sha,
        "recipe": data.recipe,
    }
    if config.limit is not None:
        fields["limit"] = config.limit
    fields["models"] = [f"{o.spec.model_id}@{o.fingerprint}" for o in outcomes]
    settings_fields = outcomes[0].settings_fields if outcomes else dict(config.settings.signature_fields())
    fields.update(settings_fields)
    if na_prob_thresh != DEFAULT_NA_PROB_THRESHOLD:
        fields["na_prob_thresh"] = na_prob_thresh
    fields["bootstrap"] = config.bootstrap
    fields["seed"] = config.seed
    return Signature.create(fields)


def resolve_models(names: Sequence[str], *, trust_remote_code: bool) -> list[ModelSpec]:
    if not names:
        raise InputError("no model given", hint="name at least one model (see `robustqa models`)")
    specs = [resolve_model(name, trust_remote_code=trust_remote_code) for name in names]
    slugs: dict[str, str] = {}
    for spec in specs:
        slug = model_slug(spec.name)
        if slug in slugs:
            raise InputError(f"model '{spec.name}' is given twice", hint="name each model once")
        slugs[slug] = spec.name
    return specs


def _default_runner_factory(spec: ModelSpec, settings: Any) -> Runner:
    from robustqa.inference import QAModelRunner

    return QAModelRunner(spec, settings)


def run_evaluation(models: Sequence[str], config: EvalConfig, *, runner_factory: RunnerFactory | None = None) -> EvalResult | None:
    """Evaluate each model on the clean (and perturbed) set and write the run folder.

    Returns the result on the main process and None on the others (under torchrun).
    """
    if config.bootstrap < 1:
        raise InputError(f"--bootstrap {config.bootstrap} must be at least 1")
    specs = resolve_models(models, trust_remote_code=config.trust_remote_code)
    data = load_eval_data(config.clean_file, config.perturbed_file, limit=config.limit)
    output_dir = Path(config.output_dir)
    if output_dir.exists() and not output_dir.is_dir():
        raise OutputError(f"{output_dir}: is a file; give a folder for --output-dir")
    factory = runner_factory or _default_runner_factory
    na_prob_thresh = max(DEFAULT_NA_PROB_THRESHOLD, float(config.settings.null_threshold))
    outcomes: list[ModelOutcome] = []
    for spec in specs:
        runner = factory(spec, config.settings)
        outcome = run_model(spec, runner, data, config, na_prob_thresh)
        del runner  # free the model before the next one loads
        if outcome is not None:
            outcomes.append(outcome)
    if not distributed.is_main_process():
        return None
    for outcome in outcomes:
        outcome.entry = model_entry(outcome, data, config)
    signature = eval_signature(data, outcomes, config, na_prob_thresh)
    settings = dict(config.settings.to_dict()) if hasattr(config.settings, "to_dict") else dict(vars(config.settings))
    settings.update(outcomes[0].settings_fields if outcomes else {})
    settings.update(na_prob_thresh=na_prob_thresh, bootstrap=config.bootstrap, seed=config.seed, limit=config.limit)
    report = {
        "signature": signature.format(),
        "clean_file": str(Path(config.clean_file).resolve()),
        "perturbed_file": str(Path(config.perturbed_file).resolve()) if config.perturbed_file is not None else None,
        "perturbed_signature": data.perturbed_signature,
        "settings": settings,
        "models": [o.entry for o in outcomes],
    }
    from robustqa.report import write_run

    write_run(output_dir, report, outcomes, [row for o in outcomes for row in example_rows(o, data)])
    return EvalResult(report, signature, output_dir, outcomes)
