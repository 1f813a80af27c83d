"""The dataset registry (issue 19, item 3): one list of adapters, names and aliases resolved in one place, every
per-dataset decision an adapter field; no code branches on a dataset's name; no import circle in tasks/ or
harness/eval."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import tasks.datasets as datasets
from harness.eval import metric_kinds, offline
from tasks.datasets import DatasetError, LoadRequest, adapter, convert
from tasks.datasets.base import DatasetEpisode, DatasetStep
from tasks.datasets.registry import ADAPTERS, EPISODIC, NAMES
from tests.paths import REPO

ROOT = REPO


def test_one_list_of_names() -> None:
    assert NAMES == ("aitw", "odyssey", "androidlens", "aitz", "screenqa")
    assert datasets.DATASET_NAMES == NAMES and len(set(NAMES)) == len(NAMES)
    assert EPISODIC == ("aitw", "odyssey", "androidlens", "aitz")
    assert offline.DATASETS == metric_kinds.DATASETS == EPISODIC  # every episodic dataset is scored offline
    assert set(convert.ACTION_FIELDS) == set(EPISODIC)
    assert {a.metric for a in ADAPTERS if a.episodic} <= set(metric_kinds.METRICS)


@pytest.mark.parametrize(
    "name,expected",
    [
        ("aitw", "aitw"),
        ("android-in-the-wild", "aitw"),
        ("Android_In_The_Wild", "aitw"),
        ("GUI-Odyssey", "odyssey"),
        ("guiodyssey", "odyssey"),
        ("androidlens", "androidlens"),
        ("agentcpm", "aitz"),
        ("android-in-the-zoo", "aitz"),
        ("ScreenQA", "screenqa"),
    ],
)
def test_names_and_aliases_resolve(name: str, expected: str) -> None:
    assert adapter(name).name == expected and adapter(name).matches(name)


def test_unknown_names_list_the_registry() -> None:
    with pytest.raises(DatasetError, match="unknown dataset 'mind2web'; expected one of.*screenqa"):
        adapter("mind2web")
    with pytest.raises(DatasetError, match="no action records"):
        convert.to_unified("screenqa", {})


def test_the_adapters_map_the_common_load_options() -> None:
    split = LoadRequest(split="s.json", split_label="test", images="imgs", langs=("zh",), need_images=False)
    assert adapter("aitw").load_kwargs(split) == {
        "skip_bad": False,
        "split": "s.json",
        "split_label": "test",
        "keep_images": False,
    }
    assert adapter("odyssey").load_kwargs(LoadRequest(split="r.json", images="imgs")) == {
        "skip_bad": False,
        "split_file": "r.json",
        "split": "test",
        "images_dir": "imgs",
    }
    assert adapter("androidlens").load_kwargs(LoadRequest(langs=("zh",))) == {"skip_bad": False, "langs": ("zh",)}
    # loader-specific options go first: the request's options win, need_images only fills a gap
    aitz = adapter("aitz").load_kwargs(LoadRequest(images="imgs", need_images=False), {"require_images": True})
    assert aitz == {"skip_bad": False, "images_root": "imgs", "require_images": True}
    with pytest.raises(DatasetError, match="not supported for androidlens"):
        adapter("androidlens").load_kwargs(split)
    assert not adapter("aitz").supports_split and adapter("odyssey").supports_split


def test_episode_keys_and_size_templates() -> None:
    step = DatasetStep(index=0, width=1080, height=2400, action=None, raw={})
    ep = DatasetEpisode("androidlens", "7", "do it", "zh", (step,))
    lens, aitw = adapter("androidlens"), adapter("aitw")
    assert lens.episode_key(ep) == "zh/7" and lens.lookup_keys(ep) == ("zh/7", "7")
    assert lens.prediction_key("7", "zh") == "zh/7" and lens.prediction_key("7") == "7"
    assert aitw.episode_key(ep) == "7" and aitw.lookup_keys(ep) == ("7",) and aitw.prediction_key("7", "zh") == "7"
    assert aitw.size_template(step) == {"image/width": 1080, "image/height": 2400}
    assert lens.size_template(step) == {"image_width": 1080, "image_height": 2400}
    assert adapter("odyssey").size_template(step) == {}


def test_no_dataset_is_told_apart_by_its_name() -> None:
    """No comparison of a `dataset` / `which` expression with a dataset name or alias (`==`, `!=`, `in`, `not in`)
    in harness/, agents/ or tasks/: the behaviour sits on the adapters."""
    names = {k for a in ADAPTERS for k in (a.name, *a.aliases)}
    bad = []
    for path in [p for pkg in ("harness", "agents", "tasks") for p in (ROOT / pkg).rglob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Compare):
                continue
            operands = [node.left, *node.comparators]
            strings = {
                c.value
                for o in operands
                for c in ([o] if isinstance(o, ast.Constant) else getattr(o, "elts", []))
                if isinstance(c, ast.Constant) and isinstance(c.value, str)
            }
            named = any(
                isinstance(n, (ast.Name, ast.Attribute))
                and any(w in (n.id if isinstance(n, ast.Name) else n.attr) for w in ("dataset", "which"))
                for o in operands
                for n in ast.walk(o)
            )
            if named and strings & names:
                bad.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not bad, f"branches on a dataset's name: {bad}"


def _imports(path: Path, modules: set[str]) -> set[str]:
    """Every project module `path` imports (module level and inside functions, absolute and relative; `from pkg
    import x` counts the package too, as Python runs its __init__)."""
    name = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            targets = [f"{base}.{a.name}" for a in node.names] + [base]
        for t in targets:
            while t and t not in modules:
                t = t.rpartition(".")[0]
            if t and t != name:
                out.add(t)
    return out


@pytest.mark.parametrize("scope", [("tasks",), ("harness.eval", "tasks.datasets", "harness.metrics")])
def test_no_import_circle(scope: tuple[str, ...]) -> None:
    files = [p for pkg in ("harness", "agents", "tasks") for p in (ROOT / pkg).rglob("*.py")]
    modules = {".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__") for p in files}
    graph = {
        ".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"): _imports(p, modules)
        for p in files
    }
    graph = {m: {d for d in deps if d.startswith(scope)} for m, deps in graph.items() if m.startswith(scope)}

    def reaches(start: str, goal: str) -> bool:
        seen, todo = set(), [start]
        while todo:
            m = todo.pop()
            for d in graph.get(m, ()):
                if d == goal:
                    return True
                if d not in seen:
                    seen.add(d)
                    todo.append(d)
        return False

    circles = sorted(m for m in graph if reaches(m, m))
    assert not circles, f"modules on an import circle: {circles}"
