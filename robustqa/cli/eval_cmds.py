"""`robustqa eval` and `robustqa models`: parse, call robustqa.evaluation.run, print.

The library does the work and raises typed errors; this module only turns options into settings, prints
the table and the signature (stdout) and a short summary (stderr), and leaves exit codes to the group.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from robustqa.cli.console import console, print_eval_result
from robustqa.cli.options import inference_options, kinds_option, titles_option
from robustqa.stats import DEFAULT_RESAMPLES, DEFAULT_SEED

if TYPE_CHECKING:
    from robustqa.evaluation.inference import InferenceSettings


@click.command("eval")
@click.argument("models", nargs=-1, required=True)
@click.option(
    "--clean",
    "clean_file",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Official SQuAD 2.0 or v1.1 JSON file (e.g. dev-v2.0.json), or an imported set's clean.json. "
    "Without --clean and --perturbed: a packaged reviewed benchmark (--set).",
)
@click.option(
    "--set",
    "set_name",
    default=None,
    help="The packaged set to evaluate when no --clean is given: certified@2 (default; its variants carry edit "
    "kinds) or certified@1 (the same variants, as first published).",
)
@click.option(
    "--perturbed",
    "perturbed_file",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Perturbed file from `robustqa build-dataset` or `robustqa import`; omit to evaluate the clean set only.",
)
@click.option(
    "--output-dir",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Run folder: report.json, report.md, chart, examples.jsonl, predictions, cache. "
    "Default: runs/<model>-<set>[-<articles>].",
)
@click.option(
    "--overwrite",
    is_flag=True,
    help="Replace a run folder that holds a different run (other data, models or settings).",
)
@inference_options
@click.option(
    "--bootstrap",
    default=DEFAULT_RESAMPLES,
    show_default=True,
    type=click.IntRange(min=1),
    help="Bootstrap resamples for the drop intervals.",
)
@click.option(
    "--seed", default=DEFAULT_SEED, show_default=True, type=int, help="Seed of the bootstrap (in the signature)."
)
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    default=None,
    help="Evaluate only the first N clean questions (and their variants).",
)
@click.option(
    "--rules",
    type=click.Choice(["auto", "v1.1", "v2.0"]),
    default="auto",
    show_default=True,
    help="SQuAD rules. auto: v1.1 (the model always answers) for files without unanswerable questions, else v2.0; "
    "a v1.1 file beside a v2.0 one is refused.",
)
@click.option(
    "--validated",
    "decisions",
    multiple=True,
    type=click.Path(path_type=Path, dir_okay=False),
    metavar="DECISIONS",
    help=(
        "Review decisions made on the perturbed file (`robustqa review`; repeat per reviewer): adds the drop on the "
        "questions people accepted."
    ),
)
@click.option(
    "--kinds",
    default=None,
    help="Count only variants whose edits are all of these kinds: comma-separated from synonym, rare, spelling, "
    "abbreviation, morphology, or 'all'. Default: every variant; on certified@2 the headline counts synonym,rare "
    "and each other kind has its own row.",
)
@click.option(
    "--articles",
    multiple=True,
    metavar="TITLES",
    help="Evaluate only these articles: titles, comma-separated, or @FILE with one per line (repeatable).",
)
@click.option(
    "--exclude-articles",
    multiple=True,
    metavar="TITLES",
    help="Leave these articles out (e.g. those a model was trained on): titles, comma-separated, or @FILE.",
)
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.option("--wide", is_flag=True, help="Print every column of report.md (the default table fits the terminal).")
def eval_command(
    models: tuple[str, ...],
    clean_file: Path | None,
    set_name: str | None,
    perturbed_file: Path | None,
    output_dir: Path | None,
    overwrite: bool,
    settings: InferenceSettings,
    bootstrap: int,
    seed: int,
    trust_remote_code: bool,
    limit: int | None,
    rules: str,
    decisions: tuple[Path, ...],
    kinds: str | None,
    articles: tuple[str, ...],
    exclude_articles: tuple[str, ...],
    quiet: bool,
    wide: bool,
) -> None:
    """Evaluate MODELS (aliases, hub ids or folders) on clean and perturbed SQuAD (2.0 or v1.1): EM/F1 and the drop."""
    from robustqa.evaluation import distributed
    from robustqa.evaluation.run import EvalConfig, default_run_folder, run_evaluation
    from robustqa.packaged import get_set

    selected_kinds = kinds_option(kinds)
    headline_kinds = None
    if clean_file is None:
        if perturbed_file is not None:
            raise click.UsageError(
                "--perturbed needs --clean (the file its questions were made from); give both, or neither for the "
                "packaged benchmark"
            )
        packaged = get_set(set_name) if set_name else get_set()
        clean_file, perturbed_file = packaged.clean_path, packaged.perturbed_path
        folder_name = packaged.slug
        if kinds is None:  # every variant evaluated; the headline counts the set's own kinds
            headline_kinds = packaged.headline_kinds
    elif set_name:
        raise click.UsageError("--set names a packaged set; give it without --clean and --perturbed")
    else:
        folder_name = (perturbed_file or clean_file).stem
    selected, excluded = titles_option(articles), titles_option(exclude_articles)
    if output_dir is None:
        output_dir = default_run_folder(models, folder_name, articles=selected, exclude_articles=excluded)

    config = EvalConfig(
        clean_file=clean_file,
        perturbed_file=perturbed_file,
        output_dir=output_dir,
        settings=settings,
        bootstrap=bootstrap,
        seed=seed,
        limit=limit,
        trust_remote_code=trust_remote_code,
        progress=not quiet,
        rules=rules.removeprefix("v"),
        decisions=decisions,
        overwrite=overwrite,
        kinds=selected_kinds,
        headline_kinds=headline_kinds,
        articles=selected,
        exclude_articles=excluded,
    )
    try:
        result = run_evaluation(models, config)
    finally:
        distributed.destroy_process_group()
    if result is None:  # not the main process under torchrun
        return
    print_eval_result(result, wide=wide)


@click.command("models")
def models() -> None:
    """List the model aliases with their hub ids and the SQuAD 2.0 dev EM/F1 their model cards report."""
    from rich.table import Table

    from robustqa.evaluation.models import alias_table

    rows = alias_table()
    table = Table(title="robustqa model aliases (any hub id or local folder works too)", title_justify="left")
    # in a narrow terminal the hub id folds onto more lines; the alias (what one types) and the scores stay whole
    table.add_column("Alias", no_wrap=True, min_width=max(len(row["alias"]) for row in rows))
    table.add_column("Hub id", overflow="fold")
    table.add_column("Architecture", no_wrap=True, min_width=max(len(row["architecture"]) for row in rows))
    for column in ("Dev EM", "Dev F1"):
        table.add_column(column, justify="right", no_wrap=True, min_width=len(column))
    for row in rows:
        table.add_row(
            row["alias"],
            row["hub_id"],
            row["architecture"],
            f"{row['reported_exact']:.2f}",
            f"{row['reported_f1']:.2f}",
        )
    out = console()
    out.print(table)
    out.print("Dev EM/F1: SQuAD 2.0 dev set (11,873 questions), as each model card reports them.", highlight=False)
