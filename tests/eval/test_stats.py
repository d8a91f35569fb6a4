from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from robustqa.errors import InputError
from robustqa.stats import Pair, bootstrap_intervals, compute_drop, flip_counts, match_to_clean, worst_case_pairs


def pair(pid, source, clean, perturbed, *, changed=True, has_answer=True, clean_f1=None, perturbed_f1=None):
    return Pair(pid, source, changed, has_answer, clean, clean if clean_f1 is None else clean_f1, perturbed,
                perturbed if perturbed_f1 is None else perturbed_f1)


def random_pairs(n: int, seed: int = 0) -> list[Pair]:
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        clean = float(rng.random() < 0.6)
        perturbed = clean if rng.random() < 0.7 else 1.0 - clean
        out.append(pair(f"q{i}", f"q{i}", clean, perturbed, changed=bool(rng.random() < 0.6), has_answer=bool(i % 2)))
    return out


def test_bootstrap_is_deterministic_given_the_seed_and_moves_with_it():
    pairs = random_pairs(300)
    first = compute_drop(pairs, resamples=500, seed=7)
    assert compute_drop(pairs, resamples=500, seed=7) == first
    assert compute_drop(list(reversed(pairs)), resamples=500, seed=7)["exact"] == pytest.approx(first["exact"])
    assert compute_drop(pairs, resamples=500, seed=8)["exact_ci"] != first["exact_ci"]


def test_intervals_contain_the_point_estimates():
    for seed in range(5):
        drop = compute_drop(random_pairs(200, seed), resamples=400, seed=seed)
        for key in ("exact", "f1"):
            lo, hi = drop[f"{key}_ci"]
            assert lo <= drop[key] <= hi and lo < hi
        changed = drop["changed"]
        assert changed["exact_ci"][0] <= changed["exact"] <= changed["exact_ci"][1]


def test_drop_values_by_hand():
    pairs = [
        pair("a", "a", 1, 0, has_answer=True, clean_f1=1.0, perturbed_f1=0.5),
        pair("b", "b", 1, 1, has_answer=True, changed=False),
        pair("c", "c", 0, 1, has_answer=False),
        pair("d", "d", 1, 0, has_answer=False),
    ]
    drop = compute_drop(pairs, resamples=200, seed=1)
    assert drop["exact"] == pytest.approx(100 * (2 - 3) / 4)
    assert drop["f1"] == pytest.approx(100 * (2.5 - 3) / 4)
    assert drop["HasAns_exact"] == pytest.approx(-50.0) and drop["HasAns_f1"] == pytest.approx(-25.0)
    assert drop["NoAns_exact"] == pytest.approx(0.0)
    assert drop["changed"]["questions"] == 3 and drop["changed"]["exact"] == pytest.approx(100 * (1 - 2) / 3)
    assert drop["changed"]["HasAns_questions"] == 1 and drop["changed"]["HasAns_exact"] == pytest.approx(-100.0)
    assert drop["changed"]["NoAns_questions"] == 2 and drop["changed"]["NoAns_exact"] == pytest.approx(0.0)
    assert drop["HasAns_exact_ci"] == [-100.0, 0.0] or drop["HasAns_exact_ci"][0] <= -50.0 <= drop["HasAns_exact_ci"][1]
    assert "worst_case" not in drop
    assert flip_counts(pairs) == {"right_to_wrong": 2, "wrong_to_right": 1, "changed_right_to_wrong": 2, "changed_wrong_to_right": 1}


def test_a_constant_difference_has_a_degenerate_interval():
    lo_hi = bootstrap_intervals([np.full(10, -1.0)], np.ones(10), resamples=50, seed=3)
    assert lo_hi == [[-100.0, -100.0]]


def test_worst_case_over_variants_counts_right_only_if_every_variant_is():
    pairs = [
        pair("q1-v1", "q1", 1, 1, perturbed_f1=0.9),
        pair("q1-v2", "q1", 1, 0, perturbed_f1=0.2),
        pair("q2-v1", "q2", 1, 1),
        pair("q2-v2", "q2", 1, 1),
        pair("q3-v1", "q3", 0, 1),
    ]
    worst = {p.source_id: p for p in worst_case_pairs(pairs)}
    assert (worst["q1"].perturbed_exact, worst["q1"].perturbed_f1) == (0, 0.2)
    assert worst["q2"].perturbed_exact == 1 and worst["q3"].perturbed_exact == 1
    drop = compute_drop(pairs, resamples=100, seed=0)
    # over clean questions: clean 1,1,0 -> worst 0,1,1: no change in EM; F1 clean 1,1,0 -> 0.2,1,1
    assert drop["worst_case"]["questions"] == 3
    assert drop["worst_case"]["exact"] == pytest.approx(0.0)
    assert drop["worst_case"]["f1"] == pytest.approx(100 * (2.2 - 2) / 3)
    assert drop["exact"] == pytest.approx(100 * (4 - 4) / 5)


def test_variants_of_one_question_are_resampled_together():
    # two clean questions, each with 3 identical variants: the bootstrap can only draw whole questions
    pairs = [pair(f"a{i}", "a", 1, 0) for i in range(3)] + [pair(f"b{i}", "b", 1, 1) for i in range(3)]
    drop = compute_drop(pairs, resamples=300, seed=0)
    assert {round(v, 6) for v in drop["exact_ci"]} <= {-100.0, -50.0, 0.0}


def test_matching_by_source_id_else_by_id():
    clean_ids = ["q1", "q2"]
    perturbed = [
        SimpleNamespace(id="q1-v1", source_id="q1"),
        SimpleNamespace(id="q1-v2", source_id="q1"),
        SimpleNamespace(id="q2", source_id=None),
    ]
    assert match_to_clean(perturbed, clean_ids) == {"q1-v1": "q1", "q1-v2": "q1", "q2": "q2"}
    with pytest.raises(InputError, match=r"perturbed question zz \(and 1 more\) matches no question of the clean file"):
        match_to_clean([SimpleNamespace(id="zz", source_id=None), SimpleNamespace(id="q9", source_id="q9")], clean_ids, path="p.json")
