"""What the commands print: the terminal console, the comparison table, the build and eval summaries.

Shared by the commands (and the demo, which prints what build-dataset and eval print), so each text has
one source.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from robustqa.provenance import TRAINING_RECORD

if TYPE_CHECKING:
    from rich.console import Console

    from robustqa.build import BuildSummary
    from robustqa.evaluation.run import EvalResult
    from robustqa.provenance import Overlap
    from robustqa.review.decisions import DecisionsFile
    from robustqa.review.validate import ValidationCounts
    from robustqa.runs.load import Run


def table_title(runs: Sequence[Run]) -> str:
    from robustqa.reporting.tables import rules_text

    return f"robustqa: clean vs perturbed ({rules_text(runs)}, points)"


def console(stream: Any = None, *, width: int | None = None) -> Console:
    """A rich console: a terminal's own width; else `width`, $COLUMNS or 400, so that piped tables are not folded."""
    from rich.console import Console

    file = stream or sys.stdout
    is_tty = getattr(file, "isatty", lambda: False)()
    if width is None and not is_tty:
        width = int(os.environ["COLUMNS"]) if os.environ.get("COLUMNS", "").isdigit() else 400
    return Console(file=file, width=width, soft_wrap=False)


def prose_width() -> int:
    """How wide to wrap prose: the terminal's width or $COLUMNS, else 100 (unlike a table, prose is read
    more easily wrapped than in one long line, even in a file)."""
    return shutil.get_terminal_size((100, 24)).columns


def print_comparison(runs: Sequence[Run], *, wide: bool = False, document: str = "report.md") -> None:
    """What `eval` and `report` print: the three answers of every model (columns that fit this terminal, the
    answers always), how each two models compare, then each run's signature. The official all-question table
    follows with `wide` (every column of report.md), or alone where no run compares a perturbed set. `document`:
    the file the rest is in (the run folder's report.md, or the one `report --output` wrote)."""
    from robustqa.render import distinct_columns, fitting_columns, rich_table
    from robustqa.reporting.headline import HEADLINE_TITLE, TERMINAL_COLUMNS, comparisons, headline_rows, kinds_caption
    from robustqa.reporting.tables import (
        COMPACT_COLUMNS,
        REPEATED_COLUMNS,
        REPORT_COLUMNS,
        compact_cells,
        report_cells,
        run_kind,
        signatures,
    )
    from robustqa.reporting.transfer import TRANSFER_NOTE, transfer_table

    out = console()
    headline = headline_rows(runs)
    if headline:
        rows = [row.terminal_cells() for row in headline]
        columns, left_out = (
            (list(TERMINAL_COLUMNS), []) if wide else fitting_columns(rows, TERMINAL_COLUMNS, out.width, keep=4)
        )
        out.print(rich_table(rows, columns, HEADLINE_TITLE))
        if kinds_caption(headline):
            out.print(kinds_caption(headline), markup=False, highlight=False)
        for row in headline:
            if row.estimands and row.estimands.get("reading"):
                out.print(f"{row.label}: {row.estimands['reading']}", markup=False, highlight=False)
        for result in comparisons(runs):
            out.print(result["verdict"], markup=False, highlight=False)
        if not wide:
            more = ", ".join(c.replace("\n", " ") for c in left_out)
            out.print(
                f"{more + ', the' if more else 'The'} official all-question EM/F1 and more in {document}, "
                "or with --wide",
                markup=False,
                highlight=False,
            )
    if wide:
        cells = report_cells(runs)
        out.print(rich_table(cells, distinct_columns(cells, REPORT_COLUMNS, REPEATED_COLUMNS), table_title(runs)))
    elif not headline or any(run_kind(run) != "paired" for run in runs):
        # runs with nothing paired (clean SQuAD, a clean-only shift) have no headline row: their official scores
        rows = compact_cells([run for run in runs if run_kind(run) != "paired"] if headline else runs)
        columns, left_out = fitting_columns(rows, COMPACT_COLUMNS, out.width)
        out.print(rich_table(rows, columns, table_title(runs)))
        more = f"{', '.join(c.replace(chr(10), ' ') for c in left_out)} and more" if left_out else "more columns"
        out.print(f"{more} in {document}, or with --wide", markup=False, highlight=False)
    transfer_columns, transfer_rows = transfer_table(runs)
    if transfer_rows:
        out.print(rich_table(transfer_rows, transfer_columns, "transfer: exact match on each adversarial set"))
        out.print(TRANSFER_NOTE, markup=False, highlight=False, soft_wrap=True)
    for label, signature in signatures(runs):
        out.print(
            f"signature{f' ({label})' if label else ''}: {signature}", markup=False, highlight=False, soft_wrap=True
        )


def fill_lines(text: str, width: int, *, first: str = "", rest: str | None = None, after: str = " ,") -> list[str]:
    """`text` after `first`, in lines of at most `width` columns, continued under `rest` (by default as far in
    as `first`). A line may break after any character of `after`: a space or a comma by default, so that a
    parameter's list of values wraps too; "," alone keeps each item of a list ("budget 3") whole. A single
    longer piece stays whole."""
    rest = " " * len(first) if rest is None else rest
    lines, line = [], first
    for chunk in re.split(f"(?<=[{re.escape(after)}])", text):
        if len(line) + len(chunk.rstrip()) > width and line.strip():
            lines.append(line.rstrip())
            line = rest + chunk.lstrip()
        else:
            line += chunk
    lines.append(line.rstrip())
    return lines


def build_summary(summary: BuildSummary, output: Path, signature: str) -> str:
    """The closing lines of `robustqa build-dataset`: the counts wrap to the terminal, the signature stays one
    line (it is copied whole)."""
    width = prose_width()
    share = 100.0 * summary.changed / summary.questions if summary.questions else 0.0
    rate = summary.questions / summary.seconds if summary.seconds > 0 else 0.0
    skipped = ", ".join(f"{reason} {count:,}" for reason, count in sorted(summary.skipped, key=lambda x: (-x[1], x[0])))
    lines = [
        f"wrote {output}",
        f"  questions read     {summary.questions:,}",
        f"  questions written  {summary.written:,}",
        f"  changed            {summary.changed:,} ({share:.1f}%)",
        f"  substitutions      {summary.substitutions:,}",
        *fill_lines(skipped or "none", width, first="  words skipped      ", after=","),
    ]
    gates = summary.gate_counts()
    if gates:
        rejected = ", ".join(f"{reason} {count:,}" for reason, count in gates["rejected"].items())
        penalised = ", ".join(f"{reason} {count:,}" for reason, count in gates["penalised"].items())
        lines += fill_lines((rejected or "none") + " (words)", width, first="  gates rejected     ", after=",")
        lines += fill_lines(
            (penalised or "none") + " (substitutions written)", width, first="  soft penalties     ", after=","
        )
    kinds = summary.kind_counts()
    if kinds:
        counts = ", ".join(f"{kind} {count:,}" for kind, count in kinds.items())
        lines += fill_lines(f"{counts} ({summary.kind_rules})", width, first="  edit kinds         ", after=",")
    lines += [
        f"  seconds            {summary.seconds:.2f} ({rate:,.0f} questions/s)",
        f"  signature          {signature}",
    ]
    return "\n".join(lines)


def print_eval_result(result: EvalResult, *, wide: bool = False) -> None:
    """The table and signature (stdout), then what each model predicted, reused or took from its cache, and
    what that cost (stderr)."""
    from robustqa.reporting.tables import accepted_none, cost_summary
    from robustqa.runs.load import Run

    run = Run(result.output_dir, result.report)
    print_comparison([run], wide=wide)
    from robustqa.review.status import ReviewStatus

    review = ReviewStatus.from_dict(result.report.get("review"))
    if review is not None:
        click.echo(f"perturbed set: {review.describe()}", err=True)
        if accepted_none(result.report):
            click.echo(
                "the reviewers accepted none of the changed questions, so there is no reviewed-valid row", err=True
            )
    costs = {entry["slug"]: entry.get("cost") for entry in result.report["models"]}
    for outcome in result.outcomes:
        parts = [f"clean: {outcome.clean.predicted} predicted, {outcome.clean.from_cache} from cache"]
        if outcome.perturbed is not None:
            parts.append(
                f"perturbed: {outcome.perturbed.predicted} predicted, {outcome.perturbed.from_cache} from cache, "
                f"{outcome.perturbed.reused} reused from clean (unchanged)"
            )
        click.echo(f"{outcome.slug}: " + "; ".join(parts), err=True)
        click.echo(f"{outcome.slug}: cost: {cost_summary(costs.get(outcome.slug))}", err=True)
    click.echo(f"wrote {result.output_dir}/report.json", err=True)
    for name, overlap in result.training_overlaps.items():
        click.echo(training_overlap_warning(name, overlap), err=True)


def review_lines(files: Sequence[DecisionsFile], counts: ValidationCounts) -> list[str]:
    """What `filter` and `build-dataset --validated` print after applying review decisions (`files`, the
    decisions files read)."""
    return [
        f"  reviewed           {', '.join(f'{f.label} ({f.reviewer})' for f in files)}",
        f"  accepted           {counts.accepted:,} (kept perturbed)",
        f"  rejected           {counts.rejected:,} (reverted to the original question)",
        f"  unreviewed         {counts.unreviewed:,} (reverted to the original question)",
    ]


def training_overlap_warning(name: str, overlap: Overlap) -> str:
    """One line: which evaluated articles the model's folder says it was trained on, and how to leave them out."""
    titles = overlap.titles
    shown = ", ".join(titles[:6]) + (f", and {len(titles) - 6} more" if len(titles) > 6 else "")
    how = f"--exclude-articles {','.join(titles)}" if len(",".join(titles)) <= 60 else "--exclude-articles @FILE"
    by_title = f"; {len(overlap.same_title)} by title only (another text)" if overlap.same_title else ""
    return (
        f"warning: {name} was trained on {len(titles)} of the evaluated articles ({shown}{by_title}; its "
        f"{TRAINING_RECORD}): scores there measure memory as well as understanding; evaluate held-out articles "
        f"with {how}"
    )
