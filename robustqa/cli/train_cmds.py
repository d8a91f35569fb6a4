"""`robustqa augment` and `robustqa train`: parse, call robustqa.augment / robustqa.training, print.

Errors raised by the library become one-line messages in the command group; nothing here prints a traceback.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from robustqa.build import DEFAULT_RECIPE, DEFAULT_SEED
from robustqa.training.adversarial import DEFAULT_BUDGET as DEFAULT_ATTACK_BUDGET
from robustqa.training.adversarial import DEFAULT_SAMPLE

FORMATS = ("squad", "hf")
_RECIPE_HELP = "recipe whose variants to add: name, or name@version (see `robustqa recipes`)"
_FORMAT_HELP = "squad: one SQuAD 2.0 JSON file; hf: a Hugging Face `datasets` folder (save_to_disk), flat columns"
_CERTIFIED_HELP = "take the variants from the packaged certified set (reviewed variants of its 16 articles)"
_VARIANTS_FILE_HELP = (
    "take the variants from this file (a build-dataset --variants or reviewed file, by source_id) or packaged set "
    "(certified@1)"
)


def _variants_source(recipe: str | None, certified: bool, variants_file: str | None) -> tuple[str, Any]:
    """('recipe', Recipe) or ('file', path): where the variants come from; at most one source. A variants file
    may name a packaged set (`certified@1`)."""
    import perturbations
    from robustqa.packaged import PACKAGED_SETS, get_set

    given = [
        name
        for name, on in (("--recipe", recipe), ("--certified", certified), ("--variants-file", variants_file))
        if on
    ]
    if len(given) > 1:
        raise click.UsageError(f"give one source of variants, not {' and '.join(given)}")
    if certified:
        return "file", get_set().perturbed_path
    if variants_file:
        if variants_file in PACKAGED_SETS or variants_file == get_set().name:
            return "file", get_set(variants_file).perturbed_path
        return "file", Path(variants_file)
    return "recipe", perturbations.get_recipe(recipe or DEFAULT_RECIPE)


def augmented(
    input_path: str, source: tuple[str, Any], variants: int | None, seed: int, workers: int = 1
) -> tuple[Any, Any]:
    """(the AugmentResult, the input dataset) for a training file and a source of variants."""
    import perturbations
    from robustqa.augment import augment_with_document, augment_with_recipe, data_hash
    from robustqa.squad import load_squad, parse_squad, read_json_input

    dataset = load_squad(input_path, check_answers=True)
    source_hash = data_hash(Path(input_path).read_bytes())
    kind, value = source
    if kind == "recipe":
        perturbations.check_resources()
        result = augment_with_recipe(
            dataset, value, variants=variants or 1, seed=seed, workers=workers, source_hash=source_hash
        )
    else:
        raw, _ = read_json_input(value, hint="give a file written by build-dataset --variants, or --certified")
        parse_squad(raw, path=str(value))
        result = augment_with_document(dataset, raw, variants=variants, source_hash=source_hash)
    return result, dataset


def write_output(document: dict[str, Any], output: Path, fmt: str) -> None:
    """The document as a SQuAD 2.0 file or a Hugging Face datasets folder."""
    from robustqa.hf_export import save_hf
    from robustqa.outputs import check_output_path
    from robustqa.squad import write_squad

    if fmt == "hf":
        save_hf(document, output)
    else:
        check_output_path(output)
        write_squad(document, output)


@click.command("augment")
@click.option("--input", "input_path", required=True, metavar="FILE", help="SQuAD 2.0 training file")
@click.option("--output", "output_path", required=True, metavar="FILE", help="where to write the augmented set")
@click.option("--recipe", "recipe_name", default=None, metavar="NAME", help=f"{_RECIPE_HELP}; default {DEFAULT_RECIPE}")
@click.option("--certified", is_flag=True, help=_CERTIFIED_HELP)
@click.option("--variants-file", default=None, metavar="FILE", help=_VARIANTS_FILE_HELP)
@click.option(
    "--variants",
    type=click.IntRange(min=1),
    default=None,
    metavar="K",
    help="up to K variants per question (recipe default 1; a variants file: all it holds)",
)
@click.option("--seed", default=DEFAULT_SEED, show_default=True, type=int, help="seed of the recipe's generators")
@click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True, metavar="N")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="squad", show_default=True, help=_FORMAT_HELP)
def augment(
    input_path: str,
    output_path: str,
    recipe_name: str | None,
    certified: bool,
    variants_file: str | None,
    variants: int | None,
    seed: int,
    workers: int,
    fmt: str,
) -> None:
    """Write a training set with valid variants beside each original question (ids <id>-vN, source_id, edits)."""
    source = _variants_source(recipe_name, certified, variants_file)
    output = Path(output_path)
    _check_free(output, fmt)
    result, _ = augmented(input_path, source, variants, seed, workers)
    write_output(result.document, output, fmt)
    click.echo(
        f"{output}: {result.originals} questions and {result.variants} variants\nsignature: {result.signature.format()}"
    )


def _check_free(output: Path, fmt: str) -> None:
    from robustqa.hf_export import check_free_folder
    from robustqa.outputs import check_output_path

    if fmt == "squad":
        check_output_path(output)
    else:
        check_free_folder(output)


@click.command("train")
@click.argument("model")
@click.option("--train", "train_path", required=True, metavar="FILE", help="SQuAD 2.0 training file")
@click.option("--output-dir", required=True, metavar="DIR", help="the model folder to write (rerun to resume)")
@click.option(
    "--augment",
    "augment_with",
    default=None,
    metavar="RECIPE",
    help="add RECIPE's variants ('certified' or 'certified@1': a packaged set's reviewed variants)",
)
@click.option(
    "--variants", type=click.IntRange(min=1), default=None, metavar="K", help="variants per question for --augment"
)
@click.option(
    "--steps", type=click.IntRange(min=0), default=0, show_default=True, help="optimisation steps (0: --epochs)"
)
@click.option("--epochs", type=float, default=2.0, show_default=True)
@click.option(
    "--batch-size", type=click.IntRange(min=1), default=16, show_default=True, help="windows per step and device"
)
@click.option("--learning-rate", type=float, default=3e-5, show_default=True)
@click.option("--weight-decay", type=float, default=0.01, show_default=True)
@click.option("--warmup-ratio", type=float, default=0.1, show_default=True)
@click.option("--max-seq-length", type=int, default=384, show_default=True, help="window length in tokens")
@click.option("--doc-stride", type=int, default=128, show_default=True, help="token overlap between windows")
@click.option("--seed", type=int, default=13, show_default=True, help="seed of weights' dropout and data order")
@click.option(
    "--save-steps", type=click.IntRange(min=1), default=500, show_default=True, help="checkpoint every N steps"
)
@click.option("--device", default="auto", show_default=True, help="auto, cpu, cuda (or cuda:N) or mps")
@click.option("--precision", type=click.Choice(["auto", "fp32", "bf16", "fp16"]), default="auto", show_default=True)
@click.option("--threads", type=click.IntRange(min=1), default=None, help="CPU threads for torch")
@click.option("--trust-remote-code", is_flag=True, help="allow a hub model to run its own code")
@click.option(
    "--adversarial",
    is_flag=True,
    help="at every epoch start, attack a sample of the training questions and add the variants that flip",
)
@click.option(
    "--adversarial-sample",
    type=int,
    default=None,
    metavar="N",
    help=f"training questions attacked each epoch (default {DEFAULT_SAMPLE})",
)
@click.option(
    "--adversarial-budget",
    type=int,
    default=None,
    metavar="Q",
    help=f"model queries per attacked question (default {DEFAULT_ATTACK_BUDGET})",
)
@click.option(
    "--adversarial-recipe",
    default=None,
    metavar="RECIPE",
    help=f"recipe whose space of question edits the attack searches (default {DEFAULT_RECIPE})",
)
def train(
    model: str,
    train_path: str,
    output_dir: str,
    augment_with: str | None,
    variants: int | None,
    trust_remote_code: bool,
    adversarial: bool,
    adversarial_sample: int | None,
    adversarial_budget: int | None,
    adversarial_recipe: str | None,
    **settings: Any,
) -> None:
    """Fine-tune a QA model on SQuAD 2.0 data (optionally with variants, or adversarially) into a folder eval and
    attack load."""

    from robustqa.augment import data_hash
    from robustqa.evaluation.models import resolve_model
    from robustqa.squad import load_squad, parse_squad
    from robustqa.training.run import TrainData, TrainSettings
    from robustqa.training.run import train as run_training

    if variants is not None and augment_with is None:
        raise click.UsageError("--variants needs --augment")
    tuning = {"--adversarial-sample": adversarial_sample, "--adversarial-budget": adversarial_budget,
              "--adversarial-recipe": adversarial_recipe}  # fmt: skip
    given = [flag for flag, value in tuning.items() if value is not None]
    if given and not adversarial:
        from robustqa.cli import ReportedError

        verb = "needs" if len(given) == 1 else "need"
        raise ReportedError(f"{' and '.join(given)} {verb} --adversarial: add --adversarial, or drop them", 2)
    if adversarial:
        from robustqa.training.adversarial import AdversarialSettings

        defaults = AdversarialSettings()
        settings["adversarial"] = AdversarialSettings(
            sample=defaults.sample if adversarial_sample is None else adversarial_sample,
            budget=defaults.budget if adversarial_budget is None else adversarial_budget,
            recipe=adversarial_recipe or defaults.recipe,
        )
    spec = resolve_model(model, trust_remote_code=trust_remote_code)
    train_settings = TrainSettings(**settings)
    if augment_with:
        from robustqa.packaged import get_set

        packaged = augment_with.split("@")[0] == get_set().name
        source = (
            _variants_source(None, False, augment_with) if packaged else _variants_source(augment_with, False, None)
        )
        result, _ = augmented(train_path, source, variants, settings["seed"])
        dataset = parse_squad(result.document, path=train_path)
        ident = get_set(augment_with).ident if packaged else source[1].ident
    else:
        dataset, ident = load_squad(train_path, check_answers=True), None
    data = TrainData(dataset, data_hash(Path(train_path).read_bytes()), ident, variants)
    from robustqa.evaluation import distributed

    try:
        done = run_training(spec, data, output_dir, train_settings)
    finally:
        distributed.destroy_process_group()  # under a launcher, so that every process exits cleanly
    if not done.main_process:
        return  # under torchrun only the main process reports
    resumed = f", resumed from {done.resumed_from}" if done.resumed_from else ""
    click.echo(
        f"{done.output_dir}: {done.steps} steps on {done.features} windows of {len(dataset)} questions{resumed}\n"
        f"signature: {done.signature.format()}"
    )
    for epoch in done.adversarial:
        click.echo(
            f"adversarial, epoch {epoch.epoch} (weights of step {epoch.step}): of {epoch.sampled} sampled questions, "
            f"{epoch.attempted} right and searched, {epoch.flipped} flipped; their variants added "
            f"({epoch.queries} queries)"
        )
