"""The package's import graph: rooms (top-level modules and folders) stacked in layers, imports only downward.

Every import counts, including those inside functions (a lazy import is still a dependency; hiding a cycle
in a function is how cycles grew here before), those only for type checking, and a module's name given to
importlib as a string (``"judgebox.backends.ray:RayJudge"``, as the backends table names them). A room may
import its own layer's other rooms, but no two rooms may import each other, directly or round a circle, and
no module imports a room of a higher layer. ``docs/architecture.md`` explains the layers.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

import judgebox

PACKAGE = Path(judgebox.__file__).parent

# Bottom up. A room is a top-level module or folder of the package.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors", "verdicts", "version"),
    ("types", "callers"),
    ("backend",),
    ("sandbox",),
    ("languages",),
    ("checkers",),
    ("wire",),
    ("judging",),
    ("datasets",),
    ("client",),
    ("backends",),
    ("presets",),
    ("rewards",),
    ("verl", "trl", "openrlhf"),
    ("server",),
    ("tools",),
    ("__init__",),
)
LAYER = {room: level for level, rooms in enumerate(LAYERS) for room in rooms}
MODULE_PATH = re.compile(r"judgebox(\.\w+)+:\w+")  # "module:name", as the backends table names them
# The zygote's own copy of sandbox/inside runs under another package name, so it imports itself relatively;
# relative imports are resolved below like any other.


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path: Path) -> set[str]:
    """The judgebox modules (or packages) ``path`` imports, wherever in the file."""
    name = module_name(path)
    here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target == "judgebox" or target.startswith("judgebox."):
                # ``from judgebox.x import y`` depends on judgebox.x.y when that is a module, else on judgebox.x
                for alias in node.names:
                    found.add(f"{target}.{alias.name}" if _is_module(f"{target}.{alias.name}") else target)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.split(".")[0] == "judgebox")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and MODULE_PATH.fullmatch(node.value):
            found.add(node.value.partition(":")[0])  # a module named to importlib (the backends' table)
    return found


def _is_module(name: str) -> bool:
    path = PACKAGE.parent.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def room(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def room_edges() -> dict[tuple[str, str], list[str]]:
    """(importer's room, imported room) -> the importing modules, for every import across rooms."""
    edges: dict[tuple[str, str], list[str]] = defaultdict(list)
    for path in sorted(PACKAGE.rglob("*.py")):
        source = module_name(path)
        for target in imports(path):
            if target == "judgebox":
                target = "judgebox.__init__"
            if room(source) != room(target):
                edges[room(source), room(target)].append(f"{source} -> {target}")
    return edges


def test_every_room_has_a_layer() -> None:
    rooms = {room(module_name(path)) for path in PACKAGE.rglob("*.py")}
    assert rooms - set(LAYER) == set(), "a new room needs its place in LAYERS (and in docs/architecture.md)"
    assert set(LAYER) - rooms == set(), "LAYERS names a room that is gone"


def test_no_room_imports_a_layer_above_its_own() -> None:
    upward = [line for (importer, imported), lines in room_edges().items()
              if LAYER[imported] > LAYER[importer] for line in lines]
    assert upward == []


def test_no_two_rooms_import_each_other() -> None:
    edges = room_edges()
    graph: dict[str, set[str]] = defaultdict(set)
    for importer, imported in edges:
        graph[importer].add(imported)
    circles = []
    for start in sorted(graph):
        # a path back to start through rooms of the same layer (imports across layers only go down)
        stack = [(start, [start])]
        while stack:
            node, path = stack.pop()
            for nxt in sorted(graph[node]):
                if nxt == start:
                    circles.append(" -> ".join([*path, start]))
                elif nxt not in path:
                    stack.append((nxt, [*path, nxt]))
    assert circles == []


def test_no_module_cycles() -> None:
    """Within a room too: no two modules import each other, directly or round a circle, not even for their
    annotations (a type two modules need is a seam of its own: ``languages/spec.py``'s harness records,
    ``sandbox/inside/split/peer.py``)."""
    graph = {module_name(path): imports(path) for path in PACKAGE.rglob("*.py")}
    done: set[str] = set()
    circles: list[str] = []

    def visit(node: str, path: list[str]) -> None:
        for nxt in sorted(graph.get(node, ())):
            if nxt in path:
                circles.append(" -> ".join([*path[path.index(nxt):], nxt]))
            elif nxt not in done:
                visit(nxt, [*path, nxt])
        done.add(node)

    for start in sorted(graph):
        if start not in done:
            visit(start, [start])
    assert circles == []
