"""docs/layout.md, the tree as a newcomer reads it, names every module of both packages and nothing that is gone."""

from __future__ import annotations

import re
from pathlib import Path

from rqa_tree import REPO, tracked_files

LAYOUT = REPO / "docs" / "layout.md"


def _modules(*folders: str) -> list[Path]:
    """The tracked Python files under `folders` (the whole repository when none), relative to it."""
    found = [p.relative_to(REPO) for p in tracked_files() if p.suffix == ".py"]
    return [p for p in found if not folders or p.parts[0] in folders]


def test_every_module_and_folder_of_both_packages_is_in_the_layout() -> None:
    text = LAYOUT.read_text(encoding="utf-8")
    named = set(re.findall(r"`([\w/.]+)`", text))
    shown = {Path(n).name for n in named} | {Path(n).name for n in (t.rstrip("/") for t in named)}
    missing = []
    for module in _modules("perturbations", "robustqa"):
        folder = module.parent
        if folder != Path(module.parts[0]) and f"{folder.name}/" not in text:
            missing.append(f"{folder}/")
        subpackage_init = module.name == "__init__.py" and len(module.parts) > 2
        if not subpackage_init and module.name not in shown:
            missing.append(str(module))
    assert not missing, f"docs/layout.md does not name: {sorted(set(missing))}"


def test_the_layout_names_no_module_that_is_gone() -> None:
    names = {p.name for p in _modules()}
    gone = [
        n for n in re.findall(r"`([\w/]*?\w+\.py)`", LAYOUT.read_text(encoding="utf-8")) if Path(n).name not in names
    ]
    assert not gone, f"docs/layout.md names modules that do not exist: {gone}"
