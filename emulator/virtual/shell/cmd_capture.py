"""Screen capture and automation entry points: `screencap`, `uiautomator dump`, and `app_process` (which runs the
uiautomator2 server: `CLASSPATH=/data/local/tmp/u2.jar app_process / com.wetest.uia2.Main -p 9008`)."""

from __future__ import annotations

import io
import struct

from ..fs import FsError
from .registry import Ctx, command, fs_error_text, writable_error

RGBA_8888 = 1
COLORSPACE_SRGB = 1
U2_MAIN_CLASSES = {"com.wetest.uia2.Main"}


def screencap_bytes(ctx: Ctx, png: bool, jpeg: bool = False) -> bytes:
    model = ctx.model
    model.latency.delay("screencap_png" if png or jpeg else "screencap_raw")
    img = model.screenshot()
    if png or jpeg:
        buf = io.BytesIO()
        if jpeg:
            img.convert("RGB").save(buf, format="JPEG", quality=80)
        else:
            img.convert("RGBA").save(buf, format="PNG", compress_level=1)  # devices write RGBA_8888 PNGs
        return buf.getvalue()
    rgba = img.convert("RGBA")
    w, h = rgba.size
    return struct.pack("<IIII", w, h, RGBA_8888, COLORSPACE_SRGB) + rgba.tobytes()


@command("screencap")
def screencap(ctx: Ctx, argv: list[str]) -> int:
    args = argv[1:]
    png = jpeg = False
    path = None
    i = 0
    while i < len(args):
        a = args[i]
        if a == "-p":
            png = True
        elif a == "-j":
            jpeg = True
        elif a == "-d" and i + 1 < len(args):
            i += 1
        elif a in ("-h", "--help"):
            ctx.errln("usage: screencap [-hpj] [-d display-id] [FILENAME]\n   -h: this message\n"
                      "   -p: save the file as a png.\n   -j: save the file as a jpeg.\n"
                      "   -d: specify the display ID to capture (default: first display)\n"
                      "If FILENAME ends with .png it will be saved as a png.\n"
                      "If FILENAME is not given, the results will be printed to stdout.")
            return 1
        elif a.startswith("-"):
            ctx.errln(f"screencap: invalid option -- '{a.lstrip('-')[:1]}'")
            return 1
        else:
            path = a
        i += 1
    if path is not None:
        png = png or path.endswith(".png")
        jpeg = jpeg or path.endswith((".jpg", ".jpeg"))
        full = ctx.path(path)
        denied = writable_error(full)
        if denied:
            ctx.errln(f"Error opening file: {path} ({denied})")
            return 1
        data = screencap_bytes(ctx, png, jpeg)
        try:
            ctx.model.fs.write(full, data)
        except (FsError, OSError) as e:
            ctx.errln(f"Error opening file: {path} ({fs_error_text(e)})")
            return 1
        return 0
    ctx.io.write_stdout(screencap_bytes(ctx, png, jpeg))
    return 0


@command("uiautomator")
def uiautomator(ctx: Ctx, argv: list[str]) -> int:
    args = argv[1:]
    if not args or args[0] != "dump":
        ctx.outln("Usage: uiautomator <subcommand> [options]\n\nAvailable subcommands:\n\n"
                  "help: displays help message\n\nruntest: executes UI automation tests\n"
                  "    runtest <class spec> [options]\n\ndump: creates an XML dump of current UI hierarchy\n"
                  "    dump [--verbose][file]\n      [--compressed]: dumps compressed layout information.\n"
                  "      [file]: the location where the dumped XML should be stored, default is\n"
                  "      /sdcard/window_dump.xml\n\nevents: prints out accessibility events until terminated")
        return 0 if not args or args[0] == "help" else 1
    files = [a for a in args[1:] if not a.startswith("--")]
    path = files[0] if files else "/sdcard/window_dump.xml"
    model = ctx.model
    model.latency.delay("uiautomator_dump")
    xml = model.hierarchy_xml(u2=False, system_bars=False)  # app window and IME, as a device dumps
    if path in ("/dev/tty", "/dev/stdout"):
        ctx.out(xml)
    else:
        full = ctx.path(path)
        denied = writable_error(full)
        try:
            if denied:
                raise FsError(13, full)
            model.fs.write(full, xml.encode("utf-8"))
        except (FsError, OSError) as e:
            ctx.errln(f"ERROR: could not write {path}: {fs_error_text(e) if not denied else denied}")
            return 1
    ctx.outln(f"UI hierchary dumped to: {path}")
    return 0


@command("app_process", "app_process64")
def app_process(ctx: Ctx, argv: list[str]) -> int:
    args = argv[1:]
    while args and args[0].startswith("-"):  # VM options (-Xmx..., -Djava.class.path=...)
        if args[0].startswith("-Djava.class.path="):
            ctx.env["CLASSPATH"] = args[0].split("=", 1)[1]
        args = args[1:]
    if len(args) < 2:
        ctx.errln("Usage: app_process [java-options] cmd-dir start-class-name [options]")
        return 1
    main_class, rest = args[1], args[2:]
    classpath = ctx.env.get("CLASSPATH") or ctx.state.vars.get("CLASSPATH", "")
    jar = next((p for p in classpath.split(":") if p), "")
    node = ctx.model.fs.stat(ctx.path(jar)) if jar else None
    if main_class not in U2_MAIN_CLASSES or node is None or node.is_dir or node.size == 0:
        ctx.errln(f'Exception in thread "main" java.lang.ClassNotFoundException: Didn\'t find class "{main_class}" '
                  f'on path: DexPathList[[zip file "{jar}"],nativeLibraryDirectories=[/system/lib64, /system_ext/lib64]]')
        return 1
    port = 9008
    if "-p" in rest:
        i = rest.index("-p")
        if i + 1 < len(rest) and rest[i + 1].isdigit():
            port = int(rest[i + 1])
    try:
        from ..u2server import serve_until_closed  # type: ignore[import-not-found]
    except ImportError as e:
        ctx.errln(f"app_process: the uiautomator2 server is not available on this virtual device ({e})")
        return 1
    ctx.model.u2_cmdline = " ".join(["app_process"] + argv[1:])  # what ps -o ARGS and /proc/PID/cmdline show
    return int(serve_until_closed(ctx.model, ctx.io, port) or 0)  # it keeps model.u2_running/u2_pid for `ps`
