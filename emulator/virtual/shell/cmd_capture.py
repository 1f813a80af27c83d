"""Screen capture and automation entry points: `screencap`, `uiautomator dump`, and `app_process` (which runs the
uiautomator2 server: `CLASSPATH=/data/local/tmp/u2.jar app_process / com.wetest.uia2.Main -p 9008`)."""

from __future__ import annotations

import io
import struct

from ..fs import FsError
from .registry import Ctx, command, fs_error_text

RGBA_8888 = 1
COLORSPACE_SRGB = 1
U2_MAIN_CLASSES = {"com.wetest.uia2.Main"}


def screencap_bytes(ctx: Ctx, png: bool, jpeg: bool = False) -> bytes:
    model = ctx.model
    model.latency.delay("screencap_png" if png or jpeg else "screencap_raw")
    if jpeg:
        return model.screenshot_jpeg(1.0, 80)
    img = model.screenshot()
    if png:
        buf = io.BytesIO()
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
            ctx.errln(
                "usage: screencap [-hpj] [-d display-id] [FILENAME]\n   -h: this message\n"
                "   -p: save the file as a png.\n   -j: save the file as a jpeg.\n"
                "   -d: specify the display ID to capture (default: first display)\n"
                "If FILENAME ends with .png it will be saved as a png.\n"
                "If FILENAME is not given, the results will be printed to stdout."
            )
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
        denied = ctx.write_error(full)
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
        ctx.outln(
            "Usage: uiautomator <subcommand> [options]\n\nAvailable subcommands:\n\n"
            "help: displays help message\n\nruntest: executes UI automation tests\n"
            "    runtest <class spec> [options]\n\ndump: creates an XML dump of current UI hierarchy\n"
            "    dump [--verbose][file]\n      [--compressed]: dumps compressed layout information.\n"
            "      [file]: the location where the dumped XML should be stored, default is\n"
            "      /sdcard/window_dump.xml\n\nevents: prints out accessibility events until terminated"
        )
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
        denied = ctx.write_error(full)
        try:
            if denied:
                raise FsError(13, full)
            model.fs.write(full, xml.encode("utf-8", "replace"))  # lone surrogates: "?", as Java
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
        ctx.errln(
            f'Exception in thread "main" java.lang.ClassNotFoundException: Didn\'t find class "{main_class}" '
            f'on path: DexPathList[[zip file "{jar}"],nativeLibraryDirectories=[/system/lib64, /system_ext/lib64]]'
        )
        return 1
    port = 9008
    if "-p" in rest:
        i = rest.index("-p")
        if i + 1 < len(rest) and rest[i + 1].isdigit():
            port = int(rest[i + 1])
    try:
        from ..u2server import serve_until_closed
    except ImportError as e:
        ctx.errln(f"app_process: the uiautomator2 server is not available on this virtual device ({e})")
        return 1
    ctx.model.u2_cmdline = " ".join(["app_process"] + argv[1:])  # what ps -o ARGS and /proc/PID/cmdline show
    return int(serve_until_closed(ctx.model, ctx.io, port) or 0)  # it keeps model.u2_running/u2_pid for `ps`


# --- screenrecord ----------------------------------------------------------------------------------------------
MAX_RECORD_S = 180
MAX_RECORD_FRAMES = 60  # I_PCM frames are large: a new one only when the screen may have changed, at most this many


@command("screenrecord")
def screenrecord(ctx: Ctx, argv: list[str]) -> int:
    """Records the display into an MP4 (H.264, see `media`) until --time-limit (default 180 s) passes or the
    host closes the stream (Ctrl-C); a frame is taken at the start and after every input event."""

    import numpy as np

    from ..media import encode_mp4

    args = argv[1:]
    limit, size, verbose, path = MAX_RECORD_S, None, False, None
    i = 0
    while i < len(args):
        a = args[i]
        val = args[i + 1] if i + 1 < len(args) else None
        if a in ("--time-limit", "--size", "--bit-rate", "--rotate", "--display-id", "--output-format"):
            if val is None:
                ctx.errln(f"screenrecord: option '{a}' requires an argument")
                return 2
            if a == "--time-limit":
                if not val.isdigit() or not 1 <= int(val) <= MAX_RECORD_S:
                    ctx.errln(f"Time limit {val}s out of range [1,{MAX_RECORD_S}]")
                    return 2
                limit = int(val)
            elif a == "--size":
                sw, _, sh = val.partition("x")
                if not (sw.isdigit() and sh.isdigit() and int(sw) > 0 and int(sh) > 0):
                    ctx.errln(f"Invalid size '{val}', must be width x height")
                    return 2
                size = (int(sw) // 2 * 2, int(sh) // 2 * 2)
            elif a == "--output-format" and val != "mp4":
                ctx.errln(f"screenrecord: output format {val} is not available on the virtual device")
                return 2
            i += 2
            continue
        if a == "--verbose":
            verbose = True
        elif a in ("--help", "-h"):
            ctx.outln(
                "Usage: screenrecord [options] <filename>\n\nAndroid screenrecord v1.4.  Records the device's "
                "display to a .mp4 file.\n\nOptions:\n--size WIDTHxHEIGHT\n--bit-rate RATE\n--time-limit TIME"
                "\n    Set the maximum recording time, in seconds.  Default is 180.\n--verbose\n--help"
            )
            return 0
        elif a.startswith("-"):
            ctx.errln(f"screenrecord: unrecognized option '{a}'")
            return 2
        else:
            path = a
        i += 1
    if path is None:
        ctx.errln("Must specify output file (see --help).")
        return 2
    full = ctx.path(path)
    denied = ctx.write_error(full)
    if denied:
        ctx.errln(f"Unable to open '{path}': {denied}")
        return 1
    model = ctx.model
    w, h = model.display_size
    out_w, out_h = size or (w, h)
    if verbose:
        ctx.outln(f"Display is {w}x{h} @60.00fps (orientation=ROTATION_{model.rotation * 90}), layerStack=0")
        ctx.outln(f"Configuring recorder for {out_w}x{out_h} video/avc at 20.00Mbps")

    def frame() -> np.ndarray:
        img = model.screenshot().convert("RGB")
        if img.size != (out_w, out_h):
            img = img.resize((out_w, out_h))
        return np.asarray(img)

    clock = model.clock  # the recording lasts device time; it watches the clock, never moves it
    start = clock.monotonic()
    frames = [(frame(), 0.0)]
    seen = model.events.mark()  # events ever logged: a full log still counts on
    model.events.log("screenrecord", action="start", path=full)
    reason = "Time limit reached"
    while True:
        now = clock.monotonic() - start
        if now >= limit:
            break
        if ctx.io.wait_closed(min(0.1, limit - now)):
            reason = "Stopping (interrupted)"
            break
        events = model.events.mark()
        if events != seen and len(frames) < MAX_RECORD_FRAMES:
            seen = events
            frames.append((frame(), clock.monotonic() - start))
    duration = clock.monotonic() - start
    data = encode_mp4(frames + [(frames[-1][0], duration)] if duration - frames[-1][1] > 0.05 else frames, out_w, out_h)
    try:
        model.fs.write(full, data)
    except (FsError, OSError) as e:
        ctx.errln(f"Unable to open '{path}': {fs_error_text(e)}")
        return 1
    model.events.log("screenrecord", action="stop", path=full, frames=len(frames), bytes=len(data))
    if verbose and not ctx.io.closed:
        ctx.outln(reason)
        ctx.outln("Stopping encoder and muxer")
    return 0
