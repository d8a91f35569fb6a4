"""Tokenization keeps exact character spans; tags come from NLTK's perceptron tagger."""

from __future__ import annotations

from perturbations.text import is_word, tag, tokenize


def test_spans_index_the_original_text() -> None:
    text = "  Where's the U.S. capital, and why don't   people move?\n"
    for word, start, end in tokenize(text):
        assert text[start:end] == word


def test_clitics_and_abbreviations_follow_penn_conventions() -> None:
    words = [w for w, _, _ in tokenize("Where's the U.S. army? They don't know France's king.")]
    assert words == ["Where", "'s", "the", "U.S.", "army", "?", "They", "do", "n't", "know", "France", "'s", "king", "."]


def test_numbers_and_hyphenated_words_stay_whole() -> None:
    words = [w for w, _, _ in tokenize("In 1,066.5 the half-brother left")]
    assert words == ["In", "1,066.5", "the", "half-brother", "left"]


def test_tags_are_penn_treebank() -> None:
    toks = tag("Where is France located?")
    assert [(t.text, t.tag) for t in toks] == [("Where", "WRB"), ("is", "VBZ"), ("France", "NNP"), ("located", "VBN"), ("?", ".")]
    assert all(isinstance(t.start, int) for t in toks)


def test_empty_text_has_no_tokens() -> None:
    assert tag("") == ()
    assert tag("   \n") == ()


def test_is_word() -> None:
    assert is_word("cat") and is_word("1066") and not is_word("?") and not is_word("--")
