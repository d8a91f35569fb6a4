"""Tokenization with character spans, and Penn Treebank POS tags from NLTK's averaged perceptron.

Spans are kept from the start so that every later edit can be expressed as offsets into the original
string; tokens follow Penn Treebank conventions (clitics "'s", "n't" split off) because that is what
the tagger was trained on.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from perturbations.errors import MissingResourceError
from perturbations.records import Token

_TOKEN_RE = re.compile(
    r"\w+(?=n[’']t\b)"  # "do" of "don't", "ca" of "can't" (Penn convention)
    r"|n[’']t\b"
    r"|\w+(?:-\w+)*(?=[’'](?:s|re|ve|ll|d|m)\b)"  # a word followed by a clitic
    r"|[’'](?:s|re|ve|ll|d|m)\b"
    r"|(?:[A-Za-z]\.){2,}"  # abbreviations such as U.S.
    r"|\d+(?:[.,:/]\d+)*"  # numbers, times, dates
    r"|\w+(?:[-’']\w+)*"
    r"|[^\w\s]",
    re.IGNORECASE,
)

TAGGER_INSTALL = "python -m nltk.downloader averaged_perceptron_tagger_eng"


def tokenize(text: str) -> list[tuple[str, int, int]]:
    """Split `text` into (word, start, end) with `text[start:end] == word`."""
    return [(m.group(), m.start(), m.end()) for m in _TOKEN_RE.finditer(text)]


@lru_cache(maxsize=1)
def _tagger() -> Any:
    """Load the perceptron tagger once, on first use (never at import)."""
    try:
        from nltk.tag.perceptron import PerceptronTagger

        return PerceptronTagger(lang="eng")
    except (LookupError, OSError) as exc:
        raise MissingResourceError("averaged_perceptron_tagger_eng", TAGGER_INSTALL) from exc


def tag_words(words: list[str]) -> list[str]:
    """Penn Treebank tags of a list of words, in order."""
    if not words:
        return []
    return [t for _, t in _tagger().tag(words)]


def tag(text: str) -> tuple[Token, ...]:
    """Tokenize and tag `text`: the tokens with their spans and Penn tags."""
    spans = tokenize(text)
    tags = tag_words([w for w, _, _ in spans])
    return tuple(Token(w, s, e, t) for (w, s, e), t in zip(spans, tags))


def is_word(token: str) -> bool:
    """A token that counts as a word for budgets (has a letter or digit)."""
    return any(ch.isalnum() for ch in token)
