"""`robustqa report`: compare finished runs side by side, without running any model."""

from __future__ import annotations

from pathlib import Path

import click

from robustqa.errors import OutputError
from robustqa.report import FORMATS


@click.command("report")
@click.argument("run_dirs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(list(FORMATS)), default="md", show_default=True,
              help="Form of the comparison document.")
@click.option("--output", "output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the document here and the chart beside it (<output stem>.png); "
                   "without it, the document goes to stdout.")
def report(run_dirs: tuple[Path, ...], fmt: str, output: Path | None) -> None:
    """Compare finished `robustqa eval` runs side by side, without running any model.

    Give one or more run folders (several recipes or models). The comparison table goes to stdout in the
    chosen format; with --output it is written to a file, the chart beside it, and the table printed.
    """
    from robustqa.charts import headline_figure, png_bytes
    from robustqa.cli.console import print_comparison
    from robustqa.outputs import write_bytes_atomic, write_text_atomic
    from robustqa.report import render
    from robustqa.runs.load import load_run
    from robustqa.tables import model_rows

    if output is not None and output.suffix.lower() == ".png":
        raise click.BadParameter("the chart is written as <output stem>.png; give the document another name", param_hint="--output")
    runs = [load_run(path) for path in run_dirs]
    if output is None:
        chart = png_bytes(headline_figure(model_rows(runs))) if fmt == "html" else None
        click.echo(render(fmt, runs, chart), nl=False)
        return
    if not output.parent.is_dir():
        raise OutputError(f"{output}: folder '{output.parent}' does not exist; create it first or choose another --output")
    chart = png_bytes(headline_figure(model_rows(runs)))
    chart_path = output.with_suffix(".png")
    write_bytes_atomic(chart_path, chart)
    write_text_atomic(output, render(fmt, runs, chart))
    print_comparison(runs)
    click.echo(f"wrote {output} and {chart_path}")
