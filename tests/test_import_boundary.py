"""Package boundaries, read from the source: what each package may import, and no import circle.

`retrieval/` is the engine and never imports discord or `bot/`; `config/` is settings only and
imports neither. Every import counts, also those under `if TYPE_CHECKING:` and inside functions:
a type-only import between two modules still ties them together for a reader and for the type
checker, and turns into a run-time circle the day someone moves it out of the guard.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("retrieval", "config", "bot")


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def _modules() -> dict[str, Path]:
    return {
        _module_name(path): path for package in PACKAGES for path in (ROOT / package).rglob("*.py")
    }


def _imported(name: str, path: Path) -> set[str]:
    """Every module name `path` imports (relative imports resolved), and for `from X import Y`
    also `X.Y`, which is a module when Y is a submodule."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            found.add(module)
            found |= {f"{module}.{alias.name}" for alias in node.names}
    return found


def _offenders(package: str, forbidden: set[str]) -> list[str]:
    return sorted(
        f"{name} imports {imported}"
        for name, path in _modules().items()
        if name.split(".")[0] == package
        for imported in _imported(name, path)
        if imported.split(".")[0] in forbidden
    )


def test_retrieval_never_imports_discord_or_bot() -> None:
    assert _offenders("retrieval", {"discord", "bot"}) == []


def test_the_shells_never_reach_into_the_stores() -> None:
    # bot/ gets rows and services from retrieval's feature modules, never from a backend.
    stores = sorted(
        f"{name} imports {imported}"
        for name, path in _modules().items()
        if name.split(".")[0] == "bot"
        for imported in _imported(name, path)
        if imported == "retrieval.stores" or imported.startswith("retrieval.stores.")
    )
    assert stores == []


def test_retrieval_reads_settings_through_one_door() -> None:
    # parameters.py turns Settings into the engine's options; the stores' opening reads the
    # database settings. No other engine module imports config.
    readers = {
        name
        for name, path in _modules().items()
        if name.split(".")[0] == "retrieval"
        and any(imported.split(".")[0] == "config" for imported in _imported(name, path))
    }
    assert readers <= {
        "retrieval.parameters",
        "retrieval.stores.opening",
        "retrieval.stores.postgres_connect",
    }, sorted(readers)


def test_config_imports_neither_the_engine_nor_the_bot() -> None:
    assert _offenders("config", {"discord", "bot", "retrieval"}) == []


def test_importing_the_engine_loads_no_discord() -> None:
    # The source check above misses what a third-party import pulls in; a fresh interpreter
    # does not.
    code = "import sys, retrieval.engine; print('discord' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"


def import_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every circle a depth-first walk of `graph` meets, each as the names around it."""
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
    return circles


def project_graph() -> dict[str, set[str]]:
    """Module -> the project modules it imports (type-only imports included). A package's
    __init__ importing its own submodules is how packages are built, not a circle."""
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        deps = set()
        for dep in _imported(name, path) & set(modules):
            # Importing a.b.c runs a/__init__ and a/b/__init__ first: those are edges too.
            parts = dep.split(".")
            deps |= {".".join(parts[:i]) for i in range(1, len(parts) + 1)}
        graph[name] = {
            dep for dep in deps & set(modules) if dep != name and not name.startswith(dep + ".")
        }
    return graph


def test_a_type_only_import_is_an_edge_and_its_circle_is_found(tmp_path: Path) -> None:
    # The reader and the detector on a circle like the one between the Discord shell's client.py
    # and views.py that this test was written for: views imported PaperBot for its annotations.
    views = tmp_path / "views.py"
    views.write_text(
        "from typing import TYPE_CHECKING\n"
        "from .. import text\n"
        "if TYPE_CHECKING:\n"
        "    from bot.discord_shell.client import PaperBot\n",
        encoding="utf-8",
    )
    assert {"bot.discord_shell.client", "bot.text"} <= _imported("bot.discord_shell.views", views)
    graph = {
        "bot.discord_shell.client": {"bot.discord_shell.views"},
        "bot.discord_shell.views": {"bot.discord_shell.client", "bot.text"},
        "bot.text": set(),
    }
    assert import_circles(graph) == [
        ["bot.discord_shell.client", "bot.discord_shell.views", "bot.discord_shell.client"]
    ]


def test_the_import_graph_has_no_circle() -> None:
    graph = project_graph()
    assert sum(map(len, graph.values())) > 100, "the imports were not read"
    assert import_circles(graph) == []
