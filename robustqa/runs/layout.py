"""Where each file of a run folder lives: the one place that names them.

The writer writes predictions at these paths and report.json's `files` entry records the same paths, so a
reader never has to guess; docs/FORMATS.md lists them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection

REPORT_JSON = "report.json"
REPORT_MD = "report.md"
CHART_PNG = "clean_vs_perturbed.png"
EXAMPLES_JSONL = "examples.jsonl"
ROLES = ("clean", "perturbed")


def predictions_file(slug: str, role: str) -> str:
    """`<slug>/<role>_predictions.json`: {"<id>": "answer text or empty"} (the official format)."""
    return f"{slug}/{role}_predictions.json"


def null_odds_file(slug: str, role: str) -> str:
    """`<slug>/<role>_null_odds.json`: {"<id>": null score - best span score} (the official na_prob file)."""
    return f"{slug}/{role}_null_odds.json"


def scores_file(slug: str, role: str) -> str:
    """`<slug>/<role>_scores.json`: {"<id>": {"exact": 0|1, "f1": 0..1}}, the per-question scores the totals average."""
    return f"{slug}/{role}_scores.json"


def cache_file(slug: str, role: str, key: str) -> str:
    """`<slug>/cache/<role>-<key>.jsonl`: the resumable prediction cache of one set under one key."""
    return f"{slug}/cache/{role}-{key}.jsonl"


def model_files(slug: str, *, perturbed: bool) -> dict[str, str | None]:
    """The `files` entry of a model in report.json (None for the perturbed files of a clean-only run)."""
    return {
        "clean_predictions": predictions_file(slug, "clean"),
        "perturbed_predictions": predictions_file(slug, "perturbed") if perturbed else None,
        "clean_null_odds": null_odds_file(slug, "clean"),
        "perturbed_null_odds": null_odds_file(slug, "perturbed") if perturbed else None,
        "clean_scores": scores_file(slug, "clean"),
        "perturbed_scores": scores_file(slug, "perturbed") if perturbed else None,
    }


def selection_part(articles: Collection[str] | None, exclude_articles: Collection[str] | None) -> str:
    """The part of a default run folder's name that says which articles a run kept (`--articles`,
    `--exclude-articles`): `-4-articles-<hash>`, `-without-12-articles-<hash>`, both, or "" for every article.
    The hash (6 hex digits of SHA-256) is of the sorted distinct titles, so the order and spelling of the list
    (commas, @FILE, repeats) do not matter, and two selections never share a folder."""
    parts = []
    for prefix, titles in (("", articles), ("without-", exclude_articles)):
        if titles:
            distinct = sorted(set(titles))
            digest = hashlib.sha256("\n".join(distinct).encode("utf-8")).hexdigest()[:6]
            noun = "article" if len(distinct) == 1 else "articles"
            parts.append(f"-{prefix}{len(distinct)}-{noun}-{digest}")
    return "".join(parts)
