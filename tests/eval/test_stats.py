from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from robustqa.errors import InputError
from robustqa.stats import Pair, bootstrap_intervals, compute_drop, flip_counts, match_to_clean, worst_case_pairs


def pair(pid, source, clean, perturbed, *, changed=True, has_answer=True, clean_f1=None, perturbed_f1=None):
    return Pair(
        pid,
        source,
        changed,
        has_answer,
        clean,
        clean if clean_f1 is None else clean_f1,
        perturbed,
        perturbed if perturbed_f1 is None else perturbed_f1,
    )


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
    assert flip_counts(pairs) == {
        "right_to_wrong": 2,
        "wrong_to_right": 1,
        "changed_right_to_wrong": 2,
        "changed_wrong_to_right": 1,
    }


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
        match_to_clean(
            [SimpleNamespace(id="zz", source_id=None), SimpleNamespace(id="q9", source_id="q9")],
            clean_ids,
            path="p.json",
        )


def test_worst_copy_takes_the_lowest_f1_copy_with_its_own_em_and_the_first_of_ties():
    from robustqa.stats import worst_copy, worst_copy_pairs

    pairs = [
        pair("a-0", "a", 1, 0, clean_f1=1.0, perturbed_f1=0.5),
        pair("a-1", "a", 1, 1, clean_f1=1.0, perturbed_f1=1.0),
        pair("a-2", "a", 1, 0, clean_f1=1.0, perturbed_f1=0.5),  # ties a-0: the first in order counts
        pair("b-0", "b", 0, 1, clean_f1=0.5, perturbed_f1=1.0),  # one copy: it counts even above the original
        # EM 1 with F1 below another copy's: the lowest-F1 copy's own EM counts, not the minimum EM
        pair("c-0", "c", 1, 0, clean_f1=1.0, perturbed_f1=0.9),
        pair("c-1", "c", 1, 1, clean_f1=1.0, perturbed_f1=0.8),
    ]
    ids = ["a", "b", "c", "d"]  # d has no copy: scored by itself
    has = dict.fromkeys(ids, True)
    exact = {"a": 1.0, "b": 0.0, "c": 1.0, "d": 1.0}
    f1 = {"a": 1.0, "b": 0.5, "c": 1.0, "d": 0.75}
    chosen = worst_copy_pairs(pairs, ids, has, exact, f1)
    assert [p.perturbed_id for p in chosen] == ["a-0", "b-0", "c-1", "d"]
    assert [(p.perturbed_exact, p.perturbed_f1) for p in chosen] == [(0, 0.5), (1, 1.0), (1, 0.8), (1.0, 0.75)]
    result = worst_copy(pairs, ids, has, exact, f1, resamples=200, seed=13)
    assert (result["questions"], result["with_copies"]) == (4, 3)
    assert result["exact"] == pytest.approx(75.0) and result["f1"] == pytest.approx(100 * (0.5 + 1.0 + 0.8 + 0.75) / 4)
    assert result["drop"]["f1"] == pytest.approx(result["f1"] - 100 * (1.0 + 0.5 + 1.0 + 0.75) / 4)
    assert result["drop"]["exact_ci"][0] <= result["drop"]["exact"] <= result["drop"]["exact_ci"][1]


def test_worst_copy_is_left_out_where_it_equals_the_plain_pairing():
    from robustqa.stats import worst_copy

    pairs = [pair("a", "a", 1, 0), pair("b", "b", 1, 1)]
    scores = {"a": 1.0, "b": 1.0}
    assert worst_copy(pairs, ["a", "b"], dict.fromkeys("ab", True), scores, scores, resamples=10, seed=1) is None
    assert (
        worst_copy(
            pairs,
            ["a", "b", "c"],
            dict.fromkeys("abc", True),
            {**scores, "c": 0.0},
            {**scores, "c": 0.0},
            resamples=10,
            seed=1,
        )
        is not None
    )


def test_unpaired_and_own_intervals():
    from robustqa.stats import score_intervals, unpaired_difference_intervals

    rng = np.random.default_rng(3)
    shifted, reference = (rng.random(400) < 0.4).astype(float), (rng.random(900) < 0.7).astype(float)
    (own,) = score_intervals([shifted], resamples=500, seed=13)
    assert own[0] < 100 * shifted.mean() < own[1]
    (diff,) = unpaired_difference_intervals([shifted], [reference], resamples=500, seed=13)
    estimate = 100 * (shifted.mean() - reference.mean())
    assert diff[0] < estimate < diff[1] < 0
    assert unpaired_difference_intervals([shifted], [reference], resamples=500, seed=13) == [diff]  # seeded
    # both sets' uncertainty adds up: the difference's interval is wider than the shifted set's own
    assert diff[1] - diff[0] > own[1] - own[0]
    # a constant set has a zero-width own interval
    assert score_intervals([np.ones(50)], resamples=100, seed=1) == [[100.0, 100.0]]
