"""How a question's substitution records are shown: the edited words marked in either text, and the coarse
part of speech of an edit. The notebook, the reports and the review page all show edits this way."""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping
from typing import Any

COARSE_POS = ("noun", "verb", "adjective", "adverb", "other")


def _spans(substitutions: Iterable[Mapping[str, Any]], side: str) -> list[tuple[int, int, str]]:
    """(start, end, other word) per substitution in the chosen text, sorted, overlaps dropped."""
    start_key, end_key, other_key = (
        ("start", "end", "replacement") if side == "original" else ("new_start", "new_end", "original")
    )
    if side not in ("original", "perturbed"):
        raise ValueError(f"side must be 'original' or 'perturbed', not {side!r}")
    spans = sorted((int(s[start_key]), int(s[end_key]), str(s[other_key])) for s in substitutions)
    kept: list[tuple[int, int, str]] = []
    for span in spans:
        if not kept or span[0] >= kept[-1][1]:
            kept.append(span)
    return kept


def highlight_text(text: str, substitutions: Iterable[Mapping[str, Any]], side: str = "perturbed") -> str:
    """The text with each substituted word in [brackets] (plain-text reports, terminals, tests)."""
    out, cursor = [], 0
    for start, end, _ in _spans(substitutions, side):
        out.append(text[cursor:start])
        out.append(f"[{text[start:end]}]")
        cursor = end
    out.append(text[cursor:])
    return "".join(out)


def highlight_html(text: str, substitutions: Iterable[Mapping[str, Any]], side: str = "perturbed") -> str:
    """The text, HTML-escaped, with each substituted word in <mark> and the other side's word as its title."""
    out, cursor = [], 0
    for start, end, other in _spans(substitutions, side):
        out.append(html.escape(text[cursor:start]))
        out.append(f'<mark title="{html.escape(other, quote=True)}">{html.escape(text[start:end])}</mark>')
        cursor = end
    out.append(html.escape(text[cursor:]))
    return "".join(out)


def coarse_pos(tag: str) -> str:
    """Penn tag -> noun / verb / adjective / adverb / other."""
    tag = tag.upper()
    if tag.startswith("NN"):
        return "noun"
    if tag.startswith("VB") or tag == "MD":
        return "verb"
    if tag.startswith("JJ"):
        return "adjective"
    if tag.startswith("RB") or tag == "WRB":
        return "adverb"
    return "other"
