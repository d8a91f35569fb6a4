"""The examples of CLI output in README.md and docs/*.md match what the current code prints.

Every `name@version` of a built-in recipe must be a registered version, the README must name every
registered version, and every signature (`recipe:...|...` of a built file, `clean:...|...` of a run) must
have the keys the code writes for that recipe version, in its order, with its parameters and the current
robustqa version. A new recipe version or signature field then fails here until the documentation follows;
examples of an older version (`qads@1.1`, which published sets were built with) stay valid.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import perturbations
from robustqa import __version__
from robustqa.build import build_signature
from robustqa.evaluation.data import EvalData
from robustqa.evaluation.inference import InferenceSettings
from robustqa.evaluation.run import EvalConfig, eval_signature
from robustqa.importers import IMPORTERS
from robustqa.packaged import PACKAGED_SETS
from robustqa.signature import Signature

REPO = Path(__file__).resolve().parents[2]
DOCUMENTS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
SIGNATURE = re.compile(r"(?<![\w:])(?:recipe|clean):[^\s|`'\"]*(?:\|[^\s|`'\"]+)+")


def documented(pattern: re.Pattern[str]) -> list[tuple[str, str]]:
    return [
        (path.name, match.group(0))
        for path in DOCUMENTS
        for match in pattern.finditer(path.read_text(encoding="utf-8"))
    ]


def _recipe_idents() -> re.Pattern[str]:
    names = "|".join(re.escape(r.name) for r in sorted(perturbations.list_recipes(), key=lambda r: -len(r.name)))
    return re.compile(rf"(?<![\w-])(?:{names})@\d+(?:\.\d+)*")


def build_keys(recipe: str = "qads") -> list[str]:
    return [key for key, _ in build_signature(perturbations.get_recipe(recipe), seed=13, variants=None).items]


def run_keys() -> list[str]:
    """Every key a run signature can have, in the order the code writes them (optional ones included)."""
    data = EvalData([], [], {}, {}, {}, "c" * 12, "p" * 12, "qads@1.1", None, rules="1.1")  # v1.1 adds rules:1.1
    config = EvalConfig(Path("c"), Path("p"), Path("o"), InferenceSettings(precision="bf16"), limit=5)
    everything = eval_signature(data, [], config, na_prob_thresh=2.0)
    keys = [key for key, _ in everything.items]
    keys.insert(
        keys.index("null_threshold") + 1, "int8"
    )  # int8 and bf16 exclude each other; both follow null_threshold
    return keys


def test_the_documents_show_signatures_and_recipes() -> None:
    """The checks below have something to check (the README shows both kinds of signature)."""
    signatures = [text for _, text in whole_signatures()]
    assert any(text.startswith("recipe:") for text in signatures) and any(
        text.startswith("clean:") for text in signatures
    )
    assert documented(_recipe_idents())


@pytest.mark.parametrize(("document", "ident"), documented(_recipe_idents()))
def test_documented_recipe_versions_are_registered(document: str, ident: str) -> None:
    registered = {r.ident for r in perturbations.list_recipes()}
    assert ident in registered, (
        f"{document} shows {ident}, which is not a registered recipe version: {sorted(registered)}"
    )


def test_the_readme_names_every_recipe_version() -> None:
    shown = {ident for document, ident in documented(_recipe_idents()) if document == "README.md"}
    missing = sorted({r.ident for r in perturbations.list_recipes()} - shown)
    assert not missing, f"README.md does not name {missing}"


def whole_signatures() -> list[tuple[str, str]]:
    """The documented signatures shown whole (a README transcript may show a signature's beginning, cut with
    `…`; the transcript test checks that against the real output)."""
    return [(document, text) for document, text in documented(SIGNATURE) if not text.endswith("…")]


@pytest.mark.parametrize(("document", "text"), whole_signatures())
def test_documented_signatures_match_the_code(document: str, text: str) -> None:
    signature = Signature.parse(text)
    keys = [key for key, _ in signature.items]
    fields = signature.to_dict()
    assert fields["robustqa"] == __version__ and keys[-1] == "robustqa"
    if keys[0] == "recipe":
        assert keys == build_keys(fields["recipe"]), f"{document}: build signature keys {keys}"
        recipe = perturbations.get_recipe(fields["recipe"])
        expected = build_signature(recipe, seed=int(fields["seed"]), variants=None).to_dict()
        for key in ("recipe", "wsd", "threshold", "pos", "context", "rate", "min_subs", "max_subs", "wordnet"):
            assert fields[key] == expected[key], (
                f"{document}: {key}:{fields[key]} but the code writes {key}:{expected[key]}"
            )
    else:
        order = run_keys()
        assert all(key in order for key in keys), f"{document}: unknown run signature keys {set(keys) - set(order)}"
        assert keys == [key for key in order if key in keys], f"{document}: run signature keys out of order: {keys}"
        mandatory = [
            "clean",
            "perturbed",
            "recipe",
            "models",
            "max_seq_length",
            "doc_stride",
            "n_best",
            "max_answer_length",
            "null_threshold",
            "bootstrap",
            "seed",
            "robustqa",
        ]
        assert set(mandatory) <= set(keys), f"{document}: run signature lacks {set(mandatory) - set(keys)}"
        current = (
            {r.ident for r in perturbations.list_recipes()}
            | {f"{i.name}@{i.version}" for i in IMPORTERS.values()}
            | set(PACKAGED_SETS)
        )
        assert fields["recipe"] in current | {"none", "unknown"} or fields["recipe"].startswith("<"), (
            f"{document}: recipe {fields['recipe']}"
        )


def test_the_readme_stays_short() -> None:
    """A newcomer's page: measurements live in docs/benchmarks.md, formats in docs/FORMATS.md."""
    lines = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 300
    wide = [(number, len(line)) for number, line in enumerate(lines, 1) if len(line) > 120]
    assert not wide, f"README.md lines over 120 characters (line, width): {wide}"
