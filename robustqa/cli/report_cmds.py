"""`robustqa report` (compare finished runs) and `robustqa demo` (the whole idea on a packaged sample)."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import click

from robustqa.errors import OutputError

DEMO_MODEL = "electra-small"
DEMO_SAMPLE = "squad2-sample.json"
DEMO_RECIPE = "qads"
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
    from robustqa.outputs import write_text_atomic

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


def _hub_reachable(timeout: float = 3.0) -> bool:
    """One TCP connection to the hub (or $HF_ENDPOINT): seconds, not the minute of retries a download makes."""
    import socket
    from urllib.parse import urlparse

    endpoint = urlparse(os.environ.get("HF_ENDPOINT") or "https://huggingface.co")
    try:
        with socket.create_connection((endpoint.hostname or "huggingface.co", endpoint.port or 443), timeout=timeout):
            return True
    except OSError:
        return False


def _check_demo_model(model: str) -> None:
    """Fail in seconds, before any building, when the model cannot be had (offline and not cached).

    A local folder is checked by `robustqa eval` itself. A hub model passes when the hub cache holds its
    config, or when the hub answers and the config downloads.
    """
    from robustqa.errors import ModelLoadError
    from robustqa.models import _describe_failure, resolve_model

    spec = resolve_model(model)
    if spec.is_local:
        return
    from huggingface_hub import try_to_load_from_cache

    if isinstance(try_to_load_from_cache(spec.model_id, "config.json"), str):
        return
    advice = (
        "pass a local SQuAD 2.0 QA model folder with `robustqa demo --model PATH` "
        "(e.g. --model ../shared/models/minilm-squad2-mini)"
    )
    offline = os.environ.get("HF_HUB_OFFLINE", "0") not in ("", "0", "false", "False")
    if offline or not _hub_reachable():
        raise ModelLoadError(
            f"the demo model '{model}' ({spec.model_id}) is not in the local cache and the Hugging Face hub "
            f"{'is switched off (HF_HUB_OFFLINE)' if offline else 'cannot be reached'}; {advice}"
        )
    from transformers import AutoConfig

    try:
        AutoConfig.from_pretrained(spec.model_id)
    except Exception as error:  # noqa: BLE001 - every failure becomes one line
        reason = _describe_failure(spec, error).split(";")[0]
        raise ModelLoadError(f"the demo model '{model}' ({spec.model_id}) is not available: {reason}; {advice}") from None


def _packaged_sample(folder: Path) -> Path:
    """Copy the packaged SQuAD 2.0 sample into the run's folder, so the run names a file that stays."""
    from importlib import resources

    from robustqa.outputs import write_text_atomic

    target = folder / DEMO_SAMPLE
    write_text_atomic(target, resources.files("robustqa").joinpath("data", DEMO_SAMPLE).read_text(encoding="utf-8"))
    return target


@click.command("demo")
@click.option("--model", default=DEMO_MODEL, show_default=True,
              help="QA model: an alias (see `robustqa models`), a hub id, or a local folder (offline: a folder).")
@click.option("--output-dir", type=click.Path(file_okay=False, path_type=Path), default=Path("runs/demo"), show_default=True,
              help="Run folder: the sample, its qads variant, and the `robustqa eval` outputs.")
@click.pass_context
def demo(ctx: click.Context, model: str, output_dir: Path) -> None:
    """The whole idea in one command, on 30 SQuAD 2.0 questions shipped with robustqa (CC BY-SA 4.0).

    Builds the qads variant of the sample (WordNet synonyms in the questions), evaluates MODEL on both, prints
    the clean vs perturbed table and the questions that flipped, and the command that opens the
    failure-analysis notebook on the run.
    """
    from robustqa import analysis
    from robustqa.cli import cli

    _check_demo_model(model)
    try:
        output_dir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise OutputError(f"{output_dir}: cannot create the folder ({error.strerror}); choose another --output-dir") from None
    clean = _packaged_sample(output_dir)
    perturbed = output_dir / f"{clean.stem}-{DEMO_RECIPE}.json"
    click.secho(f"[1/3] building the {DEMO_RECIPE} variant of the packaged sample ({clean})", bold=True)
    cli.main(["build-dataset", "--input", str(clean), "--output", str(perturbed), "--recipe", DEMO_RECIPE],
             prog_name="robustqa", standalone_mode=False)
    click.secho(f"[2/3] evaluating {model} on the clean and the perturbed questions", bold=True)
    cli.main(["eval", model, "--clean", str(clean), "--perturbed", str(perturbed), "--output-dir", str(output_dir)],
             prog_name="robustqa", standalone_mode=False)
    run = analysis.load_run(output_dir)
    flips = analysis.flipped(run, changed_only=True)
    click.secho(f"[3/3] {len(flips)} questions flipped from right to wrong; substituted words in [brackets]:", bold=True)
    for flip in flips[:5]:
        click.echo(f"  {flip.question_text}\n  {flip.perturbed_text}")
        click.echo(f"    clean: {flip.clean_prediction or '(no answer)'!r}  perturbed: {flip.perturbed_prediction or '(no answer)'!r}")
    click.echo("\nOpen the failure-analysis notebook on this run:")
    click.echo(f"  ROBUSTQA_RUN={output_dir.resolve()} jupyter notebook {NOTEBOOK}")
