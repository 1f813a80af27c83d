"""`pm` / `cmd package`: list, path, clear, install (from a path, from stdin with -S, or by session),
uninstall, grant/revoke, enable/disable, resolve-activity, dump."""

from __future__ import annotations

import hashlib
import os
import time

from ..fs import FsError
from ..providers import clear_provider_package
from ..records import Package
from .apk import ApkError, read_apk
from .cmd_am import resolve_intent
from .intent import IntentError, parse_intent
from .pkgmeta import apk_path, is_enabled, meta
from .registry import Ctx, command, procs, short_component


def _fail(ctx: Ctx, reason: str, detail: str = "") -> int:
    ctx.outln(f"Failure [{reason}{': ' + detail if detail else ''}]")
    return 1


def _java_error(ctx: Ctx, verb: str, message: str) -> int:
    ctx.err(
        f"\nException occurred while executing '{verb}':\njava.lang.IllegalArgumentException: {message}\n"
        "\tat com.android.server.pm.PackageManagerShellCommand.onCommand(PackageManagerShellCommand.java:219)\n"
        "\tat com.android.modules.utils.BasicShellCommandHandler.exec(BasicShellCommandHandler.java:97)\n"
    )
    return 255


def install_bytes(ctx: Ctx, data: bytes, flags: set[str]) -> int:
    """Install an APK given as bytes; prints `Success` or `Failure [REASON: ...]` like the package manager."""
    tmp = f"/data/app/vmdl{int(time.time() * 1000) % 2_000_000_000}.tmp/base.apk"
    try:
        info = read_apk(data)
    except ApkError as e:
        return _fail(ctx, "INSTALL_PARSE_FAILED_NOT_APK", f"Failed to parse {tmp}: {e}")
    model = ctx.model
    with model.lock:
        old = model.packages.get(info.package)
        if old is not None and old.system:
            return _fail(
                ctx,
                "INSTALL_FAILED_UPDATE_INCOMPATIBLE",
                f"Existing package {info.package} signatures do not match newer version; ignoring!",
            )
        if old is not None and old.version_code > info.version_code and "-d" not in flags:
            return _fail(
                ctx,
                "INSTALL_FAILED_VERSION_DOWNGRADE",
                f"Downgrade detected: Update version code {info.version_code} is older than current {old.version_code}",
            )
        digest = hashlib.sha1(data).hexdigest()
        path = f"/data/app/~~{digest[:22]}==/{info.package}-{digest[22:40]}==/base.apk"
        ime = None
        if info.ime_services:
            ime = short_component(info.package, info.ime_services[0])
        label = info.label or info.package
        pkg = Package(
            info.package,
            {"en": label, "zh": label},
            list(info.activities),
            info.launcher_activity,
            version_name=info.version_name,
            version_code=info.version_code,
            system=False,
            ime_service=ime,
            apk_path=path,
        )
        if old is not None:
            pkg.first_install_time = old.first_install_time
            model.force_stop(info.package)
            if old.apk_path and old.apk_path != path:
                try:
                    model.fs.remove(os.path.dirname(old.apk_path), recursive=True)
                except (FsError, OSError):
                    pass
        model.fs.write(path, data, parents=True)
        model.install_package(pkg)
    m = meta(ctx, info.package)
    m.requested = list(info.permissions)
    m.min_sdk, m.target_sdk, m.last_update_time = info.min_sdk, info.target_sdk, model.clock.time()
    if "-g" in flags:
        m.granted |= set(info.permissions)
    ctx.outln("Success")
    return 0


def _install(ctx: Ctx, args: list[str]) -> int:
    flags: set[str] = set()
    size = None
    paths: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a in (
            "-S",
            "--user",
            "-i",
            "--install-location",
            "--originating-uri",
            "--referrer",
            "--abi",
            "-p",
            "--pkg",
            "--install-reason",
            "--force-uuid",
            "--session",
        ):
            if a == "-S" and i + 1 < len(args):
                size = args[i + 1]
            i += 2
            continue
        if a.startswith("-"):
            flags.add(a)
        else:
            paths.append(a)
        i += 1
    if size is not None or paths in ([], ["-"]):
        if size is None or not size.isdigit():
            ctx.errln("Error: must either specify a package size or an APK file")
            return 1
        want = int(size)
        chunks, got = [], 0
        while got < want:
            b = ctx.io.read_stdin(min(65536, want - got))
            if not b:
                break
            chunks.append(b)
            got += len(b)
        return install_bytes(ctx, b"".join(chunks), flags)
    path = paths[0]
    try:
        data = ctx.read_file(path)
    except (FsError, OSError):
        ctx.errln(f"Error: Unable to open file: {path}\nConsider using a file under /data/local/tmp/")
        ctx.errln(f"Error: Can't open file: {path}")
        return 1
    return install_bytes(ctx, data, flags)


def _sessions(ctx: Ctx) -> dict[int, dict[str, bytes]]:
    p = procs(ctx.model)
    return p.install_sessions


@command("pm")
def pm(ctx: Ctx, argv: list[str]) -> int:
    if len(argv) < 2:
        ctx.outln(
            "Package manager (package) commands:\n  help\n    Print this help text.\n  path [--user USER_ID]"
            " PACKAGE\n  list packages [-f] [-d] [-e] [-s] [-3] [-i] [-l] [-u] [-U] [FILTER]\n  clear PACKAGE"
            "\n  install [-r] [-t] [-g] [-d] [-S BYTES] [PATH|-]\n  uninstall [-k] [--user USER_ID] PACKAGE\n"
            "  grant PACKAGE PERMISSION\n  revoke PACKAGE PERMISSION\n  resolve-activity [--brief] INTENT"
        )
        return 0
    verb, args = argv[1], argv[2:]
    model = ctx.model
    opts = [a for a in args if a.startswith("-")]
    pos = [a for i, a in enumerate(args) if not a.startswith("-") and (i == 0 or args[i - 1] != "--user")]
    if verb == "list":
        what = pos[0] if pos else ""
        if what != "packages":
            if what in ("features", "instrumentation", "permission-groups", "libraries", "users"):
                if what == "features":
                    ctx.out(
                        "".join(
                            f"feature:{f}\n"
                            for f in (
                                "android.hardware.touchscreen",
                                "android.hardware.wifi",
                                "android.hardware.camera",
                                "android.software.input_methods",
                            )
                        )
                    )
                return 0
            ctx.errln(f"Error: unknown list type '{what}'")
            return 255
        flt = pos[1] if len(pos) > 1 else ""
        flags = "".join(o.lstrip("-") for o in opts)
        with model.lock:
            pkgs = sorted(model.packages.values(), key=lambda p: p.name)
        for p in pkgs:
            if ("3" in flags and p.system) or ("s" in flags and not p.system) or flt not in p.name:
                continue
            if "e" in flags or "d" in flags:  # -e: enabled only, -d: disabled only (`pm disable[-user]`)
                disabled = not is_enabled(ctx, p.name)
                if ("e" in flags and disabled) or ("d" in flags and not disabled):
                    continue
            line = "package:" + (apk_path(p) + "=" if "f" in flags else "") + p.name
            if "i" in flags:
                line += "  installer=" + ("null" if p.system else "com.android.shell")
            if "U" in flags:
                line += f" uid:{10100 + sum(map(ord, p.name)) % 400}"
            ctx.outln(line)
        return 0
    if verb == "path":
        if pos and pos[0] == "android":  # the framework: what boot waits ask once the package manager is up
            ctx.outln("package:/system/framework/framework-res.apk")
            return 0
        pkg = model.packages.get(pos[0]) if pos else None
        if pkg is None:
            return 1
        ctx.outln("package:" + apk_path(pkg))
        return 0
    if verb == "clear":
        if pos and clear_provider_package(model, pos[0]):  # the contacts provider: its data, no process here
            ctx.outln("Success")
            return 0
        if pos and model.clear_data(pos[0]):
            m = meta(ctx, pos[0])
            m.granted.clear()
            ctx.outln("Success")
            return 0
        ctx.outln("Failed")
        return 1
    if verb == "install":
        return _install(ctx, args)
    if verb == "install-create":
        sessions = _sessions(ctx)
        sid = 1_000_000 + len(sessions) * 7919
        sessions[sid] = {}
        ctx.outln(f"Success: created install session [{sid}]")
        return 0
    if verb == "install-write":
        size = args[args.index("-S") + 1] if "-S" in args and args.index("-S") + 1 < len(args) else None
        rest = [a for a in pos if a != size]
        if len(rest) < 2 or int(rest[0]) not in _sessions(ctx):
            return _java_error(ctx, verb, "Session not found")
        sid, name = int(rest[0]), rest[1]
        src = rest[2] if len(rest) > 2 else "-"
        if src == "-" and size is not None:
            data = b""
            while len(data) < int(size):
                b = ctx.io.read_stdin(int(size) - len(data))
                if not b:
                    break
                data += b
        else:
            try:
                data = ctx.read_file(src)
            except (FsError, OSError):
                return _java_error(ctx, verb, f"Error: Can't open file: {src}")
        _sessions(ctx)[sid][name] = data
        ctx.outln(f"Success: streamed {len(data)} bytes")
        return 0
    if verb in ("install-commit", "install-abandon"):
        sid = int(pos[0]) if pos and pos[0].isdigit() else -1
        session = _sessions(ctx).pop(sid, None)
        if session is None:
            return _java_error(ctx, verb, "Session not found")
        if verb == "install-abandon":
            ctx.outln("Success")
            return 0
        base = next((d for n, d in session.items() if "split" not in n), b"")
        return install_bytes(ctx, base, set())
    if verb == "uninstall":
        if not pos:
            ctx.errln("Error: package name not specified")
            return 1
        pkg = model.packages.get(pos[0])
        path = pkg.apk_path if pkg else ""
        if pkg is not None and model.uninstall_package(pos[0]):
            if path:
                try:
                    model.fs.remove(os.path.dirname(path), recursive=True)
                except (FsError, OSError):
                    pass
            ctx.outln("Success")
            return 0
        return _fail(ctx, "DELETE_FAILED_INTERNAL_ERROR")
    if verb in ("grant", "revoke"):
        if len(pos) < 2:
            return _java_error(ctx, verb, f'Argument expected after "{verb}"')
        if pos[0] not in model.packages:
            return _java_error(ctx, verb, f"Unknown package: {pos[0]}")
        m = meta(ctx, pos[0])
        if pos[1] not in m.requested:
            ctx.err(
                f"\nException occurred while executing '{verb}':\njava.lang.SecurityException: Package "
                f"{pos[0]} has not requested permission {pos[1]}\n"
            )
            return 255
        (m.granted.add if verb == "grant" else m.granted.discard)(pos[1])
        model.events.log("permission", action=verb, package=pos[0], permission=pos[1])
        return 0
    if verb in ("enable", "disable", "disable-user", "default-state"):
        if not pos or pos[0].split("/")[0] not in model.packages:
            return _java_error(ctx, verb, f"Unknown package: {pos[0] if pos else ''}")
        state = {
            "enable": "enabled",
            "disable": "disabled",
            "disable-user": "disabled-user",
            "default-state": "default",
        }[verb]
        meta(ctx, pos[0].split("/")[0]).enabled = state
        ctx.outln(f"Package {pos[0]} new state: {state}")
        return 0
    if verb in ("resolve-activity", "query-activities"):
        try:
            it, _, _ = parse_intent([a for a in args if a not in ("--brief", "--components")])
        except (IntentError, ValueError) as e:
            return _java_error(ctx, verb, str(e))
        target = resolve_intent(ctx, it)
        if target is None or target[1] is None:
            ctx.outln("No activity found")
            return 0
        comp = short_component(target[0], target[1])
        if "--brief" in args or "--components" in args:
            if "--components" not in args:
                ctx.outln("priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=true")
            ctx.outln(comp)
        else:
            ctx.outln(
                f"Activity Resolver Table:\n  Non-Data Actions:\n      android.intent.action.MAIN:\n"
                f"        {comp}\n  priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=true\n"
                f"  ActivityInfo:\n    name={target[1]}\n    packageName={target[0]}\n    enabled=true "
                f"exported=true directBootAware=false"
            )
        return 0
    if verb == "dump":
        from .cmd_dumpsys import package_dump

        return package_dump(ctx, pos[0] if pos else "")
    if verb == "get-max-users":
        ctx.outln("Maximum supported users: 4")
        return 0
    ctx.errln(f"Unknown command: {verb}")
    return 255
