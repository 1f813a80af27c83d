"""VLC: AndroidWorld's VLC classes solved through the app's file browser (Browse > Internal memory > the folder the
goal names, where the files show by their file names), its selection and "Add to playlist" sheet, from the
instance's parameters; and MarkorTranscribeVideo: the video played in VLC, then the note written in Markor."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from harness.actions import Back, Complete

from .markor import create_note, open_markor
from .steps import IfShown, Step, click, loc, long_press, open_app, type_into, when_shown

VLC = ("VLC", "org.videolan.vlc")
TITLE = "title"  # a file's name in the browser (browser_item)
# the first start, when AndroidWorld's set-up has not been through it: Skip, then the video list's GRANT PERMISSION,
# "Allow VLC all file access" OK, Settings' switch, back to VLC
FIRST_START = (
    when_shown(resource_id="skip_button", text="Skip"),
    when_shown(resource_id="grantPermissionButton"),
    when_shown(resource_id="android:id/button1", text="OK"),
    when_shown(text="Allow access to manage all files"),
    IfShown(loc(resource_id="com.android.settings:id/app_ops_settings_switch"), Back()),
)


def open_vlc() -> list[Step]:
    return [open_app(VLC), *FIRST_START]


def open_folder(folder: str) -> list[Step]:
    """Browse > Internal memory > FOLDER (a folder of the storage's top level)."""
    return [
        click(resource_id="nav_directories"),
        click(resource_id=TITLE, text="Internal memory"),
        click(resource_id=TITLE, text=folder),
    ]


def new_playlist(name: str, files: list[str]) -> list[Step]:
    """The files selected in order (a long press, then taps), Add to playlist, the name typed, Save."""
    picks: list[Step] = [long_press(resource_id=TITLE, text=files[0])]
    picks += [click(resource_id=TITLE, text=f) for f in files[1:]]
    return [
        *picks,
        click(resource_id="action_mode_file_add_playlist"),
        type_into(name, resource_id="dialog_playlist_name"),
        click(resource_id="dialog_playlist_save"),
    ]


def _files(p: Mapping[str, Any], key: str) -> list[str]:
    return [str(f) for f in p[key]]


def create_playlist(p: Mapping[str, Any]) -> list[Step]:
    return [
        *open_vlc(),
        *open_folder("VLCVideos"),
        *new_playlist(str(p["playlist_name"]), _files(p, "files")),
        Complete(),
    ]


def create_two_playlists(p: Mapping[str, Any]) -> list[Step]:
    return [
        *open_vlc(),
        *open_folder("VLCVideos"),
        *new_playlist(str(p["playlist_name1"]), _files(p, "files1")),
        *new_playlist(str(p["playlist_name2"]), _files(p, "files2")),
        Complete(),
    ]


def transcribe_video(p: Mapping[str, Any]) -> list[Step]:
    """The video (in Download) played in VLC's player, then the strings its frames show written, comma separated,
    to a new Markor note."""
    text = ", ".join(str(m) for m in p["messages"])
    watch = [*open_vlc(), *open_folder("Download"), click(resource_id=TITLE, text=str(p["video_name"]))]
    return [*watch, *open_markor(), *create_note(str(p["file_name"]), text), Complete()]


SOLVERS: dict[str, Callable[[Mapping[str, Any]], list[Step]]] = {
    "VlcCreatePlaylist": create_playlist,
    "VlcCreateTwoPlaylists": create_two_playlists,
    "MarkorTranscribeVideo": transcribe_video,
}
