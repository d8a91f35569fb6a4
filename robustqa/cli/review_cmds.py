"""`robustqa review` (judge changed questions, or sum up judgments) and `robustqa filter` (apply them).

Errors raised by the library become one-line messages in the command group; nothing here prints a traceback.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

DEFAULT_PORT = 8765
_USAGE = (
    "give one built file or run folder with --reviewer NAME --decisions OUT.json (serve the page), "
    "or with --html OUT.html (write it), or --stats DECISIONS..."
)


@click.command("review")
@click.argument("paths", nargs=-1, metavar="FILE_OR_RUN | DECISIONS...")
@click.option("--reviewer", metavar="NAME", help="your name, recorded with every decision")
@click.option(
    "--decisions", "decisions_path", metavar="OUT.json", help="decisions file: created, or resumed when it exists"
)
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=DEFAULT_PORT,
    show_default=True,
    help="local port to serve on (0: any free port)",
)
@click.option("--no-browser", is_flag=True, help="print the address instead of opening a browser")
@click.option(
    "--html", "html_path", metavar="OUT.html", help="write the page as one self-contained file instead of serving it"
)
@click.option(
    "--dataset",
    "dataset_path",
    metavar="FILE",
    help="with a run folder: the perturbed file it evaluated, if it has moved",
)
@click.option(
    "--stats", "stats", is_flag=True, help="sum up decisions files: accepted share, rejections, Cohen's kappa"
)
@click.option("--json", "as_json", is_flag=True, help="with --stats: print the figures as JSON")
def review(
    paths: tuple[str, ...],
    reviewer: str | None,
    decisions_path: str | None,
    port: int,
    no_browser: bool,
    html_path: str | None,
    dataset_path: str | None,
    stats: bool,
    as_json: bool,
) -> None:
    """Review the changed questions of a built file (or of a run folder, flipped questions first).

    \b
    Serve a page on 127.0.0.1 and save each decision to a file (reopen with the same file to resume):
      robustqa review qads.json --reviewer ann --decisions ann.json
    Write the page as one self-contained HTML file (decisions are kept in the browser; D saves them):
      robustqa review qads.json --html review.html
    Sum up decisions (accepted share, rejections, Cohen's kappa between two reviewers):
      robustqa review --stats ann.json bob.json
    Keys on the page: A accept, M reject (meaning changed), G reject (ungrammatical), S skip, ← back, → next.
    """
    if stats:
        if not paths:
            raise click.UsageError("--stats needs one or more decisions files")
        for flag, value in (
            ("--reviewer", reviewer),
            ("--decisions", decisions_path),
            ("--html", html_path),
            ("--dataset", dataset_path),
        ):
            if value is not None:
                raise click.UsageError(f"{flag} does not go with --stats")
        _print_stats(paths, as_json)
        return
    if as_json:
        raise click.UsageError("--json goes with --stats")
    if len(paths) != 1:
        raise click.UsageError(_USAGE)
    from robustqa.review.items import load_review_set

    if html_path is not None:
        if decisions_path is not None:
            raise click.UsageError(
                "--decisions goes with the served page; the HTML file saves its decisions as a download"
            )
        from robustqa.outputs import check_output_path

        check_output_path(html_path)
        _write_html(load_review_set(paths[0], dataset=dataset_path), html_path, reviewer or "")
        return
    if reviewer is None or decisions_path is None:
        raise click.UsageError(
            "serving a review needs --reviewer NAME and --decisions OUT.json (or write the page with --html OUT.html)"
        )
    _serve(load_review_set(paths[0], dataset=dataset_path), reviewer, decisions_path, port, open_browser=not no_browser)


def _print_stats(paths: Sequence[str], as_json: bool) -> None:
    from robustqa.review.agreement import compute_stats, format_stats, stats_to_dict
    from robustqa.review.decisions import read_decisions

    result = compute_stats([read_decisions(path) for path in paths])
    if as_json:
        click.echo(json.dumps(stats_to_dict(result), ensure_ascii=False, indent=2))
    else:
        click.echo(format_stats(result), nl=False)


def _write_html(review_set: Any, html_path: str, reviewer: str) -> None:
    from robustqa.outputs import write_text_atomic
    from robustqa.review.decisions import check_reviewer
    from robustqa.review.page import render_page

    if reviewer:
        reviewer = check_reviewer(reviewer)
    write_text_atomic(html_path, render_page(review_set, mode="file", reviewer=reviewer))
    click.echo(
        f"wrote {html_path}: {len(review_set.items)} changed questions of {review_set.name}, {review_set.order} order"
    )
    click.echo(
        "open it in a browser; decisions are kept in that browser, and D saves them as a decisions file for --stats "
        "and --validated"
    )


def _serve(review_set: Any, reviewer: str, decisions_path: str, port: int, *, open_browser: bool) -> None:
    from robustqa.review.decisions import DecisionLog
    from robustqa.review.server import ReviewServer

    log = DecisionLog(review_set, reviewer, decisions_path)
    server = ReviewServer(log, port)
    click.echo(
        f"reviewing {log.total} changed questions of {review_set.name} ({review_set.order} order) as "
        f"{log.current.reviewer}; {log.done} decided so far"
    )
    click.echo(f"open {server.url}  (Ctrl-C to stop; each decision is saved to {decisions_path})")
    if open_browser:
        import webbrowser

        webbrowser.open(server.url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
    click.echo(f"stopped: {log.done} / {log.total} decided, saved in {decisions_path}")


# ------------------------------------------------------------------------------------------ applying


def read_decision_files(paths: Sequence[str]) -> list[Any]:
    """Read every decisions file up front, so a bad one fails before any work."""
    from robustqa.review.decisions import read_decisions

    return [read_decisions(path) for path in paths]


@click.command("filter")
@click.argument("built", metavar="BUILT.json")
@click.option(
    "--validated",
    "validated",
    multiple=True,
    required=True,
    metavar="DECISIONS",
    help="decisions file made on BUILT.json (repeat for several reviewers)",
)
@click.option("--output", "output_path", required=True, metavar="OUT.json", help="where to write the validated file")
def filter_command(built: str, validated: tuple[str, ...], output_path: str) -> None:
    """Apply review decisions to a built file: questions every reviewer accepted stay perturbed, the rest revert.

    A changed question that some reviewer rejected, or that nobody judged, gets its original text back, so an
    eval of OUT.json changes only accepted questions. Decisions made on another file are refused.
    """
    from robustqa.cli.console import review_lines
    from robustqa.outputs import check_output_path
    from robustqa.review.items import sha256_hex
    from robustqa.review.validate import apply_to_document
    from robustqa.squad import parse_squad, read_json_input, write_squad

    check_output_path(output_path)
    document, data = read_json_input(built, hint="give a file written by `robustqa build-dataset`")
    parse_squad(document, path=built)
    files = read_decision_files(validated)
    out, counts = apply_to_document(document, files, name=Path(built).name, sha256=sha256_hex(data))
    write_squad(out, output_path)
    lines = [f"wrote {output_path}", *review_lines(files, counts), f"  signature          {out['signature']}"]
    click.echo("\n".join(lines))
