"""Property tests: offsets of every Substitution are exact in both strings on arbitrary text, and
results are deterministic given (recipe, text, seed, key, variant)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from perturbations import Perturbation, get_recipe

VOCAB = (
    "the a an car cars house houses located built bought old large quickly king France Who what where "
    "was is did river bank money army soldiers mercenary language 1066 , . ? ' \" - ( ) n't 's "
    "Normans NASA beautiful run running ran hour university apple Élan café naïve"
).split()
SEPARATORS = st.sampled_from([" ", " ", " ", "  ", "\n", "\t", ""])

words_text = st.lists(st.tuples(st.sampled_from(VOCAB), SEPARATORS), max_size=25).map(
    lambda pairs: "".join(w + s for w, s in pairs)
)
any_text = st.one_of(words_text, st.text(max_size=60))
RECIPES = [get_recipe("qads"), get_recipe("context", threshold=0.0, rate=1.0, max_substitutions=40)]


def check_offsets(p: Perturbation) -> None:
    rebuilt, cursor = [], 0
    previous_end = -1
    for s in p.substitutions:
        assert p.original[s.start : s.end] == s.original
        assert p.perturbed[s.new_start : s.new_end] == s.replacement
        assert s.start >= previous_end and s.end > s.start
        assert "_" not in s.replacement and 0.0 <= s.confidence <= 1.0
        rebuilt.append(p.original[cursor : s.start] + s.replacement)
        cursor = previous_end = s.end
    rebuilt.append(p.original[cursor:])
    assert "".join(rebuilt) == p.perturbed
    assert p.changed == bool(p.substitutions)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=any_text, seed=st.integers(0, 2**31), variant=st.integers(0, 3), which=st.integers(0, 1))
def test_offsets_are_exact_in_both_strings(text: str, seed: int, variant: int, which: int) -> None:
    check_offsets(RECIPES[which].perturb(text, seed=seed, key="k", variant=variant))


@settings(max_examples=60, deadline=None)
@given(text=words_text, seed=st.integers(0, 2**31), key=st.text(max_size=8), variant=st.integers(0, 3))
def test_frozen_spans_hold_on_arbitrary_text(text: str, seed: int, key: str, variant: int) -> None:
    frozen = [(0, len(text) // 2)]
    p = RECIPES[1].perturb(text, seed=seed, key=key, variant=variant, frozen_spans=frozen)
    check_offsets(p)
    assert p.perturbed[: len(text) // 2] == text[: len(text) // 2]


@settings(max_examples=60, deadline=None)
@given(texts=st.lists(words_text, min_size=2, max_size=4), seed=st.integers(0, 2**31), variant=st.integers(0, 3))
def test_same_inputs_same_result_in_any_call_order(texts: list[str], seed: int, variant: int) -> None:
    recipe = RECIPES[1]
    forward = [recipe.perturb(t, seed=seed, key=str(i), variant=variant) for i, t in enumerate(texts)]
    backward = [recipe.perturb(t, seed=seed, key=str(i), variant=variant) for i, t in reversed(list(enumerate(texts)))]
    assert forward == backward[::-1]
