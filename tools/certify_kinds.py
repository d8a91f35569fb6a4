"""Write `certified@2`: the variants of `certified@1`, unchanged, each edit record with its kind.

Nothing is reviewed again: every question, answer, review record and id is certified@1's; each substitution
gains `kind` (`perturbations.edit_kinds`, by the rules version `RULES`, which the signature names: certified@2
was made with `edit-kinds-1` and stays so, whatever the current rules are), and the set's figures gain the count
of each kind. Run from the repository root: `python tools/certify_kinds.py`; a test checks that the
packaged file is byte for byte what this makes.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import Any

from perturbations.edit_kinds import EDIT_KINDS, edit_kind

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "robustqa" / "data" / "certified"
SOURCE = PACKAGE / "certified-v1.json"
TARGET = PACKAGE / "certified-v2.json"
RULES = "edit-kinds-1"  # certified@2's; a set classified by other rules is a new set version


def variant_kind(kinds: list[str]) -> str:
    """A variant's kind: its edits' one kind (a certified variant edits one word, every occurrence alike)."""
    return kinds[0] if len(set(kinds)) == 1 else "mixed"


def reclassified(source: bytes) -> str:
    document: dict[str, Any] = json.loads(source)
    signature = document["signature"]
    if not signature.startswith("shift:certified@1|"):
        raise SystemExit(f"{SOURCE}: not certified@1 (signature {signature[:40]}...)")
    source_sha = hashlib.sha256(source).hexdigest()[:12]
    rest = signature.removeprefix("shift:certified@1|")
    document["signature"] = f"shift:certified@2|from:certified@1#{source_sha}|kinds:{RULES}|{rest}"
    by_substitution: Counter[str] = Counter()
    by_variant: Counter[str] = Counter()
    for article in document["data"]:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                kinds = []
                for sub in qa["substitutions"]:
                    sub["kind"] = edit_kind(sub["original"], sub["replacement"], RULES).value
                    kinds.append(sub["kind"])
                by_substitution.update(kinds)
                by_variant[variant_kind(kinds)] += 1
    figures = document["robustqa"]["set"]
    figures["name"] = "certified@2"
    figures["edit_kinds"] = {
        "rules": RULES,
        "variants": {kind: by_variant[kind] for kind in (*EDIT_KINDS, "mixed") if by_variant[kind]},
        "substitutions": {kind: by_substitution[kind] for kind in EDIT_KINDS if by_substitution[kind]},
    }
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")) + "\n"


def main() -> None:
    text = reclassified(SOURCE.read_bytes())
    TARGET.write_text(text, encoding="utf-8")
    figures = json.loads(text)["robustqa"]["set"]["edit_kinds"]
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
