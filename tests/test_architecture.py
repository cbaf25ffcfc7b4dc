"""The architecture as tests: import direction (ops <- framework <- executor/engine <- public
API), no import cycles inside the core packages, one owner of the protobuf module, the file
size budget, and a packaging list that covers every package (so a wheel holds the layout)."""
from __future__ import annotations

import ast
import re
import subprocess
import tomllib
from pathlib import Path

import pytest

from shared_fixtures import REPO_ROOT

# source folder -> (installed package, layer); a module may import only its layer or below
LAYERS = {"ops": ("pyfluid.ops", 0), "proto": ("pyfluid.proto", 0),
          "framework": ("pyfluid.framework", 1),
          "executor": ("pyfluid.executor", 2), "engine": ("pyfluid.engine", 2),
          "pyfluid": ("pyfluid", 3)}
MAX_LINES = 400


def _modules() -> dict[str, Path]:
    modules = {}
    for folder, (package, _) in LAYERS.items():
        for path in sorted((REPO_ROOT / folder).rglob("*.py")):
            rel = path.relative_to(REPO_ROOT / folder).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            modules[".".join([package, *parts])] = path
    return modules


MODULES = _modules()


def _layer(module: str) -> tuple[str, int]:
    """(top-level source folder, layer) of an installed module name."""
    best = max((p for p, _ in LAYERS.values() if module == p or module.startswith(p + ".")),
               key=len)
    folder = next(f for f, (p, _) in LAYERS.items() if p == best)
    return folder, LAYERS[folder][1]


def _imports(module: str, path: Path) -> set[str]:
    """Modules of pyfluid that ``module`` imports at run time (function-level imports
    included, ``if TYPE_CHECKING:`` blocks excluded)."""
    tree = ast.parse(path.read_text())
    typing_only = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If)
                   and getattr(node.test, "id", getattr(node.test, "attr", "")) == "TYPE_CHECKING"
                   for n in ast.walk(node)}
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")
            base = base[:len(base) - node.level + 1] if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            for alias in node.names:
                full = f"{target}.{alias.name}"
                found.add(full if full in MODULES else target)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {m for m in found if m in MODULES and m != module}


GRAPH = {m: _imports(m, p) for m, p in MODULES.items()}


def test_imports_go_one_way():
    wrong = []
    for module, deps in GRAPH.items():
        folder, layer = _layer(module)
        for dep in deps:
            dep_folder, dep_layer = _layer(dep)
            sideways = layer == dep_layer and folder != dep_folder
            if dep_layer > layer or sideways:
                wrong.append(f"{module} imports {dep}")
    assert not wrong, "imports against ops <- framework <- executor/engine <- API:\n" + \
        "\n".join(sorted(wrong))


def _cycles(nodes: set[str]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in GRAPH[v] & nodes:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return found


@pytest.mark.parametrize("folder", ["ops", "framework", "executor"])
def test_no_import_cycles_in_core_packages(folder):
    package = LAYERS[folder][0]
    nodes = {m for m in MODULES if m == package or m.startswith(package + ".")}
    assert _cycles(nodes) == []


def test_only_serialize_imports_the_protobuf_module():
    users = sorted(m for m, deps in GRAPH.items()
                   if any(d.startswith("pyfluid.proto") for d in deps)
                   and not m.startswith("pyfluid.proto"))
    assert users == ["pyfluid.framework.serialize"]


def test_files_keep_the_size_budget():
    over = {str(p.relative_to(REPO_ROOT)): n for p in MODULES.values()
            if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert not over, f"files over {MAX_LINES} lines (split them by concept): {over}"


def test_no_accretion_file_names():
    bad = [str(p.relative_to(REPO_ROOT)) for p in MODULES.values()
           if re.search(r"_(extra|more|misc|utils2)\.py$", p.name)]
    assert not bad


def test_pyproject_packages_cover_every_package():
    config = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    packages = {m for m, p in MODULES.items() if p.name == "__init__.py"}
    assert packages == listed, f"missing from pyproject: {sorted(packages - listed)}; " \
                               f"listed but absent: {sorted(listed - packages)}"
    assert {k: v for k, v in config["package-dir"].items()} == {
        package: folder for folder, (package, _) in LAYERS.items() if folder != "pyfluid"} | {
        "pyfluid": "pyfluid"}


def test_no_absolute_machine_paths_in_the_repository():
    files = subprocess.run(["git", "ls-files"], cwd=REPO_ROOT, capture_output=True, text=True)
    if files.returncode != 0:
        pytest.skip("not a git checkout")
    pattern = re.compile(r"(?<![\w.])/(work|home|root|Users|mnt)/[\w.-]+")
    hits = []
    for name in files.stdout.split():
        path = REPO_ROOT / name
        if path.suffix in {".py", ".md", ".toml", ".txt", ".cfg", ".json", ""} and path.is_file():
            text = path.read_text(errors="ignore")
            hits += [f"{name}: {m.group(0)}" for m in pattern.finditer(text)]
    assert not hits, hits
