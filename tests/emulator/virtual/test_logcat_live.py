"""A living log, through the real adb server: an idle device logs a few system lines a second (real tags, the
pids of its system processes, main and system buffers), so a following reader gets lines and adbutils' logcat
helper stops when asked; `logcat -c`, filters, buffers and buffer sizes (`-g`, `-G`) apply to those lines too."""

from __future__ import annotations

import re
import time

import pytest

pytestmark = pytest.mark.timeout(60)

# -v time: "MM-DD HH:MM:SS.mmm L/TAG( PID): message"
TIME_LINE = re.compile(r"^\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} ([VDIWEF])/(.+?)\(\s*(\d+)\): (.*)$")


def test_a_following_reader_gets_lines_from_an_idle_device_and_stops(vdevice, tmp_path):
    d = vdevice.adb
    path = tmp_path / "logcat.txt"
    evt = d.logcat(str(path), clear=True)  # adbutils: `logcat -v time` followed in a thread
    time.sleep(2.0)
    evt.stop(timeout=10)  # the reader checks its stop flag between lines: it needs lines to come
    lines = [line for line in path.read_text().splitlines() if not line.startswith("---------")]
    assert len(lines) >= 2, lines
    system_pids = {int(row.split()[1]) for row in d.shell("ps -A").splitlines()[1:]}
    for line in lines:
        m = TIME_LINE.match(line)
        assert m, line
        level, tag, pid, msg = m.groups()
        assert level in "VDIW" and tag.strip() and msg
        assert int(pid) in system_pids  # logged by processes the device has


def test_clear_filters_buffers_and_sizes_apply_to_the_chatter(vdevice):
    d = vdevice.adb
    time.sleep(1.0)  # let some chatter accumulate
    assert d.shell("logcat -d | grep -c ': '").strip() != "0"
    # -c drops everything so far: what a dump shows afterwards is newer than the clear
    d.shell("logcat -c; log -t Marker cleared")
    stamps = [line[:18] for line in d.shell("logcat -d -v time").splitlines() if not line.startswith("-----")]
    marker = d.shell("logcat -d -v time -s Marker").splitlines()[-1][:18]
    assert stamps and min(stamps) >= marker[:14]  # to the second: nothing from before the clear survives
    time.sleep(1.5)
    # filters: one tag only; no chatter at error level
    d.shell("log -t Marker -p e boom")
    assert [line.split(": ", 1)[1] for line in d.shell("logcat -d *:E").splitlines() if ": " in line] == ["boom"]
    # buffers: the chatter goes to both main and system, each under its own header
    main = d.shell("logcat -d -b main")
    system = d.shell("logcat -d -b system")
    assert "--------- beginning of main" in main and "beginning of system" not in main
    assert "--------- beginning of system" in system and "beginning of main" not in system
    # sizes: a 64 KiB main buffer drops its oldest lines when more is written
    assert d.shell("logcat -G 64K -b main; echo $?").strip() == "0"
    d.shell("for i in $(seq 700); do log -t Fill line$i-" + "x" * 100 + "; done")
    size_line = d.shell("logcat -g -b main").strip()
    assert size_line.startswith("main: ring buffer is 64 KiB (") and "KiB consumed)" in size_line
    consumed = int(re.search(r"\((\d+) KiB consumed\)", size_line).group(1))
    assert 50 <= consumed <= 64
    fills = [line.split(": ", 1)[1].split("-")[0] for line in d.shell("logcat -d -s Fill").splitlines() if ": " in line]
    assert fills[-1] == "line700" and fills[0] != "line1" and len(fills) < 700
    assert "failed to set the 'main' log size" in d.shell("logcat -G 1K -b main 2>&1")
