"""No runtime import cycle among the modules of `robustqa/` and `perturbations/`, none among their folders,
and the engine imports nothing of the application.

The graph is read from the source (AST), so it sees imports inside functions as well as at the top, and
leaves out those under `if TYPE_CHECKING:` (they never run). Importing `a.b.c` runs the packages `a` and
`a.b` first, so an import also depends on the `__init__` of every package above its target (except the
importer's own packages, which are already running).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("robustqa", "perturbations")


def module_files(root: Path, packages: tuple[str, ...]) -> dict[str, Path]:
    modules = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    return modules


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imported_names(tree: ast.AST, module: str, is_package: bool, *, runtime_only: bool) -> set[str]:
    """Dotted names this module imports (a `from m import x` gives both `m` and `m.x`)."""
    package = module if is_package else module.rpartition(".")[0]
    names: set[str] = set()

    def visit(node: ast.AST) -> None:
        if runtime_only and isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            target = ".".join(p for p in ((base if node.level else ""), node.module or "") if p)
            names.add(target)
            names.update(f"{target}.{alias.name}" for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return names


def import_graph(
    root: Path = REPO, packages: tuple[str, ...] = PACKAGES, *, runtime_only: bool = True
) -> dict[str, set[str]]:
    """module -> the modules of `packages` that importing it runs first."""
    modules = module_files(root, packages)
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        own_packages = {".".join(module.split(".")[:i]) for i in range(1, module.count(".") + 2)}
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        edges: set[str] = set()
        for name in _imported_names(tree, module, path.name == "__init__.py", runtime_only=runtime_only):
            parts = name.split(".")
            for i in range(1, len(parts) + 1):
                target = ".".join(parts[:i])
                if target in modules and target not in own_packages:
                    edges.add(target)
        edges.discard(module)
        graph[module] = edges
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                connect(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return found


def a_cycle(graph: dict[str, set[str]], component: list[str]) -> list[str]:
    """One concrete loop through a component, for the failure message."""
    members = set(component)
    path = [component[0]]
    while True:
        following = sorted(graph[path[-1]] & members)
        step = next((m for m in following if m == component[0] or m not in path), following[0])
        path.append(step)
        if step in path[:-1]:
            return path[path.index(step) :]


@pytest.mark.parametrize("package", PACKAGES)
def test_no_runtime_import_cycle(package: str) -> None:
    graph = import_graph()
    touching = [c for c in cycles(graph) if any(m == package or m.startswith(package + ".") for m in c)]
    assert not touching, "runtime import cycles: " + "; ".join(" -> ".join(a_cycle(graph, c)) for c in touching)


def test_engine_imports_nothing_of_the_application() -> None:
    graph = import_graph(runtime_only=False)  # TYPE_CHECKING imports count too
    offending = {
        m: sorted(t for t in targets if t.split(".")[0] == "robustqa")
        for m, targets in graph.items()
        if m.split(".")[0] == "perturbations"
    }
    assert not {m: t for m, t in offending.items() if t}


def test_the_graph_sees_function_level_imports_and_skips_type_checking(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import c\n\n"
        "def f():\n    from pkg.b import g\n"
    )
    (package / "b.py").write_text("import pkg.sub.d\n")
    (package / "c.py").write_text("from . import a\n")
    (package / "sub" / "__init__.py").write_text("from pkg import a\n")
    (package / "sub" / "d.py").write_text("")
    graph = import_graph(tmp_path, ("pkg",))
    assert graph["pkg.a"] == {"pkg.b"}  # the function-level import, not the TYPE_CHECKING one
    assert graph["pkg.b"] == {"pkg.sub", "pkg.sub.d"}  # importing pkg.sub.d runs pkg/sub/__init__ first
    assert cycles(graph) == [["pkg.a", "pkg.b", "pkg.sub"]]
    assert import_graph(tmp_path, ("pkg",), runtime_only=False)["pkg.a"] == {"pkg.b", "pkg.c"}


@pytest.mark.parametrize("folder", ["benchmarks", "tools"])
def test_no_script_imports_another(folder: str) -> None:
    """A script measures (benchmarks/) or builds shipped data (tools/); what scripts share lives in a helper
    module (benchmarks/_common.py, _wsd.py) or in the packages, never in another script."""
    scripts = {
        path.stem: path for path in (REPO / folder).glob("*.py") if not path.stem.startswith("_")
    }  # _common, _wsd: helpers
    offending = {}
    for name, path in scripts.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = _imported_names(tree, name, False, runtime_only=False)
        others = sorted({n.split(".")[0] for n in imported} & (set(scripts) - {name}))
        if others:
            offending[name] = others
    assert not offending, f"{folder} scripts importing other scripts: {offending}"


def test_the_packages_import_without_torch_or_transformers() -> None:
    """Nothing imports torch or transformers at import time: the engine never needs them, and robustqa loads
    them only when a model runs."""
    import subprocess
    import sys

    code = (
        "import sys, perturbations, robustqa, robustqa.cli, robustqa.evaluation.run, robustqa.reporting.tables, "
        "robustqa.reporting.charts\n"
        "heavy = sorted(m for m in ('torch', 'transformers') if m in sys.modules)\n"
        "print(','.join(heavy))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert done.stdout.strip() == "", f"imported at import time: {done.stdout.strip()}"


def test_no_import_cycle_even_for_type_checking() -> None:
    """Not even an annotation-only import closes a loop (engine ↔ recipes, runs ↔ reporting): the layers
    hold for a reader and a type checker too, not only at run time (lazy imports inside functions count)."""
    graph = import_graph(runtime_only=False)
    found = cycles(graph)
    assert not found, "import cycles counting TYPE_CHECKING imports: " + "; ".join(
        " -> ".join(a_cycle(graph, c)) for c in found
    )


# The folders of the application, lowest first: a folder imports only folders before it (and its own modules).
# review/ certifies a set and knows nothing of runs; reporting/ renders finished runs (the transfer matrix
# included) and reads review status; evaluation/ runs models and writes the run folder with its report;
# attack/ searches with a model and reports what it found; cli/ is above everything.
LAYERS = (
    "robustqa",
    "robustqa.hf_metric",
    "robustqa.hf_metric.robustqa_squad",
    "robustqa.importers",
    "robustqa.runs",
    "robustqa.review",
    "robustqa.reporting",
    "robustqa.evaluation",
    "robustqa.attack",
    "robustqa.training",  # --adversarial trains on what the attack flips
    "robustqa.cli",
)


def folder_of(module: str, modules: dict[str, Path]) -> str:
    """The folder (as a dotted package) a module's file is in. The engine's `constraints/` counts as the
    engine itself: it splits the constraint classes by kind, between the engine's lower modules (records,
    lexicon) and its upper ones (transformations, engine), an order the module-level test checks."""
    folder = ".".join(modules[module].relative_to(REPO).parent.parts)
    return "perturbations" if folder.startswith("perturbations") else folder


def folder_graph(root: Path = REPO, packages: tuple[str, ...] = PACKAGES) -> dict[str, set[str]]:
    """folder -> the other folders its modules import (TYPE_CHECKING and function-level imports count)."""
    modules = module_files(root, packages)
    graph: dict[str, set[str]] = {}
    for module, targets in import_graph(root, packages, runtime_only=False).items():
        here = folder_of(module, modules)
        graph.setdefault(here, set()).update(folder_of(t, modules) for t in targets)
        graph[here].discard(here)
    return graph


def test_no_import_cycle_among_folders() -> None:
    """The module test misses a loop through two folders made of different modules (reporting -> attack's
    transfer matrix while attack's writer imports reporting); this one does not."""
    graph = folder_graph()
    found = cycles(graph)
    assert not found, "import cycles among folders: " + "; ".join(" -> ".join(a_cycle(graph, c)) for c in found)


def test_every_folder_imports_only_the_layers_below_it() -> None:
    graph = folder_graph()
    application = {folder for folder in graph if folder.split(".")[0] == "robustqa"}
    assert application == set(LAYERS), f"folders not placed in LAYERS: {sorted(application ^ set(LAYERS))}"
    upward = {
        folder: sorted(t for t in targets if t in LAYERS and LAYERS.index(t) > LAYERS.index(folder))
        for folder, targets in graph.items()
        if folder in LAYERS
    }
    assert not {f: t for f, t in upward.items() if t}, f"imports of a higher layer: {upward}"


def test_library_code_imports_nothing_of_the_command_line() -> None:
    """Only the CLI prints and parses flags: no folder but cli/ imports it (a command borrowing another
    command's module for library logic is the smell this catches inside cli/ as well)."""
    graph = import_graph(runtime_only=False)
    offending = {m: sorted(t for t in ts if t.startswith("robustqa.cli")) for m, ts in graph.items()}
    outside = {m: t for m, t in offending.items() if t and not m.startswith("robustqa.cli")}
    assert not outside, f"library modules importing the CLI: {outside}"
    commands = {m for m in graph if m.startswith("robustqa.cli.") and m.endswith(("_cmd", "_cmds"))}
    borrowed = {m: sorted(t for t in graph[m] if t in commands) for m in commands}
    assert not {m: t for m, t in borrowed.items() if t}, f"command modules importing one another: {borrowed}"


def test_the_folder_graph_finds_a_loop_through_two_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "pkg"
    for sub in ("a", "b"):
        (package / sub).mkdir(parents=True)
        (package / sub / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "a" / "one.py").write_text("from pkg.b import two\n")
    (package / "a" / "three.py").write_text("")
    (package / "b" / "two.py").write_text("def f():\n    from pkg.a import three\n")
    monkeypatch.setattr(sys.modules[__name__], "REPO", tmp_path)
    graph = folder_graph(tmp_path, ("pkg",))
    assert graph["pkg.a"] == {"pkg.b"} and graph["pkg.b"] == {"pkg.a"}
    assert cycles(graph) == [["pkg.a", "pkg.b"]]  # no module cycle: one -> two -> three
    assert not cycles(import_graph(tmp_path, ("pkg",)))


def test_the_engine_knows_no_family_of_transformations() -> None:
    """The engine asks the recipe's `Transformation`; WordNet, WSD and every family's module stay behind it, so
    a new family (an embedding's neighbours) is one new module and no edit of engine.py."""
    families = {"lexicon", "wsd", "wordnet_facts", "synonyms", "vetted", "spelling", "store"}
    imported = import_graph(runtime_only=False)["perturbations.engine"]
    assert not {m for m in imported if m.removeprefix("perturbations.") in families}
