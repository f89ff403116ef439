"""The engine never imports discord: checked on the source and in a fresh interpreter."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_no_retrieval_module_imports_discord_or_bot() -> None:
    offenders = []
    for path in sorted((ROOT / "retrieval").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [
                f"{path.name}: {n}" for n in names if n.split(".")[0] in {"discord", "bot"}
            ]
    assert offenders == []


def test_importing_the_engine_loads_no_discord() -> None:
    code = "import sys, retrieval.engine; print('discord' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _runtime_imports(path: Path, known: set[str]) -> set[str]:
    """Project modules `path` imports at run time (imports under `if TYPE_CHECKING:` are for
    the type checker only and cannot form a run-time circle)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {
        id(child)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for child in ast.walk(node)
    }
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        found |= {name for name in names if name in known}
    return found


def test_the_import_graph_has_no_circle() -> None:
    paths = {
        _module_name(path): path
        for package in ("retrieval", "config", "bot")
        for path in (ROOT / package).rglob("*.py")
    }
    known = set(paths)
    graph = {name: _runtime_imports(path, known) - {name} for name, path in paths.items()}
    # A package's __init__ importing its own submodules is how packages are built, not a circle.
    for name in graph:
        graph[name] = {dep for dep in graph[name] if not dep.startswith(name + ".")}
    circles: list[list[str]] = []
    state: dict[str, int] = {}

    def visit(name: str, trail: list[str]) -> None:
        state[name] = 1
        for dep in sorted(graph[name]):
            if state.get(dep) == 1:
                circles.append([*trail[trail.index(dep) :], dep])
            elif dep not in state:
                visit(dep, [*trail, dep])
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    assert circles == []
