"""The review page: one HTML document with its style, script and data inline.

The same page serves both ways of reviewing. Served (`mode="server"`), it posts each decision to the local
server, which writes the decisions file. Written as a file (`mode="file"`), it needs no server and no
network: decisions are kept in the browser's local storage (keyed by the reviewed file's sha256, so
reopening the page resumes) and saved as a JSON download in the decisions-file format; a saved file can
be loaded back to resume elsewhere. Text is escaped and highlighted here, in Python (the failure
analysis's `highlight_html`), so the script only places ready-made HTML.
"""

from __future__ import annotations

import html
import json
from importlib import resources
from typing import Any

from robustqa import __version__
from robustqa.edits import highlight_html
from robustqa.review.decisions import FORMAT, FORMAT_VERSION, DecisionsFile
from robustqa.review.items import ReviewItem, ReviewSet

MODES = ("server", "file")


def _marked(text: str, span: tuple[int, int] | None) -> str:
    if span is None:
        return html.escape(text)
    start, end = span
    return (
        f'{html.escape(text[:start])}<mark class="answer">{html.escape(text[start:end])}</mark>'
        f"{html.escape(text[end:])}"
    )


def item_payload(item: ReviewItem) -> dict[str, Any]:
    """What the page shows of one item, and the raw texts it copies into a decision."""
    in_context = None
    if item.answer_span is not None:
        in_context = (item.sentence_start + item.answer_span[0], item.sentence_start + item.answer_span[1])
    return {
        "id": item.id,
        "title": item.title,
        "original": item.original,
        "perturbed": item.perturbed,
        "substitutions": [dict(s) for s in item.substitutions],
        "original_html": highlight_html(item.original, item.substitutions, side="original"),
        "perturbed_html": highlight_html(item.perturbed, item.substitutions, side="perturbed"),
        "answers": list(item.answers),
        "evidence": item.evidence,
        "sentence_html": _marked(item.sentence, item.answer_span),
        "context_html": _marked(item.context, in_context),
        "notes": [
            {"model": n.model, "clean": n.clean_prediction, "perturbed": n.perturbed_prediction, "flipped": n.flipped}
            for n in item.notes
        ],
    }


def _asset(name: str) -> str:
    return resources.files("robustqa.review").joinpath("assets", name).read_text(encoding="utf-8")


def _script_json(value: Any) -> str:
    """JSON safe inside a <script> element: no '</script>' or '<!--' can close or confuse it."""
    return json.dumps(value, ensure_ascii=False).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_page(
    review_set: ReviewSet,
    *,
    mode: str,
    reviewer: str = "",
    decisions: DecisionsFile | None = None,
    token: str = "",
    saved_to: str = "",
) -> str:
    """The complete page. `decisions` are shown as already made (the server's file when resuming)."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
    payload = {
        "mode": mode,
        "token": token,
        "reviewer": reviewer,
        "saved_to": saved_to,
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "robustqa": __version__,
        "dataset": {
            "name": review_set.name,
            "sha256": review_set.sha256,
            "signature": review_set.signature,
            "items": len(review_set.items),
        },
        "order": review_set.order,
        "items": [item_payload(item) for item in review_set.items],
        "decisions": [d.to_dict() for d in decisions.decisions] if decisions else [],
    }
    page = _asset("review.html")
    replacements = {
        "<!--ROBUSTQA:TITLE-->": html.escape(f"review {review_set.name}"),
        "/*ROBUSTQA:STYLE*/": _asset("review.css"),
        "/*ROBUSTQA:SCRIPT*/": _asset("review.js"),
        "<!--ROBUSTQA:PAYLOAD-->": _script_json(payload),
    }
    for marker, value in replacements.items():
        page = page.replace(marker, value)
    return page
