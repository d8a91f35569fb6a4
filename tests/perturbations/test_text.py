"""Tokenization keeps exact character spans; tags come from NLTK's perceptron tagger."""

from __future__ import annotations

from perturbations.text import is_word, tag, tokenize


def test_spans_index_the_original_text() -> None:
    text = "  Where's the U.S. capital, and why don't   people move?\n"
    for word, start, end in tokenize(text):
        assert text[start:end] == word


def test_clitics_and_abbreviations_follow_penn_conventions() -> None:
    words = [w for w, _, _ in tokenize("Where's the U.S. army? They don't know France's king.")]
    assert words == [
        "Where",
        "'s",
        "the",
        "U.S.",
        "army",
        "?",
        "They",
        "do",
        "n't",
        "know",
        "France",
        "'s",
        "king",
        ".",
    ]


def test_numbers_and_hyphenated_words_stay_whole() -> None:
    words = [w for w, _, _ in tokenize("In 1,066.5 the half-brother left")]
    assert words == ["In", "1,066.5", "the", "half-brother", "left"]


def test_tags_are_penn_treebank() -> None:
    toks = tag("Where is France located?")
    assert [(t.text, t.tag) for t in toks] == [
        ("Where", "WRB"),
        ("is", "VBZ"),
        ("France", "NNP"),
        ("located", "VBN"),
        ("?", "."),
    ]
    assert all(isinstance(t.start, int) for t in toks)


def test_empty_text_has_no_tokens() -> None:
    assert tag("") == ()
    assert tag("   \n") == ()


def test_is_word() -> None:
    assert is_word("cat") and is_word("1066") and not is_word("?") and not is_word("--")


def test_fast_tagger_equals_nltk_perceptron_tagger(squad_half_path) -> None:  # type: ignore[no-untyped-def]
    """tag_words re-implements PerceptronTagger.tag for speed: it must give the very same tags."""
    import json

    from perturbations.text import nltk_tag_words, tag_words

    data = json.loads(squad_half_path.read_text(encoding="utf-8"))
    texts = [qa["question"] for a in data["data"][:3] for p in a["paragraphs"] for qa in p["qas"]]
    texts += [p["context"] for p in data["data"][0]["paragraphs"][:10]]
    texts += ["", "1999 - - -word A-B 12 c", "NASA's 3rd-stage rockets weren't fired ?!"]
    for text in texts:
        words = [w for w, _, _ in tokenize(text)]
        assert tag_words(words) == nltk_tag_words(words), text
