"""Every action type through `AdbDevice.execute`, on a phone, a foldable, a tablet and a phone in landscape,
through the real adb server and the virtual device. Tap coordinates are checked in the device's event log."""

from __future__ import annotations

import pytest

from harness import actions as A
from harness.coords import from_pixels, to_pixels
from harness.device.apps import may_change_packages
from harness.errors import ActionValidationError
from tests.device_util import PROFILES, commands_since, inputs_since, inside, open_device

LAUNCHER = "com.google.android.apps.nexuslauncher"
NOTES = "com.droidharness.notes"


@pytest.fixture
def open_dev(adb_server, make_vdevice):
    opened = []

    def make(profile: str = "medium_phone", rotation: int = 0, locale: str = "en", **cfg):
        vd = make_vdevice(profile=profile, locale=locale)
        if rotation:
            vd.model.set_rotation(rotation)
        dev = open_device(adb_server, vd, **cfg)
        opened.append(dev)
        return vd, dev

    yield make
    for dev in opened:
        dev.close()


def _fg(vd) -> str:
    return vd.model.foreground.package


def _last(vd, mark: int, kind: str):
    evs = vd.model.events.since(mark, kind)
    assert evs, f"no {kind} event on the device"
    return evs[-1]


@pytest.mark.parametrize("profile,rotation", PROFILES)
def test_click_by_element_and_by_point_land_inside_the_element(open_dev, profile, rotation):
    vd, dev = open_dev(profile, rotation)
    obs = dev.observe()
    assert obs.size == vd.model.display_size
    notes = obs.tree.find(text="Notes", package=LAUNCHER)[0]
    mark = vd.model.events.mark()
    res = dev.execute(A.Click(element=notes.index), observation=obs, step=1)
    tap = _last(vd, mark, "tap")
    assert inside(tap["x"], tap["y"], notes.bounds)
    assert res.ok and res.pixels == ((tap["x"], tap["y"]),) and res.path == "u2"
    assert _fg(vd) == NOTES and res.settled

    dev.execute(A.Home())
    obs = dev.observe()
    clock = obs.tree.find(text="Clock", package=LAUNCHER)[0]
    point = from_pixels(clock.center, obs.size)
    mark = vd.model.events.mark()
    res = dev.execute(A.Click(point=A.Point(x=point[0], y=point[1])), observation=obs)
    tap = _last(vd, mark, "tap")
    assert (tap["x"], tap["y"]) == clock.center == to_pixels(point, obs.size)
    assert _fg(vd) == "com.google.android.deskclock"


@pytest.mark.parametrize("profile,rotation", PROFILES)
def test_normalized_corners_map_to_exact_pixels(open_dev, profile, rotation):
    vd, dev = open_dev(profile, rotation)
    w, h = vd.model.display_size
    for x, y, want in [(0.0, 0.5, (0, h // 2)), (1.0, 0.5, (w - 1, h // 2)), (0.25, 0.75, (w // 4, h * 3 // 4))]:
        mark = vd.model.events.mark()
        res = dev.execute(A.Click(point=A.Point(x=x, y=y)))
        tap = _last(vd, mark, "tap")
        assert (tap["x"], tap["y"]) == res.pixels[0] == want


@pytest.mark.parametrize("profile,rotation", PROFILES)
def test_long_press_opens_the_delete_dialog(open_dev, profile, rotation):
    vd, dev = open_dev(profile, rotation)
    assert dev.execute(A.OpenApp(package=NOTES)).ok
    obs = dev.observe()
    item = next(e for e in obs.tree if e.long_clickable and e.package == NOTES)
    mark = vd.model.events.mark()
    res = dev.execute(A.LongPress(element=item.index, duration=0.8), observation=obs)
    press = _last(vd, mark, "long_press")
    assert inside(press["x"], press["y"], item.bounds) and press["duration_ms"] == 800
    assert res.ok and dev.observe().tree.find(text="Delete note?")


@pytest.mark.parametrize("profile,rotation", PROFILES)
def test_swipe_up_opens_the_app_drawer(open_dev, profile, rotation):
    vd, dev = open_dev(profile, rotation)
    size = vd.model.display_size
    mark = vd.model.events.mark()
    res = dev.execute(A.Swipe(start=A.Point(x=0.5, y=0.8), end=A.Point(x=0.5, y=0.3), duration=0.3))
    ev = _last(vd, mark, "swipe")
    assert (ev["x1"], ev["y1"]) == to_pixels((0.5, 0.8), size) and (ev["x2"], ev["y2"]) == to_pixels((0.5, 0.3), size)
    assert res.pixels == ((ev["x1"], ev["y1"]), (ev["x2"], ev["y2"]))
    assert dev.observe().tree.find(resource_id="apps_list_view")


@pytest.mark.parametrize("profile,rotation", PROFILES)
def test_scroll_moves_the_list_inside_its_bounds(open_dev, profile, rotation):
    vd, dev = open_dev(profile, rotation)
    dev.execute(A.OpenApp(package="com.google.android.contacts"))
    obs = dev.observe()
    lst = obs.tree.find(resource_id="contact_list")[0]
    mark = vd.model.events.mark()
    dev.execute(A.Scroll(direction="down", element=lst.index), observation=obs)
    ev = _last(vd, mark, "swipe")
    assert ev["y2"] < ev["y1"], "scrolling down moves the finger up"
    assert inside(ev["x1"], ev["y1"], lst.bounds) and inside(ev["x2"], ev["y2"], lst.bounds)
    after = dev.observe()
    assert after.tree.signature() != obs.tree.signature()
    dev.execute(A.Scroll(direction="up", element=lst.index), observation=after)
    assert dev.observe().tree.signature() == obs.tree.signature()


@pytest.mark.parametrize("profile,rotation", PROFILES)
def test_keys_back_home_recent_enter(open_dev, profile, rotation):
    vd, dev = open_dev(profile, rotation)
    dev.execute(A.OpenApp(package="com.google.android.deskclock"))
    assert _fg(vd) == "com.google.android.deskclock"
    assert dev.execute(A.Back()).ok and _fg(vd) == LAUNCHER
    dev.execute(A.OpenApp(package=NOTES))
    assert dev.execute(A.Home()).ok and _fg(vd) == LAUNCHER
    assert dev.execute(A.Recent()).ok
    assert dev.observe().tree.find(resource_id="overview_list")
    dev.execute(A.Home())
    # ENTER: the launcher's app search opens the first match
    dev.execute(A.Swipe(start=A.Point(x=0.5, y=0.8), end=A.Point(x=0.5, y=0.3)))
    obs = dev.observe()
    box = obs.tree.find(resource_id="search_box_input")[0]
    typed = dev.execute(A.TypeText(text="weath", element=box.index), observation=obs)
    assert typed.readback == "weath" and typed.readback_matches
    mark = vd.model.events.mark()
    assert dev.execute(A.Enter()).ok
    assert [e["code"] for e in vd.model.events.since(mark, "key")] == [66]
    assert _fg(vd) == "com.droidharness.weather"


def test_wait_and_terminal_actions_do_nothing_on_the_device(open_dev):
    vd, dev = open_dev()
    mark = vd.model.events.mark()
    for action in (
        A.Wait(duration=0.05),
        A.Complete(answer="done"),
        A.Impossible(reason="no"),
        A.Answer(text="42", elements=[1]),
    ):
        res = dev.execute(action)
        assert res.ok and res.path == "none" and res.settled
    assert inputs_since(vd, mark) == [] and commands_since(vd, mark) == []


@pytest.mark.parametrize("profile,rotation", [("medium_phone", 0), ("pixel_tablet", 0)])
def test_open_app_by_package_label_and_alias(open_dev, profile, rotation):
    vd, dev = open_dev(profile, rotation)
    res = dev.execute(A.OpenApp(package="com.google.android.contacts"))
    assert res.ok and res.package == "com.google.android.contacts" and _fg(vd) == res.package
    res = dev.execute(A.OpenApp(name="notes"))  # label, case-insensitive, found on the launcher
    assert res.ok and res.path == "launcher" and _fg(vd) == NOTES and res.package == NOTES
    res = dev.execute(A.OpenApp(name="Settings"))  # alias table
    assert res.ok and _fg(vd) == "com.android.settings"
    res = dev.execute(A.OpenApp(name="No Such App"))
    assert not res.ok and "No Such App" in res.error and _fg(vd) == LAUNCHER
    res = dev.execute(A.OpenApp(package="com.example.missing"))
    assert not res.ok and "not installed" in res.error


def test_open_app_keeps_the_resolved_launcher_until_packages_may_change(open_dev):
    vd, dev = open_dev()
    contacts = "com.google.android.contacts"

    def open_contacts() -> tuple[bool, list[str]]:
        dev.press_home()
        mark = vd.model.events.mark()
        res = dev.execute(A.OpenApp(package=contacts))
        return res.ok and _fg(vd) == contacts, [" ".join(c[:3]) for c in commands_since(vd, mark)]

    ok, cmds = open_contacts()  # first time: resolved on the device
    assert ok and "cmd package resolve-activity" in cmds and "pm list packages" in cmds
    ok, cmds = open_contacts()  # then started by the kept component and the kept package list: one shell call
    assert ok and cmds == ["am start -n"]
    dev.shell(["settings", "get", "global", "airplane_mode_on"])  # only reads: the component is kept
    assert open_contacts()[1] == cmds
    # a disabled app is not launched (`pm list packages -e`), whatever was kept
    assert dev.shell(["pm", "disable-user", contacts]).exit_code == 0
    dev.press_home()
    res = dev.execute(A.OpenApp(package=contacts))
    assert not res.ok and "not installed" in (res.error or "") and _fg(vd) == LAUNCHER
    assert dev.shell(["pm", "enable", contacts]).exit_code == 0  # may change packages: resolved anew
    ok, cmds = open_contacts()
    assert ok and "cmd package resolve-activity" in cmds
    # a kept component that no longer starts is resolved again, and the app still opens
    dev._actuator._launchers[contacts] = f"{contacts}/.NoSuchActivity"
    ok, cmds = open_contacts()
    assert ok and cmds.count("am start -n") == 2 and "cmd package resolve-activity" in cmds


def test_open_app_reads_the_package_list_again_when_apps_changed_behind_its_back(open_dev):
    """Apps disabled or enabled where the harness does not see it (the agent in Settings, another adb client):
    a kept package list that no longer holds is read again before OPEN_APP says an app is missing or gives up."""
    vd, dev = open_dev()
    contacts = "com.google.android.contacts"

    def open_contacts() -> tuple[bool, str | None, list[str]]:
        dev.press_home()
        mark = vd.model.events.mark()
        res = dev.execute(A.OpenApp(package=contacts))
        return res.ok and _fg(vd) == contacts, res.error, [" ".join(c[:3]) for c in commands_since(vd, mark)]

    assert open_contacts()[0] and open_contacts()[2] == ["am start -n"]  # list and component kept
    assert vd.adb.shell(["pm", "disable-user", contacts]).strip().endswith("disabled-user")  # not through the harness
    ok, error, cmds = open_contacts()
    assert not ok and "not installed" in (error or "") and _fg(vd) == LAUNCHER
    assert cmds[0] == "am start -n" and "pm list packages" in cmds  # the kept start failed: read again
    vd.adb.shell(["pm", "enable", contacts])
    ok, _, cmds = open_contacts()  # missing from the kept list: read again before saying so
    assert ok and cmds.count("pm list packages") == 1 and "am start -n" in cmds


def test_open_app_by_chinese_label(open_dev):
    vd, dev = open_dev(locale="zh")
    res = dev.execute(A.OpenApp(name="笔记"))
    assert res.ok and res.path == "launcher" and _fg(vd) == NOTES
    res = dev.execute(A.OpenApp(name="设置"))
    assert res.ok and _fg(vd) == "com.android.settings"
    res = dev.launch("天气")
    assert res.ok and _fg(vd) == "com.droidharness.weather"


def test_element_index_out_of_range_names_index_and_step(open_dev):
    vd, dev = open_dev()
    obs = dev.observe()
    with pytest.raises(ActionValidationError, match=r"step 7.*no element \[999\].*has \d+ elements"):
        dev.execute(A.Click(element=999), observation=obs, step=7)
    with pytest.raises(ActionValidationError, match=r"step 2: CLICK.element \[3\] needs the observation"):
        dev.execute(A.Click(element=3), step=2)


def test_invalid_actions_give_typed_errors(open_dev):
    vd, dev = open_dev()
    with pytest.raises(ActionValidationError, match="unknown action type 'FLY'"):
        dev.execute({"type": "FLY"})
    with pytest.raises(ActionValidationError, match="target"):
        dev.execute({"type": "CLICK"})
    with pytest.raises(ActionValidationError, match="outside"):
        dev.execute('{"type": "CLICK", "point": [1.5, 0.2]}')
    res = dev.execute({"type": "CLICK", "point": [0.5, 0.5]})
    assert res.ok and res.pixels == (to_pixels((0.5, 0.5), vd.model.display_size),)


def test_open_by_label_searches_the_drawer_page_by_page():
    from harness.device.apps import candidate_packages, open_by_label
    from harness.hierarchy import UITree

    def screen(*nodes: str) -> UITree:
        return UITree.from_xml(
            '<hierarchy rotation="0"><node package="l" bounds="[0,0][100,200]">'
            + "".join(nodes)
            + "</node></hierarchy>"
        )

    icon = '<node text="{0}" class="android.widget.TextView" clickable="true" package="l" bounds="{1}"/>'
    lst = '<node resource-id="l:id/apps_list_view" scrollable="true" package="l" bounds="[0,20][100,200]">{0}</node>'
    home = screen(icon.format("Notes", "[0,0][50,20]"))
    page1 = screen(lst.format(icon.format("Alpha", "[0,20][50,60]") + icon.format("Zeta", "[0,190][50,230]")))
    page2 = screen(lst.format(icon.format("Zeta", "[0,100][50,140]")))

    class Ops:
        def __init__(self) -> None:
            self.screens, self.log = [home, page1, page2], []

        def press_home(self) -> None:
            self.log.append("home")

        def settled_tree(self) -> UITree:
            return self.screens.pop(0) if len(self.screens) > 1 else self.screens[0]

        def tap(self, x: int, y: int) -> str:
            self.log.append(("tap", x, y))
            return "u2"

        def swipe(self, x1: int, y1: int, x2: int, y2: int, ms: int) -> str:
            self.log.append(("swipe", y1 > y2))
            return "u2"

        def screen_size(self) -> tuple[int, int]:
            return (100, 200)

    ops = Ops()
    el = open_by_label(ops, "  ZETA ")
    assert el is not None and el.text == "Zeta"
    # drawer opened (finger up), page 1 had Zeta only partly in the list: scrolled once, then tapped its centre
    assert ops.log == ["home", ("swipe", True), ("swipe", True), ("tap", 25, 120)]
    assert candidate_packages("设置", None, ["com.android.settings"]) == ["com.android.settings"]
    assert candidate_packages("com.a.b", None, ["com.a.b"]) == ["com.a.b"]
    assert candidate_packages("Notes", None, ["com.android.settings"]) == []


@pytest.mark.parametrize(
    "argv,changes",
    [
        (["pm", "list", "packages", "-e"], False),
        (["cmd", "package", "resolve-activity", "--brief", "a.b"], False),
        (["settings", "put", "global", "airplane_mode_on", "1"], False),
        (["cmd", "connectivity", "airplane-mode", "enable"], False),
        (["/system/bin/content", "query", "--uri", "content://sms"], False),
        ([], False),
        (["pm", "install", "/data/local/tmp/a.apk"], True),
        (["pm", "disable-user", "a.b"], True),
        (["cmd", "package", "uninstall", "a.b"], True),
        (["cmd", "package"], True),
        (["pm"], True),
        (["sh", "-c", "pm uninstall a.b"], True),
        # a preparation's commands again after a reset: simple commands only, each judged
        (["sh", "-c", "input keyevent KEYCODE_WAKEUP ; wm dismiss-keyguard ; settings put global a 0"], False),
        (["sh", "-c", "settings put global a 0;settings put system b '1 ; 2'"], False),
        (["sh", "-c", "settings put global a 0 ; pm uninstall a.b"], True),
        (["sh", "-c", "settings get global a | pm uninstall a.b"], True),
        (["sh", "-c", "settings get global a && echo $(pm uninstall a.b)"], True),
        (["sh", "-c", "settings put global a 0\npm uninstall a.b"], True),
        (["sh", "-c", "echo 'unclosed"], True),
    ],
)
def test_may_change_packages(argv, changes):
    assert may_change_packages(argv) is changes
