"""Episode-backed apps: a recorded episode played as a virtual app.

    pkg = install_episode_app(vd.model, recorded)     # "org.droidharness.episode.<sanitized id>"
    vd.model.start_activity(pkg)                       # or `am start` / OPEN_APP / the launcher icon

The app takes a neutral spec, `RecordedEpisode` (screens, their elements, and what advances each one); it knows
nothing of datasets or of the harness. `harness.eval.replay_rules.recorded_episode(dataset_episode)` builds the spec
from a dataset episode with the harness' replay rules, so both sides share one definition of a matching tap or
swipe (the spec carries them as predicates).

SCREENS. Screen k is the recorded screenshot of step k, stretched to fill the whole display (each axis on its own;
the device's status and navigation bars are drawn over it), and its elements (`RecordedElement`: bounds in the
recorded screenshot's pixels, text, content-desc, class) become views at the stretched bounds. Element views are
clickable and long-clickable and invisible (the screenshot shows them); under them lies one clickable surface
(`<pkg>:id/recorded_screen`) holding the image. TYPE and ENTER steps also hold a focused, invisible EditText
(`<pkg>:id/recorded_input`, no keyboard window, so the pixels stay the recorded ones). Marked regions of a step
(`RecordedMark`: AndroidLens milestones' text, normalized bbox, state flags) become invisible views of that
step's screen too (`<pkg>:id/recorded_milestone`), so live milestone checks see what the recording shows.

THE ADVANCE RULE (performing step k's recorded action shows screen k + 1):
- CLICK / LONG_PRESS: a press of the same kind that hits the recorded target (the screen's `hits` predicate).
  A press of the other kind there, or a press on another element, goes OFF PATH; a press on bare screenshot (no
  element, not the target) does nothing.
- SWIPE / SCROLL: a swipe the screen's `swipe` predicate accepts (the recorded finger direction); other swipes
  do nothing.
- TYPE: the field's text (trimmed) equals the recorded text; then, if the action has `submit`, ENTER.
  Text that is not a prefix of the recorded text goes OFF PATH.
- BACK / HOME / ENTER / RECENT: that key. Recorded system navigation is an in-app transition while the app is
  in front (HOME does not show the launcher). BACK at another step goes OFF PATH; other keys keep their usual
  meaning (HOME shows the launcher, the app keeps its place).
- WAIT: the screen advances by itself `min(duration, 0.5)` s after it was first shown.
- COMPLETE / IMPOSSIBLE / ANSWER: nothing (the episode is over). After the last non-terminal action an
  "End of the recorded episode" page is shown.
OFF PATH: a grey page "Off the recorded path" saying what was expected, with a "Back to the recording" button;
BACK returns to the step too. `am force-stop` (or `pm clear`) restarts at step 0.

State: the spec, its images and the scaled copies live in the `EpisodeApp` object registered in
`model.ui.apps` (never deep-copied); `model.app_ui[pkg]` only holds the step index, the off-path reason, the
typed text and a timestamp, so `model.snapshot()` / `restore()` stay cheap.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from PIL import Image

from ..model import VirtualDeviceModel
from ..records import Package
from ..ui import widgets as w
from ..ui.host import Device
from ..ui.layout import Ctx, FieldBinding, V
from ..ui.view import View
from .base import App

PACKAGE_PREFIX = "org.droidharness.episode."
FRAME = "android.widget.FrameLayout"
WAIT_CAP = 0.5  # seconds: a recorded WAIT advances after min(duration, WAIT_CAP)
OFF_PATH_BG = (120, 120, 124)
# recorded screens kept scaled to a screen size (docs/caches.md): an episode shows one size at a time (two around a
# rotation), and its screens one after another; past this many the remembered ones are dropped all at once
SCALED_MAX = 16
INPUT_KEY = "recorded_input"
_TAP_EVENTS = ("tap", "long_press", "swipe")


@dataclass(frozen=True)
class RecordedElement:
    """An element of a recorded screen (a view of the episode app)."""

    bounds: tuple[float, float, float, float]  # l, t, r, b in pixels of the recorded screenshot
    text: str = ""
    desc: str = ""  # content-desc (icons)
    class_name: str = "android.widget.TextView"
    label: str = ""  # how an off-path message names it


@dataclass(frozen=True)
class RecordedMark:
    """A marked region of a recorded screen (an AndroidLens milestone): an invisible view with text and states."""

    bbox: tuple[float, float, float, float]  # normalized x1, y1, x2, y2
    text: str = ""
    flags: dict[str, bool] = field(default_factory=dict)  # View flags, e.g. {"checked": True}


@dataclass(frozen=True)
class RecordedScreen:
    """One recorded step: its screenshot and what advances it."""

    image: Callable[[], Image.Image]  # the recorded screenshot (loaded lazily)
    size: tuple[int, int]  # its width, height
    action: str  # the recorded action's type: CLICK, LONG_PRESS, SWIPE, SCROLL, TYPE, ENTER, BACK, HOME, WAIT, ...
    description: str = ""  # "does: tap ..." for off-path messages
    elements: tuple[RecordedElement, ...] = ()
    marks: tuple[RecordedMark, ...] = ()
    text: str = ""  # TYPE: the recorded text
    submit: bool = False  # TYPE: ENTER afterwards
    wait: float = 0.0  # WAIT: seconds
    hits: Callable[[float, float], bool] | None = None  # CLICK / LONG_PRESS: a press at normalized (x, y) hits?
    swipe: Callable[[float, float], bool] | None = None  # SWIPE / SCROLL: a normalized finger move (dx, dy) fits?


@dataclass(frozen=True)
class RecordedEpisode:
    """The neutral spec of an episode-backed app."""

    episode_id: str
    instruction: str
    screens: tuple[RecordedScreen, ...]


def sanitize_package_part(text: str) -> str:
    """A Java package segment: lower-case letters, digits and `_`, starting with a letter."""
    s = re.sub(r"[^a-z0-9_]+", "_", str(text).lower()).strip("_") or "episode"
    return s if s[0].isalpha() else "e" + s


def short_label(instruction: str, limit: int = 24) -> str:
    s = " ".join((instruction or "Episode").split())
    return s if len(s) <= limit else s[: limit - 1].rstrip() + "…"


class EpisodeApp(App):
    """One recorded episode as an app (see the module docstring for the screens and the advance rule)."""

    def __init__(self, episode: RecordedEpisode, package: str) -> None:
        self.episode = episode
        self.steps = list(episode.screens)
        self.package = package
        label = short_label(episode.instruction)
        self.labels = {"en": label, "zh": label}
        self.activity = f"{package}.EpisodeActivity"
        self.activities = {self.activity: "episode"}
        self.launcher = self.activity
        self.color = (96, 125, 139)
        self.glyph = ""
        self._scaled: dict[tuple[int, tuple[int, int]], Image.Image] = {}

    def package_record(self) -> Package:
        return Package(self.package, dict(self.labels), [self.activity], self.activity, system=False)

    # --- state -----------------------------------------------------------------------------------------
    def state(self, model: Device) -> dict[str, Any]:
        return model.app_ui.setdefault(self.package, {})

    def index(self, model: Device) -> int:
        return int(self.state(model).get("index", 0))

    def _step(self, model: Device) -> RecordedScreen | None:
        i = self.index(model)
        st = self.state(model)
        return self.steps[i] if 0 <= i < len(self.steps) and not st.get("off") else None

    def _advance(self, model: Device) -> None:
        st = self.state(model)
        st["index"] = self.index(model) + 1
        st.pop("typed", None)
        st.pop("wait_since", None)
        self._focus_input(model)
        model.events.log("episode", action="advance", package=self.package, index=st["index"])

    def _off_path(self, model: Device, why: str) -> None:
        st = self.state(model)
        st["off"] = why
        st.pop("typed", None)
        model.ui.set_focus(None, None)
        model.events.log("episode", action="off_path", package=self.package, index=self.index(model), why=why)

    def _return(self, model: Device) -> None:
        self.state(model).pop("off", None)
        self._focus_input(model)

    def _needs_input(self, step: RecordedScreen | None) -> bool:
        return step is not None and step.action in ("TYPE", "ENTER")

    def _focus_input(self, model: Device) -> None:
        if self._needs_input(self._step(model)):
            model.ui.set_focus(self.package, INPUT_KEY, keyboard=False)
        elif model.ui.state.focus_pkg == self.package:
            model.ui.set_focus(None, None)

    def on_foreground(self, ctx: Ctx) -> None:
        self._focus_input(ctx.model)

    # --- input ---------------------------------------------------------------------------------------
    def _last_touch(self, model: Device) -> tuple[float, float] | None:
        """Where the touch being dispatched landed, normalized (the device logs every input event just before it
        dispatches it, under the model lock)."""
        mark = model.events.mark()
        for ev in reversed(model.events.since(max(0, mark - 8))):
            if ev.kind in _TAP_EVENTS:
                x, y = (ev.data["x"], ev.data["y"]) if ev.kind != "swipe" else (ev.data["x1"], ev.data["y1"])
                W, H = model.display_size
                return float(x) / W, float(y) / H
        return None

    def _press(self, model: Device, long: bool, element: int | None) -> None:
        step = self._step(model)
        if step is None:
            return
        kind = step.action
        p = self._last_touch(model)
        hit = p is not None and kind in ("CLICK", "LONG_PRESS") and step.hits is not None and step.hits(*p)
        wanted_long = kind == "LONG_PRESS"
        if hit and long == wanted_long:
            self._advance(model)
        elif hit:
            self._off_path(
                model,
                ("a tap" if not long else "a long press")
                + " where the recording has a "
                + ("long press" if wanted_long else "tap"),
            )
        elif element is not None:
            box = step.elements[element]
            what = box.label or box.text or box.desc or f"element {element}"
            self._off_path(model, f"pressed {what!r}; the recording {step.description}")

    def _scroll(self, model: Device, dx: int, dy: int) -> bool:
        step = self._step(model)
        if step is None:
            return False
        W, H = model.display_size
        if step.swipe is not None and step.swipe(dx / W, dy / H):
            self._advance(model)
            return True
        return False

    def _key(self, model: Device, kind: str) -> bool:
        step = self._step(model)
        if step is not None and step.action == kind:
            self._advance(model)
            return True
        return False

    def on_back(self, ctx: Ctx) -> bool:
        m = ctx.model
        if self.state(m).get("off"):
            self._return(m)
            return True
        if self._key(m, "BACK"):
            return True
        step = self._step(m)
        if step is not None:
            self._off_path(m, f"pressed BACK; the recording {step.description}")
            return True
        return False  # the end page: BACK leaves the app

    def on_home(self, ctx: Ctx) -> bool:
        return self._key(ctx.model, "HOME")

    def on_recent(self, ctx: Ctx) -> bool:  # not wired by the window manager (RECENT shows Overview)
        return self._key(ctx.model, "RECENT")

    def _set_typed(self, model: Device, value: str) -> None:
        step = self._step(model)
        st = self.state(model)
        st["typed"] = value
        if step is None or step.action != "TYPE":
            return
        want, got = " ".join(step.text.split()), " ".join(value.split())
        if got == want:
            if not step.submit:
                self._advance(model)
        elif not want.startswith(got):
            self._off_path(model, f"typed {value!r}; the recording types {step.text!r}")

    def _enter(self, model: Device) -> None:
        step = self._step(model)
        kind = step.action if step is not None else ""
        typed_all = (
            step is not None
            and kind == "TYPE"
            and step.submit
            and " ".join(self.state(model).get("typed", "").split()) == " ".join(step.text.split())
        )
        if kind == "ENTER" or typed_all:
            self._advance(model)

    # --- building ------------------------------------------------------------------------------------
    def _image(self, i: int, size: tuple[int, int]) -> Image.Image:
        key = (i, size)
        img = self._scaled.get(key)
        if img is None:
            src = self.steps[i].image()
            img = src.convert("RGB").resize(size, Image.Resampling.BILINEAR)
            if len(self._scaled) >= SCALED_MAX:
                self._scaled.clear()
            self._scaled[key] = img
        return img

    def screen_episode(self, ctx: Ctx) -> list[View]:
        m = ctx.model
        st = ctx.ui
        if st.get("off"):
            return self._off_page(ctx, st["off"])
        i = self.index(m)
        if i >= len(self.steps):
            return self._end_page(ctx)
        step = self.steps[i]
        if step.action == "WAIT":
            since = st.setdefault("wait_since", m.uptime())
            if m.uptime() - since >= min(step.wait, WAIT_CAP):
                self._advance(m)
                return self.screen_episode(ctx)
        W, H = ctx.screen
        sx, sy = W / step.size[0], H / step.size[1]

        def scroll(dx: int, dy: int) -> bool:  # every view gets it: a swipe goes to the topmost view under it
            return self._scroll(m, dx, dy)

        surface = V(
            ctx,
            FRAME,
            (0, 0, W, H),
            "recorded_screen",
            clickable=True,
            long_clickable=True,
            style={"image": self._image(i, (W, H))},
            on_click=lambda: self._press(m, False, None),
            on_long_click=lambda: self._press(m, True, None),
            on_scroll=scroll,
        )
        views = [surface]
        for k, box in enumerate(step.elements):
            l, t, r, b = box.bounds
            bounds = (round(l * sx), round(t * sy), round(r * sx), round(b * sy))
            if bounds[2] <= bounds[0] or bounds[3] <= bounds[1]:
                continue
            views.append(
                V(
                    ctx,
                    box.class_name,
                    bounds,
                    "recorded_element",
                    text=box.text,
                    desc=box.desc,
                    clickable=True,
                    long_clickable=True,
                    style={"invisible": True},
                    on_scroll=scroll,
                    on_click=_bind(self._press, m, False, k),
                    on_long_click=_bind(self._press, m, True, k),
                )
            )
        views.extend(self._milestone_views(ctx, step, m))
        if self._needs_input(step):
            views.append(self._input(ctx, step))
        return views

    def _milestone_views(self, ctx: Ctx, step: RecordedScreen, m: Device) -> list[View]:
        """Marked regions (AndroidLens milestones: text, normalized bbox, states) become invisible views of their
        screen, so live milestone checks see what the recording shows."""
        W, H = ctx.screen
        out = []
        for mark in step.marks:
            x1, y1, x2, y2 = mark.bbox
            bounds = (round(x1 * W), round(y1 * H), round(x2 * W), round(y2 * H))
            if bounds[2] <= bounds[0] or bounds[3] <= bounds[1]:
                continue
            flags = {k: v for k, v in mark.flags.items() if k in View.__dataclass_fields__}
            v = V(
                ctx,
                "android.widget.TextView",
                bounds,
                "recorded_milestone",
                text=mark.text,
                clickable=True,
                long_clickable=True,
                style={"invisible": True},
                on_scroll=lambda dx, dy: self._scroll(m, dx, dy),
                on_click=_bind(self._press, m, False, None),
                on_long_click=_bind(self._press, m, True, None),
            )
            for name, value in flags.items():
                setattr(v, name, value)
            out.append(v)
        return out

    def _input(self, ctx: Ctx, step: RecordedScreen) -> View:
        m = ctx.model
        area = ctx.area
        l, t, r = area[0], area[1], area[2]
        value = self.state(m).get("typed", "")
        binding = FieldBinding(
            lambda: self.state(m).get("typed", ""),
            lambda v: self._set_typed(m, v),
            action=lambda: self._enter(m),
            action_kind="search",
        )
        return V(
            ctx,
            "android.widget.EditText",
            (l, t, r, t + ctx.dp(48)),
            INPUT_KEY,
            text=value,
            focusable=True,
            focused=ctx.focus == INPUT_KEY,
            key=INPUT_KEY,
            style={"invisible": True, "field": binding},
        )

    def _off_page(self, ctx: Ctx, why: str) -> list[View]:
        m = ctx.model
        l, t, r, _ = ctx.area
        W, H = ctx.screen
        pad = ctx.dp(24)
        bg = V(ctx, FRAME, (0, 0, W, H), "off_path", style={"bg": OFF_PATH_BG})
        y = t + ctx.dp(96)
        title = w.text(
            ctx,
            (l + pad, y, r - pad, y + ctx.dp(40)),
            "Off the recorded path",
            "off_path_title",
            size=24,
            color=(255, 255, 255),
        )
        y += ctx.dp(56)
        step_no = self.index(m)
        msg = w.text(
            ctx,
            (l + pad, y, r - pad, y + ctx.dp(120)),
            f"Step {step_no}: {why}",
            "off_path_reason",
            size=16,
            color=(235, 235, 235),
            lines=5,
        )
        y += ctx.dp(144)
        btn = w.button(
            ctx,
            (l + pad, y, r - pad, y + ctx.dp(48)),
            "Back to the recording",
            lambda: self._return(m),
            "off_path_back",
        )
        return [bg, title, msg, btn]

    def _end_page(self, ctx: Ctx) -> list[View]:
        l, t, r, b = ctx.area
        pad = ctx.dp(24)
        return [
            w.text(
                ctx,
                (l + pad, t, r - pad, b),
                "End of the recorded episode",
                "episode_end",
                size=20,
                align="c",
                color=ctx.theme.text2,
            )
        ]


def _bind(fn: Callable[..., Any], *args: Any) -> Callable[[], Any]:
    return lambda: fn(*args)


# --- installing ---------------------------------------------------------------------------------------------
def episode_package(episode: RecordedEpisode) -> str:
    return PACKAGE_PREFIX + sanitize_package_part(episode.episode_id)


def install_episode_app(model: VirtualDeviceModel, episode: RecordedEpisode, package: str | None = None) -> str:
    """Install `episode` as an app on the virtual device `model`; returns its package name. Re-installing the
    same package replaces the episode and restarts it at step 0."""
    if not episode.screens:
        raise ValueError(f"episode {episode.episode_id}: no steps")
    pkg = package or episode_package(episode)
    app = EpisodeApp(episode, pkg)
    with model.lock:
        if pkg in model.packages:
            model.force_stop(pkg)
        model.ui.apps[pkg] = app
        model.install_package(app.package_record())
    return pkg


def episode_app(model: VirtualDeviceModel, package: str) -> EpisodeApp | None:
    """The episode app installed as `package` on `model` (None if that package is not one)."""
    app = model.ui.apps.get(package)
    return app if isinstance(app, EpisodeApp) else None


__all__ = [
    "EpisodeApp",
    "RecordedElement",
    "RecordedEpisode",
    "RecordedMark",
    "RecordedScreen",
    "install_episode_app",
    "episode_app",
    "episode_package",
    "sanitize_package_part",
    "short_label",
    "PACKAGE_PREFIX",
]
