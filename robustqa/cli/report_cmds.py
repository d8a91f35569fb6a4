"""`robustqa report`: compare finished runs side by side, without running any model."""

from __future__ import annotations

from pathlib import Path

import click

from robustqa.errors import OutputError
from robustqa.reporting.report import FORMATS


@click.command("report")
@click.argument("run_dirs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(list(FORMATS)),
    default=None,
    help="Form of the comparison document (md, json or html) on stdout or in --output (there, by default, the form "
    "its extension names: .html/.htm, .json, else md); without it and without --output, a table that fits the "
    "terminal.",
)
@click.option(
    "--output",
    "output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the document here and the chart beside it (<output stem>.png); "
    "without it, the document goes to stdout.",
)
@click.option(
    "--cost-chart",
    "cost_chart",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Also write a PNG of F1 under each shift against ms/question (the speed each run measured).",
)
@click.option(
    "--wide", is_flag=True, help="Print every column and the official table (the default table fits the terminal)."
)
def report(
    run_dirs: tuple[Path, ...], fmt: str | None, output: Path | None, cost_chart: Path | None, wide: bool
) -> None:
    """Compare finished `robustqa eval` runs side by side, without running any model.

    Give one or more run folders: several recipes, models or shifts (qads, AddSent, SQuAD-Shifts, a clean
    SQuAD run of the same model as the reference of clean-only sets). The terminal gets a table of the three
    answers that fits its width (--format md|json|html prints that document instead); with --output the
    document is written to a file, the chart beside it, and the table printed.
    """
    from robustqa.cli.console import print_comparison
    from robustqa.outputs import write_bytes_atomic, write_text_atomic
    from robustqa.reporting.charts import cost_figure, first_figure, png_bytes
    from robustqa.reporting.report import render
    from robustqa.reporting.tables import model_rows
    from robustqa.runs.load import load_run

    for path, option in ((output, "--output"), (cost_chart, "--cost-chart")):
        if path is not None and not path.parent.is_dir():
            raise OutputError(
                f"{path}: folder '{path.parent}' does not exist; create it first or choose another {option}"
            )
    if output is not None and output.suffix.lower() == ".png":
        raise click.BadParameter(
            "the chart is written as <output stem>.png; give the document another name", param_hint="--output"
        )
    if cost_chart is not None and output is not None and cost_chart.resolve() == output.with_suffix(".png").resolve():
        raise click.BadParameter(
            f"{cost_chart} is where the headline chart goes; give the cost chart another name",
            param_hint="--cost-chart",
        )
    runs = [load_run(path) for path in run_dirs]
    rows = model_rows(runs)
    if cost_chart is not None:
        write_bytes_atomic(cost_chart, png_bytes(cost_figure(rows)))
    if output is None:
        if fmt is None:
            print_comparison(runs, wide=wide)
        else:
            chart = png_bytes(first_figure(runs)) if fmt == "html" else None
            click.echo(render(fmt, runs, chart), nl=False)
        if cost_chart is not None:
            click.echo(f"wrote {cost_chart}", err=True)
        return
    fmt = fmt or _format_of(output)
    chart = png_bytes(first_figure(runs))
    chart_path = output.with_suffix(".png")
    write_bytes_atomic(chart_path, chart)
    write_text_atomic(output, render(fmt, runs, chart))
    print_comparison(runs, wide=wide, document=str(output) if fmt != "json" else "report.md")
    click.echo(f"wrote {output} and {chart_path}" + (f" and {cost_chart}" if cost_chart is not None else ""))


def _format_of(output: Path) -> str:
    """The document form an output file's extension names (report.html is a page, not markdown in disguise)."""
    return {".html": "html", ".htm": "html", ".json": "json"}.get(output.suffix.lower(), "md")
