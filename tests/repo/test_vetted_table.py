"""The packaged vetted table is exactly what the committed vetting judgments say (tools/vetting.py)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_packaged_table_is_compiled_from_the_committed_judgments(monkeypatch) -> None:
    monkeypatch.syspath_prepend(str(REPO / "benchmarks"))
    spec = importlib.util.spec_from_file_location("benchmarks_vetting", REPO / "tools" / "vetting.py")
    assert spec is not None and spec.loader is not None
    vetting = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "benchmarks_vetting", vetting)
    spec.loader.exec_module(vetting)
    packaged = (REPO / "perturbations" / "data" / "vetted_synonyms-1.json").read_text(encoding="utf-8")
    assert vetting.table_text(*vetting.judgments()) == packaged
