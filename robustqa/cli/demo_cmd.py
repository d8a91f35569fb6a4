"""`robustqa demo`: the whole idea on the packaged sample, through the same library calls as the commands."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from robustqa.errors import ModelLoadError, ModelUnavailableError, OutputError

if TYPE_CHECKING:
    from robustqa.attack.driver import QuestionResult

DEMO_MODEL = "electra-small"
DEMO_SAMPLE = "squad2-sample.json"
DEMO_RECIPE = "qads@2.0"  # the version whose edits on the sample a blind review judged (tools/demo_sample.py)
NOTEBOOK = "notebooks/failure_analysis.ipynb"
_PASS_A_FOLDER = (
    "pass a local SQuAD 2.0 QA model folder with `robustqa demo --model PATH` (e.g. --model "
    "../shared/models/minilm-squad2-mini)"
)


def _packaged_sample(folder: Path) -> Path:
    """Copy the packaged SQuAD 2.0 sample into the run's folder, so the run names a file that stays."""
    from importlib import resources

    from robustqa.outputs import write_text_atomic

    target = folder / DEMO_SAMPLE
    write_text_atomic(target, resources.files("robustqa").joinpath("data", DEMO_SAMPLE).read_text(encoding="utf-8"))
    return target


DEMO_BUDGET = 6  # model queries per question: enough to show the search, under a minute on two cores


def _margin_change(result: QuestionResult) -> float:
    """How far the searched variant moved the clean answer's margin (negative: toward a flip)."""
    outcome = result.outcome
    if outcome is None or outcome.scored is None:
        return 0.0
    return float(outcome.scored.margin - result.clean.margin)


def _attack_step(model: str, clean: Path, folder: Path) -> None:
    """Search the recipe's space of every question the model gets right (a small budget) and say what it
    found: the flips, else the edit that moved the model's margin most, and what 30 questions cannot show."""
    from robustqa.attack.attack_folder import write_attack
    from robustqa.attack.driver import SUCCEEDED, AttackConfig, run_attack
    from robustqa.edits import highlight_text
    from robustqa.evaluation.inference import InferenceSettings

    click.secho(
        f"[4/4] attacking {model}: up to {DEMO_BUDGET} variants of each question it gets right, from the {DEMO_RECIPE} "
        "space",
        bold=True,
    )
    config = AttackConfig(clean, folder, InferenceSettings(), recipe=DEMO_RECIPE, budget=DEMO_BUDGET, progress=False)
    attack = run_attack(model, config)
    if attack is None:
        return
    write_attack(attack)
    searched = [r for r in attack.results if r.attempted]
    flipped = [r for r in searched if r.status == SUCCEEDED]
    click.echo(
        f"  {len(searched)} questions searched ({len(attack.results) - len(searched)} the model got wrong or barely "
        f"right were not), {len(flipped)} flipped, {attack.cost.model_queries} model queries"
    )

    def show(result: QuestionResult, label: str) -> None:
        outcome = result.outcome
        if outcome is None or outcome.variant is None or outcome.scored is None:
            return
        subs = [s.to_dict() for s in outcome.variant.perturbation.substitutions]
        click.echo(f"  {highlight_text(result.example.question, subs, side='original')}")
        click.echo(f"  {highlight_text(outcome.variant.text, subs, side='perturbed')}")
        click.echo(
            f"    {label}: margin {result.clean.margin:+.2f} -> {outcome.scored.margin:+.2f}; "
            f"answer {result.clean.text or '(no answer)'!r} -> {outcome.scored.text or '(no answer)'!r}"
        )

    for result in flipped[:3]:
        show(result, "flipped")
    if not flipped:
        moved = [
            r
            for r in searched
            if r.outcome is not None and r.outcome.variant is not None and r.outcome.scored is not None
        ]
        if moved:
            best = min(moved, key=_margin_change)
            click.echo(
                "  no variant flipped an answer; the edit that lowered the model's margin (how far the right answer "
                "leads) most:"
            )
            show(best, "closest")
    click.echo(
        f"  {len(searched)} searched questions show that the search works and what it finds; they cannot rank models "
        "or measure a drop. Attack a real set: robustqa attack MODEL --input FILE --output-dir DIR "
        f"(written here: {folder})"
    )


@click.command("demo")
@click.option(
    "--model",
    default=DEMO_MODEL,
    show_default=True,
    help="QA model: an alias (see `robustqa models`), a hub id, or a local folder (offline: a folder).",
)
@click.option(
    "--output-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("runs/demo"),
    show_default=True,
    help="Run folder: the sample, its qads variant, and the `robustqa eval` outputs.",
)
def demo(model: str, output_dir: Path) -> None:
    """The whole idea in one command, on 30 SQuAD 2.0 questions shipped with robustqa (CC BY-SA 4.0).

    Builds the qads variant of the sample (WordNet synonyms in the questions), evaluates MODEL on both, prints
    the clean vs perturbed table and the questions that flipped (or, with none, some of the edits), and the
    command that opens the failure-analysis notebook on the run.
    """
    import perturbations
    from robustqa.build import build_dataset
    from robustqa.cli.console import build_summary, print_eval_result
    from robustqa.edits import highlight_text
    from robustqa.evaluation.inference import InferenceSettings
    from robustqa.evaluation.models import check_available, resolve_model
    from robustqa.evaluation.run import EvalConfig, run_evaluation
    from robustqa.reporting import analysis
    from robustqa.runs.load import load_run
    from robustqa.squad import load_squad, write_squad

    try:
        check_available(resolve_model(model))
    except ModelUnavailableError as error:
        raise ModelLoadError(
            f"the demo model '{error.name}' ({error.model_id}) {error.reason}; {_PASS_A_FOLDER}"
        ) from None
    try:
        output_dir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise OutputError(
            f"{output_dir}: cannot create the folder ({error.strerror}); choose another --output-dir"
        ) from None
    clean = _packaged_sample(output_dir)
    perturbed = output_dir / f"{clean.stem}-{DEMO_RECIPE}.json"
    click.secho(f"[1/4] building the {DEMO_RECIPE} variant of the packaged sample ({clean})", bold=True)
    perturbations.check_resources()
    built = build_dataset(load_squad(clean, check_answers=True), perturbations.get_recipe(DEMO_RECIPE))
    write_squad(built.document, perturbed)
    click.echo(build_summary(built.summary, perturbed, built.signature.format()))
    click.secho(f"[2/4] evaluating {model} on the clean and the perturbed questions", bold=True)
    result = run_evaluation([model], EvalConfig(clean, perturbed, output_dir, InferenceSettings()))
    if result is not None:
        print_eval_result(result)
    run = load_run(output_dir)
    flips = analysis.flipped(run, changed_only=True)
    if flips:
        click.secho(
            f"[3/4] {len(flips)} questions flipped from right to wrong; substituted words in [brackets]:", bold=True
        )
        for flip in flips[:5]:
            click.echo(f"  {flip.question_text}\n  {flip.perturbed_text}")
            click.echo(
                f"    clean: {flip.clean_prediction or '(no answer)'!r}  perturbed: "
                f"{flip.perturbed_prediction or '(no answer)'!r}"
            )
    else:
        click.secho(
            "[3/4] no question flipped from right to wrong on this sample; some of its edits, substituted words in "
            "[brackets]:",
            bold=True,
        )
        for example in [e for e in analysis.compared(run) if e.get("changed")][:5]:
            substitutions = example.get("substitutions") or ()
            click.echo(f"  {highlight_text(example['question'], substitutions, side='original')}")
            click.echo(f"  {highlight_text(example['perturbed_question'], substitutions, side='perturbed')}")
        click.echo(
            "One random valid edit per question is a mild test; the attack below searches for the edits that do flip a "
            "model."
        )
    _attack_step(model, clean, output_dir / "attack")
    click.echo("\nOpen the failure-analysis notebook on this run:")
    # as typed: the notebook finds a relative run folder from notebooks/ too (`runs.find_run`)
    click.echo(f"  ROBUSTQA_RUN={output_dir} jupyter notebook {NOTEBOOK}")
    click.echo(f"  robustqa analyze {output_dir} --output analysis.html   # the same, headless, as one HTML page")
