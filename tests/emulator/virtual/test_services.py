"""adb services and device files beyond shell and sync, through the real adb server: `adb reverse`, the legacy
`framebuffer:` screenshot, `screenrecord`, `content query`, /proc files and `dumpsys meminfo|gfxinfo PKG`."""

from __future__ import annotations

import threading

import pytest

from tests.device_util import host_echo_server

pytestmark = pytest.mark.timeout(90)


@pytest.fixture
def echo_server():
    """A host TCP server answering each connection with b"pong:" + what it received (then closing)."""
    with host_echo_server(b"pong:") as server:
        yield server


def test_adb_reverse_reaches_the_host(vdevice, adb_cli, echo_server):
    port, got = echo_server
    serial = vdevice.serial
    r = adb_cli("-s", serial, "reverse", "tcp:8123", f"tcp:{port}")
    assert r.returncode == 0, r.stderr
    listing = adb_cli("-s", serial, "reverse", "--list").stdout.decode()
    assert f"tcp:8123 tcp:{port}" in listing
    # a device-side client connecting to tcp:8123 lands on the host's port
    assert vdevice.adb.shell("echo ping | nc localhost 8123") == "pong:ping"
    assert got == [b"ping\n"]
    # norebind refuses an existing socket; --remove takes it away
    r = adb_cli("-s", serial, "reverse", "--no-rebind", "tcp:8123", f"tcp:{port}")
    assert r.returncode != 0 and b"cannot rebind" in r.stderr
    assert adb_cli("-s", serial, "reverse", "--remove", "tcp:8123").returncode == 0
    assert "Connection refused" in vdevice.adb.shell("nc localhost 8123 2>&1")
    r = adb_cli("-s", serial, "reverse", "--remove", "tcp:8123")
    assert r.returncode != 0 and b"not found" in r.stderr
    # tcp:0 picks a port and reports it
    r = adb_cli("-s", serial, "reverse", "tcp:0", f"tcp:{port}")
    chosen = int(r.stdout.decode().strip())
    assert vdevice.adb.shell(f"echo again | nc 127.0.0.1 {chosen}") == "pong:again"
    assert adb_cli("-s", serial, "reverse", "--remove-all").returncode == 0
    assert adb_cli("-s", serial, "reverse", "--list").stdout.decode().strip() == ""


def test_framebuffer_service(vdevice):
    img = vdevice.adb.framebuffer()  # adbutils reads the fbinfo header and the pixels
    assert img.mode == "RGBA" and img.size == vdevice.model.display_size
    expected = vdevice.model.screenshot().convert("RGBA")
    assert img.tobytes() == expected.tobytes()


def test_screenrecord_writes_a_valid_mp4(vdevice, adb_cli, tmp_path):
    import numpy as np

    from emulator.virtual.media import parse_boxes, sps_size, unescape

    serial = vdevice.serial
    result = {}

    def record() -> None:
        result["r"] = adb_cli("-s", serial, "shell", "screenrecord --time-limit 2 /sdcard/rec.mp4")

    t = threading.Thread(target=record)
    t.start()
    start = vdevice.model.events.mark()
    while not vdevice.model.events.since(start, "screenrecord"):
        threading.Event().wait(0.02)
    vdevice.adb.shell("input keyevent HOME")  # the screen changes while recording: a second frame
    t.join(30)
    assert result["r"].returncode == 0, result["r"].stderr
    local = tmp_path / "rec.mp4"
    vdevice.adb.sync.pull("/sdcard/rec.mp4", str(local))
    data = local.read_bytes()
    boxes = parse_boxes(data)  # every box size adds up, nothing truncated
    kinds = [k for k, _, _ in boxes]
    assert kinds[0] == b"ftyp" and data[8:12] == b"isom"
    assert {b"moov", b"trak", b"avcC", b"stsz", b"stco", b"mdat"} <= set(kinds) | {b"avcC"}
    stsd = next((s, e) for k, s, e in boxes if k == b"stsd")
    avcc_at = data.index(b"avcC", stsd[0], stsd[1])
    sps_len = int.from_bytes(data[avcc_at + 10 : avcc_at + 12], "big")
    sps = data[avcc_at + 12 : avcc_at + 12 + sps_len]
    assert sps[0] & 0x1F == 7 and sps_size(sps) == vdevice.model.display_size
    s, e = next((s, e) for k, s, e in boxes if k == b"stsz")
    count = int.from_bytes(data[s + 8 : s + 12], "big")
    sizes = [int.from_bytes(data[s + 12 + 4 * i : s + 16 + 4 * i], "big") for i in range(count)]
    mdat = next((s, e) for k, s, e in boxes if k == b"mdat")
    s, e = next((s, e) for k, s, e in boxes if k == b"stco")
    offset = int.from_bytes(data[s + 8 : s + 12], "big")
    assert count >= 2 and offset == mdat[0] and sum(sizes) == mdat[1] - mdat[0]
    # the first sample is one IDR slice whose first macroblock carries the top-left 16x16 luma samples
    nal = unescape(data[offset + 4 : offset + sizes[0]])
    assert nal[0] & 0x1F == 5
    luma = np.frombuffer(nal[5 : 5 + 256], dtype=np.uint8).reshape(16, 16).astype(float)
    assert 16 <= luma.min() and luma.max() <= 235  # limited-range video samples
    assert b"moov" in data and vdevice.adb.shell("ls -l /sdcard/rec.mp4").split()[4] == str(len(data))


def test_content_query_and_insert(vdevice):
    adb = vdevice.adb
    out = adb.shell(
        "content query --uri content://settings/system --projection name:value --where \"name='screen_brightness'\""
    )
    assert out == "Row: 0 name=screen_brightness, value=102"
    adb.shell("content insert --uri content://settings/global --bind name:s:adb_test --bind value:i:7")
    assert vdevice.model.settings["global"]["adb_test"] == "7"
    assert adb.shell("settings get global adb_test") == "7"
    rows = adb.shell(
        "content query --uri content://com.android.contacts/data/phones --projection display_name:data1"
    ).splitlines()
    assert rows[0].startswith("Row: 0 display_name=") and ", data1=+" in rows[0]
    assert adb.shell("content query --uri content://settings/secure --where \"name='nope'\"") == "No result found."
    r = adb.shell2("content query --uri content://no.such.provider/x")
    assert r.returncode != 0 and "Error while accessing provider:no.such.provider" in r.output


def test_proc_files(vdevice):
    adb = vdevice.adb
    meminfo = adb.shell("cat /proc/meminfo").splitlines()
    assert meminfo[0] == "MemTotal:        3995112 kB"
    assert all(len(line) >= 27 and line.endswith(" kB") for line in meminfo)
    stat = adb.shell("cat /proc/stat").splitlines()
    assert stat[0].startswith("cpu  ") and len(stat[0].split()) == 11 and stat[1].startswith("cpu0 ")
    assert adb.shell("grep -c ^processor /proc/cpuinfo") == "4"
    adb.shell("am start -n com.android.settings/.Settings")
    pid = adb.shell("pidof com.android.settings")
    fields = adb.shell(f"cat /proc/{pid}/stat").split()
    assert fields[0] == pid and fields[1] == "(ndroid.settings)" and fields[2] == "S" and len(fields) == 52
    assert fields[3] == adb.shell("pidof zygote64")
    assert adb.shell(f"cat /proc/{pid}/cmdline") == "com.android.settings\x00"  # NUL-terminated argv
    assert "No such file" in adb.shell("cat /proc/999999/stat 2>&1")


def test_dumpsys_meminfo_and_gfxinfo_for_a_package(vdevice):
    adb = vdevice.adb
    pkg = "com.android.settings"
    assert adb.shell(f"dumpsys meminfo {pkg}") == f"No process found for: {pkg}"
    adb.shell(f"am start -n {pkg}/.Settings")
    pid = adb.shell(f"pidof {pkg}")
    mem = adb.shell(f"dumpsys meminfo {pkg}")
    assert f"** MEMINFO in pid {pid} [{pkg}] **" in mem
    total_pss = int(next(l for l in mem.splitlines() if "TOTAL PSS:" in l).split()[2])
    assert int(next(l for l in mem.splitlines() if l.strip().startswith("TOTAL ")).split()[1]) == total_pss > 0

    def stats() -> dict[str, str]:
        text = adb.shell(f"dumpsys gfxinfo {pkg}")
        assert f"** Graphics info for pid {pid} [{pkg}] **" in text
        return dict(l.split(": ", 1) for l in text.splitlines() if ": " in l and not l.startswith("\t"))

    first = stats()
    frames = int(first["Total frames rendered"])
    assert frames > 0 and first["Janky frames"].endswith("%)")
    adb.shell("input swipe 540 1800 540 900 300")
    after = stats()
    assert int(after["Total frames rendered"]) > frames  # the swipe drew frames
    hist = dict(b.split("=") for b in after["HISTOGRAM"].split())
    assert sum(int(v) for v in hist.values()) == int(after["Total frames rendered"])
    fs = adb.shell(f"dumpsys gfxinfo {pkg} framestats").split("---PROFILEDATA---")
    assert fs[1].strip().splitlines()[0].startswith("Flags,FrameTimelineVsyncId,IntendedVsync,")
    adb.shell(f"dumpsys gfxinfo {pkg} reset")
    assert stats()["Total frames rendered"] == "0"
