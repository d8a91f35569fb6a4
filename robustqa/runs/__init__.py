"""The run folder of `robustqa eval`: its file names (`layout`), its records (`schema`), writing (`write`)
and reading (`load`). docs/FORMATS.md describes exactly what these modules write and read."""

from __future__ import annotations

from robustqa.runs.layout import CHART_PNG, EXAMPLES_JSONL, REPORT_JSON, REPORT_MD
from robustqa.runs.load import RUN_ENV, Run, find_run, load_run, read_examples
from robustqa.runs.schema import Answered, Cost, Coverage, ExampleLine, ModelEntry, PredictionFiles, RunReport

__all__ = [
    "CHART_PNG",
    "EXAMPLES_JSONL",
    "REPORT_JSON",
    "REPORT_MD",
    "RUN_ENV",
    "Answered",
    "Cost",
    "Coverage",
    "ExampleLine",
    "ModelEntry",
    "PredictionFiles",
    "Run",
    "RunReport",
    "find_run",
    "load_run",
    "read_examples",
]
