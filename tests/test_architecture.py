"""issue 13 "Layers without cycles": no import cycle anywhere in ``games/``, ``accounts/`` or ``mastery/``
(module level or not), no project import inside a function (but Django's ``AppConfig.ready``, where apps
must be loaded first), and no import of another module's private (``_name``) names. The layer order itself
is import-linter's ``layers`` contract (``pyproject.toml``), run by ``make lint``."""

from __future__ import annotations

import ast
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("games", "accounts", "mastery", "anarchy", "tournaments")

#: Function-level project imports allowed, as (file, function): Django loads apps before ``ready`` runs.
READY_IMPORTS = {("games/apps.py", "_sweep_forever"), ("games/apps.py", "ready")}


def _sources() -> list[Path]:
    return sorted(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py") if "migrations" not in p.parts)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan), or a module importing itself."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1 or node in graph.get(node, ()):
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycle() -> None:
    imports = grimp.build_graph(*PACKAGES)
    graph = {
        m: {
            d
            for d in imports.find_modules_directly_imported_by(m)
            if d.split(".")[0] in PACKAGES and not m.startswith(d + ".")  # a package's own parent
        }
        for m in imports.modules
        if m.split(".")[0] in PACKAGES
    }
    assert len(graph) > 50
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def _project(module: str | None) -> bool:
    return module is not None and module.split(".")[0] in PACKAGES


def test_no_function_level_project_imports() -> None:
    found = []
    for path in _sources():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for func in ast.walk(tree):
            if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(func):
                if not isinstance(node, ast.Import | ast.ImportFrom):
                    continue
                relative = isinstance(node, ast.ImportFrom) and node.level > 0
                names = [node.module] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
                if relative or any(_project(n) for n in names):
                    where = (str(path.relative_to(ROOT)), func.name)
                    if where not in READY_IMPORTS:
                        found.append(f"{where[0]}:{node.lineno} in {func.name}")
    assert found == []


def test_no_imports_of_private_names_across_modules() -> None:
    found = []
    for path in _sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (_project(node.module) or node.level > 0):
                private = [
                    a.name for a in node.names if a.name.startswith("_") and not a.name.startswith("__")
                ]
                if private:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} imports {private}")
    assert found == []
