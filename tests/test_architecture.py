"""The layout's rules, checked on the source (docs/architecture.md): `emulator/` imports nothing of the others,
and no import cycle joins modules of different top-level packages (the CLI, the composition root, may import
them all). Every import counts, also those inside functions."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("harness", "agents", "tasks", "emulator")
COMPOSITION_ROOT = ("harness.cli",)  # may import everything; nothing imports it but `harness.__main__`


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path, modules: set[str]) -> set[str]:
    """Project modules imported by `path` (absolute and relative, anywhere in the file)."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            targets = [f"{base}.{a.name}" for a in node.names] + [base]
        for t in targets:
            while t and t not in modules:  # `from pkg import name`: the module itself, or its package
                t = t.rpartition(".")[0]
            if t and t != name:
                out.add(t)
    return out


def _graph() -> dict[str, set[str]]:
    files = [p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")]
    modules = {_module_name(p) for p in files}
    return {_module_name(p): _imports(p, modules) for p in files}


def _top(module: str) -> str:
    return module.split(".")[0]


def _is_root(module: str) -> bool:
    return any(module == r or module.startswith(r + ".") for r in COMPOSITION_ROOT) or module == "harness.__main__"


def _cross_package_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components (Tarjan) holding modules of more than one top-level package."""
    graph = {m: {d for d in deps if not _is_root(d)} for m, deps in graph.items() if not _is_root(m)}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len({_top(m) for m in comp}) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_emulator_imports_nothing_of_the_harness_agents_or_tasks():
    graph = _graph()
    bad = sorted((m, d) for m, deps in graph.items() if _top(m) == "emulator" for d in deps if _top(d) != "emulator")
    assert not bad, f"emulator/ is the lowest floor; these imports reach up: {bad}"


def test_no_import_cycle_between_top_level_packages():
    cycles = _cross_package_cycles(_graph())
    assert not cycles, f"import cycles across packages: {cycles}"


@pytest.mark.parametrize("case", ["upward", "cycle"])
def test_the_checks_catch_what_they_claim(case):
    """The two rules above, fed a graph that breaks them, fail (so a pass means something)."""
    if case == "upward":
        graph = {"emulator.virtual.model": {"harness.actions"}, "harness.actions": set()}
        assert [(m, d) for m, deps in graph.items() if _top(m) == "emulator" for d in deps if _top(d) != "emulator"]
    else:
        graph = {"harness.run.episode": {"agents.base"}, "agents.base": {"harness.run.episode"},
                 "harness.cli.main": {"agents.base", "harness.run.episode"}}
        assert _cross_package_cycles(graph) == [["agents.base", "harness.run.episode"]]
