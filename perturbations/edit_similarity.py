"""How close a sentence encoder finds an edited question to its original: the two numbers judge 2's second
stage reads (`perturbations/judge.py`, `Cascade`).

Why two: the cosine of the mean-pooled embeddings of the whole question says whether the question as a whole
still asks the same thing; the cosine of the edited word's own vectors in its sentence (its word pieces
averaged, in the original and in the edited question) says whether the replacement plays the word's role
there, which the whole-question cosine dilutes in a long question. Out of fold on the certification
judgments they added more to judge 1 than any other feature tried (docs/engine.md).

The edited word is found by comparing the two texts (their common start and end, widened to whole words),
so a caller passes texts only, as the score tables key them. Both numbers are rounded to DECIMALS places:
the features are computed in batches, and a batch's padding moves the last float digits, which rounding
keeps from deciding anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

DECIMALS = 3
BATCH = 128
# how the two numbers are computed; part of every score-table key, so a change here never mixes two methods
METHOD = "v1:cosine(mean-pooled last layer) and cosine(edited word's pieces, last layer), rounded to 3"


def edited_spans(original: str, edited: str) -> tuple[tuple[int, int], tuple[int, int]]:
    """The character spans of what differs between `original` and `edited` (their longest common start and
    end removed), each widened to whole words: ((start, end) in original, (start, end) in edited)."""
    limit = min(len(original), len(edited))
    start = 0
    while start < limit and original[start] == edited[start]:
        start += 1
    tail = 0
    while tail < limit - start and original[-1 - tail] == edited[-1 - tail]:
        tail += 1
    return _whole_words(original, start, len(original) - tail), _whole_words(edited, start, len(edited) - tail)


def _whole_words(text: str, start: int, end: int) -> tuple[int, int]:
    while start > 0 and text[start - 1].isalnum():
        start -= 1
    while end < len(text) and text[end].isalnum():
        end += 1
    return start, end


def similarities(
    tokenizer: Any, model: Any, questions: Sequence[tuple[str, Sequence[str]]]
) -> list[list[tuple[float, float]]]:
    """For each (original, edited texts) of `questions`: per edited text, (cosine of the whole questions,
    cosine of the edited word's vectors). Every distinct text is encoded once, in batches sorted by length."""
    import torch

    texts = list(dict.fromkeys(t for original, edited in questions for t in (original, *edited)))
    order = sorted(range(len(texts)), key=lambda i: (len(texts[i]), i))
    hidden: dict[str, tuple[Any, Any, Any]] = {}  # text -> (sentence vector, token vectors, token offsets)
    for first in range(0, len(order), BATCH):
        batch = [texts[i] for i in order[first : first + BATCH]]
        encoded = tokenizer(batch, padding=True, truncation=True, return_tensors="pt", return_offsets_mapping=True)
        offsets = encoded.pop("offset_mapping")
        with torch.inference_mode():
            states = model(**encoded).last_hidden_state.float()
        mask = encoded["attention_mask"].unsqueeze(-1).float()
        sentences = (states * mask).sum(1) / mask.sum(1)
        for k, text in enumerate(batch):
            length = int(encoded["attention_mask"][k].sum())
            hidden[text] = (sentences[k], states[k, :length], offsets[k, :length])
    out: list[list[tuple[float, float]]] = []
    for original, edited in questions:
        sentence, states, offsets = hidden[original]
        row = []
        for text in edited:
            (a, b), (c, d) = edited_spans(original, text)
            other_sentence, other_states, other_offsets = hidden[text]
            whole = _cosine(sentence, other_sentence)
            word = _cosine(
                _pieces(states, offsets, a, b, sentence), _pieces(other_states, other_offsets, c, d, other_sentence)
            )
            row.append((round(whole, DECIMALS), round(word, DECIMALS)))
        out.append(row)
    return out


def _pieces(states: Any, offsets: Any, start: int, end: int, fallback: Any) -> Any:
    """The mean of the vectors of the word pieces overlapping [start, end) (special tokens have empty offsets);
    the sentence vector when none does (a text cut off before the word)."""
    inside = (offsets[:, 0] < end) & (offsets[:, 1] > start) & (offsets[:, 1] > offsets[:, 0])
    return states[inside].mean(0) if bool(inside.any()) else fallback


def _cosine(u: Any, v: Any) -> float:
    import torch

    return float(torch.nn.functional.cosine_similarity(u, v, dim=0))


class EditSimilarity:
    """The two numbers as a score-table model (`perturbations.score_table`): `score(original, edited texts)`
    for one question, `score_many` for many at once (a build's pre-pass), both by `similarities`."""

    def __init__(self, tokenizer: Any, model: Any) -> None:
        self.tokenizer = tokenizer
        self.model = model

    @classmethod
    def load(cls, spec: str) -> EditSimilarity:
        from perturbations.sentence_encoder import SentenceEncoder, resolve_encoder

        encoder = SentenceEncoder.load(resolve_encoder(spec))
        return cls(encoder.tokenizer, encoder.model)

    def score(self, prefix: str, texts: Sequence[str]) -> list[tuple[float, float]]:
        return similarities(self.tokenizer, self.model, [(prefix, texts)])[0]

    def score_many(self, asked: Sequence[tuple[str, Sequence[str]]]) -> list[list[tuple[float, float]]]:
        return similarities(self.tokenizer, self.model, asked)
