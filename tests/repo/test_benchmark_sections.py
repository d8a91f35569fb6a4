"""docs/benchmarks.md is written by the benchmark scripts: each rewrites its own section, nothing else."""

from __future__ import annotations

import importlib.util
import os
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPTS = sorted(p for p in (REPO / "benchmarks").glob("*.py") if not p.name.startswith("_"))


def _common():
    spec = importlib.util.spec_from_file_location("benchmarks_common", REPO / "benchmarks" / "_common.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_every_benchmark_script_writes_its_section(script: Path) -> None:
    assert "with recorded(__file__)" in script.read_text(encoding="utf-8")


def test_every_benchmark_has_its_section_in_the_document() -> None:
    document = (REPO / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    missing = [
        s.stem
        for s in SCRIPTS
        if f"<!-- benchmark:{s.stem} -->" not in document or f"<!-- /benchmark:{s.stem} -->" not in document
    ]
    assert not missing, f"run these benchmarks to write their sections: {missing}"


def test_a_section_is_rewritten_in_place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    common = _common()
    doc = tmp_path / "benchmarks.md"
    doc.write_text(
        "# Benchmarks\n\nhand-written intro\n\n<!-- benchmark:b -->\nold b\n<!-- /benchmark:b -->\n\ntail\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(common, "DOC", doc)
    script = tmp_path / "a.py"
    script.write_text('"""Measures a.\n\nMore."""\n', encoding="utf-8")
    common.write_section(
        str(script), f"input: {REPO.parent}/shared/x.json\n", argv=["--repeats", "1"], load_before=1.0, seconds=2.0
    )
    (tmp_path / "b.py").write_text('"""Measures b."""\n', encoding="utf-8")
    common.write_section(str(tmp_path / "b.py"), "new b\n", argv=[], load_before=1.0, seconds=2.0)
    text = doc.read_text(encoding="utf-8")
    assert text.startswith("# Benchmarks\n\nhand-written intro\n\n<!-- benchmark:b -->\n### `b.py`")
    assert "new b" in text and "old b" not in text and "\ntail\n" in text
    assert (
        "Measures a." in text and "input: ../shared/x.json" in text and "`python benchmarks/a.py --repeats 1`" in text
    )
    common.write_section(str(script), "again\n", argv=[], load_before=1.0, seconds=2.0)
    assert doc.read_text(encoding="utf-8").count("<!-- benchmark:a -->") == 1 and "again" in doc.read_text(
        encoding="utf-8"
    )


def test_portable_hides_machine_folders() -> None:
    common = _common()
    tmp = Path(tempfile.gettempdir())
    text = f"{REPO}/docs {REPO.parent}/shared {tmp}/robustqa-x/a.json {Path.home()}/.cache {os.sep}workspace"
    assert common.portable(text) == f"./docs ../shared <tmp>/robustqa-x/a.json ~/.cache {os.sep}workspace"
