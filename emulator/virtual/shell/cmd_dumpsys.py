"""`dumpsys`: the services clients parse (window, display, activity, power, package, input_method,
SurfaceFlinger --display-id, meminfo), condensed but in Android 14's shapes. The lines clients match
(`mCurrentFocus=Window{hash u0 pkg/act}`, the first `orientation=N`, `mResumedActivity:`, `ACTIVITY pkg/act
hash pid=N`, `mHoldingDisplaySuspendBlocker=`, `versionName=` ...) are exact."""

from __future__ import annotations

import time
import zlib

from ..procs import FrameStats, histogram_buckets
from ..records import LAUNCHER_PACKAGE
from .proctable import app_pid, process_rows, running_packages
from .registry import DUMPSYS, Ctx, app_uid, command, short_component, short_hash
from .windowdump import (
    DISPLAY_ID,
    activity_record,
    display_dump,
    displays_dump,
    input_dump,
    keyboard_shown,
    task_id,
    window_dump,
    window_name,
)


def _activities_dump(ctx: Ctx) -> str:
    model = ctx.model
    with model.lock:
        tasks = list(reversed(model.tasks))
        top = model.foreground
    lines = ["ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)", "Display #0 (activities from top to bottom):"]
    for n, task in enumerate(tasks):
        if not task.stack:
            continue
        tid = task_id(task.package)
        lines += [
            f"  * Task{{{short_hash('task', task.package)} #{tid} type="
            f"{'home' if task.package == LAUNCHER_PACKAGE else 'standard'} A={app_uid(task.package)}:"
            f"{task.package} U=0 visible={'true' if n == 0 else 'false'} visibleRequested="
            f"{'true' if n == 0 else 'false'} mode=fullscreen translucent=false sz={len(task.stack)}}}",
            "    mLastPausedActivity: null" if n == 0 else f"    mLastPausedActivity: {activity_record(task.top)}",
        ]
        if n == 0:
            lines.append(f"    mResumedActivity: {activity_record(task.top)}")
        for k, rec in reversed(list(enumerate(task.stack))):
            lines += [
                f"    * Hist  #{k}: {activity_record(rec)}",
                f"      packageName={rec.package} processName={rec.package}",
                "      launchedFromUid=2000 launchedFromPackage=com.android.shell userId=0",
                f"      app=ProcessRecord{{{short_hash('pr', rec.package)} {app_pid(model, rec.package)}:"
                f"{rec.package}/u0a{app_uid(rec.package) - 10000}}}",
            ]
    lines += [
        "",
        "  Resumed activities in task display areas (from top to bottom):",
        f"    Resumed: {activity_record(top)}",
        "",
        f"  ResumedActivity: {activity_record(top)}",
        f"  topDisplayFocusedRootTask=Task{{{short_hash('task', top.package)} #{task_id(top.package)}}}",
        "",
    ]
    return "\n".join(lines) + "\n"


def _top_dump(ctx: Ctx) -> str:
    model = ctx.model
    top = model.foreground
    tid = task_id(top.package)
    cls = top.activity.rsplit(".", 1)[-1]
    return (
        "\n".join(
            [
                f"TASK {app_uid(top.package)}:{top.package} id={tid} userId=0",
                f"  ACTIVITY {short_component(top.package, top.activity)} "
                f"{short_hash('act', top.package, top.activity)} "
                f"pid={app_pid(model, top.package)}",
                f"    Local Activity {short_hash('local', top.activity)} State:",
                "      mResumed=true mStopped=false mFinished=false",
                "      mIsInMultiWindowMode=false",
                "    ViewRoot:",
                "      mAdded=true mRemoved=false",
                "    View Hierarchy:",
                f"      DecorView@{short_hash('decor', top.activity)}[{cls}]",
                "",
            ]
        )
        + "\n"
    )


def _power_dump(ctx: Ctx) -> str:
    on = ctx.model.screen_on
    with ctx.model.lock:
        stay = ctx.model.settings.get("global", {}).get("stay_on_while_plugged_in", "0")
        timeout = ctx.model.settings.get("system", {}).get("screen_off_timeout", "60000")
    stay_on = stay.isdigit() and int(stay) & 2 != 0  # plugged into USB (mPlugType=2) and staying on for it
    return (
        "\n".join(
            [
                "POWER MANAGER (dumpsys power)",
                "",
                "Power Manager State:",
                "  Settings power_manager_constants:",
                "    no_cached_wake_locks=true",
                "  mDirty=0x0",
                f"  mWakefulness={'Awake' if on else 'Asleep'}",
                "  mWakefulnessChanging=false",
                "  mIsPowered=true",
                "  mPlugType=2",
                "  mBatteryLevel=100",
                "  mBatteryLevelWhenDreamStarted=0",
                "  mDockState=0",
                f"  mStayOn={'true' if stay_on else 'false'}",
                "  mProximityPositive=false",
                "  mBootCompleted=true",
                "  mSystemReady=true",
                f"  mHalAutoSuspendModeEnabled={'false' if on else 'true'}",
                "  mHalInteractiveModeEnabled=" + ("true" if on else "false"),
                "  mWakeLockSummary=0x0",
                f"  mUserActivitySummary=0x{1 if on else 0}",
                "  mRequestWaitForNegativeProximity=false",
                "  mSandmanScheduled=false",
                "  mBatteryLevelLow=false",
                "  mLightDeviceIdleMode=false",
                "  mDeviceIdleMode=false",
                "  mScreenBrightnessBoostInProgress=false",
                "  mHoldingWakeLockSuspendBlocker=false",
                f"  mHoldingDisplaySuspendBlocker={'true' if on else 'false'}",
                "",
                "Settings and Configuration:",
                f"  mScreenOffTimeoutSetting={timeout}",
                f"  mStayOnWhilePluggedInSetting={stay}",
                "",
                f"Display Power: state={'ON' if on else 'OFF'}",
                "",
            ]
        )
        + "\n"
    )


def _input_method_dump(ctx: Ctx) -> str:
    model = ctx.model
    cur = model.current_ime
    shown = "true" if keyboard_shown(ctx) else "false"
    top = model.foreground
    return (
        "\n".join(
            [
                "Current Input Method Manager state:",
                "  mMethodMap:",
                *[f"    {i}" for i in model.available_imes()],
                f"  mCurMethodId={cur}",
                "  mCurrentUserId=0",
                f"  mCurClient=ClientState{{{short_hash('cl', top.package)} "
                f"mUid={app_uid(top.package)} mPid={app_pid(model, top.package)} mSelfReportedDisplayId=0}}",
                f"  mCurFocusedWindow={window_name(top)}",
                f"  mInputShown={shown}",
                f"  mShowRequested={shown}",
                f"  mImeWindowVis={'0x3' if shown == 'true' else '0x0'}",
                "",
            ]
        )
        + "\n"
    )


def package_dump(ctx: Ctx, name: str) -> int:
    from .pkgmeta import apk_path, meta

    model = ctx.model
    pkg = model.packages.get(name)
    if pkg is None:
        ctx.outln(f"Unable to find package: {name}")
        return 0
    m = meta(ctx, name)

    def ts(t: float) -> str:
        return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(t))

    flags = (
        "[ SYSTEM HAS_CODE ALLOW_CLEAR_USER_DATA ]" if pkg.system else "[ HAS_CODE ALLOW_CLEAR_USER_DATA ALLOW_BACKUP ]"
    )
    code_path = apk_path(pkg).rsplit("/", 1)[0]
    lines = ["Activity Resolver Table:", "  Non-Data Actions:", "      android.intent.action.MAIN:"]
    for a in pkg.activities:
        lines.append(f"        {short_hash('filter', a)} {short_component(pkg.name, a)} filter {short_hash('f', a)}")
    lines += [
        "",
        "Packages:",
        f"  Package [{pkg.name}] ({short_hash('pkg', pkg.name)}):",
        f"    appId={app_uid(pkg.name)}",
        f"    pkg=Package{{{short_hash('p', pkg.name)} {pkg.name}}}",
        f"    codePath={code_path}",
        f"    resourcePath={code_path}",
        "    primaryCpuAbi=null",
        f"    versionCode={pkg.version_code} minSdk={m.min_sdk} targetSdk={m.target_sdk}",
        "    minExtensionVersions=[]",
        f"    versionName={pkg.version_name}",
        "    usesNonSdkApi=false",
        "    splits=[base]",
        "    apkSigningVersion=2",
        f"    flags={flags}",
        "    privateFlags=[ PRIVATE_FLAG_ACTIVITIES_RESIZE_MODE_RESIZEABLE_VIA_SDK_VERSION ]",
        f"    dataDir=/data/user/0/{pkg.name}",
        f"    timeStamp={ts(m.last_update_time)}",
        f"    firstInstallTime={ts(pkg.first_install_time)}",
        f"    lastUpdateTime={ts(m.last_update_time)}",
        f"    installerPackageName={'null' if pkg.system else 'com.android.shell'}",
        f"    signatures=PackageSignatures{{{short_hash('sig', pkg.name)} version:2, "
        f"signatures:[{short_hash('cert', pkg.name)}], past signatures:[]}}",
        "    installPermissionsFixed=true",
        f"    pkgFlags={flags}",
    ]
    if m.requested:
        lines.append("    requested permissions:")
        lines += [f"      {p}" for p in m.requested]
    lines += [
        "    User 0: ceDataInode=0 installed=true hidden=false suspended=false distractionFlags=0 "
        "stopped=false notLaunched=false enabled=0 instant=false virtual=false",
        "      gids=[3003]",
    ]
    runtime = [p for p in m.requested if p.startswith("android.permission.") and p.rsplit(".", 1)[-1] in _RUNTIME]
    if runtime:
        lines.append("      runtime permissions:")
        lines += [
            f"        {p}: granted={'true' if p in m.granted else 'false'}, flags=[ USER_SENSITIVE_WHEN_GRANTED"
            f"|USER_SENSITIVE_WHEN_DENIED]"
            for p in runtime
        ]
    ctx.out("\n".join(lines) + "\n")
    return 0


_RUNTIME = {
    "CAMERA",
    "RECORD_AUDIO",
    "READ_CONTACTS",
    "WRITE_CONTACTS",
    "ACCESS_FINE_LOCATION",
    "ACCESS_COARSE_LOCATION",
    "READ_EXTERNAL_STORAGE",
    "WRITE_EXTERNAL_STORAGE",
    "READ_PHONE_STATE",
    "CALL_PHONE",
    "SEND_SMS",
    "READ_SMS",
    "POST_NOTIFICATIONS",
    "READ_MEDIA_IMAGES",
    "READ_CALENDAR",
    "WRITE_CALENDAR",
    "GET_ACCOUNTS",
    "READ_MEDIA_VIDEO",
    "READ_MEDIA_AUDIO",
    "BODY_SENSORS",
    "BLUETOOTH_SCAN",  # the nearby-devices group (Android 12+)
    "BLUETOOTH_CONNECT",
    "BLUETOOTH_ADVERTISE",
}

_SERVICES = [
    "SurfaceFlinger",
    "activity",
    "display",
    "gfxinfo",
    "input",
    "input_method",
    "meminfo",
    "package",
    "power",
    "settings",
    "statusbar",
    "wifi",
    "window",
]


def _uptimes(model) -> str:
    ms = int(model.uptime() * 1000)
    return f"Uptime: {ms} Realtime: {ms}"


def _meminfo_app(model, pkg: str, pid: int) -> str:
    """`dumpsys meminfo PKG` as ActivityThread prints it (values in KB, stable per process)."""
    h = zlib.crc32(f"{pkg}:{pid}".encode())
    screens = len(model.app_ui.get(pkg, {}).get("scroll", {})) + sum(
        len(t.stack) for t in model.tasks if t.package == pkg
    )
    native = 9_800 + h % 3_000 + 420 * screens
    dalvik = 2_400 + (h >> 8) % 1_500 + 310 * screens
    native_heap = ("Native Heap", native, native - 60, 0, 0, native + 1_900, native + 3_400, native + 800, 2_600)
    dalvik_heap = ("Dalvik Heap", dalvik, dalvik - 90, 0, 0, dalvik + 4_300, dalvik + 4_800, dalvik + 1_100, 3_700)
    # name, Pss total, private dirty, private clean, SwapPss dirty, Rss total, heap size, heap alloc, heap free
    rows: list[tuple[str, int, int, int, int, int, int | None, int | None, int | None]] = [
        native_heap,
        dalvik_heap,
        ("Dalvik Other", 1_130, 908, 0, 0, 1_900, None, None, None),
        ("Stack", 620, 620, 0, 0, 628, None, None, None),
        ("Ashmem", 2, 0, 0, 0, 8, None, None, None),
        ("Other dev", 16, 0, 16, 0, 284, None, None, None),
        (".so mmap", 3_213, 252, 792, 0, 30_424, None, None, None),
        (".jar mmap", 1_513, 0, 120, 0, 29_576, None, None, None),
        (".apk mmap", 420, 0, 32, 0, 6_828, None, None, None),
        (".ttf mmap", 28, 0, 0, 0, 228, None, None, None),
        (".dex mmap", 4_452, 8, 4_440, 0, 5_272, None, None, None),
        (".oat mmap", 103, 0, 0, 0, 2_876, None, None, None),
        (".art mmap", 5_232, 4_552, 20, 0, 19_260, None, None, None),
        ("Other mmap", 208, 8, 108, 0, 1_380, None, None, None),
        ("Unknown", 362, 356, 0, 0, 648, None, None, None),
    ]
    sizes = [r[1:6] for r in rows]  # the five columns every row has
    total = [sum(s[k] for s in sizes) for k in range(5)]
    heap = [native_heap[6] + dalvik_heap[6], native_heap[7] + dalvik_heap[7], native_heap[8] + dalvik_heap[8]]

    def cell(v: int | None) -> str:
        return f"{v:>9}" if v is not None else " " * 9

    lines = [
        "Applications Memory Usage (in Kilobytes):",
        _uptimes(model),
        "",
        f"** MEMINFO in pid {pid} [{pkg}] **",
        "                   Pss  Private  Private  SwapPss      Rss     Heap     Heap     Heap",
        "                 Total    Dirty    Clean    Dirty    Total     Size    Alloc     Free",
        "                ------   ------   ------   ------   ------   ------   ------   ------",
    ]
    for row in rows:
        lines.append(f"{row[0]:>13}" + "".join(cell(v) for v in row[1:]))
    lines.append(f"{'TOTAL':>13}" + "".join(cell(v) for v in total + heap))
    java, code = rows[1][2] + rows[12][2], rows[6][2] + rows[6][3] + rows[7][3] + rows[8][3] + rows[10][3]
    private_other = rows[2][2] + rows[4][2] + rows[5][3] + rows[13][2]
    system = total[0] - (java + rows[0][2] + code + 620 + private_other)
    lines += [
        "",
        " App Summary",
        "                       Pss(KB)                        Rss(KB)",
        "                        ------                         ------",
        f"           Java Heap:{java:>9}{rows[1][5] + rows[12][5]:>31}",
        f"         Native Heap:{rows[0][2]:>9}{rows[0][5]:>31}",
        f"                Code:{code:>9}{rows[6][5] + rows[7][5] + rows[8][5] + rows[10][5]:>31}",
        f"               Stack:{620:>9}{628:>31}",
        f"            Graphics:{0:>9}{0:>31}",
        f"       Private Other:{private_other:>9}",
        f"              System:{system:>9}",
        f"             Unknown:{'':>9}{rows[14][5] + rows[2][5] + rows[13][5]:>31}",
        "",
        f"           TOTAL PSS:{total[0]:>9}            TOTAL RSS:{total[4]:>9}      TOTAL SWAP PSS:{0:>9}",
        "",
        " Objects",
        f"               Views:{22 + 9 * screens:>9}         ViewRootImpl:{1:>9}",
        f"         AppContexts:{5:>9}           Activities:{max(1, screens):>9}",
        f"              Assets:{14:>9}        AssetManagers:{0:>9}",
        f"       Local Binders:{14:>9}        Proxy Binders:{35:>9}",
        f"       Parcel memory:{4:>9}         Parcel count:{16:>9}",
        f"    Death Recipients:{0:>9}             WebViews:{0:>9}",
        "",
        " SQL",
        f"         MEMORY_USED:{0:>9}",
        f"  PAGECACHE_OVERFLOW:{0:>9}          MALLOC_SIZE:{0:>9}",
        "",
        "",
    ]
    return "\n".join(lines)


def _meminfo(ctx: Ctx, args: list[str]) -> str:
    model = ctx.model
    names = [a for a in args if not a.startswith("-")]
    target = names[0] if names else None
    if target:
        running = set(running_packages(model))
        by_pid = {str(pid): name for _, pid, _, name in process_rows(ctx.model)}
        pkg = by_pid.get(target, target)
        if pkg not in running:
            return f"No process found for: {target}\n"
        return _meminfo_app(model, pkg, app_pid(model, pkg))
    rows = process_rows(ctx.model)
    return (
        "Applications Memory Usage (in Kilobytes):\n"
        + _uptimes(model)
        + "\n\nTotal PSS by process:\n"
        + "".join(f"    {40_000 + pid % 9000:,}K: {name} (pid {pid})\n" for _, pid, _, name in rows[::-1][:20])
        + "\nTotal RAM: 3,995,112K (status normal)\n"
    )


_FRAMESTATS_COLUMNS = (
    "Flags,FrameTimelineVsyncId,IntendedVsync,Vsync,InputEventId,HandleInputStart,AnimationStart,"
    "PerformTraversalsStart,DrawStart,FrameDeadline,FrameInterval,FrameStartTime,SyncQueued,"
    "SyncStart,IssueDrawCommandsStart,SwapBuffers,FrameCompleted,DequeueBufferDuration,"
    "QueueBufferDuration,GpuCompleted,SwapBuffersCompleted,DisplayPresentTime,"
    "CommandSubmissionCompleted,"
)


def _percentile(hist: dict[int, int], total: int, p: int) -> int:
    if not total:
        return 0
    want = total * p / 100.0
    seen = 0
    for bucket in sorted(hist):
        seen += hist[bucket]
        if seen >= want:
            return bucket
    return max(hist)


def _gfxinfo(ctx: Ctx, args: list[str]) -> str:
    """`dumpsys gfxinfo PKG [framestats|reset]`: HWUI's frame statistics for the app's process."""
    model = ctx.model
    names = [a for a in args if not a.startswith("-") and a not in ("framestats", "reset")]
    if not names:
        return "Applications Graphics Acceleration Info:\n" + _uptimes(model) + "\n\n"
    pkg = names[0]
    if pkg not in set(running_packages(model)):
        return f"No process found for: {pkg}\n"
    pid = app_pid(model, pkg)
    p = model.procs
    with p.lock:
        if "reset" in args:
            p.frames[pkg] = FrameStats()
        st = p.frames.setdefault(pkg, FrameStats())
        hist = dict(st.histogram)
        total, janky, recent = st.total, st.janky, list(st.recent)
    pct = (100.0 * janky / total) if total else 0.0
    act = next((t.top.activity for t in reversed(model.tasks) if t.package == pkg), pkg)
    root = f"{pkg}/{act}/android.view.ViewRootImpl@{short_hash('vri', pkg, pid)}"
    lines = [
        "Applications Graphics Acceleration Info:",
        _uptimes(model),
        "",
        f"** Graphics info for pid {pid} [{pkg}] **",
        "",
        f"Stats since: {st.since_ns}ns",
        f"Total frames rendered: {total}",
        f"Janky frames: {janky} ({pct:.2f}%)",
        f"Janky frames (legacy): {janky} ({pct:.2f}%)",
    ]
    for q in (50, 90, 95, 99):
        lines.append(f"{q}th percentile: {_percentile(hist, total, q)}ms")
    lines += [
        f"Number Missed Vsync: {st.missed_vsync}",
        "Number High input latency: 0",
        f"Number Slow UI thread: {st.slow_ui}",
        "Number Slow bitmap uploads: 0",
        "Number Slow issue draw commands: 0",
        f"Number Frame deadline missed: {janky}",
        f"Number Frame deadline missed (legacy): {janky}",
        "HISTOGRAM: " + " ".join(f"{b}ms={hist.get(b, 0)}" for b in histogram_buckets()),
    ]
    for q in (50, 90, 95, 99):
        lines.append(f"{q}th gpu percentile: {max(1, _percentile(hist, total, q) // 2) if total else 0}ms")
    lines += [
        "GPU HISTOGRAM: "
        + " ".join(f"{b}ms={sum(v for k, v in hist.items() if max(1, k // 2) == b)}" for b in range(1, 26)),
        "Pipeline=Skia (OpenGL)",
        "",
        "Profile data in ms:",
        "",
        f"\t{root} (visibility=0)",
    ]
    if "framestats" in args:
        lines.append("---PROFILEDATA---")
        lines.append(_FRAMESTATS_COLUMNS)
        for start, dur in recent:
            vsync = start
            values = [
                0,
                0,
                vsync,
                vsync,
                0,
                vsync + 200_000,
                vsync + 400_000,
                vsync + 600_000,
                vsync + 900_000,
                vsync + 16_666_667,
                16_666_667,
                vsync,
                vsync + dur // 2,
                vsync + dur // 2 + 50_000,
                vsync + dur // 2 + 100_000,
                vsync + dur - 300_000,
                vsync + dur,
                20_000,
                40_000,
                vsync + dur + 500_000,
                vsync + dur,
                vsync + dur + 8_000_000,
                vsync + dur - 200_000,
            ]
            lines.append(",".join(str(v) for v in values) + ",")
        lines.append("---PROFILEDATA---")
    lines += [
        "View hierarchy:",
        "",
        f"  {root}",
        f"  {40 + 3 * total % 60} views, 30.27 kB of render nodes",
        "",
        "",
        "Total ViewRootImpl: 1",
        f"Total attached Views: {40 + 3 * total % 60}",
        "Total RenderNode: 30.27 kB (used) / 33.85 kB (capacity)",
        "",
        "",
    ]
    return "\n".join(lines)


@command("dumpsys")
def dumpsys(ctx: Ctx, argv: list[str]) -> int:
    args = argv[1:]
    if not args:
        ctx.out(_activities_dump(ctx) + window_dump(ctx, "windows") + display_dump(ctx) + _power_dump(ctx))
        return 0
    if args[0] == "-l":
        ctx.out("Currently running services:\n" + "".join(f"  {s}\n" for s in sorted({*_SERVICES, *DUMPSYS})))
        return 0
    service, rest = args[0], [a for a in args[1:] if a not in ("-a", "--proto")]
    if service in DUMPSYS:  # services other modules dump (cmd_hardware: battery, location, telephony.registry)
        ctx.out(DUMPSYS[service](ctx, rest))
        return 0
    if service == "window":
        section = rest[0] if rest else ""
        if section in ("displays", "d"):
            ctx.out(displays_dump(ctx))
        elif section:
            ctx.out(window_dump(ctx, section))
        else:  # everything: the display contents, then the windows
            ctx.out(displays_dump(ctx) + "\n" + window_dump(ctx, "windows"))
    elif service == "input":
        ctx.out(input_dump(ctx))
    elif service == "display":
        ctx.out(display_dump(ctx))
    elif service == "activity":
        sub = rest[0] if rest else "activities"
        if sub == "top":
            ctx.out(_top_dump(ctx))
        else:
            ctx.out(_activities_dump(ctx))
    elif service == "power":
        ctx.out(_power_dump(ctx))
    elif service == "input_method":
        ctx.out(_input_method_dump(ctx))
    elif service == "package":
        names = [a for a in rest if not a.startswith("-")]
        if names:
            return package_dump(ctx, names[0])
        for n in sorted(ctx.model.packages):
            ctx.outln(f"  Package [{n}] ({short_hash('pkg', n)}):")
    elif service == "SurfaceFlinger":
        if "--display-id" in rest:
            ctx.outln(f'Display {DISPLAY_ID} (HWC display 0): port=0 pnpId=GGL displayName="EMU_display_0"')
        else:
            w, h = ctx.model.display_size
            ctx.outln(
                f'Display {DISPLAY_ID} (HWC display 0): port=0 pnpId=GGL displayName="EMU_display_0"\n'
                f"  size={w}x{h} orientation={ctx.model.rotation}"
            )
    elif service == "meminfo":
        ctx.out(_meminfo(ctx, rest))
    elif service == "gfxinfo":
        ctx.out(_gfxinfo(ctx, rest))
    elif service in _SERVICES:
        pass
    else:
        ctx.errln(f"Can't find service: {service}")
    return 0
