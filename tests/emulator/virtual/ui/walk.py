"""Walking the device's screens and checking what each lays out (shared by the layout, rendering, theme and text
tests).

`device(condition, locale)` is a model under one display condition (a `wm size` / `wm density`, landscape, a font
scale, the dark theme), set through the shell as a client sets it. `screens(model)` walks every screen reachable
from the home screen, the launcher's drawer and each app (tapping what is clickable, three taps deep, each new
screen once; each scrollable also scrolled to its end), the Phone app and its in-call screen, a heads-up, the
notification shade, Overview, an installed app with no UI of its own and the three-button navigation bar;
`walked(condition, locale)` remembers a walk (in the test process: `walk_param` puts the tests that read one walk
in one xdist group, so one worker walks it once). `problems(screen)` lists what is laid out wrong: a view outside its
parent (a scrolling container's children only across its axis) or the screen; text that does not show whole
inside its box (`ui.textlayout`; views TextView would ellipsize - `style["ellipsize"]` - and text fields may cut
it, never outside their box); text drawn over other text or under an icon; text at a contrast under 3 with what is
under it.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from emulator.virtual import console_commands
from emulator.virtual.model import LAUNCHER_PACKAGE, VirtualDeviceModel
from emulator.virtual.ui.fonts import text_width
from emulator.virtual.ui.keyboard import IME_PACKAGE
from emulator.virtual.ui.systembars import SYSTEMUI
from emulator.virtual.ui.textlayout import icon_inset, label_box, layout_text
from emulator.virtual.ui.theme import Theme
from emulator.virtual.ui.view import View
from tests.emulator.virtual.shell.test_commands import U2_APK, sh

# what a client sends to put the display in each condition
CONDITIONS: dict[str, str] = {
    "default": "",
    "720x1600@320": "wm size 720x1600; wm density 320",
    "1440x3120@560": "wm size 1440x3120; wm density 560",
    "landscape": "settings put system accelerometer_rotation 0; settings put system user_rotation 1",
    "font_scale_1.3": "settings put system font_scale 1.3",
    "dark": "cmd uimode night yes",
    "small_landscape_font_1.3": (
        "wm size 720x1600; wm density 320; settings put system font_scale 1.3; "
        "settings put system accelerometer_rotation 0; settings put system user_rotation 1"
    ),
}
DIALER = "com.google.android.dialer"
Box = tuple[int, int, int, int]
LOCALES = ("en", "zh")
# the walks read by more than one test (test_layout.py, and test_theme.py or test_textlayout.py)
SHARED = ("default", "dark", "font_scale_1.3")


def walk_param(*values: str, locale: str, conditions: tuple[str, ...]) -> Any:
    """A test's parameters, in the xdist group of the walks it reads when they are `SHARED`: the tests reading the
    shared walks of a locale run in one worker (`pytest -n --dist loadgroup`), which walks each once."""
    marks = [pytest.mark.xdist_group(f"walks-{locale}")] if set(conditions) <= set(SHARED) else []
    return pytest.param(*values, marks=marks, id="-".join(values))


def device(condition: str, locale: str = "en") -> VirtualDeviceModel:
    m = VirtualDeviceModel(locale=locale)
    if CONDITIONS[condition]:
        r = sh(m, CONDITIONS[condition])
        assert r.status == 0, r.err
    return m


@dataclass
class Screen:
    name: str  # how it was reached: "com.android.settings > Network & internet > ..."
    roots: list[View]
    size: tuple[int, int]
    theme: Theme


def _fixed_texts(v: View, out: set[str]) -> set[str]:
    """Texts outside scrolling containers (titles, tabs, buttons): what tells two screens of one activity apart."""
    if v.text and v.cls != "android.widget.EditText":
        out.add(v.text)
    if not v.style.get("scroll"):
        for c in v.children:
            _fixed_texts(c, out)
    return out


def _signature(m: VirtualDeviceModel, roots: list[View]) -> tuple:
    top = m.foreground
    app = [r for r in roots if r.package != SYSTEMUI]
    ids = sorted({(v.cls, v.resource_id) for r in app for v in r.walk()})
    texts: set[str] = set()
    for r in app:
        _fixed_texts(r, texts)
    return (top.package, top.activity, tuple(r.resource_id for r in roots), tuple(ids), tuple(sorted(texts)))


def _label(v: View) -> str:
    own = v.text or v.desc or v.resource_id.rpartition("/")[2]
    return own or next((c.text for c in v.walk() if c.text), "") or v.cls.rpartition(".")[2]


def _targets(roots: list[View]) -> list[tuple[int, str]]:
    """(walk index, label) of the views worth tapping: clickable, in the app's windows, two of each kind."""
    out, kinds = [], {}
    flat = [v for r in roots for v in r.walk()]
    for i, v in enumerate(flat):
        if not v.clickable or not v.enabled or v.package in (SYSTEMUI, IME_PACKAGE):
            continue
        kind = (v.cls, v.resource_id or _label(v))
        kinds[kind] = kinds.get(kind, 0) + 1
        if kinds[kind] <= 2:
            out.append((i, _label(v)))
    return out


# what a tap on a screen can change that the next screen shows (and the files: apps keep their data there)
_STATE = ("tasks", "app_data", "app_ui", "settings", "notifications", "hw", "clipboard", "rotation", "screen_on")


def _save(m: VirtualDeviceModel) -> tuple:
    """The device's state as the screens show it, and the window manager's (focus, keyboard, shade): lighter than
    an emulator snapshot, and it keeps the keyboard up where a snapshot's restore puts it away."""
    return copy.deepcopy(({k: getattr(m, k) for k in _STATE}, m.ui.state)) + (_files(m),)


_FILES: dict[int, list[Any]] = {}  # id(fs) -> [generation, snapshot]: the last files snapshot taken of it


def _files(m: VirtualDeviceModel) -> list[Any]:
    """The files as they are: a snapshot of the file system, shared with the last one when nothing changed since
    (a walk saves at every step and taps rarely write: copying the whole tree each time would double its cost)."""
    last = _FILES.get(id(m.fs))
    if last is None or last[0] != m.fs.generation:
        last = _FILES[id(m.fs)] = [m.fs.generation, m.fs.snapshot()]
    return last


def _load(m: VirtualDeviceModel, saved: tuple) -> None:
    state, ui, files = saved
    state, ui = copy.deepcopy((state, ui))
    for k, v in state.items():
        setattr(m, k, v)
    m.ui.state = ui
    if m.fs.generation != files[0]:  # something wrote since: the files back as they were (the same state again)
        m.fs.restore(files[1])
        files[0] = m.fs.generation


def _scrolled(m: VirtualDeviceModel) -> Iterator[bool]:
    """Scroll each scrolling container to its end, one after the other (yields after each)."""
    for n in range(8):
        scrollers = [v for r in m.view_roots() for v in r.walk() if v.scrollable and v.on_scroll is not None]
        if n >= len(scrollers):
            return
        v = scrollers[n]
        assert v.on_scroll is not None
        moved = v.on_scroll(0, -(10**6)) or v.on_scroll(-(10**6), 0)
        if moved:
            yield True


def _explore(m: VirtualDeviceModel, name: str, depth: int, seen: dict) -> Iterator[Screen]:
    roots = m.view_roots()
    sig = _signature(m, roots)
    if sig in seen and seen[sig] >= depth:
        return
    snap = _save(m)
    if sig not in seen:
        yield Screen(name, roots, m.display_size, m.ui.theme())
        for _ in _scrolled(m):
            yield Screen(name + " (scrolled)", m.view_roots(), m.display_size, m.ui.theme())
        _load(m, snap)
    seen[sig] = depth
    if depth == 0:
        return
    for index, label in _targets(roots):
        _load(m, snap)
        flat = [v for r in m.view_roots() for v in r.walk()]
        m.tap(*flat[index].center)
        yield from _explore(m, f"{name} > {label}", depth - 1, seen)
    _load(m, snap)


def _starts(m: VirtualDeviceModel) -> list[tuple[str, Callable[[], None]]]:
    apps = [p.name for p in m.packages.values() if p.launcher_activity and p.name != LAUNCHER_PACKAGE]

    def home() -> None:
        m.go_home()

    def app(pkg: str) -> Callable[[], None]:
        return lambda: (m.start_activity(pkg), None)[1]

    def dialer() -> None:
        sh(m, "am start -a android.intent.action.DIAL -d tel:5551234")

    def incall() -> None:
        console_commands.run(m, "gsm call 5551234")

    def heads_up() -> None:
        console_commands.run(m, "sms send 5551234 Your code is 1234, valid for the next ten minutes")

    def shade() -> None:
        heads_up()
        sh(m, "cmd notification post -S bigtext -t 'A long title of a notification' tag 'Some text that is long'")
        m.ui.expand_shade()

    def recents() -> None:
        for pkg in apps[:3]:
            m.start_activity(pkg)
        m.ui.show_recents()

    def installed() -> None:  # an installed package the device has no UI of its own for
        m.fs.write("/data/local/tmp/app.apk", U2_APK.read_bytes(), parents=True)
        sh(m, "pm install /data/local/tmp/app.apk; monkey -p com.github.uiautomator 1")

    def three_buttons() -> None:
        sh(m, "settings put secure navigation_mode 0")
        m.start_activity(apps[0])

    return [
        ("home", home),
        *[(pkg, app(pkg)) for pkg in apps],
        (DIALER, dialer),
        ("in call", incall),
        ("heads-up", heads_up),
        ("shade", shade),
        ("recents", recents),
        ("installed app", installed),
        ("three-button navigation", three_buttons),
    ]


def starts(m: VirtualDeviceModel) -> Iterator[str]:
    """Put `m` on each starting point in turn (yielding its name while it is on screen), from where it was."""
    base = _save(m)
    for name, start in _starts(m):
        _load(m, base)
        start()
        yield name
    _load(m, base)


def screens(m: VirtualDeviceModel, depth: int = 3) -> Iterator[Screen]:
    """Every screen reachable from the starting points (see the module's doc), each once."""
    seen: dict = {}  # screen -> how deep it was walked from
    for name in starts(m):
        yield from _explore(m, name, depth, seen)


@functools.cache
def walked(condition: str, locale: str) -> list[Screen]:
    """`screens` of a fresh device in `condition`, remembered (several tests read the same walk)."""
    return list(screens(device(condition, locale)))


def _draw_box(v: View) -> Box:
    return v.style.get("draw", v.bounds)


def _inside(inner: Box, outer: Box, axis: str = "") -> bool:
    """`inner` within `outer` (a pixel of slack), except along `axis` ("v" or "h": a scrolling container's)."""
    h_ok = axis == "h" or (inner[0] >= outer[0] - 1 and inner[2] <= outer[2] + 1)
    v_ok = axis == "v" or (inner[1] >= outer[1] - 1 and inner[3] <= outer[3] + 1)
    return h_ok and v_ok


def text_problem(v: View) -> str:
    """Why `v`'s text does not show whole inside its box ("" when it does)."""
    box = _draw_box(v)
    label = label_box(v, box)
    if label is None or not label[1]:
        return ""
    lbox, text, st = label
    lay = layout_text(lbox, text, st)
    if lay is None:
        return f"no room for its text {text!r}"
    top, bottom = lay.extent()
    if top < lbox[1] - 1 or bottom > lbox[3] + 1:
        return f"text {text!r} ({lay.size}px, {len(lay.lines)} lines) taller than its box {lbox}"
    if not lay.whole and not st.get("ellipsize") and st.get("kind") != "field":
        return f"text {text!r} ({lay.size}px) cut to {lay.lines} in {lbox}"
    return ""


def ink_box(v: View) -> Box | None:
    """Where `v`'s text is drawn (the lines' widths as aligned, the glyphs' ink top to bottom), cut to what of `v`
    shows; None when it draws none."""
    label = label_box(v, _draw_box(v))
    lay = layout_text(*label) if label is not None and label[1] else None
    if lay is None or not any(line.strip() for line in lay.lines):
        return None
    l, _, r, _ = lay.box
    widths = [text_width(line, lay.size, lay.bold) for line in lay.lines]
    align = label[2].get("align", "l") if label is not None else "l"
    x0 = min(l if align == "l" else (r - w if align == "r" else l + (r - l - w) / 2) for w in widths)
    top, bottom = lay.extent()
    box = (int(x0), top, int(x0 + max(widths)) + 1, bottom)
    b = v.bounds
    box = (max(box[0], b[0]), max(box[1], b[1]), min(box[2], b[2]), min(box[3], b[3]))
    return box if box[2] > box[0] and box[3] > box[1] else None


def glyph_box(v: View) -> Box | None:
    """Where `v` draws an icon, an avatar or a bitmap (its box, as the renderer insets it), cut to what of `v`
    shows; None when it draws none (a text view, a container, an icon drawn beside its own text)."""
    st, b = v.style, v.bounds
    l, t, r, btm = _draw_box(v)
    if st.get("invisible") or not (st.get("icon") or st.get("image") is not None or st.get("kind") == "avatar"):
        return None
    if st.get("kind") in ("appicon", "field") or (st.get("icon_left") and (v.text or st.get("label"))):
        return None  # the launcher's icons and labels, a field's icon: laid out with their text
    inset = icon_inset(st, (l, t, r, btm)) if st.get("icon") else 0
    inset = min(inset, max(0, (min(r - l, btm - t) - 8) // 2))
    box = (max(l + inset, b[0]), max(t + inset, b[1]), min(r - inset, b[2]), min(btm - inset, b[3]))
    return box if box[2] > box[0] and box[3] > box[1] else None


def _overlaps(root: View) -> list[str]:
    """Texts of one window drawn over each other or under an icon (not counting what is on a surface of its own
    drawn over the rest: a snackbar, a card, a chip - a view with a background and children)."""
    marks: list[tuple[View, Box, str, list[View]]] = []  # a view, what it draws where, the surfaces it lies on

    def visit(v: View, surfaces: list[View]) -> None:
        ink, glyph = ink_box(v), glyph_box(v)
        if ink is not None:
            marks.append((v, ink, f"text {v.text!r}", surfaces))
        if glyph is not None:
            marks.append((v, glyph, f"icon {v.desc or v.resource_id or v.style.get('icon')!r}", surfaces))
        if v.style.get("bg") is not None and v.children:
            surfaces = [*surfaces, v]
        for c in v.children:
            visit(c, surfaces)

    visit(root, [])
    out = []
    for i, (a, ba, wa, sa) in enumerate(marks):
        for b, bb, wb, sb in marks[i + 1 :]:
            if a is b or not (wa.startswith("text") or wb.startswith("text")) or any(s not in sa for s in sb):
                continue  # the same view; two icons; or b lies on a surface drawn over a
            if a.style.get("badge") or b.style.get("badge"):
                continue  # a count on an icon's corner
            if min(ba[2], bb[2]) - max(ba[0], bb[0]) > 1 and min(ba[3], bb[3]) - max(ba[1], bb[1]) > 1:
                out.append(f"{wa} {ba} and {wb} {bb} drawn over each other")
    return out


def _luminance(c: tuple[int, int, int]) -> float:
    """WCAG's relative luminance of an sRGB colour."""
    ch = [v / 255 for v in c[:3]]
    lin = [v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4 for v in ch]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    """WCAG's contrast ratio of two colours (1 to 21)."""
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


MIN_CONTRAST = 3.0  # WCAG's least for large text and for what is not text: a label must stand out at least this


def _contrast_problems(roots: list[View], theme_text: tuple[int, int, int]) -> list[str]:
    """Texts drawn in a colour too close to what is under them (the last background drawn there, in any window
    below): dark text left on a dark theme's surfaces, light text on a light one."""
    drawn = [v for r in roots for v in r.walk()]  # drawing order
    out = []
    for i, v in enumerate(drawn):
        ink = ink_box(v)
        if ink is None or v.style.get("kind") == "field":
            continue
        cx, cy = (ink[0] + ink[2]) / 2, (ink[1] + ink[3]) / 2
        under = next(
            (
                u.style["bg"]
                for u in reversed(drawn[: i + 1])
                if isinstance(u.style.get("bg"), tuple) and u.contains(cx, cy)
            ),
            None,
        )
        fg = v.style.get("fg", theme_text)
        if under is not None and contrast(fg, under) < MIN_CONTRAST:
            out.append(f"text {v.text!r} {ink} in {fg} on {under}: contrast {contrast(fg, under):.1f}")
    return out


def problems(screen: Screen) -> list[str]:
    W, H = screen.size
    out: list[str] = []

    def visit(v: View, parent: View | None) -> None:
        box = _draw_box(v)
        where = f"{v.cls.rpartition('.')[2]} {v.resource_id or _label(v)!r} {box}"
        if parent is None:
            if not _inside(box, (0, 0, W, H)):
                out.append(f"{where}: outside the screen {W}x{H}")
        elif not _inside(box, _draw_box(parent), parent.style.get("scroll", "")):
            out.append(f"{where}: outside its parent {_label(parent)!r} {_draw_box(parent)}")
        why = text_problem(v)
        if why:
            out.append(f"{where}: {why}")
        for c in v.children:
            visit(c, v)

    for r in screen.roots:
        visit(r, None)
        out += _overlaps(r)
    return out + _contrast_problems(screen.roots, screen.theme.text)
