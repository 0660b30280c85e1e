"""No import loop at run time between the platform's modules: a module never imports, directly or through others,
a module that imports it back. The graph (grimp) holds every import a module can run, inside functions too (an
import inside a function that closes a loop is still a loop, deferred); only imports under `if TYPE_CHECKING:`
are left out, since they never run.

Importing `a.b.c` runs `a/__init__.py` and `a/b/__init__.py` first, so an import of a module counts as an import
of its packages too, for a module outside them (a module inside a package is imported while its package is, and
re-exports from a package's __init__ of its own modules are not loops)."""
from __future__ import annotations

import importlib
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path

import grimp
import pytest

PACKAGES = tuple(tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text())
                 ["tool"]["importlinter"]["root_packages"])  # every package of the platform
ROOT = Path(__file__).resolve().parent.parent

# Loops that cannot be removed, each with its reason (module names, sorted). None today: keep it that way.
KNOWN_LOOPS: dict[tuple[str, ...], str] = {}

# The modules that import a `tasks` module: registering a capability folder's tasks when the app starts (Celery
# discovers the apps' own `tasks` modules only). Everything else queues a task by its name (mturk.jobs).
TASK_REGISTRATIONS = {"annotation.compositional.registrations", "annotation.ranking.registrations",
                      "evaluation.registrations"}


def ancestors(module: str) -> list[str]:
    parts = module.split(".")
    return [".".join(parts[:n]) for n in range(1, len(parts))]


def run_time_edges(graph: grimp.ImportGraph) -> dict[str, set[str]]:
    """Who imports whom when the code runs: the imports, and the packages each import runs first."""
    edges: dict[str, set[str]] = {module: set() for module in graph.modules}
    for module in graph.modules:
        for imported in graph.find_modules_directly_imported_by(module):
            edges[module].add(imported)
            own = set(ancestors(module)) | {module}
            edges[module].update(p for p in ancestors(imported) if p not in own and p in edges)
    return edges


def loops(edges: Mapping[str, Iterable[str]]) -> list[tuple[str, ...]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[tuple[str, ...]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(tuple(sorted(component)))
    return sorted(found)


def describe(loop: tuple[str, ...], edges: Mapping[str, Iterable[str]]) -> str:
    members = set(loop)
    lines = [f"{module} -> {imported}" for module in loop for imported in sorted(edges[module]) if imported in members]
    return "loop between " + ", ".join(loop) + ":\n    " + "\n    ".join(lines)


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    for package in PACKAGES:  # the graph is this checkout's code
        assert Path(importlib.import_module(package).__file__ or "").is_relative_to(ROOT), package
    return grimp.build_graph(*PACKAGES, exclude_type_checking_imports=True, cache_dir=None)


def test_no_import_loop_at_run_time(graph):
    edges = run_time_edges(graph)
    found = loops(edges)
    new = [loop for loop in found if loop not in KNOWN_LOOPS]
    assert not new, "import loops at run time (break them; a loop that cannot be broken goes into KNOWN_LOOPS " \
                    "with its reason):\n" + "\n".join(describe(loop, edges) for loop in new)
    gone = [loop for loop in KNOWN_LOOPS if loop not in found]
    assert not gone, f"these loops are gone, take them out of KNOWN_LOOPS: {gone}"


def test_only_registrations_import_a_tasks_module(graph):
    """Services, views and commands queue Celery work by the task's name: only the tasks modules import them."""
    importers = {module: sorted(graph.find_modules_that_directly_import(module))
                 for module in graph.modules if module.rsplit(".", 1)[-1] == "tasks"}
    assert importers, "no tasks module found: the graph is not the platform's"
    wrong = {module: sorted(set(names) - TASK_REGISTRATIONS) for module, names in importers.items()
             if set(names) - TASK_REGISTRATIONS}
    assert not wrong, f"modules importing a tasks module instead of queuing by task name: {wrong}"


def test_a_loop_is_found_and_named():
    """The finder itself: a loop through a third module, a package's re-export, and an import through a package."""
    edges = {"a.x": {"a.y"}, "a.y": {"b.z"}, "b.z": {"a.x"}, "a": {"a.x"}, "c": {"c.w"}, "c.w": set(), "d": set()}
    assert loops(edges) == [("a.x", "a.y", "b.z")]
    assert "b.z -> a.x" in describe(("a.x", "a.y", "b.z"), edges)

    implicit = grimp.ImportGraph()
    for module in ("p", "p.inner", "p.user", "q", "q.mod"):
        implicit.add_module(module)
    implicit.add_import(importer="p", imported="p.inner")  # p/__init__ re-exports p.inner
    implicit.add_import(importer="p.inner", imported="q.mod")
    implicit.add_import(importer="q.mod", imported="p.user")  # runs p/__init__ first, which imports p.inner
    assert loops(run_time_edges(implicit)) == [("p", "p.inner", "q.mod")]
