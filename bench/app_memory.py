"""Memory of one embedded device with AndroidWorld's apps, against the same device before they came: PSS and RSS of
the device process (`python -m emulator.virtual`, posing as an emulator) booted and idle, then after each app of
AndroidWorld's suite was opened and its screen drawn and dumped (as an agent's first step in it does), then after a
second round (what stays).

    python bench/app_memory.py [--baseline REV] [--rounds 2]

`--baseline REV` (default 41d579f: main before the files, media and maps apps; 850389b was main before the
productivity apps) is checked out into a temporary git worktree and measured the same way, side by side; the apps
it does not have are skipped there (`am start` answers "does not exist"). Both trees run on this interpreter.
Prints figures; no asserts. Linux only (/proc/PID/smaps_rollup).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from emulator.virtual.adbserver import PrivateAdbServer  # noqa: E402

# (label, component) of the apps AndroidWorld's classes use on the embedded device, as its name map starts them
APPS = (
    ("Settings", "com.android.settings/.Settings"),
    ("Clock", "com.google.android.deskclock/com.android.deskclock.DeskClock"),
    ("Contacts", "com.google.android.contacts/com.android.contacts.activities.PeopleActivity"),
    ("SMS Messenger", "com.simplemobiletools.smsmessenger/.activities.MainActivity"),
    ("Markor", "net.gsantner.markor/.activity.MainActivity"),
    ("Broccoli", "com.flauschcode.broccoli/.MainActivity"),
    ("Simple Calendar Pro", "com.simplemobiletools.calendar.pro/.activities.MainActivity"),
    ("Pro Expense", "com.arduia.expense/.ui.MainActivity"),
    ("Tasks", "org.tasks/com.todoroo.astrid.activity.MainActivity"),
    ("Joplin", "net.cozic.joplin/.MainActivity"),
    # the files, media and maps apps (issue 48)
    ("Files", "com.google.android.documentsui/com.android.documentsui.files.FilesActivity"),
    ("Camera", "com.android.camera2/com.android.camera.CameraLauncher"),
    ("Audio Recorder", "com.dimowner.audiorecorder/com.dimowner.audiorecorder.app.welcome.WelcomeActivity"),
    ("Simple Gallery Pro", "com.simplemobiletools.gallery.pro/.activities.MainActivity"),
    ("Simple Draw Pro", "com.simplemobiletools.draw.pro/.activities.MainActivity"),
    ("Retro Music", "code.name.monkey.retromusic/.activities.MainActivity"),
    ("VLC", "org.videolan.vlc/.gui.MainActivity"),
    ("OpenTracks", "de.dennisguse.opentracks/de.dennisguse.opentracks.TrackListActivity"),
    ("OsmAnd", "net.osmand/net.osmand.plus.activities.MapActivity"),
)


@dataclass
class Measured:
    stages: dict[str, tuple[int, int]]  # stage -> (PSS, RSS) kB
    opened: list[str]  # the apps the tree had
    boot: float  # seconds to boot
    heap: tuple[int, int]  # Python heap bytes: booted, after the apps


def memory_kb(pid: int) -> tuple[int, int]:
    fields: dict[str, int] = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        name, _, rest = line.partition(":")
        if name in ("Pss", "Rss"):
            fields[name] = int(rest.split()[0])
    return fields.get("Pss", 0), fields.get("Rss", 0)


HEAP_PROBE = """
import gc, sys, tracemalloc
tracemalloc.start()
from emulator.virtual.model import VirtualDeviceModel
m = VirtualDeviceModel()
m.screenshot()
gc.collect()
boot = tracemalloc.get_traced_memory()[0]
for pkg in sys.argv[1:]:
    if pkg in m.packages:
        for _ in range(2):
            m.start_activity(pkg); m.screenshot(); m.hierarchy_xml(u2=True); m.go_home()
gc.collect()
print(boot, tracemalloc.get_traced_memory()[0])
"""


def python_heap(tree: Path) -> tuple[int, int]:
    """The Python heap (tracemalloc: objects and code, not the frames' pixel buffers) of a device model built from
    `tree`, booted, then after every app was opened and drawn twice, in bytes."""
    packages = [c.split("/")[0] for _, c in APPS]
    out = subprocess.run(
        [sys.executable, "-c", HEAP_PROBE, *packages],
        cwd=tree,
        env={**os.environ, "PYTHONPATH": str(tree)},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return int(out[0]), int(out[1])


def measure(tree: Path, server: PrivateAdbServer, rounds: int) -> Measured:
    """Boot a device from `tree`, open the apps `rounds` times; memory at each stage and the apps it had."""
    console_port = 5610
    env = {**os.environ, "PYTHONPATH": str(tree)}
    cmd = [sys.executable, "-m", "emulator.virtual", "--emulator", "--console-port", str(console_port)]
    cmd += ["--adb-server-port", str(server.port), "--clock", "real"]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=tree, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    serial = f"emulator-{console_port}"
    client = server.client
    try:
        for _ in range(300):
            if any(d.serial == serial and d.state == "device" for d in client.list()):
                break
            time.sleep(0.05)
        else:
            err = proc.stderr.read().decode() if proc.stderr else ""
            raise SystemExit(f"the device of {tree} did not come up: {err[-800:]}")
        device = client.device(serial)
        device.shell("getprop sys.boot_completed")
        booted = time.perf_counter() - t0
        stages = {"idle": memory_kb(proc.pid)}
        opened: list[str] = []
        for r in range(rounds):
            for label, component in APPS:
                out = device.shell(f"am start -W -n {component}")
                if "Error" in out:
                    continue
                device.shell("screencap -p > /dev/null; uiautomator dump /dev/null")
                if r == 0:
                    opened.append(label)
            device.shell("input keyevent KEYCODE_HOME")
            stages[f"apps x{r + 1}"] = memory_kb(proc.pid)
        return Measured(stages, opened, booted, python_heap(tree))
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--baseline", default="41d579f", help="git revision to compare with ('' for none)")
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    console = Console()
    results: dict[str, Measured] = {}
    server = PrivateAdbServer().start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            trees = {"this tree": ROOT}
            if args.baseline:
                base = Path(tmp) / "baseline"
                subprocess.run(
                    ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(base), args.baseline],
                    check=True,
                    capture_output=True,
                )
                trees[f"baseline {args.baseline}"] = base
            try:
                for name, tree in trees.items():
                    results[name] = measure(tree, server, args.rounds)
            finally:
                if args.baseline:
                    subprocess.run(
                        ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)], capture_output=True
                    )
    finally:
        server.stop()
    t = Table(title="one embedded device's memory (PSS / RSS, MB)")
    t.add_column("stage")
    for name in results:
        t.add_column(name, justify="right")
    if len(results) == 2:
        t.add_column("PSS difference", justify="right")
    stages = list(next(iter(results.values())).stages)
    for stage in stages:
        row = [stage]
        pss: list[int] = []
        for res in results.values():
            p, r = res.stages[stage]
            pss.append(p)
            row.append(f"{p / 1024:.1f} / {r / 1024:.1f}")
        if len(pss) == 2:
            row.append(f"{(pss[0] - pss[1]) / 1024:+.1f}")
        t.add_row(*row)
    console.print(t)
    for name, res in results.items():
        boot_heap, used_heap = res.heap
        console.print(
            f"{name}: Python heap {boot_heap / 2**20:.1f} MB booted, {used_heap / 2**20:.1f} MB after the apps"
        )
    for name, res in results.items():
        opened = res.opened
        console.print(f"{name}: booted in {res.boot:.1f} s; apps opened ({len(opened)}): {', '.join(opened)}")


if __name__ == "__main__":
    main()
