"""Tokenization with character spans, and Penn Treebank POS tags from NLTK's averaged perceptron.

Spans are kept from the start so that every later edit can be expressed as offsets into the original
string; tokens follow Penn Treebank conventions (clitics "'s", "n't" split off) because that is what
the tagger was trained on.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from perturbations import resources
from perturbations.errors import MissingResourceError
from perturbations.records import Token
from perturbations.store import persistent

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


def tokenize(text: str) -> list[tuple[str, int, int]]:
    """Split `text` into (word, start, end) with `text[start:end] == word`."""
    return [(m.group(), m.start(), m.end()) for m in _TOKEN_RE.finditer(text)]


@lru_cache(maxsize=1)
def _tagger() -> Any:
    """NLTK's perceptron tagger, loaded once on first use (never at import); only a cold cache needs it."""
    try:
        from nltk.tag.perceptron import PerceptronTagger

        return PerceptronTagger(lang="eng")
    except (LookupError, OSError) as exc:
        raise MissingResourceError("averaged_perceptron_tagger_eng", resources.RESOURCES["tagger"][2]) from exc


def nltk_tag_words(words: list[str]) -> list[str]:
    """Tags from NLTK's own `PerceptronTagger.tag` (the reference `tag_words` must equal)."""
    return [t for _, t in _tagger().tag(words)] if words else []


@persistent("tagger_model")
def _tagger_model() -> tuple[dict[str, int], Any, Any, Any, tuple[str, ...], dict[str, str]]:
    """The perceptron's weights as sparse (feature row, class column, weight) arrays, its classes sorted by
    name, and its tag dictionary: persisted, so a warm process neither imports NLTK nor parses its
    5 MB of JSON weights. The arrays are the standard library's (numpy reads them without a copy), so
    reading the cache needs no numpy: a parent that only hands work to `--workers` never imports it."""
    from array import array

    tagger = _tagger()
    model = tagger.model
    classes = tuple(sorted(model.classes))
    column = {c: i for i, c in enumerate(classes)}
    rows: list[int] = []
    cols: list[int] = []
    vals: list[float] = []
    index: dict[str, int] = {}
    for i, (feat, fw) in enumerate(model.weights.items()):
        index[feat] = i
        for label, weight in fw.items():
            rows.append(i)
            cols.append(column[label])
            vals.append(weight)
    return index, array("l", rows), array("l", cols), array("d", vals), classes, dict(tagger.tagdict)


def load_tagger() -> None:
    """Load the tagger's weights (from the persistent cache, or through NLTK): MissingResourceError when
    NLTK's tagger is not installed and the cache does not hold it."""
    _tagger_model()


@lru_cache(maxsize=1)
def _dense_model() -> tuple[dict[str, int], Any, tuple[str, ...], dict[str, str]]:
    """The weights as a dense (feature x class) matrix, classes sorted by name, and the tag dictionary.

    Scoring a word is then one gather and one column sum over its known features, instead of a
    Python loop over every (feature, class) weight of every feature. The sum adds
    the rows in feature order, as NLTK's loop does, and a class a feature lacks adds 0.0, so the
    scores are the same numbers."""
    import numpy as np

    index, rows, cols, vals, classes, tagdict = _tagger_model()
    matrix = np.zeros((len(index), len(classes)))
    matrix[np.asarray(rows), np.asarray(cols)] = np.asarray(vals)
    return index, matrix, classes, tagdict


def _normalize(word: str) -> str:
    """The tagger's own word normalization (`PerceptronTagger.normalize`), without importing NLTK."""
    if "-" in word and word[0] != "-":
        return "!HYPHEN"
    if word.isdigit() and len(word) == 4:
        return "!YEAR"
    if word and word[0].isdigit():
        return "!DIGITS"
    return word.lower()


def tag_words(words: list[str]) -> list[str]:
    """Penn Treebank tags of a list of words, in order: NLTK's averaged perceptron, same model, same
    features, same arithmetic, without building a feature dict per word (every word of every text is
    tagged, and a warm build does little else per word). Tests check it equals `nltk_tag_words`."""
    if not words:
        return []
    import numpy as np

    index, matrix, classes, tagdict = _dense_model()
    feature = index.get
    context = ["-START-", "-START2-"] + [_normalize(w) for w in words] + ["-END-", "-END2-"]
    prev, prev2 = "-START-", "-START2-"
    out = []
    for i, word in enumerate(words):
        tag_ = tagdict.get(word)
        if not tag_:
            scores = _scores(matrix, feature, word, prev, prev2, context[i : i + 5])
            if scores is not None:
                # NLTK takes max over all classes of (score, label): the last of the best, by name
                tag_ = classes[int(np.flatnonzero(scores == scores.max())[-1])]
            else:
                tag_ = classes[-1]
        out.append(tag_)
        prev2, prev = prev, tag_
    return out


def _scores(
    matrix: Any, feature: Callable[[str], int | None], word: str, prev: str, prev2: str, window: Sequence[str]
) -> Any:
    """The perceptron's score of every tag for `word`, from NLTK's features of it (`window`: the normalized
    words two before to two after it, `prev`/`prev2` the tags before it); None when it knows none of them."""
    before2, before, cur, after, after2 = window
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
        "i-2 word " + before2,
        "i+1 word " + after,
        "i+1 suffix " + after[-3:],
        "i+2 word " + after2,
    )
    known = [k for k in map(feature, features) if k is not None]
    if not known:
        return None
    return matrix[known[0]] if len(known) == 1 else matrix[known].sum(axis=0)


_GROUPS = {"N": "n", "V": "v", "J": "a", "R": "r"}


def tag_margin(tokens: tuple[Token, ...], index: int) -> float:
    """How sure the tagger was of the part of speech of `tokens[index]` (tagged by `tag`): the score of the
    tag it chose minus the best score of a tag of another WordNet part of speech (noun, verb, adjective,
    adverb). Infinite for words its tag dictionary fixes (frequent unambiguous words).

    The perceptron decodes greedily, so the scores at one word depend only on the words and on the two
    tags before it, which `tokens` already holds: this replays that one step."""
    word = tokens[index].text
    index_, matrix, _, tagdict = _dense_model()
    if tagdict.get(word):
        return math.inf
    import numpy as np

    def normal(k: int) -> str:
        if k < 0:
            return ("-START-", "-START2-")[k + 2]
        if k >= len(tokens):
            return ("-END-", "-END2-")[k - len(tokens)]
        return _normalize(tokens[k].text)

    prev = tokens[index - 1].tag if index >= 1 else "-START-"
    prev2 = tokens[index - 2].tag if index >= 2 else ("-START-" if index == 1 else "-START2-")
    scores = _scores(matrix, index_.get, word, prev, prev2, [normal(k) for k in range(index - 2, index + 3)])
    if scores is None:
        return math.inf
    best = len(scores) - 1 - int(np.argmax(scores[::-1]))  # the tagger's choice: the last of the best
    others = _other_columns()[best]
    return float(scores[best] - scores[others].max()) if len(others) else math.inf


@lru_cache(maxsize=1)
def _other_columns() -> tuple[Any, ...]:
    """For each tag (column of the model), the columns of the tags of the other WordNet parts of speech."""
    import numpy as np

    classes = _dense_model()[2]
    groups = [_GROUPS.get(c[:1], "x") for c in classes]
    return tuple(np.array([k for k, h in enumerate(groups) if h not in (g, "x")], dtype=np.intp) for g in groups)


def tag(text: str) -> tuple[Token, ...]:
    """Tokenize and tag `text`: the tokens with their spans and Penn tags."""
    spans = tokenize(text)
    tags = tag_words([w for w, _, _ in spans])
    return tuple(Token(w, s, e, t) for (w, s, e), t in zip(spans, tags))


def is_word(token: str) -> bool:
    """A token that counts as a word for budgets (has a letter or digit)."""
    return any(ch.isalnum() for ch in token)
