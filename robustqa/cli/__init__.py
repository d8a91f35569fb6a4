"""The `robustqa` command line: parse, call the library, print.

This is the only place that prints or chooses exit codes. Subcommands live in their own modules and are
imported only when invoked, so `robustqa --help` and `robustqa perturb` never pay for torch.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import click

from robustqa import __version__
from robustqa.errors import RobustQAError

# command name -> "module:attribute"; each module owns its commands.
_COMMANDS: dict[str, str] = {
    "attack": "robustqa.cli.attack_cmd:attack",
    "build-dataset": "robustqa.cli.build_cmds:build_dataset",
    "perturb": "robustqa.cli.build_cmds:perturb",
    "recipes": "robustqa.cli.build_cmds:recipes",
    "eval": "robustqa.cli.eval_cmds:eval_command",
    "models": "robustqa.cli.eval_cmds:models",
    "report": "robustqa.cli.report_cmds:report",
    "analyze": "robustqa.cli.analyze_cmd:analyze",
    "demo": "robustqa.cli.demo_cmd:demo",
    "import": "robustqa.cli.import_cmds:import_command",
    "augment": "robustqa.cli.train_cmds:augment",
    "train": "robustqa.cli.train_cmds:train",
    "review": "robustqa.cli.review_cmds:review",
    "filter": "robustqa.cli.review_cmds:filter_command",
}

# A library error whose remedy is to change a setting (`RobustQAError.setting`) gets its hint restated here,
# with the flag that changes that setting.
FLAG_HINTS: dict[str, str] = {
    "limit": "raise --limit or drop it",
    "output_dir": "choose another --output-dir",
    "overwrite": "choose another --output-dir, or pass --overwrite to replace it",
    "run_dir": "give a run's --output-dir",
    "device": "use --device cpu or auto",
    "int8": "drop --int8 or use --device cpu",
    "max_seq_length": "lower --max-seq-length to the model's positions",
    "trust_remote_code": "rerun with --trust-remote-code if you trust it",
    "repair": "fix its answer_start, or pass --repair-answers to move it to the nearest occurrence of its text",
    "input": "pass --input FILE (the official dev-v2.0.json)",
    "dataset": "put it back, or name where it is now with --dataset",
    "articles": "select articles that the perturbed file has variants of (--articles, --exclude-articles)",
    "kinds": "give --kinds a comma-separated list of synonym, rare, spelling, abbreviation, morphology, or all",
    "rules": "score with the SQuAD 2.0 rules (--rules v2.0), or give files without unanswerable questions",
    "adversarial_sample": "give --adversarial-sample a positive number of questions",
    "adversarial_budget": "give --adversarial-budget a positive number of queries",
}


class ReportedError(click.ClickException):
    """A library error shown as one line on stderr, with the error's own exit code."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code  # type: ignore[misc]  # click declares it on the class; each error has its own

    def show(self, file: Any = None) -> None:
        click.echo(f"robustqa: error: {self.format_message()}", err=True, file=file)


def as_reported(error: BaseException) -> ReportedError | None:
    """Map an expected library error to a one-line CLI error; None for anything unexpected."""
    if isinstance(error, RobustQAError):
        return ReportedError(error.text(FLAG_HINTS.get(error.setting or "")), error.exit_code)
    from perturbations.errors import PerturbationError

    if isinstance(error, PerturbationError):
        return ReportedError(str(error), 2)
    return None


class LazyGroup(click.Group):
    """A group that imports a subcommand's module only when that subcommand runs."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(_COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        target = _COMMANDS.get(name)
        if target is None:
            return None
        module_name, attribute = target.split(":")
        return getattr(importlib.import_module(module_name), attribute)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except Exception as error:  # only expected library errors are reported
            reported = as_reported(error)
            if reported is None:
                raise
            raise reported from error


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="robustqa")
def cli() -> None:
    """Test whether extractive QA models understand words or only match them."""


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point."""
    import os

    # the hub client logs every retry of an unreachable hub as a warning; the command's own error is one line
    # (a user who wants the hub's chatter back sets HF_HUB_VERBOSITY)
    os.environ.setdefault("HF_HUB_VERBOSITY", "error")
    try:
        cli.main(args=argv, prog_name="robustqa")
    except KeyboardInterrupt:  # pragma: no cover - interactive only
        click.echo("robustqa: interrupted", err=True)
        sys.exit(130)


def console_main() -> None:
    """The `robustqa` console script: `main`, then leave without tearing the heap down object by object.

    A build holds millions of small objects (the lexicon tables, the dataset), an eval a model and its
    tokenizer; freeing them one by one at interpreter shutdown is serial time that no `--workers` can
    share. Everything a command writes is complete and closed before it returns (files are written to a
    temporary name and renamed), so after the exit handlers have run (the lexicon cache saves itself in
    one) and the streams are flushed, the process ends at once. In-process callers (tests, notebooks) use
    `main` or `cli` and exit normally.
    """
    import atexit
    import os
    import threading

    try:
        main()
        code: object = 0
    except SystemExit as stop:
        code = stop.code
    if not isinstance(code, int):
        if code is not None:
            print(code, file=sys.stderr)
        code = 0 if code is None else 1
    run_exit_handlers = getattr(atexit, "_run_exitfuncs", None)
    if run_exit_handlers is None:  # pragma: no cover - every CPython has it; otherwise leave the usual way
        sys.exit(code)
    for thread in threading.enumerate():
        if thread is not threading.main_thread() and not thread.daemon:
            thread.join()
    run_exit_handlers()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)
