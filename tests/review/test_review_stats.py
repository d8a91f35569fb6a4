"""`robustqa review --stats`: Wilson interval, Cohen's kappa and the summary, against numbers worked out by hand.

The decisions files here are written by hand (stats need no other file): eleven questions i0..i10 with
chosen parts of speech, judged by two reviewers as in the table below.

    item  pos        ann   bob        A = accepted, M = rejected (meaning changed),
    i0    NN         A     A          G = rejected (ungrammatical), S = skipped
    i1    VBD        A     A
    i2    JJ         A     A
    i3    RB         A     A
    i4    NNS, VB    A     A
    i5    NN         A     M
    i6    JJR        A     A
    i7    VBZ        M     M
    i8    NN, JJ     M     G
    i9    RBR        G     G
    i10   IN         S     A
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from robustqa.cli import cli
from robustqa.review.agreement import cohen_kappa, compute_stats
from robustqa.review.decisions import FORMAT, FORMAT_VERSION, read_decisions
from robustqa.stats import wilson_interval

SHA = "ab" * 32
POS = {
    "i0": ["NN"],
    "i1": ["VBD"],
    "i2": ["JJ"],
    "i3": ["RB"],
    "i4": ["NNS", "VB"],
    "i5": ["NN"],
    "i6": ["JJR"],
    "i7": ["VBZ"],
    "i8": ["NN", "JJ"],
    "i9": ["RBR"],
    "i10": ["IN"],
}
CODES = {
    "A": ("accepted", None),
    "M": ("rejected", "meaning_changed"),
    "G": ("rejected", "ungrammatical"),
    "S": ("skipped", None),
}
ANN = ["A", "A", "A", "A", "A", "A", "A", "M", "M", "G", "S"]
BOB = ["A", "A", "A", "A", "A", "M", "A", "M", "G", "G", "A"]


def write_decisions(path: Path, reviewer: str, codes: list[str], *, sha: str = SHA) -> Path:
    decisions = []
    for index, code in enumerate(codes):
        item = f"i{index}"
        decision, reason = CODES[code]
        subs = [
            {
                "start": 0,
                "end": 1,
                "new_start": 0,
                "new_end": 1,
                "original": "w",
                "replacement": "v",
                "pos": tag,
                "synset": "x.n.01",
                "confidence": 1.0,
            }
            for tag in POS[item]
        ]
        decisions.append(
            {
                "id": item,
                "decision": decision,
                "reason": reason,
                "original": f"question {item}?",
                "perturbed": f"question {item}!",
                "substitutions": subs,
                "at": "2025-01-01T00:00:00Z",
            }
        )
    document = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "robustqa": "0.1.0",
        "reviewer": reviewer,
        "dataset": {"name": "qads.json", "sha256": sha, "signature": "recipe:qads", "items": 12},
        "order": "shuffled",
        "updated": "2025-01-01T00:00:00Z",
        "decisions": decisions,
    }
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    return path


def test_wilson_interval_by_hand() -> None:
    # 7 of 10, z = 1.959964, z^2 = 3.841459:
    #   denominator 1 + 3.841459/10 = 1.3841459
    #   centre (0.7 + 3.841459/20) / 1.3841459 = 0.8920729 / 1.3841459 = 0.6444934
    #   half   1.959964/1.3841459 * sqrt(0.7*0.3/10 + 3.841459/400) = 1.4160097 * sqrt(0.0306036)
    #          = 1.4160097 * 0.1749390 = 0.2477153
    #   -> [0.396778, 0.892209]  (the textbook Wilson interval of 7/10: 0.397 to 0.892)
    low, high = wilson_interval(7, 10)
    assert low == pytest.approx(0.396778, abs=2e-6)
    assert high == pytest.approx(0.892209, abs=2e-6)
    # 10 of 10: p = 1, centre (1 + 0.1920729)/1.3841459 = 0.8612336,
    #   half 1.4160097 * sqrt(0.0096036) = 1.4160097 * 0.0979982
    #   = 0.1387664 -> [0.722467, 1]
    low, high = wilson_interval(10, 10)
    assert low == pytest.approx(0.722467, abs=2e-6) and high == pytest.approx(1.0)
    # 0 of 4: centre (0 + 3.841459/8)/(1 + 0.960365) = 0.480182/1.960365 = 0.244945; half = 0.999793*sqrt(0.0600228)
    #   = 0.999793 * 0.244995 = 0.244945 -> [0, 0.489890]
    low, high = wilson_interval(0, 4)
    assert low == pytest.approx(0.0, abs=1e-9) and high == pytest.approx(0.489890, abs=2e-6)
    assert wilson_interval(0, 0) == (0.0, 1.0)  # robustqa.stats: the one interval; nothing known, everything possible


def test_cohen_kappa_by_hand() -> None:
    ann = [CODES[c][1] or CODES[c][0] for c in ANN[:10]]
    bob = [CODES[c][1] or CODES[c][0] for c in BOB[:10]]
    # three categories over i0..i9: agree on 8 (i0-i4, i6, i7, i9) -> p_o = 0.8
    # ann A7 M2 G1, bob A6 M2 G2: p_e = .7*.6 + .2*.2 + .1*.2 = .42 + .04 + .02 = .48
    # kappa = (.8 - .48) / (1 - .48) = .32/.52 = 0.6153846
    assert cohen_kappa(ann, bob) == pytest.approx(0.32 / 0.52)
    assert cohen_kappa(ann, bob) == pytest.approx(0.6153846, abs=1e-7)
    # two categories: agree on 9 (all but i5) -> p_o = .9; ann A7 R3, bob A6 R4: p_e = .42 + .12 = .54
    # kappa = (.9 - .54) / .46 = 0.7826087
    two_ann = [c == "accepted" for c in ann]
    two_bob = [c == "accepted" for c in bob]
    assert cohen_kappa(two_ann, two_bob) == pytest.approx(0.7826087, abs=1e-7)
    # perfect agreement on two categories is 1; one category only leaves chance agreement 1: undefined
    assert cohen_kappa(["a", "b", "a"], ["a", "b", "a"]) == pytest.approx(1.0)
    assert cohen_kappa(["a", "a"], ["a", "a"]) is None
    # agreement exactly at chance: ann always accepts half, bob independently -> p_o = .5, p_e = .5 -> 0
    assert cohen_kappa(["a", "a", "b", "b"], ["a", "b", "a", "b"]) == pytest.approx(0.0)


def test_compute_stats_by_hand(tmp_path: Path) -> None:
    files = [
        read_decisions(write_decisions(tmp_path / "ann.json", "ann", ANN)),
        read_decisions(write_decisions(tmp_path / "bob.json", "bob", BOB)),
    ]
    stats = compute_stats(files)
    ann, bob = stats.reviewers
    # ann: 11 decided, 1 skipped, 10 judged, 7 accepted, 2 meaning changed, 1 ungrammatical
    assert (ann.decided, ann.skipped, ann.judged, ann.accepted, ann.meaning_changed, ann.ungrammatical) == (
        11,
        1,
        10,
        7,
        2,
        1,
    )
    assert ann.interval == pytest.approx((0.396778, 0.892209), abs=2e-6)
    # bob: 11 judged, 7 accepted (i0-i4, i6, i10); Wilson of 7/11:
    #   centre (0.636364 + 3.841459/22)/(1 + 3.841459/11) = 0.810976/1.349224 = 0.601068
    #   half 1.959964/1.349224 * sqrt(0.636364*0.363636/11 + 3.841459/484) = 1.452660 * 0.170217 = 0.247267
    #   -> [0.353801, 0.848335]
    assert (bob.judged, bob.accepted, bob.meaning_changed, bob.ungrammatical) == (11, 7, 2, 2)
    assert bob.interval == pytest.approx((0.353801, 0.848335), abs=3e-6)
    # combined: i0..i10 judged by someone; accepted when every judge accepted: i0-i4, i6, i10 = 7 of 11;
    # meaning changed named for i5, i7, i8 (3), ungrammatical for i8, i9 (2)
    combined = stats.combined
    assert combined is not None
    assert (combined.judged, combined.accepted, combined.meaning_changed, combined.ungrammatical) == (11, 7, 3, 2)
    # by part of speech (combined): noun i0 i4 i5 i8 (rejected i5 i8), verb i1 i4 i7 (i7), adjective i2 i6 i8 (i8),
    # adverb i3 i9 (i9), other i10 (none)
    assert [(p.pos, p.judged, p.rejected) for p in stats.by_pos] == [
        ("noun", 4, 2),
        ("verb", 3, 1),
        ("adjective", 3, 1),
        ("adverb", 2, 1),
        ("other", 1, 0),
    ]
    (agreement,) = stats.agreements
    assert (agreement.questions, agreement.agreed) == (10, 8)  # i10 is skipped by ann
    assert agreement.kappa3 == pytest.approx(0.6153846, abs=1e-7)
    assert agreement.kappa2 == pytest.approx(0.7826087, abs=1e-7)


def test_single_reviewer_stats(tmp_path: Path) -> None:
    stats = compute_stats([read_decisions(write_decisions(tmp_path / "ann.json", "ann", ANN))])
    assert stats.combined is None and stats.agreements == ()
    # ann alone, i10 skipped: noun i0 i4 i5 i8 (rejected i8), verb i1 i4 i7 (i7), adjective i2 i6 i8 (i8),
    # adverb i3 i9 (i9); no judged question has an "other" substitution, so that row is left out
    assert [(p.pos, p.judged, p.rejected) for p in stats.by_pos] == [
        ("noun", 4, 1),
        ("verb", 3, 1),
        ("adjective", 3, 1),
        ("adverb", 2, 1),
    ]


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


def test_stats_cli_golden(tmp_path: Path, golden: Callable[[str, str], None]) -> None:
    ann = write_decisions(tmp_path / "ann.json", "ann", ANN)
    bob = write_decisions(tmp_path / "bob.json", "bob", BOB)
    result = run("review", "--stats", str(ann), str(bob))
    assert result.exit_code == 0, result.output
    assert "ann       11       1        10      7         70.0%  39.7–89.2%" in result.stdout
    assert "ann vs bob  10         8       0.615   0.783" in result.stdout
    golden("stats-two-reviewers.txt", result.stdout)
    single = run("review", "--stats", str(ann))
    assert single.exit_code == 0
    golden("stats-one-reviewer.txt", single.stdout)
    as_json = json.loads(run("review", "--stats", "--json", str(ann), str(bob)).stdout)
    assert as_json["reviewers"][0]["accepted_share"] == pytest.approx(0.7)
    assert as_json["agreement"][0]["kappa2"] == pytest.approx(0.36 / 0.46)
    assert as_json["combined"]["accepted"] == 7


def test_stats_refuses_mixed_datasets_and_bad_files(tmp_path: Path) -> None:
    ann = write_decisions(tmp_path / "ann.json", "ann", ANN)
    other = write_decisions(tmp_path / "other.json", "bob", BOB, sha="cd" * 32)
    result = run("review", "--stats", str(ann), str(other))
    assert result.exit_code == 2
    assert (
        result.stderr.count("\n") == 1
        and "decisions for different datasets" in result.stderr
        and "other.json" in result.stderr
    )
    not_decisions = tmp_path / "x.json"
    not_decisions.write_text('{"data": []}', encoding="utf-8")
    result = run("review", "--stats", str(not_decisions))
    assert result.exit_code == 2
    assert result.stderr == (
        f'robustqa: error: {not_decisions}: not a decisions file (no "format": "robustqa-review-decisions"); '
        "give a decisions file written by `robustqa review` (or saved from its page)\n"
    )
    broken = json.loads(ann.read_text())
    broken["decisions"][3]["reason"] = "too long"
    (tmp_path / "broken.json").write_text(json.dumps(broken))
    result = run("review", "--stats", str(tmp_path / "broken.json"))
    assert result.exit_code == 2 and "decisions[3] (question i3): only a rejection has a reason" in result.stderr
    assert run("review", "--stats").exit_code == 2  # usage: no files
