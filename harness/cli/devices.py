"""The device commands of the CLI: `droidharness devices` and `droidharness observe` (kept out of cli.py so the
CLI module stays a thin list of commands)."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from harness.errors import HarnessError


def list_devices(console: Console, adb_host: str | None, adb_port: int | None) -> int:
    """Rich table of the adb server's devices; exit status 1 when no server runs."""
    import adbutils

    from harness.device.controller import wm_value
    from harness.device.fastadb import FastAdbDevice, shell_v2
    from harness.device.provision import adb_server_address, adb_server_running

    host, port = adb_server_address(adb_host, adb_port)
    if not adb_server_running(host, port):
        console.print(
            f"[red]No adb server is running at {host}:{port}.[/red] Start one with `adb start-server` "
            "(or set ANDROID_ADB_SERVER_PORT); `droidharness observe` without --device uses the embedded "
            "virtual device instead."
        )
        return 1
    client = adbutils.AdbClient(host=host, port=port, socket_timeout=10)
    infos = client.list()
    table = Table("serial", "state", "model", "size", "API", title=f"devices on the adb server at {host}:{port}")
    for info in infos:
        model = size = api = ""
        if info.state == "device":
            try:
                dev = FastAdbDevice(client, info.serial)
                res = shell_v2(dev, "getprop ro.product.model; getprop ro.build.version.sdk; wm size", timeout=10)
                lines = res.text.splitlines() + ["", ""]
                model, api = lines[0].strip(), lines[1].strip()
                wh = wm_value(res.text, r"(\d+)x(\d+)")
                size = f"{wh[0]}x{wh[1]}" if wh else ""
            except Exception as e:  # noqa: BLE001 - one bad device must not hide the others
                model = f"[red]error: {e}[/red]"
        table.add_row(info.serial, info.state, model, size, api)
    if not infos:
        console.print(f"No devices are connected to the adb server at {host}:{port}.")
        return 0
    console.print(table)
    return 0


def observe_once(
    console: Console, serial: str | None, out: Path, adb_port: int | None, profile: str, locale: str
) -> int:
    """Connect (or start the virtual device), observe once, save screen.png, screen.xml and overlay.png."""
    from harness.device.controller import AdbDevice
    from harness.observation import draw_overlay

    if serial is None:
        console.print(
            f"No --device given: starting the embedded virtual device ({profile}, {locale}) behind a "
            "private adb server."
        )
    try:
        with AdbDevice.connect(
            serial, adb_port=adb_port, start_virtual=serial is None, virtual_profile=profile, virtual_locale=locale
        ) as dev:
            console.print(f"[bold]{dev.info.describe()}[/bold]")
            console.print(f"capabilities: {', '.join(sorted(dev.capabilities))}")
            obs = dev.observe()
            out.mkdir(parents=True, exist_ok=True)
            obs.screenshot.save(out / "screen.png")
            (out / "screen.xml").write_text(obs.xml, encoding="utf-8")
            draw_overlay(obs.screenshot, obs.tree).save(out / "overlay.png")
            (out / "elements.txt").write_text(obs.tree.to_prompt() + "\n", encoding="utf-8")
    except HarnessError as e:
        console.print(f"[red]error:[/red] {escape(str(e))}", highlight=False, soft_wrap=True)
        return 2
    table = Table("part", "path", "ms", title=f"observation of {obs.package}/{obs.activity.rsplit('.', 1)[-1]}")
    for part in ("screenshot", "hierarchy", "app"):
        table.add_row(part, obs.paths.get(part, ""), f"{obs.timings.get(part, 0) * 1000:.1f}")
    table.add_row("total", "", f"{obs.timings.get('total', 0) * 1000:.1f}")
    console.print(table)
    console.print(
        f"{len(obs.tree)} elements, screen {obs.size[0]}x{obs.size[1]} rotation {obs.rotation}; wrote "
        f"{out / 'screen.png'}, {out / 'screen.xml'}, {out / 'overlay.png'}, {out / 'elements.txt'}"
    )
    return 0
