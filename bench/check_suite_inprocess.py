"""Dev tool: prove a task suite sound on the in-process virtual device (no adb, no agent).

For every task, language and device profile it
  1. builds a fresh `VirtualDeviceModel(profile, locale=lang)` and applies the task's start state
     (pm clear / force-stop / open app / clipboard);
  2. checks that no FINAL milestone (`harness.run.milestones.final_milestones`) already holds on the start screen;
  3. replays the task's reference solution step by step directly on the model (locators resolve to the first
     visible matching element of the current screen, in reading order), scoring every screen with a
     `MilestoneTracker`;
  4. checks the reference reaches 100% progress and, for question tasks, that its answer matches.

    python bench/check_suite_inprocess.py                       # suite "virtual", the four default profiles
    python bench/check_suite_inprocess.py -p small_phone -l zh  # one profile, one language
    python bench/check_suite_inprocess.py -t notes-wifi-to-message -v   # one task, step by step

The later `droidharness tasks check SUITE` does the same through the real harness (device + reference agent);
this tool only needs the task schema, the milestone rules and the virtual device model.
"""

from __future__ import annotations

import argparse
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the repo importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from emulator.virtual.model import VirtualDeviceModel
from harness.device.inprocess import InProcessLink
from harness.device.state import DeviceState
from harness.run.milestones import MilestoneTracker, answer_matches, check_holds, final_milestones
from harness.run.state_check import StateJudge, evaluate_state
from harness.shellquote import command
from tasks.matching import element_matches
from tasks.schema import ReferenceStep, Task, localized
from tasks.suite import load_suite

DEFAULT_PROFILES = ("medium_phone", "small_phone", "pixel_7_pro", "pixel_tablet")
KEYCODES = {"BACK": 4, "HOME": 3, "ENTER": 66, "RECENT": 187}


# --- the screen -------------------------------------------------------------------------------------------
@dataclass
class _Element:
    """Fallback for `harness.hierarchy.UIElement` (only what the milestone rules read)."""

    text: str = ""
    content_desc: str = ""
    resource_id: str = ""
    class_name: str = ""
    package: str = ""
    bounds: tuple[int, int, int, int] = (0, 0, 0, 0)
    checkable: bool = False
    checked: bool = False
    clickable: bool = False
    enabled: bool = True
    focusable: bool = False
    focused: bool = False
    scrollable: bool = False
    long_clickable: bool = False
    password: bool = False
    selected: bool = False
    visible_to_user: bool = True


@dataclass
class _Tree:
    elements: list[_Element] = field(default_factory=list)

    def __iter__(self) -> Iterator[_Element]:
        return iter(self.elements)

    @classmethod
    def from_xml(cls, xml: str) -> _Tree:
        import re

        out = []
        for node in ET.fromstring(xml.encode("utf-8")).iter("node"):
            a = node.attrib
            nums = [int(n) for n in re.findall(r"-?\d+", a.get("bounds", ""))] + [0, 0, 0, 0]

            def b(k: str, a: dict[str, str] = a) -> bool:
                return a.get(k) == "true"

            out.append(
                _Element(
                    a.get("text", ""),
                    a.get("content-desc", ""),
                    a.get("resource-id", ""),
                    a.get("class", ""),
                    a.get("package", ""),
                    tuple(nums[:4]),  # type: ignore[arg-type]
                    b("checkable"),
                    b("checked"),
                    b("clickable"),
                    b("enabled"),
                    b("focusable"),
                    b("focused"),
                    b("scrollable"),
                    b("long-clickable"),
                    b("password"),
                    b("selected"),
                    a.get("visible-to-user", "true") == "true",
                )
            )
        return cls(out)


def parse_tree(xml: str) -> Any:
    """`harness.hierarchy.UITree.from_xml` when it exists, else the small fallback parser above."""
    try:
        from harness.hierarchy import UITree
    except ImportError:
        return _Tree.from_xml(xml)
    return UITree.from_xml(xml)


@dataclass
class Screen:
    tree: Any
    package: str
    activity: str
    size: tuple[int, int]


def observe(model: VirtualDeviceModel) -> Screen:
    fg = model.foreground
    return Screen(parse_tree(model.hierarchy_xml()), fg.package, fg.activity, model.display_size)


def visible(screen: Screen) -> list[Any]:
    w, h = screen.size
    return [
        e
        for e in screen.tree
        if e.bounds[2] > e.bounds[0]
        and e.bounds[3] > e.bounds[1]
        and e.bounds[2] > 0
        and e.bounds[3] > 0
        and e.bounds[0] < w
        and e.bounds[1] < h
        and getattr(e, "visible_to_user", True)
    ]


# --- start state and reference steps ---------------------------------------------------------------------
class StepError(Exception):
    pass


def apply_start(model: VirtualDeviceModel, task: Task) -> None:
    st = task.start
    model.go_home()
    for p in st.reset_apps:
        model.clear_data(p)
    for p in st.stop_apps:
        model.force_stop(p)
    model.go_home()
    if st.open_app:
        model.start_activity(st.open_app)
    if st.clipboard is not None:
        model.clipboard = st.clipboard


def resolve(screen: Screen, step: ReferenceStep, lang: str) -> Any:
    assert step.locate is not None
    m = step.locate.as_match()
    # the reference agent's rule: visible elements in reading order (rows top to bottom) when the tree has one
    order = screen.tree.reading_order() if hasattr(screen.tree, "reading_order") else visible(screen)
    hits = [e for e in order if element_matches(e, m, lang, screen.size)]
    if len(hits) <= step.locate.nth:
        raise StepError(f"no element matches {step.locate.model_dump(exclude_defaults=True)} (found {len(hits)})")
    return hits[step.locate.nth]


def _center(el: Any) -> tuple[float, float]:
    l, t, r, b = el.bounds
    return (l + r) / 2, (t + b) / 2


def _package_for(model: VirtualDeviceModel, name: str | None, package: str | None, lang: str) -> str:
    if package:
        return package
    want = (name or "").strip().casefold()
    for p in model.packages.values():
        if not p.launcher_activity:
            continue
        if want in {p.label(lang).casefold(), p.label("en").casefold(), p.name.casefold()}:
            return p.name
    raise StepError(f"OPEN_APP: no launchable app named {name!r}")


def run_step(model: VirtualDeviceModel, step: ReferenceStep, lang: str) -> str | None:
    """Execute one reference step; returns the answer text of a terminal ANSWER/COMPLETE step."""
    extra = step.model_extra or {}
    t = step.type
    screen = observe(model)
    if t == "OPEN_APP":
        model.start_activity(_package_for(model, extra.get("name"), extra.get("package"), lang))
    elif t in ("CLICK", "LONG_PRESS"):
        x, y = _center(resolve(screen, step, lang))
        (model.tap if t == "CLICK" else model.long_press)(x, y)
    elif t == "TYPE":
        if step.locate is not None:
            x, y = _center(resolve(screen, step, lang))
            model.tap(x, y)
        if extra.get("clear") and (model.focused_text() is None or not model.set_focused_text("")):
            raise StepError("TYPE clear: no focused field")
        text = localized(extra.get("text"), lang) or ""
        if text and not model.commit_text(text):
            raise StepError(f"TYPE {text!r}: no focused editable field")
        if extra.get("submit"):
            model.key(66)
    elif t == "SCROLL":
        from harness import coords
        from harness.actions import Scroll

        area = resolve(screen, step, lang).bounds if step.locate is not None else None
        sw = Scroll(direction=extra.get("direction", "down"), distance=extra.get("distance", 0.5)).to_swipe(
            area, screen.size
        )
        (x1, y1), (x2, y2) = (coords.to_pixels(p.as_tuple(), screen.size) for p in (sw.start, sw.end))
        model.swipe(x1, y1, x2, y2, 300)
    elif t in KEYCODES:
        model.key(KEYCODES[t])
    elif t == "WAIT":
        pass
    elif t in ("ANSWER", "COMPLETE"):
        return localized(extra.get("text") if t == "ANSWER" else extra.get("answer"), lang)
    else:
        raise StepError(f"unsupported reference step type {t}")
    return None


# --- one task ----------------------------------------------------------------------------------------------
@dataclass
class Result:
    task: str
    lang: str
    profile: str
    start_violations: list[str]
    progress: float
    answer_ok: bool | None  # None: the task has no expected answer
    error: str = ""
    missed: list[str] = field(default_factory=list)
    log: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.start_violations and self.progress == 1.0 and self.answer_ok is not False and not self.error


def state_judge(model: VirtualDeviceModel) -> StateJudge:
    """State checks read through the model's own shell (`settings get`, `content query`, ...), as on a device."""
    link = InProcessLink(model, workers=1)
    state = DeviceState(lambda argv: link.shell("state", command(*argv)))
    return lambda check, lang: evaluate_state(check, state, lang)


def check_task(task: Task, lang: str, profile: str = "medium_phone", model: VirtualDeviceModel | None = None) -> Result:
    """Check one task on a fresh device (or on `model`, as left by earlier tasks: see `--shared-device`)."""
    model = model or VirtualDeviceModel(profile=profile, locale=lang)
    apply_start(model, task)
    start = observe(model)
    judge = state_judge(model)
    violations = [m.id for m in final_milestones(task.milestones) if check_holds(m.check, start, lang, judge)]
    tracker = MilestoneTracker(task.milestones, lang, state=judge)
    steps = task.reference.get(lang, ())
    answer, error, log = None, "", []
    if not steps:
        error = f"no reference solution for {lang}"
    for i, step in enumerate(steps, 1):
        try:
            out = run_step(model, step, lang)
        except StepError as e:
            error = f"step {i} ({step.type}): {e}"
            break
        if step.type in ("ANSWER", "COMPLETE"):
            answer = out
            break
        new = tracker.update(observe(model), i)
        fg = model.foreground
        log.append(f"{i:2d} {step.type:9s} {fg.activity.rsplit('.', 1)[-1]:28s} hit={new}")
    answer_ok = None if task.expected_answer is None else answer_matches(task.expected_answer, answer, lang)
    missed = [m.id for m in task.milestones.leaves() if m.id not in tracker.hits]
    return Result(task.id, lang, profile, violations, tracker.progress, answer_ok, error, missed, log)


def check_suite(
    tasks: list[Task],
    profiles: tuple[str, ...] = DEFAULT_PROFILES,
    langs: tuple[str, ...] = ("en", "zh"),
    shared: bool = False,
) -> list[Result]:
    """Every task x profile x language; `shared` runs the tasks one after another on one device per profile and
    language (what a run on a single real device does: only the start state separates tasks)."""
    out = []
    for p in profiles:
        for lang in langs:
            model = VirtualDeviceModel(profile=p, locale=lang) if shared else None
            out += [check_task(t, lang, p, model) for t in tasks if lang in t.languages]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("suite", nargs="?", default="virtual")
    ap.add_argument("-p", "--profile", action="append", help="device profile (repeatable)")
    ap.add_argument("-l", "--lang", action="append", choices=["en", "zh"])
    ap.add_argument("-t", "--task", action="append", help="only these task ids")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every step of failing (or -t) tasks")
    ap.add_argument(
        "--shared-device",
        action="store_true",
        help="run the tasks in sequence on one device per profile and language (no fresh device)",
    )
    args = ap.parse_args(argv)
    tasks = [t for t in load_suite(args.suite) if not args.task or t.id in args.task]
    results = check_suite(
        tasks, tuple(args.profile or DEFAULT_PROFILES), tuple(args.lang or ("en", "zh")), shared=args.shared_device
    )
    print(f"{'task':34s} {'lang':4s} {'profile':13s} {'start':6s} {'progress':8s} {'answer':6s} notes")
    for r in results:
        ans = "-" if r.answer_ok is None else ("ok" if r.answer_ok else "WRONG")
        notes = "; ".join(
            x
            for x in [
                r.error,
                f"start hits {r.start_violations}" if r.start_violations else "",
                f"missed {r.missed}" if r.missed else "",
            ]
            if x
        )
        print(
            f"{r.task:34s} {r.lang:4s} {r.profile:13s} {len(r.start_violations):<6d} {r.progress:8.0%} "
            f"{ans:6s} {'OK' if r.ok else 'FAIL'} {notes}"
        )
        if args.verbose and (not r.ok or args.task):
            for line in r.log:
                print("     " + line)
    bad = [r for r in results if not r.ok]
    per_profile: dict[str, list[int]] = {}
    for r in results:
        per_profile.setdefault(r.profile, [0, 0])[0 if r.ok else 1] += 1
    print()
    for p, (ok, fail) in per_profile.items():
        print(f"{p:13s} sound {ok}/{ok + fail}")
    print(f"{len(tasks)} tasks, {len(results)} runs, {len(bad)} failing")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
