"""One `robustqa eval` run: check the data, predict each model through its cache, score, write the folder.

The steps live in their own modules (`data`, `prediction_cache`, `prediction`, `scoring`, `robustqa.runs`);
this one ties them together. Nothing is written to the run folder but the caches until every model has
been scored; report.json is written last. Under `torchrun` every process runs the same steps, and only the
main process scores and writes.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from robustqa.errors import InputError, OutputError
from robustqa.evaluation import distributed
from robustqa.evaluation.data import EvalData, load_eval_data
from robustqa.evaluation.models import ModelSpec, model_slug, resolve_model
from robustqa.evaluation.prediction import DEFAULT_CHUNK, Runner, SetPredictions, predict_set, with_reused
from robustqa.evaluation.prediction_cache import PredictionCache, cache_key
from robustqa.evaluation.scoring import (
    ModelOutcome,
    comparisons,
    example_lines,
    model_entry,
    prediction_files,
    score_model,
)
from robustqa.metric import DEFAULT_NA_PROB_THRESHOLD, RULES_V1
from robustqa.provenance import Overlap, read_training_record, training_overlap
from robustqa.runs.layout import CHART_PNG, REPORT_MD, cache_file, selection_part
from robustqa.runs.load import Run
from robustqa.runs.reuse import check_reuse
from robustqa.runs.schema import Cost, RunReport
from robustqa.runs.write import write_run
from robustqa.signature import RUN, Signature
from robustqa.squad import QAExample
from robustqa.stats import DEFAULT_RESAMPLES, DEFAULT_SEED

RunnerFactory = Callable[[ModelSpec, Any], Runner]


@dataclass(frozen=True)
class EvalConfig:
    clean_file: Path
    perturbed_file: Path | None
    output_dir: Path
    settings: Any  # robustqa.evaluation.inference.InferenceSettings; kept loose so importing this module stays light
    bootstrap: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED
    limit: int | None = None
    trust_remote_code: bool = False
    chunk_size: int = DEFAULT_CHUNK
    progress: bool = True
    rules: str = "auto"  # SQuAD rules: "auto" (from the files), "1.1" or "2.0"
    decisions: tuple[Path, ...] = ()  # review decisions made on the perturbed file (robustqa review)
    overwrite: bool = False  # replace a folder that holds a different run
    kinds: tuple[str, ...] | None = None  # count only variants made of these edit kinds; None: every variant
    # evaluate every variant kept, but count only these edit kinds in the headline (a packaged set's default)
    headline_kinds: tuple[str, ...] | None = None
    articles: tuple[str, ...] | None = None  # evaluate only these articles (titles); None: all
    exclude_articles: tuple[str, ...] | None = None  # leave these articles out


@dataclass(frozen=True)
class EvalResult:
    report: dict[str, Any]  # report.json as written
    signature: Signature
    output_dir: Path
    outcomes: list[ModelOutcome]
    # model name -> the evaluated articles its folder's training record says it was trained on (only overlaps)
    training_overlaps: dict[str, Overlap] = field(default_factory=dict)


def run_model(
    spec: ModelSpec, runner: Runner, data: EvalData, config: EvalConfig, na_prob_thresh: float
) -> ModelOutcome | None:
    """Predict both sets with one model and score them; None on processes other than the main one."""
    slug = model_slug(spec.name)
    actual = getattr(runner, "settings", config.settings)
    fields = dict(actual.signature_fields())
    fingerprint = runner.model_fingerprint

    def cache(role: str, data_sha: str) -> PredictionCache:
        return PredictionCache(
            Path(config.output_dir) / cache_file(slug, role, cache_key(spec.model_id, fingerprint, data_sha, fields))
        )

    def predict(examples: Sequence[QAExample], role: str, data_sha: str) -> SetPredictions:
        return predict_set(
            runner,
            examples,
            cache(role, data_sha),
            chunk_size=config.chunk_size,
            description=f"{slug} {role}",
            progress=config.progress,
        )

    clean = predict(data.clean, "clean", data.clean_sha)
    perturbed: SetPredictions | None = None
    if data.perturbed is not None and data.perturbed_sha is not None:
        ran = predict([ex for ex in data.perturbed if data.changed[ex.id]], "perturbed", data.perturbed_sha)
        if distributed.is_main_process():
            perturbed = with_reused(ran, clean, data.perturbed, data.mapping, data.changed)
    if not distributed.is_main_process():
        return None
    return score_model(
        spec,
        slug=slug,
        fingerprint=fingerprint,
        settings_fields=fields,
        clean=clean,
        perturbed=perturbed,
        data=data,
        na_prob_thresh=na_prob_thresh,
        cost=measured_cost(runner),
    )


def measured_cost(runner: Any) -> Cost | None:
    """What the runner measured while it predicted (robustqa.evaluation.inference.QAModelRunner does; a test double
    that measures nothing gives no cost)."""
    timing = getattr(runner, "timing", None)
    if timing is None:
        return None
    return Cost(
        parameters=int(runner.parameters),
        device=str(runner.device),
        device_name=str(runner.device_name),
        precision=str(runner.precision),
        batch_size=int(runner.settings.batch_size),
        processes=distributed.world_size(),
        questions=timing.questions,
        windows=timing.windows,
        forward_seconds=timing.forward_seconds,
        predict_seconds=timing.predict_seconds,
    )


def default_run_folder(
    models: Sequence[str],
    set_name: str,
    root: Path = Path("runs"),
    *,
    articles: Collection[str] | None = None,
    exclude_articles: Collection[str] | None = None,
) -> Path:
    """`runs/<model>-<set>[-<articles>]`: the folder a run goes to when none is given (models joined with '+'; the
    article selection as `runs.layout.selection_part` names it), so that runs on other articles never meet."""
    models_part = "+".join(model_slug(name) for name in models)
    return root / f"{models_part}-{set_name}{selection_part(articles, exclude_articles)}"


def eval_signature(
    data: EvalData,
    outcomes: Sequence[ModelOutcome],
    config: EvalConfig,
    na_prob_thresh: float,
    *,
    models: Sequence[str] | None = None,
) -> Signature:
    """Data hashes, recipe (the shift), rules when v1.1, models with fingerprints, answer-changing settings,
    bootstrap, seed; version last. `models` (ids) stands in for the outcomes before any model has run."""
    fields: dict[str, Any] = {
        "clean": data.clean_sha,
        "perturbed": data.perturbed_sha,
        "recipe": data.recipe,
    }
    if data.kinds is not None:
        fields["kinds"] = list(data.kinds)
    if data.headline_kinds is not None:
        fields["headline_kinds"] = list(data.headline_kinds)
    if data.rules == RULES_V1:
        fields["rules"] = data.rules
    if data.review is not None and data.review.valid_ids is not None:
        fields["validated"] = list(data.review.decisions)
    if data.articles is not None:
        fields["articles"] = sorted(data.articles)
    if data.exclude_articles is not None:
        fields["exclude_articles"] = sorted(data.exclude_articles)
    if config.limit is not None:
        fields["limit"] = config.limit
    fields["models"] = list(models) if models is not None else [o.spec.identity(o.fingerprint) for o in outcomes]
    settings_fields = outcomes[0].settings_fields if outcomes else dict(config.settings.signature_fields())
    fields.update(settings_fields)
    if na_prob_thresh != DEFAULT_NA_PROB_THRESHOLD:
        fields["na_prob_thresh"] = na_prob_thresh
    fields["bootstrap"] = config.bootstrap
    fields["seed"] = config.seed
    return RUN.create(fields, setting_keys=list(settings_fields))


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


def training_overlaps(specs: Sequence[ModelSpec], data: EvalData) -> dict[str, Overlap]:
    """For each local model whose folder records its training data (`robustqa.provenance`), the evaluated
    articles it was trained on; models without a record, or without overlap, are left out."""
    found: dict[str, Overlap] = {}
    for spec in specs:
        record = read_training_record(spec.model_id) if spec.is_local else None
        overlap = training_overlap(record, data.evaluated_articles) if record is not None else None
        if overlap:
            found[spec.name] = overlap
    return found


def _default_runner_factory(spec: ModelSpec, settings: Any) -> Runner:
    from robustqa.evaluation.inference import QAModelRunner

    return QAModelRunner(spec, settings)


def _settings_record(config: EvalConfig, outcomes: Sequence[ModelOutcome], na_prob_thresh: float) -> dict[str, Any]:
    """report.json's `settings`: the inference settings as run, then the scoring and bootstrap settings."""
    settings = dict(config.settings.to_dict()) if hasattr(config.settings, "to_dict") else dict(vars(config.settings))
    settings.update(outcomes[0].settings_fields if outcomes else {})
    settings.update(
        na_prob_thresh=na_prob_thresh,
        bootstrap=config.bootstrap,
        seed=config.seed,
        limit=config.limit,
        rules=config.rules,
    )
    if config.kinds is not None:
        settings["kinds"] = list(config.kinds)
    if config.headline_kinds is not None:
        settings["headline_kinds"] = list(config.headline_kinds)
    if config.articles is not None:
        settings["articles"] = list(config.articles)
    if config.exclude_articles is not None:
        settings["exclude_articles"] = list(config.exclude_articles)
    return settings


def rendered_documents(run: Run) -> dict[str, str | bytes]:
    """report.md and the headline chart of a run, as the run folder holds them beside report.json."""
    from robustqa.reporting.charts import first_figure, png_bytes
    from robustqa.reporting.report import render_markdown

    return {REPORT_MD: render_markdown([run]), CHART_PNG: png_bytes(first_figure([run]))}


def run_evaluation(
    models: Sequence[str], config: EvalConfig, *, runner_factory: RunnerFactory | None = None
) -> EvalResult | None:
    """Evaluate each model on the clean (and perturbed) set and write the run folder.

    Returns the result on the main process and None on the others (under torchrun).
    """
    if config.bootstrap < 1:
        raise InputError(f"bootstrap {config.bootstrap} must be at least 1 resample")
    specs = resolve_models(models, trust_remote_code=config.trust_remote_code)
    data = load_eval_data(
        config.clean_file,
        config.perturbed_file,
        limit=config.limit,
        rules=config.rules,
        decisions=config.decisions,
        kinds=config.kinds,
        articles=config.articles,
        exclude_articles=config.exclude_articles,
        headline_kinds=config.headline_kinds,
    )
    overlaps = training_overlaps(specs, data)
    output_dir = Path(config.output_dir)
    if output_dir.exists() and not output_dir.is_dir():
        raise OutputError("is a file", path=str(output_dir), hint="give a folder for the run", setting="output_dir")
    factory = runner_factory or _default_runner_factory
    na_prob_thresh = max(DEFAULT_NA_PROB_THRESHOLD, float(config.settings.null_threshold))
    if distributed.is_main_process():  # the data and models now; the settings as they ran, before writing
        planned = eval_signature(data, [], config, na_prob_thresh, models=[spec.identity("?") for spec in specs])
        resolved_later = {*config.settings.signature_fields(), "precision", "int8"}
        check_reuse(output_dir, planned, overwrite=config.overwrite, unknown=resolved_later)
    outcomes: list[ModelOutcome] = []
    for spec in specs:
        runner = factory(spec, config.settings)
        outcome = run_model(spec, runner, data, config, na_prob_thresh)
        del runner  # free the model before the next one loads
        if outcome is not None:
            outcomes.append(outcome)
    if not distributed.is_main_process():
        return None
    signature = eval_signature(data, outcomes, config, na_prob_thresh)
    check_reuse(output_dir, signature, overwrite=config.overwrite)
    report = RunReport(
        signature=signature.format(),
        rules=data.rules,
        shift=data.recipe,
        clean_file=str(Path(config.clean_file).resolve()),
        perturbed_file=str(Path(config.perturbed_file).resolve()) if config.perturbed_file is not None else None,
        clean_signature=data.clean_signature,
        perturbed_signature=data.perturbed_signature,
        settings=_settings_record(config, outcomes, na_prob_thresh),
        models=tuple(model_entry(o, data, resamples=config.bootstrap, seed=config.seed) for o in outcomes),
        review=data.review.to_dict() if data.review is not None else None,
        comparisons=tuple(comparisons(outcomes, data, resamples=config.bootstrap, seed=config.seed)),
    )
    run = write_run(
        output_dir,
        report,
        [files for o in outcomes for files in prediction_files(o)],
        [line for o in outcomes for line in example_lines(o, data)],
        render=rendered_documents,
    )
    return EvalResult(dict(run.report), signature, output_dir, outcomes, overlaps)
