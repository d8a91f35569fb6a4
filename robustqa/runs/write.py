"""Writing a run folder: predictions, examples.jsonl, the rendered documents it is given (report.md, the
chart: `robustqa.reporting` renders them, so this module imports nothing above the run folder), and
report.json last.

Every file goes through the atomic writer, and report.json is written last, after everything else
succeeded (a stale one is removed first), so a run folder with a report.json is always complete.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

from robustqa.outputs import json_text, preparing_folder, write_bytes_atomic, write_json_atomic, write_text_atomic
from robustqa.runs.layout import EXAMPLES_JSONL, REPORT_JSON, null_odds_file, predictions_file, scores_file
from robustqa.runs.load import Run
from robustqa.runs.schema import ExampleLine, PredictionFiles, RunReport


def write_run(
    output_dir: Path,
    report: RunReport,
    predictions: Sequence[PredictionFiles],
    examples: Iterable[ExampleLine],
    render: Callable[[Run], Mapping[str, str | bytes]] | None = None,
) -> Run:
    """Write a whole run folder and return it as the loader would read it; `render` makes the documents that
    go beside report.json (file name -> text or bytes) from the run as it will be read."""
    output_dir = Path(output_dir)
    with preparing_folder(output_dir, "run"):
        output_dir.mkdir(parents=True, exist_ok=True)
        (output_dir / REPORT_JSON).unlink(missing_ok=True)
        for slug in dict.fromkeys(files.slug for files in predictions):
            (output_dir / slug).mkdir(exist_ok=True)
    for files in predictions:
        write_json_atomic(output_dir / predictions_file(files.slug, files.role), files.texts)
        write_json_atomic(output_dir / null_odds_file(files.slug, files.role), files.null_odds)
        write_json_atomic(output_dir / scores_file(files.slug, files.role), files.scores)
    write_text_atomic(output_dir / EXAMPLES_JSONL, "".join(json_text(line.to_dict(), indent=None) for line in examples))
    document = report.to_dict()
    run = Run(output_dir, document)
    for name, content in (render(run) if render is not None else {}).items():
        if isinstance(content, bytes):
            write_bytes_atomic(output_dir / name, content)
        else:
            write_text_atomic(output_dir / name, content)
    write_json_atomic(output_dir / REPORT_JSON, document)
    return run
