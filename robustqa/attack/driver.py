"""One `robustqa attack` run: read the questions, ask the model the clean ones, search the recipe's space of
every question it got right, many questions' variants per batched call, until each flips or runs out.

The searches run in lockstep: each round collects the variants every unfinished search wants next, asks the
oracle once (cache, then the model in batched chunks), and hands each search its answers. Under a launcher
every process runs the same rounds (the searches are deterministic and see the same broadcast answers).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import perturbations
from robustqa.attack.attack_space import Space, attack_slots
from robustqa.attack.oracle import DEFAULT_CHUNK, Oracle
from robustqa.attack.query_cache import QueryCache, query_cache_key
from robustqa.attack.scorer import ModelScorer, Query, Scored, Scorer
from robustqa.attack.search import DEFAULT_BEAM, DEFAULT_BUDGET, FLIP_MARGIN, Search, SearchOutcome, Variant, search
from robustqa.build import DEFAULT_RECIPE, DEFAULT_SEED, recipe_record
from robustqa.errors import InputError, OutputError
from robustqa.evaluation import distributed
from robustqa.evaluation.data import file_sha12
from robustqa.evaluation.models import ModelSpec, model_slug, resolve_model
from robustqa.signature import ATTACK, Signature
from robustqa.squad import QAExample, SquadDataset, check_unique_ids, load_squad

if TYPE_CHECKING:
    from robustqa.attack.listed import ListedSpaces

# Why a question was not searched, or how its search ended.
SUCCEEDED, FAILED, WRONG_ON_CLEAN, RIGHT_BY_A_HAIR = "succeeded", "failed", "wrong-on-clean", "right-by-a-hair"


@dataclass(frozen=True)
class AttackConfig:
    input_file: Path
    output_dir: Path
    settings: Any  # robustqa.evaluation.inference.InferenceSettings (kept loose: importing this module loads no torch)
    recipe: str = DEFAULT_RECIPE
    # parameters of the recipe changed (a model rule's model or threshold)
    recipe_overrides: tuple[tuple[str, Any], ...] = ()
    budget: int = DEFAULT_BUDGET
    max_edits: int | None = None  # None: the recipe's own budget for each question
    beam: int = DEFAULT_BEAM
    include_penalised: bool = False  # also search edits a soft rule of the recipe penalises (attack_space)
    limit: int | None = None
    seed: int = DEFAULT_SEED
    trust_remote_code: bool = False
    chunk_size: int = DEFAULT_CHUNK
    progress: bool = True
    # a file of variants (built with --variants, or a reviewed set): search only those, not the recipe's space
    variants_file: Path | None = None


@dataclass(frozen=True)
class QuestionResult:
    """One question of the input: its clean answer, and the search if there was one."""

    example: QAExample
    status: str  # SUCCEEDED, FAILED, WRONG_ON_CLEAN or RIGHT_BY_A_HAIR
    clean: Scored
    space: Space | None = None
    max_edits: int | None = None
    outcome: SearchOutcome | None = None

    @property
    def attempted(self) -> bool:
        return self.status in (SUCCEEDED, FAILED)


@dataclass(frozen=True)
class AttackCost:
    """What the attack cost: queries the model ran (not those from the cache) and the seconds spent."""

    model_queries: int
    from_cache: int
    seconds: float
    forward_seconds: float
    windows: int
    device: str
    processes: int


class SpaceSource(Protocol):
    """Where each question's space comes from: a recipe (`RecipeSpaces`) or a file that lists the variants
    (`robustqa.attack.listed.ListedSpaces`)."""

    @property
    def ident(self) -> str: ...

    def record(self) -> dict[str, Any]:
        """The space as attack.json and adversarial.json record it (name and version first)."""
        ...

    def signature_fields(self) -> tuple[dict[str, Any], list[str]]:
        """The space's keys of the attack signature, and which of them are a recipe's own parameters."""
        ...

    def check_resources(self) -> None:
        """Fail now, before a model loads, when what the spaces are made from is missing."""
        ...

    def prepare(self, examples: Sequence[QAExample]) -> None:
        """Anything the spaces of these questions need done in one batch before they are planned."""
        ...

    def plan(self, example: QAExample) -> tuple[Space, int, Search]:
        """The question's space, how many words its variants may change, and its search (not started)."""
        ...


@dataclass(frozen=True)
class RecipeSpaces:
    """What the attack searches with a recipe: every valid edit of each question (`attack_slots`), added one word
    at a time (`search`)."""

    recipe: perturbations.Recipe
    config: AttackConfig

    @property
    def ident(self) -> str:
        return self.recipe.ident

    def record(self) -> dict[str, Any]:
        return recipe_record(self.recipe)

    def signature_fields(self) -> tuple[dict[str, Any], list[str]]:
        """Every recipe parameter follows its name, as in a build's signature (one policy: a reader never needs
        the recipe's defaults to know what ran), then the search's own limits."""
        own = {key: value for key, value in self.recipe.signature_fields().items() if key != "recipe"}
        config = self.config
        fields = {
            "attack": self.recipe.ident,
            **own,
            "max_edits": config.max_edits if config.max_edits is not None else "recipe",
            "beam": config.beam,
            "penalised": config.include_penalised,
            "seed": config.seed,
            "wordnet": perturbations.wordnet_version(),
        }
        return fields, list(own)

    def check_resources(self) -> None:
        perturbations.check_resources()  # WordNet, the tagger: the recipe reads them for every question

    def prepare(self, examples: Sequence[QAExample]) -> None:
        if self.recipe.prepares:  # model rules (qads-lm) score every candidate in one batch per question first
            self.recipe.prepare([perturbations.TextToPerturb(ex.question, ex.context) for ex in examples])

    def plan(self, example: QAExample) -> tuple[Space, int, Search]:
        config = self.config
        space = attack_slots(
            self.recipe, example.question, wsd_context=example.context, include_penalised=config.include_penalised
        )
        limit = config.max_edits if config.max_edits is not None else space.limit
        return space, limit, search(space, budget=config.budget, max_edits=limit, beam=config.beam)


@dataclass(frozen=True)
class AttackRun:
    config: AttackConfig
    dataset: SquadDataset
    spaces: SpaceSource
    spec: ModelSpec
    fingerprint: str
    signature: Signature
    results: tuple[QuestionResult, ...]
    cost: AttackCost


ScorerFactory = Callable[[ModelSpec, Any], Scorer]


def load_recipe(name: str, overrides: tuple[tuple[str, Any], ...] = ()) -> perturbations.Recipe:
    """The recipe by name or name@version, with some parameters changed; only recipes that edit questions
    alone can be searched here."""
    recipe = perturbations.get_recipe(name, **dict(overrides))
    if recipe.fields != frozenset({"question"}):
        raise InputError(
            f"recipe '{recipe.ident}' edits {', '.join(sorted(recipe.fields))}; "
            "the attack searches question edits only",
            hint="choose a recipe that edits questions only (see `robustqa recipes`)",
        )
    return recipe


def attack_signature(
    config: AttackConfig,
    spaces: SpaceSource,
    spec: ModelSpec,
    fingerprint: str,
    data_sha: str,
    settings_fields: dict[str, Any],
) -> Signature:
    """The space (a recipe with its parameters, or a file of variants by hash), target model with its
    fingerprint, input hash, the search's limits, answer-changing settings; robustqa's version last."""
    own, recipe_keys = spaces.signature_fields()
    fields: dict[str, Any] = {
        **own,
        "target": spec.identity(fingerprint),
        "input": data_sha,
        "limit": config.limit,
        "budget": config.budget,
        "flip_margin": FLIP_MARGIN,
        **settings_fields,
    }
    return ATTACK.create(fields, recipe_keys=recipe_keys, setting_keys=list(settings_fields))


def _default_scorer_factory(spec: ModelSpec, settings: Any) -> Scorer:
    from robustqa.evaluation.inference import QAModelRunner

    return ModelScorer(QAModelRunner(spec, settings))


def check_config(config: AttackConfig) -> None:
    if config.budget < 1:
        raise InputError(
            f"budget {config.budget} allows no query", hint="give a budget of at least 1 query per question"
        )
    if config.max_edits is not None and config.max_edits < 1:
        raise InputError(f"max_edits {config.max_edits} allows no edit", hint="allow at least 1 edit")
    if config.beam < 1:
        raise InputError(f"beam {config.beam} keeps no state", hint="give a beam of at least 1")
    if config.limit is not None and config.limit < 1:
        raise InputError(f"limit {config.limit} leaves no questions", hint="give a positive number")
    output = Path(config.output_dir)
    if output.exists() and not output.is_dir():
        raise OutputError("is a file", path=str(output), hint="give a folder for the attack", setting="output_dir")


def run_attack(model: str, config: AttackConfig, *, scorer_factory: ScorerFactory | None = None) -> AttackRun | None:
    """Attack `model` on the questions of `config.input_file`; the run on the main process, None on the others."""
    check_config(config)
    spaces: SpaceSource
    if config.variants_file is None:
        spaces = RecipeSpaces(load_recipe(config.recipe, config.recipe_overrides), config)
    else:
        spaces = _listed_spaces(config, Path(config.variants_file))
    spec = resolve_model(model, trust_remote_code=config.trust_remote_code)
    dataset = load_squad(config.input_file)
    check_unique_ids(dataset)
    examples = dataset.examples()[: config.limit] if config.limit is not None else dataset.examples()
    if not examples:
        raise InputError(
            "the input has no questions", path=str(config.input_file), hint="give a SQuAD 2.0 file with questions"
        )
    spaces.check_resources()
    data_sha = file_sha12(Path(config.input_file))
    scorer = (scorer_factory or _default_scorer_factory)(spec, config.settings)
    runner = getattr(scorer, "runner", None)
    settings_fields = dict((getattr(runner, "settings", None) or config.settings).signature_fields())
    cache_path = (
        Path(config.output_dir)
        / "cache"
        / (
            f"{model_slug(spec.name)}-"
            f"{query_cache_key(spec.model_id, scorer.fingerprint, data_sha, settings_fields)}.jsonl"
        )
    )
    oracle = Oracle(scorer, QueryCache(cache_path), chunk_size=config.chunk_size, progress=config.progress)
    search_started = time.perf_counter()
    results = attack_examples(examples, spaces, oracle)
    perturbations.save_cache()
    timing = getattr(runner, "timing", None)
    cost = AttackCost(
        model_queries=oracle.model_queries,
        from_cache=oracle.from_cache,
        seconds=time.perf_counter() - search_started,
        forward_seconds=float(getattr(timing, "forward_seconds", 0.0)),
        windows=int(getattr(timing, "windows", 0)),
        device=str(getattr(runner, "device_name", "unknown")),
        processes=distributed.world_size(),
    )
    if not distributed.is_main_process():
        return None
    signature = attack_signature(config, spaces, spec, scorer.fingerprint, data_sha, settings_fields)
    return AttackRun(config, dataset, spaces, spec, scorer.fingerprint, signature, tuple(results), cost)


def _listed_spaces(config: AttackConfig, path: Path) -> ListedSpaces:
    """The variants the file at `path` lists for the questions attacked, read and checked as `robustqa eval`
    checks a perturbed file against its clean one."""
    from robustqa.attack.listed import ListedSpaces, listed_variants
    from robustqa.evaluation.data import load_eval_data

    data = load_eval_data(config.input_file, path, limit=config.limit)
    return ListedSpaces(
        ident=data.recipe or "unknown",
        path=path,
        sha=data.perturbed_sha or file_sha12(path),
        build_signature=data.perturbed_signature,
        review=data.review.to_dict() if data.review is not None else None,
        variants=listed_variants(data, path),
        budget=config.budget,
    )


def attack_examples(examples: list[QAExample], spaces: SpaceSource, oracle: Oracle) -> list[QuestionResult]:
    """The clean round, then the searches of the questions right on it, in lockstep rounds."""
    clean = oracle.ask([Query(ex.id, ex.question, ex) for ex in examples], description="clean questions")
    by_id = {ex.id: ex for ex in examples}
    searches: dict[str, Search] = {}
    plans: dict[str, Space] = {}
    limits: dict[str, int] = {}
    status: dict[str, str] = {}
    attacked: list[QAExample] = []
    for ex, scored in zip(examples, clean):
        if not scored.right:
            status[ex.id] = WRONG_ON_CLEAN
        elif scored.margin <= FLIP_MARGIN:
            status[ex.id] = RIGHT_BY_A_HAIR
        else:
            attacked.append(ex)
    spaces.prepare(attacked)
    for ex in attacked:
        plans[ex.id], limits[ex.id], searches[ex.id] = spaces.plan(ex)
    outcomes: dict[str, SearchOutcome] = {}
    pending: dict[str, list[Variant]] = {}
    for qid, running in searches.items():
        _advance(qid, running, None, pending, outcomes)
    round_number = 0
    while pending:
        round_number += 1
        queries = [Query(qid, v.text, by_id[qid]) for qid, variants in pending.items() for v in variants]
        answers = oracle.ask(queries, description=f"attack round {round_number}")
        position = 0
        asked, pending = pending, {}
        for qid, variants in asked.items():
            given = {v.text: answers[position + i] for i, v in enumerate(variants)}
            position += len(variants)
            _advance(qid, searches[qid], given, pending, outcomes)
    results = []
    for ex, scored in zip(examples, clean):
        if ex.id in outcomes:
            outcome = outcomes[ex.id]
            state = SUCCEEDED if outcome.succeeded else FAILED
            results.append(QuestionResult(ex, state, scored, plans[ex.id], limits[ex.id], outcome))
        else:
            results.append(QuestionResult(ex, status[ex.id], scored))
    return results


def _advance(
    qid: str,
    running: Search,
    given: dict[str, Scored] | None,
    pending: dict[str, list[Variant]],
    outcomes: dict[str, SearchOutcome],
) -> None:
    try:
        pending[qid] = running.send(given) if given is not None else next(running)
    except StopIteration as stop:
        outcomes[qid] = stop.value
