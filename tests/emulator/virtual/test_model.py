import pytest

from emulator.virtual.model import LAUNCHER_PACKAGE, Package, VirtualDeviceModel
from emulator.virtual.profiles import PROFILES, get_profile


def _app(model, name="org.example.app"):
    model.install_package(
        Package(
            name,
            {"en": "Example", "zh": "示例"},
            [f"{name}.MainActivity", f"{name}.DetailActivity"],
            f"{name}.MainActivity",
        )
    )
    return name


def test_profiles_have_real_sizes():
    assert (get_profile("Pixel 7 Pro").width, get_profile("pixel-7-pro").height) == (1440, 3120)
    assert get_profile("pixel_tablet").width > get_profile("pixel_tablet").height
    assert {
        "pixel_7_pro",
        "pixel_8_pro",
        "pixel_fold",
        "pixel_tablet",
        "medium_phone",
        "small_phone",
        "pixel_4_xl",
    } <= set(PROFILES)
    with pytest.raises(ValueError, match="unknown device profile 'nexus'"):
        get_profile("nexus")


def test_bad_locale_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown locale 'fr'"):
        VirtualDeviceModel(locale="fr")


def test_activity_stack_back_and_home():
    m = VirtualDeviceModel()
    assert m.foreground.package == LAUNCHER_PACKAGE
    pkg = _app(m)
    m.start_activity(pkg)
    assert m.foreground.activity == f"{pkg}.MainActivity"
    m.push_activity(".DetailActivity")
    assert m.foreground.activity == f"{pkg}.DetailActivity"
    m.key(4)  # BACK pops the detail page
    assert m.foreground.activity == f"{pkg}.MainActivity"
    m.key(3)  # HOME keeps the task in recents
    assert m.foreground.package == LAUNCHER_PACKAGE
    assert m.recent_packages() == [pkg]
    m.start_activity(pkg)  # resumes the existing task
    assert m.foreground.activity == f"{pkg}.MainActivity"
    m.force_stop(pkg)
    assert m.foreground.package == LAUNCHER_PACKAGE and m.recent_packages() == []


def test_unknown_activity_raises_keyerror_naming_it():
    m = VirtualDeviceModel()
    pkg = _app(m)
    with pytest.raises(KeyError, match="NoSuch"):
        m.start_activity(pkg, ".NoSuch")
    with pytest.raises(KeyError, match="unknown package"):
        m.start_activity("org.none")


def test_rotation_swaps_display_size():
    m = VirtualDeviceModel(profile="pixel_fold")
    assert m.display_size == (1840, 2208)
    m.set_rotation(1)
    assert m.display_size == (2208, 1840) and m.physical_size == (1840, 2208)
    with pytest.raises(ValueError):
        m.set_rotation(5)


def test_snapshot_restore_brings_back_state():
    m = VirtualDeviceModel()
    pkg = _app(m)
    m.app_data[pkg]["notes"] = ["a"]
    m.clipboard = "before"
    snap = m.snapshot()
    m.start_activity(pkg)
    m.app_data[pkg]["notes"].append("b")
    m.clipboard = "after"
    m.fs.write("/sdcard/x", b"1")
    m.restore(snap)
    assert m.app_data[pkg]["notes"] == ["a"] and m.clipboard == "before"
    assert m.foreground.package == LAUNCHER_PACKAGE and not m.fs.exists("/sdcard/x")


def test_clear_data_resets_app_state_and_uninstall_refuses_system_apps():
    m = VirtualDeviceModel()
    pkg = _app(m)
    m.app_data[pkg]["k"] = 1
    assert m.clear_data(pkg) and m.app_data[pkg] == {}
    assert not m.uninstall_package(LAUNCHER_PACKAGE)
    assert m.uninstall_package(pkg) and pkg not in m.packages


def test_u2_jar_is_preloaded_with_the_clients_bytes():
    import importlib.resources as res

    m = VirtualDeviceModel()
    assert m.fs.read("/data/local/tmp/u2.jar") == res.files("uiautomator2").joinpath("assets/u2.jar").read_bytes()


def test_event_log_records_input():
    m = VirtualDeviceModel()
    mark = m.events.mark()
    m.tap(10, 20)
    m.key(3)
    kinds = [e.kind for e in m.events.since(mark)]
    assert kinds[:2] == ["tap", "key"]
