"""`robustqa analyze`: the failure-analysis notebook, executed on a run, as one HTML page."""

from __future__ import annotations

from pathlib import Path

import click


@click.command("analyze")
@click.argument("run_dir", required=False, type=click.Path(path_type=Path, file_okay=False))
@click.option(
    "--output",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Where to write the page; default: analysis.html in the run folder.",
)
def analyze(run_dir: Path | None, output: Path | None) -> None:
    """Execute the failure-analysis notebook on RUN_DIR (default: $ROBUSTQA_RUN, else the newest run under
    runs/) and write a self-contained HTML page with every table and figure; no Jupyter needed."""
    from robustqa.notebook import execute, to_html
    from robustqa.outputs import check_output_path, write_text_atomic
    from robustqa.reporting.analysis import shown_path
    from robustqa.runs.load import find_run, load_run

    folder = find_run(run_dir)
    load_run(folder)  # a missing or unfinished run folder is named as such, before the output path is checked
    output = output or folder / "analysis.html"
    check_output_path(output)
    click.echo(f"running the failure-analysis notebook on {shown_path(folder, Path.cwd())} ...", err=True)
    write_text_atomic(output, to_html(execute(folder)))
    click.echo(f"wrote {output}")
