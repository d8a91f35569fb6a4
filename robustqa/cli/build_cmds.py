"""`robustqa build-dataset`, `robustqa perturb` and `robustqa recipes`: parse, call the library, print.

Errors raised by the library (robustqa.errors, perturbations.errors) are turned into one-line messages by
the command group; nothing here prints a traceback.
"""

from __future__ import annotations

import json
import sys
import warnings
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TextIO

import click

import perturbations
from robustqa.build import DEFAULT_RECIPE, DEFAULT_SEED
from robustqa.cli.options import model_rule_options, recipe_overrides, set_option
from robustqa.errors import InputError
from robustqa.squad import read_input

_RECIPE_HELP = "recipe name, or name@version for an exact version (see `robustqa recipes`)"
_SEED_HELP = "seed of the per-example generators (documented default: 13)"


def _protected(words: Iterable[str]) -> tuple[str, ...] | None:
    """`--protect a --protect b,c` → ("a", "b", "c"); None when not given, so the recipe default stays."""
    out = [w.strip() for word in words for w in word.split(",") if w.strip()]
    return tuple(out) or None


def _recipe(
    name: str,
    *,
    rate: float | None,
    protect: tuple[str, ...],
    settings: Iterable[str] = (),
    **model_rules: str | float | None,
) -> perturbations.Recipe:
    """The named recipe with the options given on the command line (its own flags and `--set`)."""
    return perturbations.get_recipe(
        name, **recipe_overrides(settings, rate=rate, protected_words=_protected(protect), **model_rules)
    )


@click.command("build-dataset")
@click.option(
    "--input",
    "input_path",
    metavar="FILE",
    help="SQuAD 2.0 JSON file; default: the squad_v2 validation split through `datasets` (needs internet once)",
)
@click.option(
    "--output",
    "output_path",
    metavar="FILE",
    default=None,
    help=(
        "where to write the perturbed SQuAD 2.0 file; default: <input name>-<recipe>.json here "
        "(squad2-dev-<recipe>.json for the hub split)"
    ),
)
@click.option("--recipe", "recipe_name", default=DEFAULT_RECIPE, show_default=True, metavar="NAME", help=_RECIPE_HELP)
@click.option("--seed", default=DEFAULT_SEED, show_default=True, type=int, help=_SEED_HELP)
@click.option(
    "--rate", type=float, default=None, help="max share of a text's words to replace (recipe default if not given)"
)
@click.option(
    "--variants",
    type=click.IntRange(min=1),
    default=None,
    metavar="K",
    help="write up to K different variants per question, ids <id>-v1..<id>-vK",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    metavar="N",
    help="worker processes; the output is identical for any N",
)
@click.option("--protect", multiple=True, metavar="WORD", help="never replace this word (repeat, or comma-separate)")
@set_option
@model_rule_options
@click.option(
    "--repair-answers",
    is_flag=True,
    help="move misaligned source answers to the nearest occurrence of their text (warns for each)",
)
@click.option(
    "--validated",
    multiple=True,
    metavar="DECISIONS",
    help=(
        "apply `robustqa review` decisions made on this build's output: only accepted questions stay perturbed (repeat "
        "per reviewer)"
    ),
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["squad", "hf"]),
    default="squad",
    show_default=True,
    help="squad: one SQuAD 2.0 JSON file; hf: a Hugging Face `datasets` folder (save_to_disk), flat columns",
)
def build_dataset(
    input_path: str | None,
    output_path: str | None,
    recipe_name: str,
    seed: int,
    rate: float | None,
    variants: int | None,
    workers: int,
    protect: tuple[str, ...],
    recipe_settings: tuple[str, ...],
    repair_answers: bool,
    validated: tuple[str, ...],
    fmt: str,
    **model_rules: str | float | None,
) -> None:
    """Write a QADS-style perturbed copy of a SQuAD 2.0 file: synonyms in, answers kept valid, every edit recorded."""
    from tqdm import tqdm

    from robustqa.build import build_dataset as build
    from robustqa.cli.console import build_summary, review_lines
    from robustqa.outputs import check_output_path
    from robustqa.review.decisions import read_decisions
    from robustqa.review.validate import apply_to_document
    from robustqa.squad import RepairWarning, check_answer_offsets, load_squad, load_squad_hub, write_squad

    recipe = _recipe(recipe_name, rate=rate, protect=protect, settings=recipe_settings, **model_rules)
    output = Path(output_path) if output_path is not None else default_output(input_path, recipe.ident)
    if fmt == "hf":
        from robustqa.hf_export import check_free_folder

        check_free_folder(output)
    else:
        check_output_path(output)
    decisions = [read_decisions(path) for path in validated]  # every file read before any work
    perturbations.check_resources()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RepairWarning)
        if input_path is None:
            dataset = check_answer_offsets(load_squad_hub("validation"), repair=repair_answers)
            source = "squad_v2:validation"
        else:
            dataset = load_squad(input_path, check_answers=True, repair=repair_answers)
            source = Path(input_path).name
    for warning in caught:
        if issubclass(warning.category, RepairWarning):
            click.echo(f"robustqa: warning: {warning.message}", err=True)
    # a recipe with model rules scores every candidate first (minutes): its own progress bar
    scoring = tqdm(
        total=len(dataset) * recipe.preparation_passes if recipe.fields == {"question"} else None,
        unit="text",
        desc="model scoring",
        file=sys.stderr,
        disable=None if recipe.prepares else True,
        leave=False,
    )
    with (
        scoring,
        tqdm(total=len(dataset), unit="q", desc="build-dataset", file=sys.stderr, disable=None, leave=False) as bar,
    ):
        result = build(
            dataset,
            recipe,
            seed=seed,
            variants=variants,
            workers=workers,
            source=source,
            progress=bar.update,
            prepare_progress=scoring.update,
        )
    document, reviewed = result.document, list[str]()
    if decisions:
        document, counts = apply_to_document(document, decisions, name=f"this build of {output.name}")
        reviewed = review_lines(decisions, counts)
    if fmt == "hf":
        from robustqa.hf_export import save_hf

        save_hf(document, output)
    else:
        write_squad(document, output)
    click.echo("\n".join([build_summary(result.summary, output, document["signature"]), *reviewed]))


def default_output(input_path: str | None, recipe: str) -> Path:
    """`<input stem>-<recipe>.json` in the working folder; `squad2-dev-<recipe>.json` for the hub's dev split."""
    stem = Path(input_path).stem if input_path is not None else "squad2-dev"
    return Path(f"{stem}-{recipe}.json")


def _lines(texts: tuple[str, ...], input_path: str | None, stdin: TextIO) -> Iterator[str]:
    for text in texts:
        yield from text.splitlines() or [""]
    if input_path is not None:
        path = Path(input_path)
        if input_path == "-":
            yield from (line.rstrip("\r\n") for line in stdin)
            return
        data = read_input(path, hint="give a text file, one text per line")
        try:
            content = data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise InputError(
                f"not UTF-8 text ({error.reason} at byte {error.start})", path=input_path, hint="give a UTF-8 text file"
            ) from None
        yield from content.splitlines()
    elif not texts:
        yield from (line.rstrip("\r\n") for line in stdin)


@click.command("perturb")
@click.argument("texts", nargs=-1, metavar="[TEXT ...]")
@click.option(
    "--input",
    "input_path",
    metavar="FILE",
    help="read texts from FILE, one per line ('-' for stdin); stdin when no TEXT is given",
)
@click.option("--recipe", "recipe_name", default=DEFAULT_RECIPE, show_default=True, metavar="NAME", help=_RECIPE_HELP)
@click.option("--seed", default=DEFAULT_SEED, show_default=True, type=int, help=_SEED_HELP)
@click.option(
    "--rate", type=float, default=None, help="max share of a text's words to replace (recipe default if not given)"
)
@click.option("--protect", multiple=True, metavar="WORD", help="never replace this word (repeat, or comma-separate)")
@set_option
@model_rule_options
@click.option("--json", "as_json", is_flag=True, help="one JSON object per line: text, perturbed, substitutions")
def perturb(
    texts: tuple[str, ...],
    input_path: str | None,
    recipe_name: str,
    seed: int,
    rate: float | None,
    protect: tuple[str, ...],
    recipe_settings: tuple[str, ...],
    as_json: bool,
    **model_rules: str | float | None,
) -> None:
    """Perturb any text with a recipe, one output line per input line."""
    recipe = _recipe(recipe_name, rate=rate, protect=protect, settings=recipe_settings, **model_rules)
    perturbations.check_resources()
    for line in _lines(texts, input_path, sys.stdin):
        # keyed by the text itself: the same line gives the same result wherever it appears
        result = recipe.perturb(line, seed=seed, key=line)
        click.echo(json.dumps(result.to_dict(), ensure_ascii=False) if as_json else result.perturbed)


@click.command("recipes")
@click.option("--json", "as_json", is_flag=True, help="print the recipes as one JSON list")
def recipes(as_json: bool) -> None:
    """List the recipes, every version, with parameters and citation."""
    from robustqa.build import recipe_record
    from robustqa.cli.console import fill_lines, prose_width

    items = perturbations.list_recipes()
    if as_json:
        click.echo(json.dumps([recipe_record(r) for r in items], ensure_ascii=False, indent=2))
        return
    width = prose_width()
    default = perturbations.get_recipe(DEFAULT_RECIPE).ident
    versions = Counter(r.name for r in items)
    intro = (
        f"{len(items)} recipe versions. NAME builds its default version, NAME@VERSION exactly that version; "
        f"build-dataset, perturb and attack use {DEFAULT_RECIPE} ({default}) unless told otherwise."
    )
    blocks = ["\n".join(fill_lines(intro, width))]
    for r in items:
        parameters = ", ".join(f"{key}={_show(value)}" for key, value in r.parameters().items())
        description = getattr(r, "description", "")
        head = r.ident + _marks(r, versions, default) + (f"  {description}" if description else "")
        lines = [
            *fill_lines(head, width, rest="    "),
            *fill_lines(", ".join(sorted(r.fields)), width, first="  fields      "),
            *fill_lines(parameters, width, first="  parameters  "),
            *fill_lines(_kinds_line(r), width, first="  edit kinds  "),
            *fill_lines(r.citation, width, first="  citation    "),
        ]
        blocks.append("\n".join(lines))
    click.echo("\n\n".join(blocks))


def _marks(recipe: perturbations.Recipe, versions: Counter[str], default: str) -> str:
    """What a recipe's heading says of it: the version its bare name builds (when the name has several, as
    `versions` counts them) and the recipe the commands use by default."""
    marks = []
    if versions[recipe.name] > 1 and perturbations.default_version(recipe.name) == recipe.version:
        marks.append(f"what {recipe.name} builds")
    if recipe.ident == default:
        marks.append("the default recipe")
    return f" ({'; '.join(marks)})" if marks else ""


def _kinds_line(recipe: perturbations.Recipe) -> str:
    """Whether the recipe's files carry each edit's kind (from the recipe itself, not from its description)."""
    if recipe.writes_kinds:
        return f"written in every edit record (rules {recipe.kind_rules})"
    return "not written (published before kinds were; readers derive them)"


def _show(value: object) -> str:
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value) or "-"
    return str(value)
