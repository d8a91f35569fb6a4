"""`robustqa demo`: the whole idea on the packaged sample, through the same library calls as the commands."""

from __future__ import annotations

from pathlib import Path

import click

from robustqa.errors import ModelLoadError, ModelUnavailableError, OutputError

DEMO_MODEL = "electra-small"
DEMO_SAMPLE = "squad2-sample.json"
DEMO_RECIPE = "qads@2.0"  # the version whose edits on the sample a blind review judged (benchmarks/demo_sample.py)
NOTEBOOK = "notebooks/failure_analysis.ipynb"
_PASS_A_FOLDER = (
    "pass a local SQuAD 2.0 QA model folder with `robustqa demo --model PATH` (e.g. --model ../shared/models/minilm-squad2-mini)"
)


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
def demo(model: str, output_dir: Path) -> None:
    """The whole idea in one command, on 30 SQuAD 2.0 questions shipped with robustqa (CC BY-SA 4.0).

    Builds the qads variant of the sample (WordNet synonyms in the questions), evaluates MODEL on both, prints
    the clean vs perturbed table and the questions that flipped (or, with none, some of the edits), and the
    command that opens the failure-analysis notebook on the run.
    """
    import perturbations
    from robustqa import analysis
    from robustqa.build import build_dataset
    from robustqa.cli.console import build_summary, print_eval_result
    from robustqa.edits import highlight_text
    from robustqa.evaluation import EvalConfig, run_evaluation
    from robustqa.inference import InferenceSettings
    from robustqa.models import check_available, resolve_model
    from robustqa.runs.load import load_run
    from robustqa.squad import load_squad, write_squad

    try:
        check_available(resolve_model(model))
    except ModelUnavailableError as error:
        raise ModelLoadError(f"the demo model '{error.name}' ({error.model_id}) {error.reason}; {_PASS_A_FOLDER}") from None
    try:
        output_dir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise OutputError(f"{output_dir}: cannot create the folder ({error.strerror}); choose another --output-dir") from None
    clean = _packaged_sample(output_dir)
    perturbed = output_dir / f"{clean.stem}-{DEMO_RECIPE}.json"
    click.secho(f"[1/3] building the {DEMO_RECIPE} variant of the packaged sample ({clean})", bold=True)
    perturbations.check_resources()
    built = build_dataset(load_squad(clean, check_answers=True), perturbations.get_recipe(DEMO_RECIPE))
    write_squad(built.document, perturbed)
    click.echo(build_summary(built.summary, perturbed, built.signature.format()))
    click.secho(f"[2/3] evaluating {model} on the clean and the perturbed questions", bold=True)
    result = run_evaluation([model], EvalConfig(clean, perturbed, output_dir, InferenceSettings()))
    if result is not None:
        print_eval_result(result)
    run = load_run(output_dir)
    flips = analysis.flipped(run, changed_only=True)
    if flips:
        click.secho(f"[3/3] {len(flips)} questions flipped from right to wrong; substituted words in [brackets]:", bold=True)
        for flip in flips[:5]:
            click.echo(f"  {flip.question_text}\n  {flip.perturbed_text}")
            click.echo(f"    clean: {flip.clean_prediction or '(no answer)'!r}  perturbed: {flip.perturbed_prediction or '(no answer)'!r}")
    else:
        click.secho("[3/3] no question flipped from right to wrong on this sample; some of its edits, substituted words in [brackets]:", bold=True)
        for example in [e for e in analysis.compared(run) if e.get("changed")][:5]:
            substitutions = example.get("substitutions") or ()
            click.echo(f"  {highlight_text(example['question'], substitutions, side='original')}")
            click.echo(f"  {highlight_text(example['perturbed_question'], substitutions, side='perturbed')}")
        click.echo("One random valid edit per question is a mild test; `robustqa attack` searches for the edits that do flip a model.")
    click.echo("\nOpen the failure-analysis notebook on this run:")
    click.echo(f"  ROBUSTQA_RUN={output_dir.resolve()} jupyter notebook {NOTEBOOK}")
