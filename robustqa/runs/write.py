"""Writing a run folder: predictions, examples.jsonl, report.md, the chart, and report.json last.

Every file goes through the atomic writer, and report.json is written last, after everything else
succeeded (a stale one is removed first), so a run folder with a report.json is always complete.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from robustqa.errors import OutputError
from robustqa.outputs import json_text, write_bytes_atomic, write_json_atomic, write_text_atomic
from robustqa.reporting.charts import headline_figure, png_bytes
from robustqa.reporting.report import render_markdown
from robustqa.reporting.tables import model_rows
from robustqa.runs.layout import CHART_PNG, EXAMPLES_JSONL, REPORT_JSON, REPORT_MD, null_odds_file, predictions_file, scores_file
from robustqa.runs.load import Run
from robustqa.runs.schema import ExampleLine, PredictionFiles, RunReport


def write_run(output_dir: Path, report: RunReport, predictions: Sequence[PredictionFiles], examples: Iterable[ExampleLine]) -> Run:
    """Write a whole run folder and return it as the loader would read it."""
    output_dir = Path(output_dir)
    try:
        output_dir.mkdir(parents=True, exist_ok=True)
        (output_dir / REPORT_JSON).unlink(missing_ok=True)
        for slug in dict.fromkeys(files.slug for files in predictions):
            (output_dir / slug).mkdir(exist_ok=True)
    except OSError as error:
        raise OutputError(
            f"cannot write the run folder ({error.strerror})", path=str(output_dir), hint="choose another folder", setting="output_dir"
        ) from None
    for files in predictions:
        write_json_atomic(output_dir / predictions_file(files.slug, files.role), files.texts)
        write_json_atomic(output_dir / null_odds_file(files.slug, files.role), files.null_odds)
        write_json_atomic(output_dir / scores_file(files.slug, files.role), files.scores)
    write_text_atomic(output_dir / EXAMPLES_JSONL, "".join(json_text(line.to_dict(), indent=None) for line in examples))
    document = report.to_dict()
    run = Run(output_dir, document)
    write_text_atomic(output_dir / REPORT_MD, render_markdown([run]))
    write_bytes_atomic(output_dir / CHART_PNG, png_bytes(headline_figure(model_rows([run]))))
    write_json_atomic(output_dir / REPORT_JSON, document)
    return run
