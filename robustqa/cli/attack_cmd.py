"""`robustqa attack`: parse, call robustqa.attack, print what it found."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click
from click.core import ParameterSource

from robustqa.attack.search import DEFAULT_BEAM, DEFAULT_BUDGET
from robustqa.build import DEFAULT_RECIPE, DEFAULT_SEED
from robustqa.cli.options import inference_options, model_rule_options, recipe_overrides, set_option
from robustqa.errors import InputError

if TYPE_CHECKING:
    from robustqa.evaluation.inference import InferenceSettings


@click.command("attack")
@click.argument("model")
@click.option(
    "--input",
    "input_file",
    type=click.Path(path_type=Path, dir_okay=False),
    help="SQuAD 2.0 file of clean questions [required, except with --variants certified@1: its clean questions].",
)
@click.option(
    "--variants",
    "variants",
    metavar="FILE|SET",
    help=(
        "Search only the variants this file lists for each question (a build with --variants, or a reviewed set: "
        "a file, or a packaged set such as certified@1), not the recipe's space."
    ),
)
@click.option(
    "--output-dir",
    required=True,
    type=click.Path(path_type=Path, file_okay=False),
    help="Folder: adversarial.json, attack.json, success_vs_budget.png, cache/.",
)
@click.option(
    "--recipe",
    "recipe_name",
    default=DEFAULT_RECIPE,
    show_default=True,
    metavar="NAME",
    help="Recipe whose edits are searched (name or name@version; question recipes only).",
)
@click.option(
    "--budget",
    default=DEFAULT_BUDGET,
    show_default=True,
    type=click.IntRange(min=1),
    metavar="Q",
    help="Model queries (variants scored) per question.",
)
@click.option(
    "--max-edits",
    type=click.IntRange(min=1),
    default=None,
    metavar="K",
    help="Words changed at most per question [default: the recipe's own budget for that question].",
)
@click.option(
    "--beam",
    default=DEFAULT_BEAM,
    show_default=True,
    type=click.IntRange(min=1),
    help="States kept between edits (1: greedy).",
)
@click.option(
    "--include-penalised",
    is_flag=True,
    help=(
        "Also search edits a soft rule of the recipe penalises (a build writes them only as a last resort; they are "
        "more often invalid)."
    ),
)
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    default=None,
    metavar="N",
    help="Attack only the first N questions of the input.",
)
@click.option(
    "--seed",
    default=DEFAULT_SEED,
    show_default=True,
    type=int,
    help="Seed of the recipe's per-question generators (in the signature).",
)
@inference_options
@click.option("--quiet", is_flag=True, help="No progress bars.")
@set_option
@model_rule_options
def attack(
    model: str,
    input_file: Path | None,
    variants: str | None,
    output_dir: Path,
    recipe_name: str,
    budget: int,
    max_edits: int | None,
    beam: int,
    include_penalised: bool,
    limit: int | None,
    seed: int,
    settings: InferenceSettings,
    trust_remote_code: bool,
    quiet: bool,
    recipe_settings: tuple[str, ...],
    **model_rules: str | float | None,
) -> None:
    """Find, for each question MODEL gets right, a valid synonym variant it gets wrong (within --budget queries)."""
    from robustqa.attack.attack_folder import ADVERSARIAL_JSON, ATTACK_JSON, CURVE_PNG, write_attack
    from robustqa.attack.driver import AttackConfig, run_attack
    from robustqa.evaluation import distributed

    variants_file: Path | None = None
    if variants is not None:
        _refuse_recipe_options(click.get_current_context())
        input_file, variants_file = _variant_files(variants, input_file)
    elif input_file is None:
        raise InputError("no questions to attack", hint="give --input FILE (SQuAD 2.0), or --variants certified@1")
    config = AttackConfig(
        input_file=input_file,
        variants_file=variants_file,
        output_dir=output_dir,
        settings=settings,
        recipe=recipe_name,
        recipe_overrides=tuple(recipe_overrides(recipe_settings, **model_rules).items()),
        budget=budget,
        max_edits=max_edits,
        beam=beam,
        include_penalised=include_penalised,
        limit=limit,
        seed=seed,
        trust_remote_code=trust_remote_code,
        progress=not quiet,
    )
    try:
        run = run_attack(model, config)
    finally:
        distributed.destroy_process_group()
    if run is None:  # not the main process under a launcher
        return
    record = write_attack(run)
    click.echo(attack_summary(record))
    click.echo(
        f"wrote {output_dir / ADVERSARIAL_JSON}, {output_dir / ATTACK_JSON} and {output_dir / CURVE_PNG}", err=True
    )
    limit_option = f" --limit {limit}" if limit is not None else ""
    click.echo(
        f"eval finds its flips, for this model or any other: robustqa eval MODEL --clean {input_file} "
        f"--perturbed {output_dir / ADVERSARIAL_JSON}{limit_option}",
        err=True,
    )


# what only a recipe's space has: given with --variants, these would silently do nothing
_RECIPE_ONLY = (
    "recipe_name",
    "max_edits",
    "beam",
    "include_penalised",
    "seed",
    "recipe_settings",
    "lm_model",
    "lm_threshold",
    "meaning_model",
    "meaning_threshold",
)


def _refuse_recipe_options(context: click.Context) -> None:
    given = [
        option.opts[0]
        for option in context.command.params
        if isinstance(option, click.Option)
        and option.name in _RECIPE_ONLY
        and context.get_parameter_source(option.name or "") is ParameterSource.COMMANDLINE
    ]
    if given:
        raise InputError(
            f"{', '.join(given)} shape a recipe's space; --variants searches the variants the file lists",
            hint="drop " + ", ".join(given) + ", or drop --variants to search the recipe's space",
        )


def _variant_files(variants: str, input_file: Path | None) -> tuple[Path, Path]:
    """(clean file, variants file): a path as given, or a packaged set's two files (its clean questions unless
    --input names others)."""
    from robustqa.packaged import PACKAGED_SETS, get_set

    names = set(PACKAGED_SETS) | {packaged.name for packaged in PACKAGED_SETS.values()}
    if variants in names and not Path(variants).exists():
        packaged = get_set(variants)
        return (input_file or packaged.clean_path), packaged.perturbed_path
    if input_file is None:
        raise InputError(
            "--variants FILE needs the clean questions it was built from", path=variants, hint="give --input CLEAN_FILE"
        )
    return input_file, Path(variants)


def attack_summary(record: dict) -> str:
    """The lines `robustqa attack` prints."""
    not_attacked = record["not_attacked"]
    cost = record["cost"]
    low, high = record["success_rate_ci"]
    rate = "–" if record["success_rate"] is None else f"{record['success_rate']:.1f}% [95% CI {low:.1f}, {high:.1f}]"
    speed = f", {cost['queries_per_second']:.1f} queries/s" if cost.get("queries_per_second") else ""
    nothing = "no listed variant" if "variants_file" in record["recipe"] else "no valid edit"
    lines = [
        f"robustqa attack: {record['model']} with {record['recipe']['name']}@{record['recipe']['version']}, budget "
        f"{record['settings']['budget']} queries",
        f"  questions          {record['questions']:,}",
        f"  not attacked       {len(not_attacked['wrong-on-clean']):,} wrong on clean, "
        f"{len(not_attacked['right-by-a-hair']):,} right by less than the flip margin",
        f"  attempted          {record['attempted']:,} (right on clean; {record['no_valid_edit']:,} with {nothing})",
        f"  succeeded          {record['succeeded']:,}: {rate}",
        f"  per success        {record['edits_per_success'] or 0:.2f} edits, {record['queries_per_success'] or 0:.1f} "
        f"queries to the flip (median {record['queries_per_success_median'] or 0:.0f})",
        f"  model queries      {cost['model_queries']:,} run, {cost['from_cache']:,} from the cache; "
        f"{cost['seconds']:.1f} s{speed}",
        f"  signature          {record['signature']}",
    ]
    return "\n".join(lines)
