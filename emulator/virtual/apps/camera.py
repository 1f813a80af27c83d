"""Camera: AOSP's Camera2 as an emulator image carries it (`com.android.camera2`, launcher label "Camera", the launcher
alias `com.android.camera.CameraLauncher` of `com.android.camera.CameraActivity`), on a drawn scene instead of a
sensor (`camera_media`). What it captures is a real file on shared storage, where Camera2 puts it on Android 10 and
later (Pictures/IMG_yyyyMMdd_HHmmss.jpg, Movies/VID_yyyyMMdd_HHmmss.mp4, the device's clock), so `adb shell ls`,
`adb pull` and MediaStore see it as soon as it is saved.

Modeled:
- the first start's dialog (FirstRunDialog's location prompt: "Remember photo locations?", the `check_box` "Tag your
  photos and videos with the locations where they're taken." - on by default -, and NEXT, `confirm_button`), whose
  answer goes to the preferences file (`pref_camera_recordlocation_key`): it shows until answered; BACK there closes
  the app, as cancelling it does;
- the viewfinder (`preview_content`: 4:3 for photos, 16:9 for videos), the bottom bar's `shutter_button` ("Shutter"):
  a photo in Camera mode, recording started and stopped in Video mode (`recording_time` counting meanwhile); the
  mode list (ModeListView: a swipe right on the viewfinder, or the "Mode list" button that shows when a Google
  accessibility service is on, as AndroidWorld's forwarder is) with Camera ("Switch to Camera Mode"), Video ("Switch
  to Video Camera") and Settings; the mode chosen is kept as the startup mode (`camera.startup_module`) the
  launcher opens next, while STILL_IMAGE_CAMERA / VIDEO_CAMERA intents open their own;
- the mode options ("Options": flash, grid lines, back / front camera), kept while the app runs.
Left out: the filmstrip (captures are not shown back), zoom, countdown, HDR+, Photo Sphere / panorama / lens blur,
the settings screens, capture intents returning their result, the location permission request, EXIF location,
audio in videos, a recording surviving the app being stopped.
"""

from __future__ import annotations

from typing import Any

from ..appstorage import SharedPrefs
from ..ui import widgets as w
from ..ui.fonts import wrap
from ..ui.layout import Ctx, V
from ..ui.view import View
from . import camera_media as media
from .base import App

PKG = "com.android.camera2"
LAUNCHER = "com.android.camera.CameraLauncher"
ACTIVITY = "com.android.camera.CameraActivity"
VIDEO_CAMERA = "com.android.camera.VideoCamera"
PREFS = SharedPrefs(PKG)
KEY_LOCATION = "pref_camera_recordlocation_key"
KEY_STARTUP_MODULE = "camera.startup_module"
KEY_LAST_MODULE = "pref_camera_module_last_used_index"
PHOTO, VIDEO = 0, 1  # R.integer.camera_mode_photo / camera_mode_video
PERMISSIONS = (
    "android.permission.ACCESS_COARSE_LOCATION",
    "android.permission.ACCESS_FINE_LOCATION",
    "android.permission.CAMERA",
    "android.permission.RECORD_AUDIO",
    "android.permission.POST_NOTIFICATIONS",
)
BLACK = (0, 0, 0)
WHITE = (255, 255, 255)
RED = (219, 68, 55)
FLASH = (("Flash off", "闪光灯已关闭"), ("Flash auto", "自动闪光"), ("Flash on", "闪光灯已打开"))


def _prefs(ctx: Ctx) -> dict[str, Any]:
    return PREFS.read(ctx.model.fs)


def mode(ctx: Ctx) -> int:
    value = ctx.ui.get("mode")
    if value is None:
        value = VIDEO if str(_prefs(ctx).get(KEY_STARTUP_MODULE, "0")) == "1" else PHOTO
        ctx.ui["mode"] = value
    return int(value)


def accessibility_on(ctx: Ctx) -> bool:
    """AccessibilityUtil.isAccessibilityEnabled: touch exploration, or an enabled service of a `com.google` package."""
    secure = ctx.model.settings.get("secure", {})
    services = secure.get("enabled_accessibility_services", "") or ""
    return secure.get("touch_exploration_enabled") == "1" or any(
        s.strip().startswith("com.google") for s in services.split(":")
    )


class CameraApp(App):
    package = PKG
    labels = {"en": "Camera", "zh": "相机"}
    activities = {LAUNCHER: "camera", ACTIVITY: "camera", VIDEO_CAMERA: "camera"}
    launcher = LAUNCHER
    intent_filters = [
        ("android.media.action.STILL_IMAGE_CAMERA", "", ACTIVITY),
        ("android.media.action.VIDEO_CAMERA", "", VIDEO_CAMERA),
    ]
    permissions = PERMISSIONS
    color = (66, 66, 66)
    glyph = "image"

    # --- state --------------------------------------------------------------------------------------------------
    def on_intent(self, ctx: Ctx, action: str, extras: dict[str, Any]) -> None:
        if action == "android.media.action.VIDEO_CAMERA":
            ctx.ui["mode"] = VIDEO
        elif action == "android.media.action.STILL_IMAGE_CAMERA":
            ctx.ui["mode"] = VIDEO if str(_prefs(ctx).get(KEY_LAST_MODULE, "0")) == "1" else PHOTO

    def on_back(self, ctx: Ctx) -> bool:
        if ctx.ui.pop("mode_list", None) or ctx.ui.pop("options", None):
            return True
        if ctx.ui.get("recording") is not None:
            self._stop(ctx)
        return False

    def _first_run(self, ctx: Ctx) -> bool:
        return KEY_LOCATION not in _prefs(ctx)

    def _set_mode(self, ctx: Ctx, value: int) -> None:
        if ctx.ui.get("recording") is not None:
            self._stop(ctx)
        ctx.ui["mode"] = value
        ctx.ui.pop("mode_list", None)
        PREFS.put(ctx.model.fs, KEY_STARTUP_MODULE, str(value))
        PREFS.put(ctx.model.fs, KEY_LAST_MODULE, str(value))

    def _shutter(self, ctx: Ctx) -> None:
        ctx.ui.pop("options", None)
        now = ctx.model.now()
        front = bool(ctx.ui.get("front"))
        if mode(ctx) == PHOTO:
            path = media.capture_name(ctx.model, "IMG", now, media.PICTURES, ".jpg")
            media.save(ctx.model.fs, path, media.photo_jpeg(ctx.model, now, front), now)
        elif ctx.ui.get("recording") is None:
            ctx.ui["recording"] = now
        else:
            self._stop(ctx)

    def _stop(self, ctx: Ctx) -> None:
        start = float(ctx.ui.pop("recording"))
        seconds = max(0.0, ctx.model.now() - start)
        path = media.capture_name(ctx.model, "VID", start, media.MOVIES, ".mp4")
        media.save(ctx.model.fs, path, media.video_mp4(seconds, bool(ctx.ui.get("front"))), ctx.model.now())

    # --- the screen ---------------------------------------------------------------------------------------------
    def screen_camera(self, ctx: Ctx) -> list[View]:
        l, t, r, b = ctx.area
        m = mode(ctx)
        front = bool(ctx.ui.get("front"))
        root = V(ctx, w.FRAME, (l, t, r, b), "camera_app_root", style={"bg": BLACK})
        ratio = 16 / 9 if m == VIDEO else 4 / 3
        ph = min(b - t, int((r - l) * ratio))
        preview_box = (l, t, r, t + ph)
        small = (max(8, (r - l) // 5), max(8, ph // 5))  # drawn small, scaled up on the screen
        preview = V(
            ctx,
            "android.view.TextureView",
            preview_box,
            "preview_content",
            style={"image": media.scene(small, front, keep=True)},
        )
        preview.on_scroll = lambda dx, dy: self._swipe(ctx, dx, dy)
        root.children.append(preview)
        if ctx.ui.get("grid"):
            for i in (1, 2):
                x = l + (r - l) * i // 3
                y = t + ph * i // 3
                root.children.append(V(ctx, "android.view.View", (x, t, x + 2, t + ph), style={"bg": WHITE}))
                root.children.append(V(ctx, "android.view.View", (l, y, r, y + 2), style={"bg": WHITE}))
        root.children.append(self._top(ctx, front))
        recording = ctx.ui.get("recording")
        if recording is not None:
            secs = int(max(0.0, ctx.model.now() - float(recording)))
            label = f"{secs // 60:02d}:{secs % 60:02d}"
            bw = ctx.dp(96)
            cx = (l + r) // 2
            root.children.append(
                w.text(
                    ctx,
                    (cx - bw // 2, t + ctx.dp(72), cx + bw // 2, t + ctx.dp(104)),
                    label,
                    "recording_time",
                    size=16,
                    color=WHITE,
                    align="c",
                    style={"bg": RED, "radius": ctx.dp(16)},
                )
            )
        root.children.append(self._bottom_bar(ctx, m, recording is not None))
        return [root]

    def _swipe(self, ctx: Ctx, dx: int, dy: int) -> bool:
        """A swipe right on the viewfinder opens the mode list (left would open the filmstrip)."""
        if abs(dx) > abs(dy) and dx > 0 and ctx.ui.get("recording") is None:
            ctx.ui["mode_list"] = True
            ctx.ui.pop("options", None)
        return True

    def _top(self, ctx: Ctx, front: bool) -> View:
        l, t, r, _ = ctx.area
        isz = ctx.dp(48)
        top = V(ctx, w.FRAME, (l, t, r, t + ctx.dp(64)), "mode_options_overlay")
        y0 = t + ctx.dp(8)
        toggle = w.icon(
            ctx,
            (r - ctx.dp(8) - isz, y0, r - ctx.dp(8), y0 + isz),
            "more",
            WHITE,
            "mode_options_toggle",
            ctx.tr("Options", "选项"),
            on_click=lambda: ctx.ui.update(options=not ctx.ui.get("options")),
        )
        toggle.style["inset"] = ctx.dp(12)
        top.children.append(toggle)
        if ctx.ui.get("options"):
            flash = int(ctx.ui.get("flash", 0))
            grid = bool(ctx.ui.get("grid"))
            items = [
                (
                    "flash_toggle_button",
                    ctx.tr(*FLASH[flash]),
                    "sun",
                    lambda: ctx.ui.update(flash=(flash + 1) % 3),
                ),
                (
                    "grid_lines_toggle_button",
                    ctx.tr("Grid lines on", "网格线已开启") if grid else ctx.tr("Grid lines off", "网格线已关闭"),
                    "apps",
                    lambda: ctx.ui.update(grid=not grid),
                ),
                (
                    "camera_toggle_button",
                    ctx.tr("Front camera", "前置摄像头") if front else ctx.tr("Back camera", "后置摄像头"),
                    "person",
                    lambda: ctx.ui.update(front=not front),
                ),
            ]
            bar = V(ctx, w.LINEAR, (l, y0, r - ctx.dp(8) - isz, y0 + isz), "mode_options_buttons")
            x = r - ctx.dp(8) - isz * (len(items) + 1)
            for rid, desc, icon, cb in items:
                b = w.icon(ctx, (x, y0, x + isz, y0 + isz), icon, WHITE, rid, desc, cls=w.IMAGE_BUTTON, on_click=cb)
                b.style["inset"] = ctx.dp(12)
                bar.children.append(b)
                x += isz
            top.children.append(bar)
        if accessibility_on(ctx):
            box = V(ctx, w.LINEAR, (l, y0, l + ctx.dp(240), y0 + isz), "accessibility_affordances")
            labels = [
                (
                    "accessibility_mode_toggle_button",
                    ctx.tr("Mode list", "模式列表"),
                    ctx.tr("Toggle mode list", "切换模式列表"),
                ),
                (
                    "accessibility_filmstrip_toggle_button",
                    ctx.tr("Filmstrip", "胶卷"),
                    ctx.tr("Toggle filmstrip", "切换胶卷视图"),
                ),
            ]
            x = l + ctx.dp(8)
            for rid, text, desc in labels:
                bw = ctx.dp(108)
                act: w.Click = (lambda: ctx.ui.update(mode_list=True)) if rid.startswith("accessibility_mode") else None
                btn = w.button(
                    ctx, (x, y0 + ctx.dp(4), x + bw, y0 + isz - ctx.dp(4)), text, act, rid, kind="tonal", desc=desc
                )
                box.children.append(btn)
                x += bw + ctx.dp(8)
            top.children.append(box)
        return top

    def _bottom_bar(self, ctx: Ctx, m: int, recording: bool) -> View:
        l, _, r, b = ctx.area
        h = ctx.dp(128)
        bar = V(ctx, w.FRAME, (l, b - h, r, b), "bottom_bar", style={"bg": (20, 20, 20)})
        sz = ctx.dp(72)
        cx, cy = (l + r) // 2, b - h // 2
        box = (cx - sz // 2, cy - sz // 2, cx + sz // 2, cy + sz // 2)
        capture = V(ctx, w.FRAME, box, "bottombar_capture")
        color = RED if m == VIDEO else WHITE
        shutter = V(
            ctx,
            w.IMAGE_BUTTON,
            box,
            "shutter_button",
            desc=ctx.tr("Shutter", "快门"),
            clickable=True,
            focusable=True,
            on_click=lambda: self._shutter(ctx),
            style={"bg": color, "radius": sz // 2, "border": WHITE, "border_w": ctx.dp(4)},
        )
        if recording:
            q = sz // 5
            shutter.children.append(V(ctx, "android.view.View", (cx - q, cy - q, cx + q, cy + q), style={"bg": WHITE}))
        capture.children.append(shutter)
        bar.children.append(capture)
        return bar

    # --- windows over the viewfinder ----------------------------------------------------------------------------
    def dialog(self, ctx: Ctx) -> View | None:
        if self._first_run(ctx):
            return self._location_dialog(ctx)
        if ctx.ui.get("mode_list"):
            return self._mode_list(ctx)
        return super().dialog(ctx)

    def _location_dialog(self, ctx: Ctx) -> View:
        """FirstRunDialog's location prompt (location_dialog_layout), full screen."""
        l, t, r, b = ctx.mgr.dialog_area()
        on = ctx.ui.get("tag_location", True)

        def cancel() -> None:
            ctx.finish()

        def confirm() -> None:
            PREFS.put(ctx.model.fs, KEY_LOCATION, "1" if on else "0")

        root = V(ctx, w.LINEAR, (l, t, r, b), style={"bg": (33, 33, 33), "modal": True, "on_cancel": cancel})
        pad = ctx.dp(24)
        title = ctx.tr("Remember photo locations?", "要记住照片拍摄地点吗？")
        prompt = ctx.tr(
            "Tag your photos and videos with the locations where they\u2019re taken.", "为您的照片和视频标明拍摄地点。"
        )
        n_title = max(1, len(wrap(title, ctx.sp(24), r - l - 2 * pad)))
        n_prompt = max(1, len(wrap(prompt, ctx.sp(15), r - l - 2 * pad - ctx.dp(58))))
        title_h = ctx.line_h(24, n_title)
        row_h = max(ctx.dp(56), ctx.line_h(15, n_prompt) + ctx.dp(16))
        bh = ctx.dp(48)
        y = t + ctx.dp(32)
        root.children.append(
            w.text(ctx, (l + pad, y, r - pad, y + title_h), title, size=24, color=WHITE, lines=n_title, valign="t")
        )
        y += title_h + ctx.dp(16)
        art = min(ctx.dp(160), b - pad - bh - ctx.dp(16) - row_h - ctx.dp(16) - y)
        if art >= ctx.dp(32):  # the location pin, where the screen has room for it
            cx = (l + r) // 2
            root.children.append(w.icon(ctx, (cx - art // 2, y, cx + art // 2, y + art), "location", (138, 180, 248)))
            y += art + ctx.dp(16)
        box = w.checkbox(
            ctx,
            (l + pad, y, r - pad, y + row_h),
            bool(on),
            "check_box",
            lambda: ctx.ui.update(tag_location=not on),
            prompt,
        )
        box.style.update(fg=WHITE, lines=n_prompt)
        root.children.append(box)
        bw = ctx.dp(120)
        nxt = w.button(
            ctx,
            (r - pad - bw, b - pad - bh, r - pad, b - pad),
            ctx.tr("NEXT", "下一页"),
            confirm,
            "confirm_button",
            kind="text",
        )
        nxt.style["fg"] = (138, 180, 248)
        root.children.append(nxt)
        return root

    def _mode_list(self, ctx: Ctx) -> View:
        """ModeListView: the modes' items (icon, `selector_text`), Settings at the bottom."""
        l, t, r, b = ctx.mgr.dialog_area()
        wd = min(r - l - ctx.dp(72), ctx.dp(300))
        panel = V(
            ctx,
            w.FRAME,
            (l, t, l + wd, b),
            "mode_list_layout",
            style={"bg": (48, 48, 48), "modal": True, "on_cancel": lambda: ctx.ui.pop("mode_list", None)},
        )
        panel.on_scroll = lambda dx, dy: bool(dx < 0 and ctx.ui.pop("mode_list", None)) or True
        items = V(ctx, w.LINEAR, (l, t + ctx.dp(24), l + wd, b - ctx.dp(96)), "mode_list")
        ih = ctx.dp(72)
        y = t + ctx.dp(24)
        current = mode(ctx)
        for value, (en, zh), (den, dzh), icon in (
            (PHOTO, ("Camera", "相机"), ("Switch to Camera Mode", "切换到相机模式"), "image"),
            (VIDEO, ("Video", "视频"), ("Switch to Video Camera", "切换到摄像机模式"), "play"),
        ):
            item = V(
                ctx,
                w.FRAME,
                (l, y, l + wd, y + ih),
                desc=ctx.tr(den, dzh),
                clickable=True,
                focusable=True,
                selected=value == current,
                on_click=lambda value=value: self._set_mode(ctx, value),
                style={"bg": (66, 133, 244) if value == current else None},
            )
            isz = ctx.dp(40)
            item.children.append(
                w.icon(
                    ctx,
                    (l + wd - ctx.dp(24) - isz, y + (ih - isz) // 2, l + wd - ctx.dp(24), y + (ih + isz) // 2),
                    icon,
                    WHITE,
                    "selector_icon",
                )
            )
            item.children.append(
                w.text(
                    ctx,
                    (l + ctx.dp(24), y, l + wd - ctx.dp(80), y + ih),
                    ctx.tr(en, zh),
                    "selector_text",
                    size=18,
                    color=WHITE,
                )
            )
            items.children.append(item)
            y += ih
        panel.children.append(items)
        isz = ctx.dp(48)
        gear = w.icon(
            ctx,
            (l + ctx.dp(16), b - ctx.dp(72), l + ctx.dp(16) + isz, b - ctx.dp(72) + isz),
            "settings",
            WHITE,
            "settings_button",
            ctx.tr("Settings", "设置"),
            on_click=lambda: ctx.ui.pop("mode_list", None),
        )
        gear.style["inset"] = ctx.dp(12)
        panel.children.append(gear)
        return panel
