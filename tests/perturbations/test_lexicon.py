"""WordNet access: version, lemmas, senses with cntlist counts, and missing-resource errors."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from perturbations import check_resources, wordnet_version
from perturbations.lexicon import lemma_of, senses, synset_lemmas, wn_pos

REPO = Path(__file__).resolve().parents[2]


def test_wordnet_version() -> None:
    assert wordnet_version() == "3.0"
    check_resources()


def test_lemma_of_uses_the_tag_and_knows_irregular_forms() -> None:
    assert lemma_of("located", "v") == "locate"
    assert lemma_of("found", "v") == "find"
    assert lemma_of("houses", "n") == "house"
    assert lemma_of("qwertyuiop", "n") is None


def test_senses_carry_cntlist_counts_in_wordnet_order() -> None:
    found = senses("bank", "n")
    assert found[0][0].name() == "bank.n.01"
    assert found[0][1] > 0


def test_synset_lemmas_ranked_by_count_then_name() -> None:
    ranked = synset_lemmas("car.n.01")
    counts = [c for _, c in ranked]
    assert counts == sorted(counts, reverse=True)
    assert ranked[0][0] == "car"


def test_wn_pos() -> None:
    assert [wn_pos(t) for t in ("NNS", "VBD", "JJR", "RB", "IN", "")] == ["n", "v", "a", "r", None, None]


@pytest.mark.parametrize(
    "call", ["perturbations.wordnet_version()", "perturbations.get_recipe('qads').perturb('a car', seed=1, key='k')"]
)
def test_missing_nltk_data_raises_a_typed_error_naming_the_install_command(tmp_path: Path, call: str) -> None:
    script = (
        "import perturbations, sys\n"
        "try:\n"
        f"    {call}\n"
        "except perturbations.MissingResourceError as e:\n"
        "    print(e.resource, '|', e); sys.exit(3)\n"
    )
    env = dict(os.environ, NLTK_DATA=str(tmp_path), HOME=str(tmp_path))
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, env=env, capture_output=True, text=True)
    assert done.returncode == 3, done.stderr
    assert "python -m nltk.downloader" in done.stdout
    assert done.stdout.split(" | ")[0] in ("wordnet", "averaged_perceptron_tagger_eng")


def test_import_loads_no_resource_and_no_torch() -> None:
    script = (
        "import sys, perturbations, perturbations.recipes; "
        "print('torch' in sys.modules, 'nltk.corpus.reader.wordnet' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True)
    assert done.stdout.split() == ["False", "False"]
