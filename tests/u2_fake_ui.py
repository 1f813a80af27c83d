"""A small, fixed screen for the uiautomator2 server tests: it implements the UIManager contract of
`emulator/virtual/ui/manager.py` so tests do not depend on the built-in apps.

Install with `FakeUI.install(model)`. Layout (display width W), top to bottom:
  title "U2 Demo" | Button "OK" (tap counts) + Button "Long" (long press counts) | EditText input | EditText input2
  | CheckBox "Agree" | rows: 3 x (TextView "Row i", Button "Go i" desc "go i") | ScrollView list of 30 "Item n"
  (200 px each, scrolled by swipes inside it) | status TextView "Clicks: N".
"""

from __future__ import annotations

from typing import Any

from PIL import Image, ImageDraw

from emulator.virtual.ui.frames import Frame, encode_jpeg
from emulator.virtual.ui.view import View

PKG = "com.example.u2demo"


def rid(name: str) -> str:
    return f"{PKG}:id/{name}"


class FakeUI:
    ITEM_H = 200
    N_ITEMS = 30
    LIST_TOP, LIST_BOTTOM = 1000, 2000

    def __init__(self, model: Any) -> None:
        self.model = model
        self.fields = {"input": "", "input2": "prefilled"}
        self.focus: str | None = None
        self.ok_clicks = 0
        self.long_presses = 0
        self.go_clicks: list[int] = []
        self.agree = False
        self.offset = 0
        self.keys: list[int] = []
        self.extra: list[View] = []  # views tests add at run time (e.g. to make something appear)

    @classmethod
    def install(cls, model: Any) -> FakeUI:
        ui = cls(model)
        with model.lock:
            model.ui = ui
        return ui

    # --- contract -------------------------------------------------------------------------------
    def install_builtin_apps(self) -> None:
        pass

    def on_foreground_changed(self) -> None:
        pass

    def on_data_cleared(self, package: str) -> None:
        pass

    @property
    def max_offset(self) -> int:
        return self.N_ITEMS * self.ITEM_H - (self.LIST_BOTTOM - self.LIST_TOP)

    def views(self) -> tuple[list[View], None]:
        """The manager keeps a state's views (`ui.viewsonce`); the fake builds them every time: kept under no key."""
        return self.view_roots(), None

    def keyboard_shown(self, ime_packages: set[str]) -> bool:
        return any(v.package in ime_packages for v in self.view_roots())

    def view_roots(self) -> list[View]:
        w, h = self.model.display_size
        half = w // 2

        def tv(text: str, name: str, b: tuple[int, int, int, int], **kw: Any) -> View:
            return View(
                cls=kw.pop("cls", "android.widget.TextView"),
                text=text,
                resource_id=rid(name),
                package=PKG,
                bounds=b,
                **kw,
            )

        def edit(name: str, top: int) -> View:
            return View(
                cls="android.widget.EditText",
                text=self.fields[name],
                hint="Type here",
                resource_id=rid(name),
                package=PKG,
                bounds=(0, top, w, top + 100),
                clickable=True,
                focusable=True,
                long_clickable=True,
                focused=self.focus == name,
                key=name,
            )

        rows = []
        for i in range(3):
            top = 600 + 100 * i
            rows.append(
                View(
                    cls="android.widget.LinearLayout",
                    package=PKG,
                    bounds=(0, top, w, top + 100),
                    resource_id=rid("row"),
                    children=[
                        tv(f"Row {i}", "row_label", (0, top, half, top + 100)),
                        tv(
                            f"Go {i}",
                            "row_go",
                            (half, top, w, top + 100),
                            cls="android.widget.Button",
                            desc=f"go {i}",
                            clickable=True,
                            focusable=True,
                            on_click=lambda i=i: self.go_clicks.append(i),
                        ),
                    ],
                )
            )
        items = []
        for n in range(self.N_ITEMS):
            top = self.LIST_TOP + n * self.ITEM_H - self.offset
            if top + self.ITEM_H <= self.LIST_TOP or top >= self.LIST_BOTTOM:
                continue
            items.append(tv(f"Item {n}", "item", (0, top, w, top + self.ITEM_H), clickable=True))
        content = View(
            cls="android.widget.LinearLayout",
            package=PKG,
            bounds=(0, 0, w, h),
            resource_id=rid("content"),
            children=[
                tv("U2 Demo", "title", (0, 100, w, 200)),
                tv(
                    "OK",
                    "ok",
                    (0, 200, half, 300),
                    cls="android.widget.Button",
                    clickable=True,
                    focusable=True,
                    on_click=self._ok,
                ),
                tv(
                    "Long",
                    "long",
                    (half, 200, w, 300),
                    cls="android.widget.Button",
                    clickable=True,
                    long_clickable=True,
                    on_long_click=self._long,
                ),
                edit("input", 300),
                edit("input2", 400),
                tv(
                    "Agree",
                    "agree",
                    (0, 500, w, 600),
                    cls="android.widget.CheckBox",
                    checkable=True,
                    checked=self.agree,
                    clickable=True,
                    on_click=self._toggle,
                ),
                View(
                    cls="android.widget.LinearLayout",
                    package=PKG,
                    bounds=(0, 600, w, 900),
                    resource_id=rid("rows"),
                    children=rows,
                ),
                View(
                    cls="android.widget.ScrollView",
                    package=PKG,
                    bounds=(0, self.LIST_TOP, w, self.LIST_BOTTOM),
                    resource_id=rid("list"),
                    scrollable=True,
                    focusable=True,
                    children=items,
                ),
                tv(f"Clicks: {self.ok_clicks}", "status", (0, 2000, w, 2100)),
                *self.extra,
            ],
        )
        return [View(cls="android.widget.FrameLayout", package=PKG, bounds=(0, 0, w, h), children=[content])]

    def _ok(self) -> None:
        self.ok_clicks += 1

    def _long(self) -> None:
        self.long_presses += 1

    def _toggle(self) -> None:
        self.agree = not self.agree

    def frame(self) -> Frame:
        roots, size = self.view_roots(), self.model.display_size
        return Frame(("fake", id(roots)), lambda: self._draw(roots, size))

    def render_jpeg(self, frame: Frame, scale: float, quality: int) -> bytes:
        return encode_jpeg(self.render(frame), scale, quality)

    def render(self, frame: Frame) -> Image.Image:
        return frame.draw()

    @staticmethod
    def _draw(roots: list[View], size: tuple[int, int]) -> Image.Image:
        img = Image.new("RGB", size, (250, 250, 250))
        draw = ImageDraw.Draw(img)
        for root in roots:
            for v in root.walk():
                l, t, r, b = v.bounds
                if v.clickable:
                    draw.rectangle((l, t, r - 1, b - 1), outline=(30, 30, 200))
                if v.text:
                    draw.text((l + 10, t + 10), v.text, fill=(0, 0, 0))
        return img

    def _hit(self, x: float, y: float, pred: Any) -> View | None:
        for root in reversed(self.view_roots()):
            v = root.hit(x, y, pred)
            if v is not None:
                return v
        return None

    def tap(self, x: float, y: float) -> None:
        v = self._hit(x, y, lambda v: v.on_click is not None or v.cls == "android.widget.EditText")
        if v is None:
            return
        if v.cls == "android.widget.EditText":
            self.focus = v.key
        elif v.on_click is not None:
            v.on_click()

    def long_press(self, x: float, y: float, ms: int) -> None:
        v = self._hit(x, y, lambda v: v.on_long_click is not None)
        if v is not None and v.on_long_click is not None:
            v.on_long_click()

    def swipe(self, x1: float, y1: float, x2: float, y2: float, ms: int) -> None:
        if 0 <= x1 < self.model.display_size[0] and self.LIST_TOP <= y1 < self.LIST_BOTTOM:
            self.offset = max(0, min(self.max_offset, self.offset + int(y1 - y2)))

    def key(self, code: int) -> bool:
        self.keys.append(code)
        if code == 67 and self.focus:  # DEL
            self.fields[self.focus] = self.fields[self.focus][:-1]
            return True
        if code == 4 and self.focus:  # BACK hides the keyboard first
            self.focus = None
            return True
        return False

    def commit_text(self, text: str) -> bool:
        if not self.focus:
            return False
        self.fields[self.focus] += text
        return True

    def focused_text(self) -> str | None:
        return self.fields[self.focus] if self.focus else None

    def set_focused_text(self, text: str) -> bool:
        if not self.focus:
            return False
        self.fields[self.focus] = text
        return True

    def dismiss_transient(self) -> None:
        self.focus = None

    def show_recents(self) -> None:
        pass

    def snapshot(self) -> Any:
        return (dict(self.fields), self.focus, self.offset)

    def restore(self, snap: Any) -> None:
        self.fields, self.focus, self.offset = dict(snap[0]), snap[1], snap[2]
