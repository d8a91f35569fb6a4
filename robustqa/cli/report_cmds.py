"""`robustqa report` (compare finished runs) and `robustqa demo` (the whole idea on a packaged sample)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import click

from robustqa.errors import OutputError

DEMO_MODEL = "electra-small"
NOTEBOOK = "notebooks/failure_analysis.ipynb"


def render(fmt: str, runs: list[dict[str, Any]], chart_png: bytes | None) -> str:
    """The comparison document in one of md, json, html."""
    from robustqa import report
    from robustqa.report_html import comparison_rows, render_html

    if fmt == "md":
        return report.render_markdown(runs)
    if fmt == "json":
        document = {"table": comparison_rows(runs), "runs": runs}
        return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    return render_html(runs, chart_png)


def _chart_bytes(runs: list[dict[str, Any]]) -> bytes:
    from robustqa import report

    with tempfile.TemporaryDirectory() as scratch:
        path = report.render_chart(runs, Path(scratch) / "chart.png")
        return Path(path).read_bytes()


@click.command("report")
@click.argument("run_dirs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["md", "json", "html"]), default="md", show_default=True,
              help="Form of the comparison document.")
@click.option("--output", "output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the document here and the chart beside it (<output stem>.png); "
                   "without it, the document goes to stdout.")
def report(run_dirs: tuple[Path, ...], fmt: str, output: Path | None) -> None:
    """Compare finished `robustqa eval` runs side by side, without running any model.

    Give one or more run folders (several recipes or models). The comparison table goes to stdout in the
    chosen format; with --output it is written to a file, the chart beside it, and the table printed.
    """
    from robustqa import report as report_lib
    from robustqa.cli.eval_cmds import _console
    from robustqa.squad import write_text_atomic

    if output is not None and output.suffix.lower() == ".png":
        raise click.BadParameter("the chart is written as <output stem>.png; give the document another name", param_hint="--output")
    runs = [report_lib.load_run(path) for path in run_dirs]
    if output is None:
        chart = _chart_bytes(runs) if fmt == "html" else None
        click.echo(render(fmt, runs, chart), nl=False)
        return
    if not output.parent.is_dir():
        raise OutputError(f"{output}: folder '{output.parent}' does not exist; create it first or choose another --output")
    chart_path = report_lib.render_chart(runs, output.with_suffix(".png"))
    write_text_atomic(output, render(fmt, runs, chart_path.read_bytes()))
    report_lib.print_table(runs, _console())
    click.echo(f"wrote {output} and {chart_path}")
