"""The certified set's round-2 candidates rebuild from the package: `tools/certify.py`'s wide recipe (the
named `AnySynonyms` transformation) proposes, for a few questions, exactly the variants the committed review
keys in studies/certified-1 hold, with the same edit records, in the same dealt order.

`test_certified_set` replays the committed keys; this test is the one that notices when the space that
made them changes (as it did when an `allowed()` override in the tool went dead and the wide space shrank
to the vetted pairs)."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from robustqa.squad import load_squad

REPO = Path(__file__).resolve().parents[2]
STUDY = REPO / "studies" / "certified-1"


@pytest.fixture(scope="module")
def certify() -> ModuleType:
    spec = importlib.util.spec_from_file_location("tools_certify_rebuild", REPO / "tools" / "certify.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["tools_certify_rebuild"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def examples(squad_half_path: Path) -> dict[str, tuple[Any, str]]:
    return {
        q.id: (q, paragraph.context)
        for article in load_squad(squad_half_path).articles
        for paragraph in article.paragraphs
        for q in paragraph.qas
    }


@pytest.mark.parametrize(("sheet", "rows"), [(1, 4), (7, 2), (13, 3)])
def test_the_wide_space_rebuilds_the_committed_round_2_keys(
    certify: ModuleType, examples: dict[str, tuple[Any, str]], sheet: int, rows: int
) -> None:
    key = certify.read_jsonl(STUDY / f"wide-key-{sheet:02d}.jsonl")[:rows]
    round_1 = STUDY / f"sheet-{sheet:02d}.jsonl"
    shown = (
        {line["question"]: set(line["variants"].values()) for line in certify.read_jsonl(round_1)}
        if (round_1.exists())
        else {}
    )
    recipe = certify.wide_recipe()
    for row in key:
        question, context = examples[row["source_id"]]
        rebuilt = certify.wide_variants(recipe, question.question, context, set(shown.get(question.question, ())))
        random.Random(f"{certify.DEAL_SEED}:wide:{row['source_id']}").shuffle(rebuilt)  # as the sheet dealt them
        committed = [{k: v for k, v in variant.items() if k != "id"} for variant in row["variants"].values()]
        assert rebuilt == committed, question.question


def test_the_wide_recipe_names_its_transformation_from_the_package(certify: ModuleType) -> None:
    from perturbations.synonyms import AnySynonyms

    assert type(certify.wide_recipe().transformation) is AnySynonyms
