"""The virtual device tour: a virtual device behind a private, real adb server, driven by the real adbutils and
uiautomator2.

No emulator, no API key: it opens Notes from the launcher, writes a note in Chinese and English, and saves the
screenshot and view hierarchy of each step under `out/`.
"""

from __future__ import annotations

import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from emulator.virtual import VirtualDevice
from emulator.virtual.adbserver import PrivateAdbServer


def run_tour(out: Path, console: Console) -> None:
    out.mkdir(parents=True, exist_ok=True)
    steps = Table("step", "what", "seconds", "file", title="DroidHarness tour of the embedded virtual device")
    with PrivateAdbServer() as server, VirtualDevice(profile="medium_phone") as vd:
        t0 = time.perf_counter()
        adb = vd.connect(server)
        console.print(
            f"adb server on port {server.port}: device [bold]{vd.serial}[/bold] "
            f"{adb.getprop('ro.product.model')} API {adb.getprop('ro.build.version.sdk')}"
        )

        import uiautomator2 as u2

        d = u2.connect(adb)
        info = d.info
        steps.add_row(
            "0",
            f"connect + u2 server ({info['displayWidth']}x{info['displayHeight']})",
            f"{time.perf_counter() - t0:.2f}",
            "",
        )

        def snap(i: int, what: str, t: float) -> None:
            png = out / f"{i:03d}.png"
            d.screenshot().save(png)
            (out / f"{i:03d}.xml").write_text(d.dump_hierarchy(), encoding="utf-8")
            steps.add_row(str(i), what, f"{time.perf_counter() - t:.2f}", str(png))

        t = time.perf_counter()
        snap(1, "home screen", t)
        t = time.perf_counter()
        d(text="Notes").click()
        snap(2, "tap the Notes icon", t)
        t = time.perf_counter()
        d(resourceId="com.droidharness.notes:id/fab_add").click()
        d(resourceId="com.droidharness.notes:id/note_title_edit").click()
        d.send_keys("你好 world")
        snap(3, "new note, type 你好 world (u2 send_keys: clipboard paste)", t)
        t = time.perf_counter()
        d.press("back")
        d.press("back")
        snap(4, "back to the note list", t)
        found = d(textContains="你好 world").exists
        steps.add_row("", f"note saved and listed: {found}", "", "")
        d.stop_uiautomator(wait=False)
        server.disconnect(vd.address)
    console.print(steps)
    console.print(f"[green]tour finished[/green]: files in {out}")
