"""The failure-analysis notebook run headlessly on a run folder, written as one self-contained HTML page.

For users without Jupyter, and for CI: `robustqa analyze RUN` executes the packaged notebook (the same file
`notebooks/failure_analysis.ipynb` opens interactively) in a fresh kernel with `ROBUSTQA_RUN` set to the run,
and exports every output, figures included as data URIs, into one page.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path
from typing import Any

from robustqa.errors import InputError, RobustQAError

NOTEBOOK = "failure_analysis.ipynb"
NOTEBOOK_EXTRA = 'pip install "robustqa[notebook]"'
# the kernel starts in the run folder; this names the folder the caller works in, so that the page names the run
# as the user would type it (`robustqa.reporting.analysis.shown_path`)
CALLER_CWD_ENV = "ROBUSTQA_CALLER_CWD"


class NotebookError(RobustQAError):
    """The notebook could not run (a missing package, a kernel that did not start, a cell that failed)."""

    exit_code = 6


def notebook_path() -> Path:
    """The packaged failure-analysis notebook."""
    return Path(str(resources.files("robustqa") / "notebooks" / NOTEBOOK))


def execute(run_dir: Path, *, timeout: int = 600) -> Any:
    """The notebook executed on `run_dir` (an nbformat NotebookNode with every output)."""
    try:
        import nbclient
        import nbformat
    except ImportError as error:
        raise NotebookError(f"the notebook needs {error.name}, which is not installed", hint=NOTEBOOK_EXTRA) from None
    run_dir = Path(run_dir).resolve()
    if not (run_dir / "report.json").is_file():
        raise InputError(
            "no report.json here (not a finished `robustqa eval` run folder)",
            path=str(run_dir),
            hint="give a run folder",
        )
    notebook = nbformat.read(notebook_path(), as_version=4)
    previous = {name: os.environ.get(name) for name in ("ROBUSTQA_RUN", CALLER_CWD_ENV)}
    os.environ["ROBUSTQA_RUN"] = str(run_dir)  # the kernel inherits it: the notebook reads this run
    os.environ[CALLER_CWD_ENV] = str(Path.cwd())
    try:
        client = nbclient.NotebookClient(
            notebook,
            kernel_name="python3",
            timeout=timeout,
            resources={"metadata": {"path": str(run_dir)}},
            # the kernel is this process's own, on localhost: its warnings (TCP is unencrypted) say nothing
            # to the user; a failing cell still reaches us through the kernel's messages
            extra_arguments=["--IPKernelApp.log_level=ERROR"],
        )
        client.execute()
    except nbclient.exceptions.CellExecutionError as error:
        last = (str(error).strip().splitlines() or ["a cell failed"])[-1]
        raise NotebookError(f"a notebook cell failed: {last}", path=str(run_dir)) from None
    except Exception as error:  # no kernel, a kernel that died: one line, not a traceback
        raise NotebookError(
            f"the notebook kernel could not run ({type(error).__name__}: "
            f"{str(error).splitlines()[0] if str(error) else ''})",
            hint="install a Jupyter kernel for this Python (the notebook extra brings ipykernel)",
        ) from None
    finally:
        for name, value in previous.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    return notebook


def to_html(notebook: Any) -> str:
    """One self-contained page: outputs and figures inline; the code stays in the notebook (a reader of the
    page wants the tables and figures)."""
    try:
        from nbconvert import HTMLExporter
    except ImportError:
        raise NotebookError("writing the page needs nbconvert, which is not installed", hint=NOTEBOOK_EXTRA) from None
    exporter = HTMLExporter(
        exclude_input=True, exclude_input_prompt=True, exclude_output_prompt=True, embed_images=True
    )
    body, _ = exporter.from_notebook_node(notebook)
    return body
