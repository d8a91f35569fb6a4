"""The hardening benchmark never trains on its four held-out articles, nor on any variant of their questions."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import perturbations  # noqa: F401  (the benchmark's imports below need the repository on the path)
from robustqa.augment import augment_with_document
from robustqa.provenance import training_record
from robustqa.squad import parse_squad
from robustqa.training.adversarial import original_questions, sample_questions

REPO = Path(__file__).parents[2]


def _benchmark():
    sys.path.insert(0, str(REPO / "benchmarks"))
    spec = importlib.util.spec_from_file_location("hardening_benchmark", REPO / "benchmarks" / "hardening.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_neither_training_set_holds_a_held_out_question_or_variant(squad_half_path, squad_heldout_path):
    hardening = _benchmark()
    half = json.loads(Path(squad_half_path).read_text(encoding="utf-8"))
    heldout = json.loads(Path(squad_heldout_path).read_text(encoding="utf-8"))
    assert [a["title"] for a in half["data"][:4]] == list(hardening.HELDOUT_TITLES)
    assert [a["title"] for a in heldout["data"]] == list(hardening.HELDOUT_TITLES)
    held_ids = {q["id"] for a in heldout["data"] for p in a["paragraphs"] for q in p["qas"]}
    held_contexts = {p["context"] for a in heldout["data"] for p in a["paragraphs"]}

    clean = hardening.training_questions(half)
    certified = json.loads(hardening.CERTIFIED.read_text(encoding="utf-8"))
    variants = hardening.certified_variants(certified)
    augmented = augment_with_document(parse_squad(clean), variants).document
    for document in (clean, augmented):
        dataset = parse_squad(document)
        assert len(dataset.articles) == 12
        assert not {a.title for a in dataset.articles} & set(hardening.HELDOUT_TITLES)
        for example in dataset.iter_examples():
            assert example.id not in held_ids and example.source_id not in held_ids
            assert example.context not in held_contexts
    assert len(parse_squad(clean)) == 4584
    assert len(parse_squad(augmented)) > 4584
    # the record a trained folder carries names none of them either
    titles = {a.title for a in training_record(parse_squad(augmented), "sig").articles}
    assert not titles & set(hardening.HELDOUT_TITLES)
    # --adversarial attacks, and adds variants of, the training file's own questions only (not even the variants
    # an augmentation added)
    pool = original_questions(parse_squad(augmented))
    assert [e.id for e in pool] == [e.id for e in parse_squad(clean).examples()]
    assert not {e.id for e in sample_questions(pool, 10**6, 13, 1)} & held_ids
    # even given the whole certified file, the augmenter adds only variants of the training questions
    everything = parse_squad(augment_with_document(parse_squad(clean), certified).document)
    assert not {e.source_id for e in everything.iter_examples()} & held_ids
