"""Architecture §2: the engine is pure — no Django/Celery/project imports, no clock, no global randomness,
no OS access. (import-linter enforces the package boundary too; this test reads every engine module.)"""

from __future__ import annotations

import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "games" / "engine"
FORBIDDEN = {"random", "time", "datetime", "uuid", "os", "django", "celery", "redis", "secrets", "socket"}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_engine_imports_nothing_forbidden() -> None:
    """Architecture §2: no random, time, datetime, uuid, os, Django or Celery in games/engine."""
    modules = sorted(ENGINE.rglob("*.py"))
    assert len(modules) >= 8
    for path in modules:
        bad = _imports(path) & FORBIDDEN
        assert not bad, f"{path.name} imports {sorted(bad)}"


def test_engine_imports_only_itself_within_the_project() -> None:
    """Architecture §1: games.engine never imports the rest of the project (games.models, views, ...)."""
    for path in sorted(ENGINE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                assert not node.module.startswith("games.") or node.module.startswith("games.engine"), (
                    f"{path.name} imports {node.module}"
                )


def test_purity_check_catches_a_forbidden_import(tmp_path: Path) -> None:
    """The scanner itself works: a module importing ``random`` is caught."""
    bad = tmp_path / "bad.py"
    bad.write_text("import random\nfrom datetime import date\nimport os.path\n", encoding="utf-8")
    assert _imports(bad) & FORBIDDEN == {"random", "datetime", "os"}
