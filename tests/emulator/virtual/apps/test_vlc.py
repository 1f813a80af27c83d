"""VLC driven as clients drive a phone: the real adb server for the shell, push and pull, uiautomator2 (unmodified)
for the screen. Its one truth is its media library, app_db/vlc_media.db: the videos it discovers on shared storage
are its Media rows, a playlist made in the app is Playlist and PlaylistMediaRelation rows, and a file pushed back
with rows deleted (as AndroidWorld cleans up) is what it shows after a restart. Then the title and grouping rules,
the player's picture, AndroidWorld's classes played by the reference agent, and the vlc family's end state."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from emulator.virtual import VirtualDevice
from emulator.virtual.adbserver import PrivateAdbServer
from emulator.virtual.apps import vlc_data as data
from emulator.virtual.media import encode_mp4
from emulator.virtual.model import VirtualDeviceModel
from harness.actions import Complete
from harness.device.state import DeviceState
from harness.plugins import create_agent
from harness.run.judge.state_check import evaluate_state
from tasks.families.registry import family_tasks
from tests.agents_helpers import make_task, run
from tests.device_util import open_device
from tests.emulator.virtual.apps.devshell import emulator_image, focus, pull_db, push_db, sh, uiautomator

pytest.importorskip("uiautomator2")

# the module's tests run in order on its one device, in one worker (make test: --dist loadgroup)
pytestmark = pytest.mark.xdist_group("vlc-device")
PKG = "org.videolan.vlc"
RID = PKG + ":id/"
DB = f"/data/data/{PKG}/app_db/vlc_media.db"
VIDEOS = "/sdcard/VLCVideos"
SWITCH = "com.android.settings:id/app_ops_settings_switch"


def _video(seconds: int = 3, color: tuple[int, int, int] = (200, 40, 40)) -> bytes:
    """A small MP4 of one coloured frame a second."""
    frame = np.zeros((48, 64, 3), dtype=np.uint8)
    frame[:, :] = color
    return encode_mp4([(frame, float(t)) for t in range(seconds)], 64, 48)


@pytest.fixture(scope="module")
def vlc_dev(adb_server: PrivateAdbServer) -> Iterator[VirtualDevice]:
    """One device of the emulator's image for the module, adbd as root (the app's files pulled and pushed)."""
    with emulator_image(adb_server, as_root=True) as vd:
        yield vd


@pytest.fixture(scope="module")
def vd(vlc_dev: VirtualDevice, adb_server: PrivateAdbServer) -> Iterator[Any]:
    with uiautomator(adb_server, vlc_dev.serial) as dev:
        yield dev


def _push_videos(adb_cli: Any, serial: str, tmp: Path, names: list[str]) -> None:
    for i, name in enumerate(names):
        local = tmp / name
        local.write_bytes(_video(2 + i))
        assert adb_cli("-s", serial, "push", str(local), f"{VIDEOS}/{name}").returncode == 0


def test_first_start_discovery_and_a_playlist_are_rows_of_the_media_library(vd, vlc_dev, adb_cli, tmp_path: Path):
    s = vlc_dev.serial
    assert "versionName=3.5.4" in sh(adb_cli, s, f"dumpsys package {PKG}")
    _push_videos(adb_cli, s, tmp_path, ["clip_1_HD.mp4", "footage_12_raw.mp4", "footage_13_final.mp4"])
    sh(adb_cli, s, f"pm clear {PKG}; monkey -p {PKG} -c android.intent.category.LAUNCHER 1")  # AndroidWorld's set-up
    assert vd(resourceId=RID + "welcome_title", text="Welcome to VLC!").wait(3)
    vd(text="Skip").click()
    assert sh(adb_cli, s, f"ls /data/data/{PKG}/app_db").split() == ["vlc_media.db"]  # made on the first start
    vd(text="GRANT PERMISSION").click()
    assert vd(resourceId="android:id/alertTitle", text="Allow VLC all file access").wait(3)
    vd(text="OK").click()
    assert focus(adb_cli, s).endswith("Settings$AppManageExternalStorageActivity")
    vd(text="Allow access to manage all files").click()
    assert vd(resourceId=SWITCH).info["checked"]
    vd.press("back")
    # grouped by name: footage_12_raw and footage_13_final share "footage_1"
    assert vd(resourceId=RID + "ml_item_title", text="footage_1").wait(3)
    cards = [e.info["contentDescription"] for e in vd(descriptionStartsWith="Video")]
    assert "Video: clip_1_HD, Duration: 1 seconds" in cards and "Video group: footage_1, 2 videos" in cards
    conn = pull_db(adb_cli, s, DB, tmp_path / "ml.db")
    rows = conn.execute("SELECT type, title, filename, duration FROM Media ORDER BY filename").fetchall()
    assert [tuple(r) for r in rows] == [
        (1, "clip_1_HD", "clip_1_HD.mp4", 1033),
        (1, "footage_12_raw", "footage_12_raw.mp4", 2033),
        (1, "footage_13_final", "footage_13_final.mp4", 3033),
    ]
    mrl = conn.execute("SELECT mrl FROM File WHERE media_id = 1").fetchone()[0]
    assert mrl == "file:///storage/emulated/0/VLCVideos/clip_1_HD.mp4"
    assert conn.execute("SELECT db_model_version FROM Settings").fetchone()[0] == 36
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 0
    conn.close()
    _playlist_made_and_cleaned(vd, s, adb_cli, tmp_path)


def _playlist_made_and_cleaned(vd: Any, s: str, adb_cli: Any, tmp_path: Path) -> None:
    """A playlist made in the app is rows; the file pushed back with its rows deleted shows after a restart."""
    vd(resourceId=RID + "nav_directories").click()
    vd(resourceId=RID + "title", text="Internal memory").click()
    vd(resourceId=RID + "network_list").scroll.to(resourceId=RID + "title", text="VLCVideos")
    vd(resourceId=RID + "title", text="VLCVideos").click()
    vd(resourceId=RID + "title", text="footage_13_final.mp4").long_click()
    vd(resourceId=RID + "title", text="clip_1_HD.mp4").click()
    assert vd(resourceId=RID + "action_bar_title").info["text"] == "2 selected"
    vd(resourceId=RID + "action_mode_file_add_playlist").click()
    vd(resourceId=RID + "dialog_playlist_name").child(className="android.widget.EditText").set_text("Trips")
    vd(resourceId=RID + "dialog_playlist_save").click()
    conn = pull_db(adb_cli, s, DB, tmp_path / "ml.db")
    query = (
        "SELECT Playlist.name, Media.filename, r.position FROM PlaylistMediaRelation r JOIN Playlist ON"
        " Playlist.id_playlist = r.playlist_id JOIN Media ON Media.id_media = r.media_id ORDER BY r.position"
    )
    assert [tuple(r) for r in conn.execute(query)] == [
        ("Trips", "footage_13_final.mp4", 0),
        ("Trips", "clip_1_HD.mp4", 1),
    ]
    assert tuple(conn.execute("SELECT nb_video, nb_present_video, duration FROM Playlist").fetchone()) == (2, 2, 4066)
    conn.close()
    conn = pull_db(adb_cli, s, DB, tmp_path / "ml.db")
    # AndroidWorld's clean-up: every row of Playlist, Media and PlaylistMediaRelation deleted in a pulled copy
    for table in ("Playlist", "Media", "PlaylistMediaRelation"):
        conn.execute(f"DELETE FROM {table}")
    conn.commit()
    conn.close()
    push_db(adb_cli, s, tmp_path / "ml.db", DB, PKG)
    sh(adb_cli, s, f"am force-stop {PKG}; rm {VIDEOS}/clip_1_HD.mp4; am start -n {PKG}/.gui.MainActivity")
    vd(resourceId=RID + "nav_playlists").click()
    assert vd(resourceId=RID + "emptyTextView", text="No playlist found.").wait(3)
    vd(resourceId=RID + "nav_video").click()
    assert [e.info["text"] for e in vd(resourceId=RID + "ml_item_title")] == ["footage_1"]  # discovered again
    back = pull_db(adb_cli, s, DB, tmp_path / "ml2.db")
    assert back.execute("SELECT COUNT(*) FROM Media").fetchone()[0] == 2
    assert back.execute("SELECT COUNT(*) FROM File").fetchone()[0] == 2  # the orphaned and the gone file's rows
    back.close()
    sh(adb_cli, s, f"rm -rf {VIDEOS}; am force-stop {PKG}")


class Screen:
    """The in-process device's screen: views found by id / text / description, touched, typed into."""

    def __init__(self, m: VirtualDeviceModel) -> None:
        self.m = m

    def views(self) -> list[Any]:
        return [v for r in self.m.view_roots() for v in r.walk()]

    def find(self, rid: str = "", text: str | None = None, desc: str | None = None) -> Any:
        for v in self.views():
            if (not rid or v.resource_id in (RID + rid, rid)) and text in (None, v.text) and desc in (None, v.desc):
                return v
        raise LookupError((rid, text, desc))

    def tap(self, rid: str = "", text: str | None = None, desc: str | None = None) -> None:
        self.m.tap(*self.find(rid, text, desc).center)

    def long(self, rid: str = "", text: str | None = None) -> None:
        self.m.long_press(*self.find(rid, text).center)

    def texts(self, rid: str) -> list[str]:
        return [v.text for v in self.views() if v.resource_id == RID + rid]


def _granted(m: VirtualDeviceModel) -> Screen:
    """VLC as AndroidWorld's set-up leaves it: the onboarding done, all-files access granted."""
    m.packages[PKG].appops[data.ALL_FILES_OP] = "allow"
    data.PREFS.put(m.fs, data.ONBOARDING_DONE, True)
    return Screen(m)


def test_names_existing_playlists_removal_and_deletion():
    m = VirtualDeviceModel()
    for n in ("a.mp4", "b.mp4", "c.mp4"):
        m.fs.write(f"{VIDEOS}/{n}", _video(), parents=True)
    ui = _granted(m)
    m.start_activity(PKG)
    assert ui.texts("ml_item_title") == ["a", "b", "c"]  # titles of fewer than six characters: not grouped

    def add(title: str) -> None:
        card = next(v for v in ui.views() if v.desc.startswith(f"Video: {title},"))
        more = next(c for c in card.walk() if c.resource_id == RID + "item_more")
        m.tap(*more.center)
        ui.tap("context_option_title", "Add to playlist")

    add("a")
    ui.tap("dialog_playlist_name")
    m.commit_text("Trips")
    ui.tap("dialog_playlist_save")
    add("b")
    assert ui.texts("textView16") == ["Trips"] and ui.texts("subtitle") == ["1 media"]
    ui.tap("dialog_playlist_name")
    m.commit_text("trips")  # the name column's NOCASE collation: the same name
    ui.tap("dialog_playlist_save")
    assert ui.texts("textinput_error") == ["Playlist Trips already exists"]
    ui.tap("textView16", "Trips")  # appended to it
    add("a")
    ui.tap("textView16", "Trips")  # a media twice is kept twice (the duplication warning is left out)
    assert [(t["filename"], t["id_media"]) for t in data.tracks(m, 1)] == [("a.mp4", 1), ("b.mp4", 2), ("a.mp4", 1)]
    ui.tap("nav_playlists")
    ui.tap("ml_item_title", "Trips")
    assert ui.texts("title") == ["a", "b", "a"] and ui.texts("header_list_artist") == ["3 tracks \u00b7 0:06"]
    row = next(v for v in ui.views() if v.resource_id == RID + "title" and v.text == "b")
    m.tap(
        *next(
            c for c in ui.views() if c.resource_id == RID + "item_more" and c.bounds[1] <= row.center[1] <= c.bounds[3]
        ).center
    )
    ui.tap("context_option_title", "Remove")
    assert [t["filename"] for t in data.tracks(m, 1)] == ["a.mp4", "a.mp4"]
    assert data.DB.rows(m.fs, "SELECT nb_video, duration FROM Playlist")[0] == {"nb_video": 2, "duration": 4066}
    m.key(4)
    ui.tap("item_more")
    ui.tap("context_option_title", "Delete")
    ui.tap("android:id/button1")
    assert data.playlists(m) == [] and data.DB.rows(m.fs, "SELECT * FROM PlaylistMediaRelation") == []


# --- the library's rules and the player ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "title"),
    [
        ("clip_12_HD.mp4", "clip_12_HD"),  # `_` is a word character: kept, as the analyzer's regexes keep it
        ("The.Movie.2010.1080p.x264.mkv", "The Movie 2010"),
        ("holiday-video.mp4", "holiday video"),
        ("a.mp4", "a"),
    ],
)
def test_a_video_s_title_is_its_cleaned_file_name(name: str, title: str):
    assert data.title_of(name) == title


def test_videos_group_by_their_common_prefix():
    titles = ["2023_05_01_clip_3", "2023_07_12_scene_1", "clip_4", "clip_9", "the footage_1", "footage_2"]
    videos = [{"id_media": i, "title": t} for i, t in enumerate(titles, 1)]
    groups = [(name, [v["title"] for v in members]) for name, members in data.video_groups(videos)]
    assert groups == [
        ("2023_0", ["2023_05_01_clip_3", "2023_07_12_scene_1"]),
        ("clip_4", ["clip_4"]),  # "clip_" is shorter than six characters: no group
        ("clip_9", ["clip_9"]),
        ("footage_", ["footage_2", "the footage_1"]),
    ]


def test_the_player_draws_the_frame_at_the_position():
    pytest.importorskip("av")
    m = VirtualDeviceModel(clock="virtual")
    red, blue = np.zeros((48, 64, 3), dtype=np.uint8), np.zeros((48, 64, 3), dtype=np.uint8)
    red[:, :, 0], blue[:, :, 2] = 220, 220
    m.fs.write(f"{VIDEOS}/two.mp4", encode_mp4([(red, 0.0), (blue, 2.0), (red, 4.0)], 64, 48), parents=True)
    ui = _granted(m)
    m.start_activity(PKG)
    ui.tap(desc="Video: two, Duration: 4 seconds")

    def picture() -> tuple[int, int, int]:
        image = ui.find("video_layout").style["image"]
        return image.getpixel((image.width // 2, image.height // 2))

    assert picture()[0] > 150  # red at the start
    m.clock.sleep(3)
    assert picture()[2] > 150  # the second frame, three seconds in
    assert ui.texts("player_overlay_time") == ["0:03"]
    m.clock.sleep(2)
    assert ui.texts("player_overlay_time") == []  # the controls hide
    m.key(4)
    row = data.DB.rows(m.fs, "SELECT play_count, last_time FROM Media")[0]
    assert row["play_count"] == 1 and row["last_time"] == 4033  # stopped at its end


# --- AndroidWorld's classes and the family ---------------------------------------------------------------------
def _play(m: VirtualDeviceModel, cls: str, budget: int = 40, **params: Any) -> None:
    task = make_task(f"AndroidWorld {cls}", outside={"suite": "androidworld", "class": cls, "params": params})
    steps = run(create_agent("reference"), m, task, max_steps=budget)
    assert isinstance(steps[-1].action, Complete), [s.action for s in steps]
    assert not any(s.invalid for s in steps), [s.error for s in steps if s.invalid]


def _playlists(m: VirtualDeviceModel) -> list[tuple[str, str, int]]:
    rows = data.DB.rows(
        m.fs,
        "SELECT Playlist.name, Media.filename, r.position FROM PlaylistMediaRelation r JOIN Playlist ON"
        " Playlist.id_playlist = r.playlist_id JOIN Media ON Media.id_media = r.media_id ORDER BY Playlist.name,"
        " r.position",
    )
    return [(r["name"], r["filename"], r["position"]) for r in rows]


@pytest.mark.slow
def test_androidworld_s_classes():
    m = VirtualDeviceModel()  # a fresh install: the solvers go through the first start
    names = ["scene_3_raw.mp4", "clip_1_HD.mp4", "moment_4_copy.mp4", "episode_9_.mp4"]
    for n in names:
        m.fs.write(f"{VIDEOS}/{n}", b"", parents=True)
    _play(m, "VlcCreatePlaylist", playlist_name="Comedy Marathon", files=names[:3], noise_files=names[3:])
    assert _playlists(m) == [("Comedy Marathon", n, i) for i, n in enumerate(names[:3])]
    m.force_stop(PKG)  # as each of AndroidWorld's tasks finds it
    params: dict[str, Any] = {"playlist_name1": "A", "files1": [names[3]], "playlist_name2": "B"}
    params["files2"] = names[1::-1]
    _play(m, "VlcCreateTwoPlaylists", **params, noise_files1=[], noise_files2=[])
    assert [p for p in _playlists(m) if p[0] in "AB"] == [("A", names[3], 0), ("B", names[1], 0), ("B", names[0], 1)]
    m.force_stop(PKG)
    m.fs.write("/sdcard/Download/talk_5_.mp4", _video(), parents=True)
    params = {"file_name": "talk_5_transcription.txt", "text": "Edna,Leo", "messages": ["Edna", "Leo"]}
    params["noise_files"] = []
    _play(m, "MarkorTranscribeVideo", video_name="talk_5_.mp4", **params)
    assert m.fs.read("/sdcard/Documents/Markor/talk_5_transcription.txt") == b"Edna, Leo"


def test_the_familys_reference_leaves_the_rows_its_end_state_reads(make_vdevice, adb_server):
    vlc_dev = make_vdevice(locale="zh")
    task = family_tasks("vlc", 0, 1)[0]
    dev = open_device(adb_server, vlc_dev, use_u2=False)
    try:
        state = DeviceState(dev.shell)
        for row in task.start.content:
            state.insert(row.uri, dict(row.values))
        steps = run(create_agent("reference"), vlc_dev.model, task, lang="zh", max_steps=task.max_steps)
        assert isinstance(steps[-1].action, Complete) and not any(s.invalid for s in steps)
        checks = [e.check.state for e in task.end_state if e.check is not None and e.check.state is not None]
        assert checks and all(evaluate_state(c, state, "zh").held for c in checks)
        data.DB.execute(vlc_dev.model.fs, "UPDATE PlaylistMediaRelation SET position = 5 - position")  # reordered
        assert not evaluate_state(checks[-1], state, "zh").held
    finally:
        dev.close()
