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


def nltk_tag_words(words: list[str]) -> list[str]:
    """Tags from NLTK's own `PerceptronTagger.tag` (the reference `tag_words` must equal)."""
    return [t for _, t in _tagger().tag(words)] if words else []


def tag_words(words: list[str]) -> list[str]:
    """Penn Treebank tags of a list of words, in order: NLTK's averaged perceptron, same model, same
    features, same arithmetic, without building a feature dict per word (tagging was the largest
    cost of a build after WordNet was cached). Tests check it equals `nltk_tag_words`."""
    if not words:
        return []
    tagger = _tagger()
    weights = tagger.model.weights
    classes = tagger.model.classes
    tagdict = tagger.tagdict
    normalize = tagger.normalize
    context = ["-START-", "-START2-"] + [normalize(w) for w in words] + ["-END-", "-END2-"]
    prev, prev2 = "-START-", "-START2-"
    out = []
    for i, word in enumerate(words):
        tag_ = tagdict.get(word)
        if not tag_:
            j = i + 2
            cur, before, after = context[j], context[j - 1], context[j + 1]
            features = (
                "bias",
                "i suffix " + word[-3:],
                "i pref1 " + (word[0] if word else ""),
                "i-1 tag " + prev,
                "i-2 tag " + prev2,
                "i tag+i-2 tag " + prev + " " + prev2,
                "i word " + cur,
                "i-1 tag+i word " + prev + " " + cur,
                "i-1 word " + before,
                "i-1 suffix " + before[-3:],
                "i-2 word " + context[j - 2],
                "i+1 word " + after,
                "i+1 suffix " + after[-3:],
                "i+2 word " + context[j + 2],
            )
            scores: dict[str, float] = {}
            get = scores.get
            for feat in features:
                fw = weights.get(feat)
                if fw:
                    for label, weight in fw.items():
                        scores[label] = get(label, 0.0) + weight
            # NLTK takes max over all classes of (score, label), absent labels scoring 0.0; the
            # best scored label wins outright when its score is positive.
            best = max(zip(scores.values(), scores.keys())) if scores else None  # (score, label) in C
            if best is not None and best[0] > 0.0:
                tag_ = best[1]
            else:
                tag_ = max(classes, key=lambda label: (scores.get(label, 0.0), label))
        out.append(tag_)
        prev2, prev = prev, tag_
    return out


def tag(text: str) -> tuple[Token, ...]:
    """Tokenize and tag `text`: the tokens with their spans and Penn tags."""
    spans = tokenize(text)
    tags = tag_words([w for w, _, _ in spans])
    return tuple(Token(w, s, e, t) for (w, s, e), t in zip(spans, tags))


def is_word(token: str) -> bool:
    """A token that counts as a word for budgets (has a letter or digit)."""
    return any(ch.isalnum() for ch in token)
