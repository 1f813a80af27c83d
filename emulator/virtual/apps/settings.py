"""Settings: the top-level list, Network & internet (Wi-Fi, airplane mode), Connected devices (Bluetooth),
Display (dark theme), About phone (from the device props), and a search field over all of them.

Switches read and write `model.settings` (global wifi_on, airplane_mode_on, bluetooth_on; secure ui_night_mode
2 = dark / 1 = light), so `settings get` in the shell and the rendering of every app agree with the UI. Display's
brightness slider writes `system screen_brightness` as a Pixel does: 1..255, the track in SettingsLib's gamma space.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ..records import INTENT_DATA
from ..ui import widgets as w
from ..ui.layout import Ctx, Row, V
from ..ui.textlayout import font_scale
from ..ui.view import View
from .base import App, page

MAIN = "com.android.settings.Settings"
SUB = "com.android.settings.SubSettings"
# Special app access > All files access, for one app (Settings.ACTION_MANAGE_APP_ALL_FILES_ACCESS_PERMISSION with a
# package: URI): its switch sets the app's MANAGE_EXTERNAL_STORAGE app-op
ALL_FILES = "com.android.settings.Settings$AppManageExternalStorageActivity"
ALL_FILES_ACTION = "android.settings.MANAGE_APP_ALL_FILES_ACCESS_PERMISSION"

# key, icon, (en, zh) title, (en, zh) summary
TOP_LEVEL: list[tuple[str, str, tuple[str, str], tuple[str, str]]] = [
    ("network", "wifi", ("Network & internet", "网络和互联网"), ("Mobile, Wi-Fi, hotspot", "移动网络、WLAN、热点")),
    ("connected", "devices", ("Connected devices", "已连接的设备"), ("Bluetooth, pairing", "蓝牙、配对")),
    ("apps", "apps", ("Apps", "应用"), ("Assistant, recent apps, default apps", "助理、最近使用的应用、默认应用")),
    ("notifications", "bell", ("Notifications", "通知"), ("Notification history, conversations", "通知历史记录、对话")),
    ("battery", "battery", ("Battery", "电池"), ("100%", "100%")),
    ("storage", "storage", ("Storage", "存储"), ("37% used - 80.64 GB free", "已使用 37% - 还剩 80.64 GB")),
    (
        "sound",
        "sound",
        ("Sound & vibration", "提示音和振动"),
        ("Volume, haptics, Do Not Disturb", "音量、触感反馈、勿扰模式"),
    ),
    ("display", "display", ("Display", "显示"), ("Dark theme, font size, brightness", "深色主题、字体大小、亮度")),
    (
        "security",
        "lock",
        ("Security & privacy", "安全和隐私"),
        ("App security, device lock, permissions", "应用安全、设备锁定、权限"),
    ),
    (
        "location",
        "location",
        ("Location", "位置信息"),
        ("On - 3 apps have access to location", "已开启 - 3 个应用有权访问位置信息"),
    ),
    ("system", "settings", ("System", "系统"), ("Languages, gestures, time, backup", "语言、手势、时间、备份")),
    ("about", "info", ("About phone", "关于手机"), ("", "")),
]

# static rows of the pages that are not modelled further: (en, zh) title, (en, zh) summary
STATIC_PAGES: dict[str, list[tuple[tuple[str, str], tuple[str, str]]]] = {
    "apps": [
        (("Recently opened apps", "最近打开的应用"), ("Messages, Notes, Settings", "信息、笔记、设置")),
        (("Default apps", "默认应用"), ("Chrome, Phone, Messages", "Chrome、电话、信息")),
        (("App battery usage", "应用的电池用量"), ("", "")),
    ],
    "notifications": [
        (("App notifications", "应用通知"), ("On for all apps", "已为所有应用开启")),
        (("Notification history", "通知历史记录"), ("Off", "已关闭")),
        (("Do Not Disturb", "勿扰模式"), ("Off", "已关闭")),
    ],
    "battery": [
        (("Battery percentage", "电池电量百分比"), ("On", "已开启")),
        (("Battery Saver", "省电模式"), ("Off", "已关闭")),
        (("Adaptive Battery", "自动调节电池用量"), ("On", "已开启")),
    ],
    "storage": [
        (("System", "系统"), ("24 GB", "24 GB")),
        (("Apps", "应用"), ("12 GB", "12 GB")),
        (("Images", "图片"), ("1.2 GB", "1.2 GB")),
        (("Documents & other", "文档和其他文件"), ("310 MB", "310 MB")),
    ],
    "sound": [
        (("Media volume", "媒体音量"), ("60%", "60%")),
        (("Ring volume", "铃声音量"), ("80%", "80%")),
        (("Phone ringtone", "手机铃声"), ("The big adventure", "大冒险")),
    ],
    "security": [
        (("Screen lock", "屏幕锁定"), ("None", "无")),
        (("Face & Fingerprint Unlock", "人脸和指纹解锁"), ("", "")),
        (("Privacy", "隐私"), ("Permissions, account activity", "权限、账号活动")),
    ],
    "location": [
        (("Use location", "使用位置信息"), ("On", "已开启")),
        (("Recent access", "近期使用情况"), ("Weather, Shop, Messages", "天气、购物、信息")),
    ],
    "system": [
        (("Languages", "语言"), ("English (United States)", "中文（简体）")),
        (("Gestures", "手势"), ("", "")),
        (("Date & time", "日期和时间"), ("GMT-07:00 Pacific Daylight Time", "GMT-07:00 北美太平洋夏令时间")),
        (("Backup", "备份"), ("On", "已开启")),
    ],
}


# the Settings.ACTION_* intents a phone's Settings app takes, and the page each opens
ACTION_PAGES: dict[str, str] = {
    "android.settings.WIFI_SETTINGS": "network",
    "android.settings.WIRELESS_SETTINGS": "network",
    "android.settings.AIRPLANE_MODE_SETTINGS": "network",
    "android.settings.DATA_ROAMING_SETTINGS": "network",
    "android.settings.BLUETOOTH_SETTINGS": "connected",
    "android.settings.APPLICATION_SETTINGS": "apps",
    "android.settings.MANAGE_APPLICATIONS_SETTINGS": "apps",
    "android.settings.ALL_APPS_NOTIFICATION_SETTINGS": "notifications",
    "android.settings.BATTERY_SAVER_SETTINGS": "battery",
    "android.settings.INTERNAL_STORAGE_SETTINGS": "storage",
    "android.settings.SOUND_SETTINGS": "sound",
    "android.settings.DISPLAY_SETTINGS": "display",
    "android.settings.SECURITY_SETTINGS": "security",
    "android.settings.PRIVACY_SETTINGS": "security",
    "android.settings.LOCATION_SOURCE_SETTINGS": "location",
    "android.settings.DATE_SETTINGS": "system",
    "android.settings.LOCALE_SETTINGS": "system",
    "android.settings.DEVICE_INFO_SETTINGS": "about",
}


# Brightness as a Pixel keeps it. `system screen_brightness` runs 1..255: the display's brightness 0.0..1.0 is
# 1 + 254 * b (BrightnessSynchronizer), so the slider's ends write 1 and 255. The slider and the summary's
# percentage are in SettingsLib's gamma space (BrightnessUtils: hybrid log-gamma over 0..GAMMA_SPACE_MAX), so
# half the track is a twelfth of the range (22) and the default 102 shows 83%.
BRIGHTNESS_MIN, BRIGHTNESS_MAX, BRIGHTNESS_DEFAULT = 1, 255, 102
GAMMA_SPACE_MAX = 65535
_HLG_R, _HLG_A, _HLG_B, _HLG_C = 0.5, 0.17883277, 0.28466892, 0.55991073


def brightness_gamma(level: int) -> float:
    """Where `screen_brightness` = level puts the slider's thumb: a fraction of the track (convertLinearToGamma);
    a level outside 1..255 (`settings put` takes 0) puts it at an end."""
    n = 12 * max(0.0, min(1.0, (level - BRIGHTNESS_MIN) / (BRIGHTNESS_MAX - BRIGHTNESS_MIN)))
    return math.sqrt(n) * _HLG_R if n <= 1 else min(1.0, _HLG_A * math.log(n - _HLG_B) + _HLG_C)


def brightness_level(gamma: float) -> int:
    """The `screen_brightness` the slider writes with its thumb at `gamma` of the track (convertGammaToLinear)."""
    g = max(0.0, min(1.0, gamma))
    linear = (g / _HLG_R) ** 2 if g <= _HLG_R else math.exp((g - _HLG_C) / _HLG_A) + _HLG_B
    b = max(0.0, min(1.0, linear / 12))
    return round(BRIGHTNESS_MIN + (BRIGHTNESS_MAX - BRIGHTNESS_MIN) * b)


def brightness_setting(settings: dict[str, dict[str, str]]) -> int:
    """`system screen_brightness` as an int (the default when it is missing or not a number)."""
    try:
        return int(settings.get("system", {}).get("screen_brightness", BRIGHTNESS_DEFAULT))
    except ValueError:
        return BRIGHTNESS_DEFAULT


def _opener(ctx: Ctx, page_key: str) -> Callable[[], None]:
    """A click handler that opens settings page `page_key` (a fresh extras dict per click)."""
    return lambda: ctx.push(SUB, {"page": page_key})


class SettingsApp(App):
    package = "com.android.settings"
    labels = {"en": "Settings", "zh": "设置"}
    activities = {MAIN: "main", SUB: "sub", ALL_FILES: "sub"}
    launcher = MAIN
    intent_filters = [
        ("android.settings.SETTINGS", "", MAIN),
        *[(a, "", SUB) for a in ACTION_PAGES],
        (ALL_FILES_ACTION, "scheme:package", ALL_FILES),
    ]
    color = (95, 99, 104)
    glyph = "settings"
    version_name = "14"

    # --- settings access ---------------------------------------------------------------------------
    @staticmethod
    def _get(ctx: Ctx, ns: str, key: str, default: str = "0") -> str:
        return str(ctx.model.settings.setdefault(ns, {}).get(key, default))

    @staticmethod
    def _put(ctx: Ctx, ns: str, key: str, value: str) -> None:
        ctx.model.settings.setdefault(ns, {})[key] = value
        ctx.model.events.log("setting", namespace=ns, key=key, value=value, source="settings_app")

    def _toggle(self, ctx: Ctx, ns: str, key: str, on: str = "1", off: str = "0") -> Callable[[], None]:
        def flip() -> None:
            self._put(ctx, ns, key, off if self._get(ctx, ns, key, off) == on else on)

        return flip

    def _title(self, ctx: Ctx, key: str) -> str:
        for k, _, t, _ in TOP_LEVEL:
            if k == key:
                return ctx.tr(*t)
        return ctx.tr("All files access", "所有文件访问权限") if key == "all_files" else ""

    def on_intent(self, ctx: Ctx, action: str, extras: dict[str, Any]) -> None:
        """A Settings.ACTION_* intent: the page it names (`am start -a android.settings.WIFI_SETTINGS`)."""
        if ctx.activity == SUB and action in ACTION_PAGES:
            extras["page"] = ACTION_PAGES[action]
        elif ctx.activity == ALL_FILES and action == ALL_FILES_ACTION:
            extras["page"] = "all_files"
            extras["package"] = str(extras.get(INTENT_DATA) or "").partition(":")[2]

    def on_back(self, ctx: Ctx) -> bool:
        if ctx.activity == MAIN and ctx.ui.get("searching"):
            ctx.ui["searching"] = False
            ctx.set_field("search", "")
            return True
        return False

    # --- rows ----------------------------------------------------------------------------------------
    def _item_row(
        self,
        ctx: Ctx,
        title: str,
        summary: str = "",
        on_click: Callable[[], Any] | None = None,
        icon: str = "",
        switch: bool | None = None,
        enabled: bool = True,
        rid: str = "",
    ) -> Row:
        width = ctx.area[2] - ctx.area[0]
        h, lines = w.list_item_height(ctx, width, summary, leading=bool(icon), trailing=switch is not None)

        def build(x: int, y: int, wd: int) -> View:
            trailing = (lambda b: w.switch(ctx, b, bool(switch), enabled=enabled)) if switch is not None else None
            v = w.list_item(
                ctx,
                (x, y, x + wd, y + h),
                title,
                summary,
                on_click if enabled else None,
                leading=(icon, ctx.theme.text2) if icon else None,
                trailing=trailing,
                rid=rid,
                checked=switch,
                summary_lines=lines,
                ellipsize=True,  # a Preference's title is one line; its summary wraps (up to 10 lines) first
            )
            v.enabled = enabled
            return v

        return Row(h, build)

    def _font_size(self, ctx: Ctx) -> str:
        """Display > Font size's summary: `system font_scale` as Settings names it (Default at 1.0)."""
        scale = font_scale(ctx.model.settings)
        if abs(scale - 1.0) < 0.01:
            return ctx.tr("Default", "默认")
        return f"{round(scale * 100)}%"

    def _header(self, ctx: Ctx, title: str, back: bool) -> View:
        return w.toolbar(
            ctx,
            title,
            ("back", ctx.tr("Navigate up", "向上导航"), ctx.finish) if back else None,
            rid="action_bar",
            height_dp=64,
        )

    # --- screens -------------------------------------------------------------------------------------
    def screen_main(self, ctx: Ctx) -> list[View]:
        l, t, r, b = ctx.area
        header = [self._header(ctx, ctx.tr("Settings", "设置"), False)]
        y = header[0].bounds[3]
        sh = ctx.dp(52)
        query = ctx.field_value("search")
        if ctx.ui.get("searching"):
            header.append(
                w.edit(
                    ctx,
                    (l + ctx.dp(16), y + ctx.dp(4), r - ctx.dp(16), y + ctx.dp(4) + sh),
                    "search",
                    query,
                    ctx.tr("Search settings", "搜索设置"),
                    lambda v: ctx.set_field("search", v),
                    "search_src_text",
                    action=ctx.hide_keyboard,
                    action_kind="search",
                    box="filled",
                )
            )
        else:

            def open_search() -> None:
                ctx.ui["searching"] = True
                ctx.set_focus("search")

            header.append(
                V(
                    ctx,
                    w.FRAME,
                    (l + ctx.dp(16), y + ctx.dp(4), r - ctx.dp(16), y + ctx.dp(4) + sh),
                    "search_action_bar",
                    desc=ctx.tr("Search settings", "搜索设置"),
                    clickable=True,
                    focusable=True,
                    on_click=open_search,
                    style={
                        "bg": ctx.theme.surface2,
                        "radius": sh // 2,
                        "label": ctx.tr("Search settings", "搜索设置"),
                        "fg": ctx.theme.text2,
                        "size": ctx.sp(16),
                        "icon": "search",
                        "icon_left": True,
                        "icon_color": ctx.theme.text2,
                        "inset": ctx.dp(14),
                    },
                )
            )
        header.append(V(ctx, w.FRAME, (l, y, r, y + sh + ctx.dp(12))))
        rows: list[Row] = []
        q = query.strip().lower()
        for key, icon, title, summary in TOP_LEVEL:
            t_loc = ctx.tr(*title)
            s_loc = ctx.tr(*summary) if key != "about" else ctx.model.profile.model
            if q and ctx.ui.get("searching") and not any(q in s.lower() for s in (*title, *summary)):
                continue
            rows.append(self._item_row(ctx, t_loc, s_loc, _opener(ctx, key), icon))
        if q and ctx.ui.get("searching"):
            for leaf, page_key, words in [
                (ctx.tr("Wi-Fi", "WLAN"), "network", ("wi-fi", "wifi", "wlan", "无线")),
                (ctx.tr("Airplane mode", "飞行模式"), "network", ("airplane", "飞行")),
                (ctx.tr("Bluetooth", "蓝牙"), "connected", ("bluetooth", "蓝牙")),
                (ctx.tr("Dark theme", "深色主题"), "display", ("dark", "深色", "theme", "主题")),
                (ctx.tr("Android version", "Android 版本"), "about", ("android", "version", "版本", "build")),
            ]:
                if any(q in word or word in q for word in words):
                    rows.append(
                        self._item_row(
                            ctx,
                            leaf,
                            self._title(ctx, page_key),
                            _opener(ctx, page_key),
                            "search",
                        )
                    )
            if not rows:
                rows.append(w.text_row(ctx, ctx.tr("No results", "无结果"), "no_results", color=ctx.theme.text2))
        return page(ctx, header, rows, key="main", rid="recycler_view")

    def screen_sub(self, ctx: Ctx) -> list[View]:
        key = ctx.extras.get("page", "about")
        fn = getattr(self, f"_page_{key}", None)
        rows = fn(ctx) if fn else self._page_static(ctx, key)
        return page(
            ctx,
            [self._header(ctx, self._title(ctx, key) or ctx.tr("Settings", "设置"), True)],
            rows,
            key=f"sub_{key}",
            rid="recycler_view",
        )

    def _page_static(self, ctx: Ctx, key: str) -> list[Row]:
        return [self._item_row(ctx, ctx.tr(*t), ctx.tr(*s)) for t, s in STATIC_PAGES.get(key, [])]

    def _page_network(self, ctx: Ctx) -> list[Row]:
        wifi = self._get(ctx, "global", "wifi_on", "1") == "1"
        plane = self._get(ctx, "global", "airplane_mode_on", "0") == "1"
        return [
            self._item_row(
                ctx,
                ctx.tr("Wi-Fi", "WLAN"),
                ctx.tr("Connected to VirtualWiFi", "已连接到 VirtualWiFi") if wifi else ctx.tr("Off", "已关闭"),
                self._toggle(ctx, "global", "wifi_on"),
                "wifi",
                switch=wifi,
                rid="wifi_row",
            ),
            self._item_row(
                ctx,
                ctx.tr("SIMs", "SIM 卡"),
                "Virtual Mobile" if not plane else ctx.tr("Off", "已关闭"),
                None,
                "signal",
            ),
            self._item_row(
                ctx,
                ctx.tr("Airplane mode", "飞行模式"),
                "",
                self._toggle(ctx, "global", "airplane_mode_on"),
                "A",
                switch=plane,
                rid="airplane_row",
            ),
            self._item_row(ctx, ctx.tr("Hotspot & tethering", "热点和网络共享"), ctx.tr("Off", "已关闭"), None, "wifi"),
            self._item_row(ctx, ctx.tr("Data Saver", "流量节省程序"), ctx.tr("Off", "已关闭"), None, "D"),
        ]

    def _page_all_files(self, ctx: Ctx) -> list[Row]:
        """One app's All files access: its name and version, and the switch that allows it."""
        pkg = ctx.model.packages.get(str(ctx.extras.get("package", "")))
        if pkg is None:
            return [w.text_row(ctx, ctx.tr("App not found", "找不到应用"), "empty", color=ctx.theme.text2)]
        allowed = pkg.appops.get("MANAGE_EXTERNAL_STORAGE") == "allow"

        def toggle() -> None:
            pkg.appops["MANAGE_EXTERNAL_STORAGE"] = "default" if allowed else "allow"

        return [
            self._item_row(ctx, pkg.label(ctx.locale), pkg.version_name, None, "apps", rid="entity_header"),
            self._item_row(
                ctx,
                ctx.tr("Allow access to manage all files", "授予管理所有文件的权限"),
                "",
                toggle,
                switch=allowed,
                rid="app_ops_settings_switch",
            ),
            w.text_row(
                ctx,
                ctx.tr(
                    "Allow this app to read, modify and delete all files on this device or any connected storage "
                    "volumes. If granted, app may access files without your explicit knowledge.",
                    "允许此应用读取、修改和删除此设备或任何已连接存储卷上的所有文件。如果授予该权限，应用可能会在您不知情的情况下访问文件。",
                ),
                "app_ops_settings_description",
                color=ctx.theme.text2,
                lines=5,
            ),
        ]

    def _page_connected(self, ctx: Ctx) -> list[Row]:
        bt = self._get(ctx, "global", "bluetooth_on", "0") == "1"

        def pair() -> None:
            ctx.toast(
                ctx.tr("No devices found", "找不到设备") if bt else ctx.tr("Turn on Bluetooth first", "请先开启蓝牙")
            )

        name = self._get(ctx, "global", "device_name", "") or ctx.model.profile.model
        return [
            self._item_row(
                ctx,
                ctx.tr("Bluetooth", "蓝牙"),
                ctx.tr("On", "已开启") if bt else ctx.tr("Off", "已关闭"),
                self._toggle(ctx, "global", "bluetooth_on"),
                "bluetooth",
                switch=bt,
                rid="bluetooth_row",
            ),
            self._item_row(ctx, ctx.tr("Pair new device", "与新设备配对"), "", pair, "add"),
            self._item_row(ctx, ctx.tr("Device name", "设备名称"), name, None, "phone"),
            self._item_row(
                ctx,
                ctx.tr("Connection preferences", "连接偏好设置"),
                ctx.tr("NFC, Android Auto", "NFC、Android Auto"),
                None,
                "devices",
            ),
        ]

    def _page_display(self, ctx: Ctx) -> list[Row]:
        dark = self._get(ctx, "secure", "ui_night_mode", "1") == "2"
        gamma = brightness_gamma(brightness_setting(ctx.model.settings))
        try:
            timeout_s = int(self._get(ctx, "system", "screen_off_timeout", "60000")) // 1000
        except ValueError:
            timeout_s = 60
        if timeout_s % 60 == 0:
            n = timeout_s // 60
            timeout = ctx.tr(f"{n} minute" + ("s" if n != 1 else ""), f"{n} 分钟")
        else:
            timeout = ctx.tr(f"{timeout_s} seconds", f"{timeout_s} 秒")

        def slider(x: int, y: int, wd: int) -> View:
            return w.seekbar(
                ctx,
                (x + ctx.dp(56), y, x + wd - ctx.dp(24), y + ctx.dp(48)),
                round(gamma * GAMMA_SPACE_MAX),
                GAMMA_SPACE_MAX,
                lambda v: self._put(ctx, "system", "screen_brightness", str(brightness_level(v / GAMMA_SPACE_MAX))),
                "brightness_seekbar",
                ctx.tr("Brightness level", "亮度"),
            )

        return [
            self._item_row(ctx, ctx.tr("Brightness level", "亮度"), f"{round(gamma * 100)}%", None, "brightness"),
            Row(ctx.dp(48), slider),
            self._item_row(
                ctx,
                ctx.tr("Dark theme", "深色主题"),
                ctx.tr("Will never turn on automatically", "一律不自动开启")
                if not dark
                else ctx.tr("Will never turn off automatically", "一律不自动关闭"),
                self._toggle(ctx, "secure", "ui_night_mode", "2", "1"),
                "moon",
                switch=dark,
                rid="dark_theme_row",
            ),
            self._item_row(
                ctx,
                ctx.tr("Screen timeout", "屏幕超时"),
                ctx.tr("After ", "") + timeout + ctx.tr(" of inactivity", "无操作后"),
                None,
                "clock",
            ),
            self._item_row(ctx, ctx.tr("Font size", "字体大小"), self._font_size(ctx), None, "A"),
        ]

    def _page_about(self, ctx: Ctx) -> list[Row]:
        p = ctx.model.props
        name = self._get(ctx, "global", "device_name", "") or ctx.model.profile.model
        rows = [
            (ctx.tr("Device name", "设备名称"), name, "device_name"),
            (ctx.tr("Phone number", "电话号码"), ctx.tr("Unknown", "未知"), "phone_number"),
            (ctx.tr("Model", "型号"), p.get("ro.product.model", ""), "model"),
            (ctx.tr("Android version", "Android 版本"), p.get("ro.build.version.release", ""), "android_version"),
            (
                ctx.tr("Android security update", "Android 安全更新"),
                p.get("ro.build.version.security_patch", ""),
                "security_patch",
            ),
            (ctx.tr("Build number", "版本号"), p.get("ro.build.id", ""), "build_number"),
            (ctx.tr("Serial number", "序列号"), ctx.model.serial, "serial"),
        ]
        return [self._item_row(ctx, t, s, rid=rid) for t, s, rid in rows]
