"""`am` (ActivityManagerShellCommand) and `monkey`: start, force-stop, broadcast (incl. the AdbKeyboard IME's
broadcasts that uiautomator2's send_keys uses), start-service, and the monkey launcher trick."""

from __future__ import annotations

import base64
import binascii
from urllib.parse import urlsplit

from ..mediastore import SCAN_ACTION, scan
from ..records import ADB_KEYBOARD_IME, INTENT_ACTION, INTENT_DATA, INTENT_TYPE, LAUNCHER_PACKAGE
from ..roles import ROLE_SMS, role_holder
from ..sysdialogs import receive
from .intent import FLAG_ACTIVITY_NEW_TASK, FLAG_RECEIVER_FROM_SHELL, Intent, IntentError, parse_intent
from .pkgmeta import is_enabled
from .proctable import running_packages
from .registry import Ctx, command, short_component
from .windowdump import stack_list

_SETTINGS_PACKAGE = "com.android.settings"
_SMS_SCHEMES = ("sms", "smsto", "mms", "mmsto")


def _exception(ctx: Ctx, verb: str, exc: str, msg: str) -> int:
    ctx.err(
        f"\nException occurred while executing '{verb}':\n{exc}: {msg}\n"
        "\tat android.content.Intent.parseCommandArgs(Intent.java:8353)\n"
        "\tat com.android.server.am.ActivityManagerShellCommand.makeIntent(ActivityManagerShellCommand.java:523)\n"
    )
    return 255


def resolve_intent(ctx: Ctx, it: Intent) -> tuple[str, str | None] | None:
    """(package, activity or None for 'bring the task to front') the intent starts, or None. A disabled
    package's activities resolve to nothing (PackageManager skips disabled components)."""
    model = ctx.model
    if it.component is not None:
        pkg = model.packages.get(it.component[0])
        full = it.full_class()
        resolved = pkg.resolve_activity(full) if pkg is not None and full is not None else None
        if pkg is None or resolved is None or not is_enabled(ctx, pkg.name):
            return None
        return pkg.name, resolved
    if it.action == "android.intent.action.MAIN" and "android.intent.category.HOME" in it.categories:
        return LAUNCHER_PACKAGE, None
    filtered = _by_filter(ctx, it)
    if filtered is not None:
        return filtered
    target = it.package
    if (
        target is None
        and it.action
        and it.action.startswith("android.settings.")
        and _SETTINGS_PACKAGE in model.packages
    ):
        target = _SETTINGS_PACKAGE
    if target is None and it.data and urlsplit(it.data).scheme in ("http", "https"):
        target = next((p for p in model.packages if "browser" in p or "chrome" in p), None)
    if target is None or target not in model.packages or not is_enabled(ctx, target):
        return None
    pkg = model.packages[target]
    act = pkg.launcher_activity or (pkg.activities[0] if pkg.activities else None)
    return (pkg.name, act) if act else None


def _filter_matches(spec: str, it: Intent) -> bool:
    """An intent filter's data part against the intent: `scheme:S` (the data URI's scheme), `mime:TYPE` (the
    intent's type), "" (any data)."""
    kind, _, value = spec.partition(":")
    if kind == "scheme":
        return bool(it.data) and urlsplit(it.data or "").scheme == value
    if kind == "mime":
        return (it.mime or "").lower() == value
    return True


def _by_filter(ctx: Ctx, it: Intent) -> tuple[str, str] | None:
    """The first enabled package (the intent's package when it names one) whose intent filters take the intent's
    action and data, as PackageManager's resolution picks the single match; where the SMS role holder is among
    several, its activity for SENDTO sms:/smsto:/mms:/mmsto: (the role's preferred activities)."""
    if not it.action:
        return None
    matches: list[tuple[str, str]] = []
    for pkg in ctx.model.packages.values():
        if it.package is not None and pkg.name != it.package:
            continue
        for action, spec, activity in pkg.intent_filters:
            if action == it.action and _filter_matches(spec, it) and is_enabled(ctx, pkg.name):
                matches.append((pkg.name, activity))
                break
    if len(matches) > 1 and it.action == "android.intent.action.SENDTO":
        if urlsplit(it.data or "").scheme in _SMS_SCHEMES:
            holder = role_holder(ctx.model, ROLE_SMS)
            return next((m for m in matches if m[0] == holder), matches[0])
    return matches[0] if matches else None


def am_start(ctx: Ctx, args: list[str], verb: str) -> int:
    try:
        it, opts, _ = parse_intent(args)
    except (IntentError, ValueError) as e:
        return _exception(ctx, verb, "java.lang.IllegalArgumentException", str(e))
    model = ctx.model
    wait = bool(opts.get("-W"))
    if opts.get("--user") == "all":
        ctx.errln("Error: Can't start service with user 'all'")
        return 1
    target = resolve_intent(ctx, it)
    if opts.get("-S") and target is not None:
        ctx.outln(f"Stopping: {target[0]}")
        model.force_stop(target[0], caller_pid=ctx.state.pid)
    ctx.outln(f"Starting: {it}")
    err = ctx.outln if wait else ctx.errln
    t0 = model.clock.monotonic()
    if target is None:
        if it.component is not None:
            err("Error type 3")
            # ComponentName.toShortString() keeps the full class name (unlike flattenToShortString)
            err(f"Error: Activity class {{{it.component[0]}/{it.full_class()}}} does not exist.")
        else:
            it.flags |= FLAG_ACTIVITY_NEW_TASK
            err(f"Error: Activity not started, unable to resolve {it}")
        return 0
    pkg_name, activity = target
    with model.lock:
        was_running = pkg_name in running_packages(model)
        task = next((t for t in model.tasks if t.package == pkg_name), None)
        pkg = model.packages[pkg_name]
        launcher_intent = (
            activity is not None
            and activity == pkg.launcher_activity
            and (it.action in (None, "android.intent.action.MAIN"))
        )
        to_front = task is not None and (activity is None or launcher_intent)
        if pkg_name == LAUNCHER_PACKAGE and activity is None:
            model.go_home()
        else:
            extras = dict(it.extras)
            if it.action:
                extras.setdefault(INTENT_ACTION, it.action)
            if it.data:
                extras.setdefault(INTENT_DATA, it.data)
            if it.mime:
                extras.setdefault(INTENT_TYPE, it.mime)
            model.start_activity(pkg_name, None if to_front else activity, extras=extras)
    if to_front:
        err("Warning: Activity not started, its current task has been brought to the front")
    if wait:
        state = "HOT" if to_front else ("WARM" if was_running else "COLD")
        total = int((model.clock.monotonic() - t0) * 1000) + (80 if to_front else 350)
        ctx.outln("Status: ok")
        ctx.outln(f"LaunchState: {state}")
        ctx.outln(f"Activity: {short_component(pkg_name, activity or pkg.launcher_activity or '')}")
        ctx.outln(f"TotalTime: {total}")
        ctx.outln(f"WaitTime: {total + 4}")
        ctx.outln("Complete")
    return 0


# --- broadcasts ------------------------------------------------------------------------------------------
def _adb_keyboard(ctx: Ctx, it: Intent) -> tuple[int, str | None] | None:
    """The AdbKeyboard IME's receiver (registered only while it is the current input method)."""
    model = ctx.model
    action = it.action or ""
    if not action.startswith("ADB_KEYBOARD_"):
        return None
    with model.lock:
        active = model.current_ime == ADB_KEYBOARD_IME and ADB_KEYBOARD_IME in model.available_imes()
    if not active:
        return None
    if action == "ADB_KEYBOARD_INPUT_TEXT":
        raw = str(it.extras.get("text", ""))
        try:
            text = base64.b64decode(raw.encode(), validate=False).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError, ValueError):
            return 0, "invalid base64 text"
        model.commit_text(text, source="ime")
    elif action == "ADB_KEYBOARD_CLEAR_TEXT":
        model.events.log("ime", action="clear_text")
        model.set_focused_text("")
    elif action == "ADB_KEYBOARD_HIDE":
        model.hide_keyboard()
    elif action in ("ADB_KEYBOARD_SMART_ENTER", "ADB_KEYBOARD_EDITOR_CODE"):
        model.events.log("ime", action=action, code=it.extras.get("code"))
        model.key(66, source="ime")
    elif action == "ADB_KEYBOARD_INPUT_KEYCODE":
        try:
            model.key(int(it.extras.get("code", 0)), source="ime")
        except (TypeError, ValueError):
            return 0, "invalid keycode"
    elif action == "ADB_KEYBOARD_GET_CLIPBOARD":
        clip = model.clipboard or ""
        return -1, base64.b64encode(clip.encode()).decode()
    elif action == "ADB_KEYBOARD_SET_CLIPBOARD":
        try:
            model.clipboard = base64.b64decode(str(it.extras.get("text", "")).encode()).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError, ValueError):
            return 0, "invalid base64 text"
    else:
        return None
    return -1, "success"


def _app_receiver(ctx: Ctx, it: Intent) -> tuple[int, str | None] | None:
    """The result of the first enabled app whose manifest receivers take the action (the intent's package or
    component narrowing it), as `App.on_broadcast` gives it."""
    target = it.component[0] if it.component else it.package
    for name, app in ctx.model.ui.apps.items():
        installed = name in ctx.model.packages and is_enabled(ctx, name)
        if it.action in app.receivers and (target is None or target == name) and installed:
            return app.on_broadcast(ctx.model, str(it.action), dict(it.extras))
    return None


def am_broadcast(ctx: Ctx, args: list[str]) -> int:
    try:
        it, opts, _ = parse_intent(args)
    except (IntentError, ValueError) as e:
        return _exception(ctx, "broadcast", "java.lang.IllegalArgumentException", str(e))
    it.flags |= FLAG_RECEIVER_FROM_SHELL
    ctx.outln(f"Broadcasting: {it}")
    ctx.model.events.log("broadcast", action=it.action, extras=dict(it.extras))
    if it.action == SCAN_ACTION and it.data:
        scan(ctx.model.fs, it.data)  # MediaProvider's MediaScannerReceiver (result 0, as on a phone)
    result = _adb_keyboard(ctx, it) or _app_receiver(ctx, it) or receive(ctx.model, it.action, dict(it.extras))
    if it.action == "android.intent.action.AIRPLANE_MODE":
        result = None
    if result is None:
        ctx.outln("Broadcast completed: result=0")
    else:
        code, data = result
        ctx.outln(f"Broadcast completed: result={code}" + (f', data="{data}"' if data is not None else ""))
    return 0


AM_HELP = """Activity manager (activity) commands:
  help
      Print this help text.
  start-activity [-D] [-N] [-W] [-P <FILE>] [--start-profiler <FILE>]
          [--sampling INTERVAL] [--streaming] [-R COUNT] [-S]
          [--track-allocation] [--user <USER_ID> | current] <INTENT>
      Start an Activity.  Options are:
      -W: wait for launch to complete
      -S: force stop the target app before starting the activity
  start-service [--user <USER_ID> | current] <INTENT>
      Start a Service.
  force-stop [--user <USER_ID> | all | current] <PACKAGE>
      Completely stop the given application package.
  kill [--user <USER_ID> | all | current] <PACKAGE>
      Kill all background processes associated with the given application.
  broadcast [--user <USER_ID> | all | current] <INTENT>
      Send a broadcast Intent.
"""


@command("am")
def am(ctx: Ctx, argv: list[str]) -> int:
    if len(argv) < 2 or argv[1] in ("help", "-h"):
        ctx.out(AM_HELP)
        return 0
    verb, args = argv[1], argv[2:]
    model = ctx.model
    if verb in ("start", "start-activity"):
        return am_start(ctx, args, verb)
    if verb in ("force-stop", "stop-app", "kill"):
        pkgs = [a for i, a in enumerate(args) if not a.startswith("-") and (i == 0 or args[i - 1] != "--user")]
        if not pkgs:
            return _exception(ctx, verb, "java.lang.IllegalArgumentException", f'Argument expected after "{verb}"')
        if verb != "kill" and pkgs[0] in model.packages:
            model.force_stop(pkgs[0], caller_pid=ctx.state.pid)
        elif verb == "kill":
            model.events.log("activity", action="kill", package=pkgs[0])
        return 0
    if verb in ("broadcast", "send-broadcast"):
        return am_broadcast(ctx, args)
    if verb in ("start-service", "startservice", "start-foreground-service", "startforegroundservice"):
        try:
            it, _, _ = parse_intent(args)
        except (IntentError, ValueError) as e:
            return _exception(ctx, verb, "java.lang.IllegalArgumentException", str(e))
        ctx.outln(f"Starting service: {it}")
        pkg = it.component[0] if it.component else it.package
        if pkg not in model.packages:
            ctx.errln("Error: Not found; no service started.")
            return 255
        model.events.log("service", action="start", package=pkg)
        return 0
    if verb == "get-current-user":
        ctx.outln("0")
        return 0
    if verb == "instrument":
        target = args[-1] if args else ""
        ctx.errln(f"Unable to find instrumentation info for: ComponentInfo{{{target}}}")
        return 1
    if verb in ("stack", "task") and args[:1] == ["list"]:
        ctx.out(stack_list(ctx))
        return 0
    if verb in (
        "stack",
        "task",
        "display",
        "monitor",
        "dumpheap",
        "set-debug-app",
        "clear-debug-app",
        "screen-compat",
        "package-importance",
        "idle-maintenance",
        "switch-user",
        "start-user",
        "stop-user",
        "make-uid-idle",
        "send-trim-memory",
        "get-config",
        "to-uri",
        "to-intent-uri",
    ):
        return 0
    ctx.errln(f"Unknown command: {verb}")
    return 255


@command("monkey")
def monkey(ctx: Ctx, argv: list[str]) -> int:
    args = argv[1:]
    packages: list[str] = []
    categories: list[str] = []
    count = None
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-p", "-c") and i + 1 < len(args):
            (packages if a == "-p" else categories).append(args[i + 1])
            i += 2
            continue
        if a in ("-s", "--throttle", "--pct-touch", "--pct-motion", "--pct-syskeys", "--pct-appswitch") and i + 1 < len(
            args
        ):
            i += 2
            continue
        if not a.startswith("-"):
            count = a
        i += 1
    out = [f"  bash arg: {a}" for a in args]
    out.append("args: [" + ", ".join(args) + "]")
    out += [f' arg: "{a}"' for a in args]
    out += [f'data="{p}"' for p in packages] + [f'data="{c}"' for c in categories]
    ctx.out("".join(line + "\n" for line in out))
    if count is None or not count.isdigit():
        ctx.errln("** Error: Count not specified")
        return 1
    model = ctx.model
    launchable = [  # the named packages, else any; a disabled one has no activity to start
        p
        for p in (packages or list(model.packages))
        if p in model.packages and model.packages[p].launcher_activity and is_enabled(ctx, p)
    ]
    if not launchable:
        ctx.errln("** No activities found to run, monkey aborted.")
        return 252
    events = int(count)
    if events > 0:
        model.start_activity(launchable[0], None)
    ctx.outln(f"Events injected: {events}")
    ctx.outln(f"## Network stats: elapsed time={12 + events}ms (0ms mobile, 0ms wifi, {12 + events}ms not connected)")
    return 0
