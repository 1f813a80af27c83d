"""The layout's rules, checked on the source (docs/architecture.md). Every import counts, also those inside
functions and under `if TYPE_CHECKING:`. Each rule is also fed input that breaks it, to show it can fail.

- `emulator/` imports nothing of the others, and has no import circle among its own modules.
- Agents are plug-ins: no module of harness/ imports agents/ or names an `agents.` module in a string; the
  built-in agents are found through the `droidharness.agents` / `droidharness.qa_agents` entry points.
- The core floor: the modules directly in harness/ import only each other.
- No import circle among the modules of harness/, agents/ and tasks/ - inside a package too (a circle means the cut
  is wrong: the shared piece moves down).
- Layers: agents/ and tasks/ import nothing of harness.run, harness.eval, harness.cli; tasks/ nothing of agents/;
  harness/run's parts bottom up (judge, loop, fleet, orchestration, authoring); along the data's way,
  harness.trajectory imports nothing of scoring / report / run / eval / cli, harness.scoring nothing of report /
  run / eval / cli, harness.report nothing of run / eval / cli (the CLI, the composition root, may import
  everything).
- No private name (`_x`) of one module is imported by another, in the packages and bench/.
- Size: no module over 600 lines in harness/, agents/, tasks/; over 700 in emulator/.
- One redaction (harness.scrub), one task checker (element matching in tasks.matching alone), no definition that
  nothing uses.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

# one worker runs these checks (`make test`: --dist loadgroup): each worker parses the tree it runs them on
pytestmark = pytest.mark.xdist_group("architecture")
ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("harness", "agents", "tasks", "emulator")
NO_CIRCLES = ("harness", "agents", "tasks")
PRIVATE_CHECKED = ("harness", "agents", "tasks", "emulator", "bench")
COMPOSITION_ROOT = ("harness.cli",)  # may import everything; nothing imports it but `harness.__main__`


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


_TREES: dict[str, ast.Module] = {}  # source text -> its syntax tree


def _parse(source: str, filename: str = "<unknown>") -> ast.Module:
    """The syntax tree of a source text, parsed once per session: the checks below read the same files many times
    (a parse of the whole tree costs seconds); the trees are only read, never changed."""
    tree = _TREES.get(source)
    if tree is None:
        tree = _TREES[source] = ast.parse(source, filename)
    return tree


def _imports(path: Path, modules: set[str]) -> set[str]:
    """Project modules imported by `path` (absolute and relative, anywhere in the file)."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(_parse(path.read_text(encoding="utf-8"), str(path))):
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
    """Each project module -> the project modules it imports (a fresh copy: a check may add an edge to it)."""
    return {m: set(deps) for m, deps in _tree_graph().items()}


@functools.cache
def _tree_graph() -> dict[str, frozenset[str]]:
    """The import graph of the tree as it is, built once per session (several checks read it)."""
    files = [p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")]
    modules = {_module_name(p) for p in files}
    return {_module_name(p): frozenset(_imports(p, modules)) for p in files}


def _top(module: str) -> str:
    return module.split(".")[0]


def _is_root(module: str) -> bool:
    return any(module == r or module.startswith(r + ".") for r in COMPOSITION_ROOT) or module == "harness.__main__"


def _components(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan): every import circle, each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
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
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def _cross_package_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Import circles holding modules of more than one top-level package (the composition root left out)."""
    graph = {m: {d for d in deps if not _is_root(d)} for m, deps in graph.items() if not _is_root(m)}
    return [c for c in _components(graph) if len({_top(m) for m in c}) > 1]


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
        graph = {
            "harness.run.loop.episode": {"agents.base"},
            "agents.base": {"harness.run.loop.episode"},
            "harness.cli.main": {"agents.base", "harness.run.loop.episode"},
        }
        assert _cross_package_cycles(graph) == [["agents.base", "harness.run.loop.episode"]]


def _circles(graph: dict[str, set[str]], tops: tuple[str, ...] = NO_CIRCLES) -> list[list[str]]:
    """Every import circle among modules of `tops`, inside a package too."""
    return _components({m: {d for d in deps if _top(d) in tops} for m, deps in graph.items() if _top(m) in tops})


# (importer prefix, forbidden import prefixes): what lies above the importer
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "agents",
        ("harness.run", "harness.eval", "harness.cli", "harness.report", "harness.scoring", "harness.trajectory"),
    ),
    (
        "tasks",
        (
            "harness.run",
            "harness.eval",
            "harness.cli",
            "harness.report",
            "harness.scoring",
            "harness.trajectory",
            "agents",
        ),
    ),
    # harness/run's parts, bottom up: judge, loop, fleet (beside them), orchestration, authoring
    (
        "harness.run.judge",
        ("harness.run.loop", "harness.run.fleet", "harness.run.orchestration", "harness.run.authoring"),
    ),
    ("harness.run.loop", ("harness.run.fleet", "harness.run.orchestration", "harness.run.authoring")),
    (
        "harness.run.fleet",
        ("harness.run.judge", "harness.run.loop", "harness.run.orchestration", "harness.run.authoring"),
    ),
    ("harness.run.orchestration", ("harness.run.authoring",)),
    # an outside suite's adapter: above the device and the loop (whose OutsideJudge it implements), below the
    # orchestration that runs it and the CLI that builds it; nothing below imports it
    ("harness.run", ("harness.androidworld",)),
    (
        "harness.androidworld",
        ("harness.run.orchestration", "harness.run.fleet", "harness.run.authoring", "harness.cli", "harness.eval"),
    ),
    (
        "harness.trajectory",
        ("harness.scoring", "harness.report", "harness.run", "harness.eval", "harness.cli", "harness.androidworld"),
    ),
    ("harness.scoring", ("harness.report", "harness.run", "harness.eval", "harness.cli", "harness.androidworld")),
    ("harness.report", ("harness.run", "harness.eval", "harness.cli", "harness.androidworld")),
    (
        "harness.metrics",
        (
            "harness.run",
            "harness.eval",
            "harness.cli",
            "harness.report",
            "harness.scoring",
            "harness.trajectory",
            "harness.device",
        ),
    ),
)


def _within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def _upward(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    return sorted(
        (m, d)
        for m, deps in graph.items()
        for d in deps
        for low, above in LAYERS
        if _within(m, low) and any(_within(d, a) for a in above)
    )


def _private_imports(files: list[Path], modules: set[str], root: Path = ROOT) -> list[str]:
    """`from project.module import _name` and `module._name` on an imported project module, across modules."""
    out = []
    for path in files:
        tree = _parse(path.read_text(encoding="utf-8"), str(path))
        aliases: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").split(".")[0] in PACKAGES):
                where = "." * node.level + (node.module or "")
                for a in node.names:
                    if a.name.startswith("_") and not a.name.startswith("__"):
                        out.append(f"{path.relative_to(root)}: from {where} import {a.name}")
                    elif not node.level and f"{node.module}.{a.name}" in modules:
                        aliases[a.asname or a.name] = f"{node.module}.{a.name}"
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.name in modules and a.asname:
                        aliases[a.asname] = a.name
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
            ):
                out.append(f"{path.relative_to(root)}: {aliases[node.value.id]}.{node.attr}")
    return sorted(set(out))


def test_no_import_circle_inside_harness_agents_or_tasks():
    circles = _circles(_graph())
    assert not circles, f"import circles (move the shared piece down): {circles}"


def test_no_upward_import():
    bad = _upward(_graph())
    assert not bad, f"imports that reach up a layer: {bad}"


def test_no_private_name_imported_across_modules():
    files = [p for pkg in PRIVATE_CHECKED for p in (ROOT / pkg).rglob("*.py")]
    modules = {_module_name(p) for p in files}
    bad = _private_imports(files, modules)
    assert not bad, f"private names used across modules (make them public or move the code): {bad}"


@pytest.mark.parametrize("case", ["circle-in-package", "upward", "private-from", "private-attribute"])
def test_the_new_checks_catch_what_they_claim(case, tmp_path):
    """Each rule, fed code that breaks it, reports it."""
    if case == "circle-in-package":
        graph = {
            "harness.run.loop.episode": {"harness.run.loop.probes"},
            "harness.run.loop.probes": {"harness.run.qa"},
            "harness.run.qa": {"harness.run.loop.episode"},
            "harness.run.pool": set(),
        }
        assert _circles(graph) == [["harness.run.loop.episode", "harness.run.loop.probes", "harness.run.qa"]]
    elif case == "upward":
        graph = {
            "agents.reference": {"harness.run.locate"},
            "tasks.schema": {"agents.base"},
            "harness.trajectory.writer": {"harness.report.render"},
            "harness.run.orchestration.suite": {"harness.report.render"},
        }
        assert _upward(graph) == [
            ("agents.reference", "harness.run.locate"),
            ("harness.trajectory.writer", "harness.report.render"),
            ("tasks.schema", "agents.base"),
        ]
    else:
        src = tmp_path / "harness" / "x.py"
        src.parent.mkdir()
        src.write_text(
            "from harness.run.orchestration.suite import _headline\n"
            if case == "private-from"
            else "import harness.run.orchestration.suite as suite\nsuite._record_infra_error()\n"
        )
        found = _private_imports([src], {"harness.run.orchestration.suite", "harness.x"}, root=tmp_path)
        assert found == (
            ["harness/x.py: from harness.run.orchestration.suite import _headline"]
            if case == "private-from"
            else ["harness/x.py: harness.run.orchestration.suite._record_infra_error"]
        )


def _floor(module: str, packages: set[str]) -> bool:
    """A module directly in harness/ (the core floor), the `python -m harness` entry left out."""
    return module.count(".") == 1 and _top(module) == "harness" and module not in packages | {"harness.__main__"}


def _floor_breaches(graph: dict[str, set[str]], packages: set[str]) -> list[tuple[str, str]]:
    """Floor modules importing anything but other floor modules of harness/ (a subpackage, agents/, tasks/); the
    package `harness` itself (`from harness import coords`) is the floor's own."""
    return sorted(
        (m, d)
        for m, deps in graph.items()
        if _floor(m, packages)
        for d in deps
        if d != "harness" and not _floor(d, packages)
    )


def _packages() -> set[str]:
    return {_module_name(p) for pkg in PACKAGES for p in (ROOT / pkg).rglob("__init__.py")}


def _engine_imports_agents(graph: dict[str, set[str]], sources: dict[str, str]) -> list[str]:
    """harness/ modules importing agents/ - by an import, or by naming an `agents.` module in a string (an
    importlib target): the built-in agents are found through their entry points, as plug-ins are."""
    found = [
        f"{m} imports {d}" for m, deps in graph.items() if _top(m) == "harness" for d in deps if _top(d) == "agents"
    ]
    for m, src in sources.items():
        for node in ast.walk(_parse(src)):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("agents."):
                found.append(f"{m} names {node.value!r}")
    return sorted(found)


def test_the_core_floor_imports_nothing_above_it():
    bad = _floor_breaches(_graph(), _packages())
    assert not bad, f"modules directly in harness/ import only each other: {bad}"


def test_agents_are_plugins_the_engine_never_imports():
    files = list((ROOT / "harness").rglob("*.py"))
    sources = {_module_name(p): p.read_text(encoding="utf-8") for p in files}
    bad = _engine_imports_agents(_graph(), sources)
    assert not bad, f"the engine finds agents by entry point only: {bad}"
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    for group in ('"droidharness.agents"', '"droidharness.qa_agents"'):
        assert f"[project.entry-points.{group}]" in pyproject, group


@pytest.mark.parametrize("case", ["floor", "engine-import", "engine-string"])
def test_the_plugin_and_floor_checks_catch_what_they_claim(case):
    if case == "floor":
        graph = {
            "harness.locate": {"harness.run.judge.milestones", "harness.actions"},
            "harness.actions": {"harness.errors"},
            "harness.agent": {"tasks.schema"},
            "harness.run.loop.episode": {"harness.run.loop.calls"},
        }
        assert _floor_breaches(graph, {"harness.run"}) == [
            ("harness.agent", "tasks.schema"),
            ("harness.locate", "harness.run.judge.milestones"),
        ]
    elif case == "engine-import":
        graph = {"harness.run.authoring.task_check": {"agents.noop"}, "agents.noop": {"harness.agent"}}
        assert _engine_imports_agents(graph, {}) == ["harness.run.authoring.task_check imports agents.noop"]
    else:
        src = 'BUILTIN = {"noop": "agents.noop:NoOpAgent"}\n'
        assert _engine_imports_agents({}, {"harness.plugins": src}) == ["harness.plugins names 'agents.noop:NoOpAgent'"]


MAX_LINES = 700  # emulator/: a module of one idea; past this, it is two ideas (split by idea, not by line count)
MAX_LINES_HARNESS = 600  # harness/, agents/, tasks/


def _long_modules(files: list[Path], limit: int = MAX_LINES) -> list[str]:
    return sorted(
        f"{p.relative_to(ROOT) if p.is_relative_to(ROOT) else p.name}: {n} lines"
        for p in files
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > limit
    )


def test_no_module_of_harness_agents_or_tasks_over_600_lines():
    files = [p for pkg in NO_CIRCLES for p in (ROOT / pkg).rglob("*.py")]
    long = _long_modules(files, MAX_LINES_HARNESS)
    assert len(files) > 50 and not long, long
    assert _long_modules([ROOT / "harness" / "run" / "orchestration" / "suite.py"], limit=10)  # it sees a long one


# --- one redaction, one task checker, no dead definitions ------------------------------------------------------
def _redactors(sources: dict[str, str]) -> list[str]:
    """Modules other than harness.scrub that define a function named like a redactor (`redact...`, `scrub...`, with
    or without a leading underscore): what an artifact may show is decided in one place."""
    out = []
    for m, src in sources.items():
        if m == "harness.scrub":
            continue
        for node in ast.walk(_parse(src)):
            name = getattr(node, "name", "")
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and name.lstrip("_").startswith(
                ("redact", "scrub")
            ):
                out.append(f"{m}.{name}")
    return sorted(out)


def _dead(defining: dict[str, str], everything: list[str]) -> list[str]:
    """Top-level undecorated functions and classes, and UPPER_CASE constants, of `defining` whose name appears
    nowhere else in `everything` (the packages, bench/, tests/, pyproject.toml): definitions nothing uses.
    Decorated ones are left out (a decorator registers them: commands, singledispatch, atexit)."""
    from collections import Counter

    words: Counter[str] = Counter()
    for text in everything:
        words.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))
    out = []
    for m, src in defining.items():
        for node in _parse(src).body:
            names: list[str] = []
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and not node.decorator_list:
                names = [node.name]
            elif isinstance(node, ast.Assign):
                names = [t.id for t in node.targets if isinstance(t, ast.Name) and t.id.isupper()]
            out += [f"{m}.{n}" for n in names if not n.startswith("__") and words[n] <= 1]
    return sorted(out)


def _sources(packages: tuple[str, ...]) -> dict[str, str]:
    return {_module_name(p): p.read_text(encoding="utf-8") for pkg in packages for p in (ROOT / pkg).rglob("*.py")}


def test_one_redaction():
    bad = _redactors(_sources(("harness", "agents", "tasks", "bench")))
    assert not bad, f"redaction is harness.scrub's alone: {bad}"


def test_one_task_checker():
    """Tasks are proven sound by `tasks check` (harness.run.authoring.task_check) alone - on an in-process device
    with --in-process; no second checker with its own element matching lives in bench/ or elsewhere."""
    bad = [
        m
        for m, src in _sources(("bench", "harness", "agents", "tasks")).items()
        if m not in ("tasks.matching",) and re.search(r"^def (element_matches|text_matches)\b", src, re.M)
    ]
    assert not bad, f"element matching is tasks.matching's alone: {bad}"


def test_no_dead_definitions():
    everything = list(_sources(("harness", "agents", "tasks", "emulator", "bench", "tests")).values())
    everything.append((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    bad = _dead(_sources(NO_CIRCLES), everything)
    assert not bad, f"definitions nothing uses (remove them): {bad}"


@pytest.mark.parametrize("case", ["long", "redactor", "dead"])
def test_the_size_redaction_and_dead_code_checks_catch_what_they_claim(case, tmp_path):
    if case == "long":
        at, over = tmp_path / "at.py", tmp_path / "over.py"
        at.write_text("x = 1\n" * MAX_LINES_HARNESS)
        over.write_text("x = 1\n" * (MAX_LINES_HARNESS + 1))
        assert _long_modules([at, over], MAX_LINES_HARNESS) == [f"over.py: {MAX_LINES_HARNESS + 1} lines"]
    elif case == "redactor":
        srcs = {
            "agents.openai_agent": "def redact(text, secret):\n    return text\n",
            "harness.scrub": "def redact(t):\n    return t\n",
        }
        assert _redactors(srcs) == ["agents.openai_agent.redact"]
    else:
        defining = {"harness.x": "def used():\n    pass\n\ndef unused():\n    pass\n\nLIMIT = 3\n"}
        assert _dead(defining, [defining["harness.x"], "used()"]) == ["harness.x.LIMIT", "harness.x.unused"]


# --- emulator/ under the same rules ---------------------------------------------------------------------------
# The embedded virtual device and the AVD tools obey what harness/, agents/ and tasks/ obey: no import circle
# among their modules (every import counts: top-level, inside functions, `if TYPE_CHECKING:`), and no module
# over 700 lines. No module of emulator/ is exempt.
EMULATOR = ("emulator",)


def test_no_import_circle_inside_emulator():
    circles = _circles(_graph(), EMULATOR)
    assert not circles, f"import circles in emulator/ (move the shared piece down): {circles}"


def test_no_module_of_emulator_over_700_lines():
    files = list((ROOT / "emulator").rglob("*.py"))
    assert len(files) > 50 and not _long_modules(files), _long_modules(files)


@pytest.mark.parametrize("case", ["circle", "hidden-imports", "long-module"])
def test_the_emulator_checks_catch_what_they_claim(case):
    """Each emulator rule, fed input that breaks it, reports it."""
    if case == "circle":
        graph = {
            "emulator.virtual.shell.registry": {"emulator.virtual.shell.procfs"},
            "emulator.virtual.shell.procfs": {"emulator.virtual.shell.cmd_proc"},
            "emulator.virtual.shell.cmd_proc": {"emulator.virtual.shell.registry"},
            "emulator.virtual.fs": set(),
            "harness.run.episode": {"emulator.virtual.fs"},
        }
        assert _circles(graph, EMULATOR) == [
            ["emulator.virtual.shell.cmd_proc", "emulator.virtual.shell.procfs", "emulator.virtual.shell.registry"]
        ]
    elif case == "hidden-imports":
        # an import under `if TYPE_CHECKING:` and one inside a function are edges too
        graph = _graph()
        assert "emulator.virtual.shell.process" in graph["emulator.virtual.shell.registry"]  # TYPE_CHECKING only
        assert "emulator.virtual.ui.manager" in graph["emulator.virtual.model"]  # inside __init__
        graph["emulator.virtual.ui.manager"] = graph["emulator.virtual.ui.manager"] | {"emulator.virtual.model"}
        assert ["emulator.virtual.model", "emulator.virtual.ui.manager"] in _circles(graph, EMULATOR)
    else:
        src = ROOT / "emulator" / "virtual" / "fs.py"
        assert not _long_modules([src])
        assert _long_modules([src], limit=10) == [
            f"emulator/virtual/fs.py: {len(src.read_text(encoding='utf-8').splitlines())} lines"
        ]
