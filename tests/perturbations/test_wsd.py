"""Each WSD method on clear examples, and the shape of what they return."""

from __future__ import annotations

import pytest

from perturbations import wsd

RIVER = wsd.bag("we sat on the sloping land beside the river water and watched the stream".split())
MONEY = wsd.bag("she deposited money and took a loan from the financial institution".split())


@pytest.mark.parametrize("method", ["lesk", "enhanced-lesk"])
def test_lesk_methods_follow_the_context(method: str) -> None:
    river = wsd.disambiguate(method, "bank", "n", RIVER)
    money = wsd.disambiguate(method, "bank", "n", MONEY)
    assert river is not None and money is not None
    assert river[0].name() == "bank.n.01"
    assert money[0].name() == "depository_financial_institution.n.01"


def test_first_sense_ignores_the_context() -> None:
    a = wsd.disambiguate("first-sense", "bank", "n", RIVER)
    b = wsd.disambiguate("first-sense", "bank", "n", MONEY)
    assert a is not None and b is not None
    assert a[0].name() == b[0].name() == "bank.n.01"


def test_confidence_is_a_probability_and_posteriors_sum_to_one() -> None:
    for method in wsd.METHODS:
        dist = wsd.posterior(method, "bank", "n", MONEY)
        assert abs(sum(p for _, p in dist) - 1.0) < 1e-9
        best = wsd.disambiguate(method, "bank", "n", MONEY)
        assert best is not None and 0.0 <= best[1] <= 1.0


def test_dominant_sense_is_confident_and_rare_word_is_not() -> None:
    car = wsd.disambiguate("enhanced-lesk", "car", "n", frozenset())
    assert car is not None and car[0].name() == "car.n.01" and car[1] > 0.8
    run = wsd.disambiguate("first-sense", "run", "v")
    assert run is not None and run[1] < 0.5  # 41 senses, none dominant


def test_unknown_lemma_gives_none() -> None:
    for method in wsd.METHODS:
        assert wsd.disambiguate(method, "qwertyuiop", "n", RIVER) is None


def test_normalise_drops_stopwords_and_lemmatizes() -> None:
    assert wsd.normalise("The") is None
    assert wsd.normalise("rivers") == "river"
    assert wsd.bag(["Banks", "of", "the", "rivers", "?"]) == frozenset({"bank", "river"})
