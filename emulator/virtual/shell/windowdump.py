"""The window manager's and input's dumps as Android 14 prints them: `dumpsys window [windows|displays]`,
`dumpsys display`, `dumpsys input` (the viewport's `logicalFrame`, the touchscreen's `SurfaceOrientation`) and
`am stack list` (RootTaskInfo.toString(): `taskId=N: pkg/cls bounds=[..] userId=0 visible=true
topActivity=ComponentInfo{pkg/cls}`), from the model's tasks, display size and rotation. Sizes and densities that
Android reports as logical follow `wm size` / `wm density` (`display.py`); the panel's (init, the display
device, the viewport's physical frame) stay the physical ones."""

from __future__ import annotations

import zlib

from ..records import ActivityRecord
from ..ui.textlayout import font_scale
from ..ui.theme import is_dark
from .proctable import app_pid
from .registry import Ctx, app_uid, short_component, short_hash

DISPLAY_ID = "4619827259835644672"


def task_id(package: str) -> int:
    return 10 + zlib.crc32(package.encode()) % 200


def activity_record(r: ActivityRecord) -> str:
    comp = short_component(r.package, r.activity)
    return f"ActivityRecord{{{short_hash('ar', r.package, r.activity)} u0 {comp} t{task_id(r.package)}}}"


def window_name(r: ActivityRecord) -> str:
    return f"Window{{{short_hash('win', r.package, r.activity)} u0 {r.package}/{r.activity}}}"


def keyboard_shown(ctx: Ctx) -> bool:
    """True when a window of the current input method is on screen."""
    model = ctx.model
    ime_pkgs = {i.split("/", 1)[0] for i in model.available_imes()}
    try:
        with model.lock.reading():
            return model.ui.keyboard_shown(ime_pkgs)
    except Exception:  # noqa: BLE001 - the UI layer is optional for this guess
        return False


def window_dump(ctx: Ctx, section: str) -> str:
    model = ctx.model
    with model.lock:
        top = model.foreground
        w, h = model.display_size
        rot = model.rotation
        d = model.density
    sw = min(w, h) * 160 // d
    orient = "land" if w > h else "port"
    win = window_name(top)
    windows = [("NavigationBar0", "com.android.systemui"), ("StatusBar", "com.android.systemui")]
    if keyboard_shown(ctx):
        windows.append(("InputMethod", model.current_ime.split("/", 1)[0]))
    lines = [f"WINDOW MANAGER WINDOWS (dumpsys window {section})"]
    for i, (name, pkg) in enumerate(windows):
        lines += [
            f"  Window #{i} Window{{{short_hash('sys', name)} u0 {name}}}:",
            f"    mDisplayId=0 rootTaskId=1 mSession=Session{{{short_hash('s', pkg)} 1201:u0a10140}} "
            f"mClient=android.os.BinderProxy@{short_hash('c', name)}",
            f"    mOwnerUid={app_uid(pkg)} showForAllUsers=true package={pkg} appop=NONE",
            "    isOnScreen=true",
            "    isVisible=true",
        ]
    lines += [
        f"  Window #{len(windows)} {win}:",
        f"    mDisplayId=0 rootTaskId={task_id(top.package)} mSession=Session{{{short_hash('s', top.package)} "
        f"{app_pid(model, top.package)}:u0a{app_uid(top.package) - 10000}}} "
        f"mClient=android.os.BinderProxy@{short_hash('c', top.activity)}",
        f"    mOwnerUid={app_uid(top.package)} showForAllUsers=false package={top.package} appop=NONE",
        "    mAttrs={(0,0)(fillxfill) sim={adjust=resize forwardNavigation} ty=BASE_APPLICATION "
        "fmt=TRANSLUCENT wanim=0x10302f8\n      fl=LAYOUT_IN_SCREEN LAYOUT_INSET_DECOR SPLIT_TOUCH "
        "HARDWARE_ACCELERATED DRAWS_SYSTEM_BAR_BACKGROUNDS}",
        f"    mActivityRecord={activity_record(top)}",
        "    mViewVisibility=0x0 mHaveFrame=true mObscured=false",
        f"    mFrame=[0,0][{w},{h}] last=[0,0][{w},{h}]",
        "    isOnScreen=true",
        "    isVisible=true",
        "",
        f"  mGlobalConfiguration={{{font_scale(model.settings)} ?mcc?mnc [{model.locale_tag.replace('-', '_')}] "
        f"ldltr sw{sw}dp w{w * 160 // d}dp h{h * 160 // d}dp {d}dpi nrml long {orient}"
        f"{' night' if is_dark(model.settings) else ''} finger -keyb/v/h -nav/h "
        f"winConfig={{ mBounds=Rect(0, 0 - {w}, {h}) mAppBounds=Rect(0, 0 - {w}, {h}) "
        f"mMaxBounds=Rect(0, 0 - {w}, {h}) mDisplayRotation=ROTATION_{rot * 90} mWindowingMode=fullscreen "
        f"mActivityType=undefined mAlwaysOnTop=undefined mRotation=ROTATION_{rot * 90}}} s.42}}",
        "  mHasPermanentDpad=false",
        "  mTopFocusedDisplayId=0",
        f"  imeLayeringTarget in display# 0 {win}",
        f"  imeInputTarget in display# 0 {win}",
        f"  imeControlTarget in display# 0 {win}",
        "  mInTouchMode=true",
        f"  mCurrentFocus={win}",
        f"  mFocusedApp={activity_record(top)}",
        f"  mDisplayRotation=ROTATION_{rot * 90}",
        "",
    ]
    return "\n".join(lines) + "\n"


def display_dump(ctx: Ctx) -> str:
    model = ctx.model
    with model.lock:
        w, h = model.display_size
        rot = model.rotation
        on = model.screen_on
        d = model.density
    pw, ph = model.physical_size
    pd = model.profile.density
    rpw, rph = (ph, pw) if rot % 2 else (pw, ph)  # the panel in the current rotation
    state = "ON" if on else "OFF"

    def info(w: int, h: int, rot: int, d: int) -> str:
        return (
            f'DisplayInfo{{"Built-in Screen", displayId 0, displayGroupId 0, FLAG_SECURE, '
            f"FLAG_SUPPORTS_PROTECTED_BUFFERS, FLAG_TRUSTED, real {w} x {h}, largest app {max(w, h)} x "
            f"{max(w, h)}, smallest app {min(w, h)} x {min(w, h)}, appVsyncOff 1000000, presDeadline 16666666, "
            f"mode 1, defaultMode 1, modes [{{id=1, width={pw}, height={ph}, fps=60.0, vsync=60.0, "
            f"synthetic=false, alternativeRefreshRates=[], supportedHdrTypes=[]}}], rotation {rot}, state {state}, "
            f'committedState {state}, type INTERNAL, uniqueId "local:{DISPLAY_ID}", app {w} x {h}, density {d} '
            f"({pd}.0 x {pd}.0) dpi, layerStack 0, colorMode 0, supportedColorModes [0], address {{port=0, "
            f"model=0x401cecbed168ea}}, deviceProductInfo DeviceProductInfo{{name=EMU_display_0}}, "
            f"removeMode 0, refreshRateOverride 0.0, brightnessMinimum 0.0, brightnessMaximum 1.0, "
            f"brightnessDefault 0.39763778, installOrientation 0}}"
        )

    return (
        "\n".join(
            [
                "DISPLAY MANAGER (dumpsys display)",
                "  mOnlyCode=false",
                "  mSafeMode=false",
                "  mPendingTraversal=false",
                f"  mViewports=[DisplayViewport{{type=INTERNAL, valid=true, isActive=true, displayId=0, "
                f"uniqueId='local:{DISPLAY_ID}', physicalPort=0, orientation={rot}, "
                f"logicalFrame=Rect(0, 0 - {w}, {h}), "
                f"physicalFrame=Rect(0, 0 - {rpw}, {rph}), deviceWidth={rpw}, deviceHeight={rph}}}]",
                "  mDefaultDisplayDefaultColorMode=0",
                "  mWifiDisplayScanRequestCount=0",
                f"  mStableDisplaySize=Point({pw}, {ph})",
                "  mMinimumBrightnessCurve=[(0.0, 0.0), (2000.0, 50.0), (4000.0, 90.0)]",
                "",
                "Display Devices: size=1",
                f'  DisplayDeviceInfo{{"Built-in Screen": uniqueId="local:{DISPLAY_ID}", {pw} x {ph}, modeId 1, '
                f"renderFrameRate 60.0, defaultModeId 1, density {pd}, {pd}.0 x {pd}.0 dpi, appVsyncOff 1000000, "
                f"presDeadline 16666666, touch INTERNAL, rotation 0, type INTERNAL, state {state}, "
                "FLAG_ALLOWED_TO_BE_DEFAULT_DISPLAY, FLAG_ROTATES_WITH_CONTENT, FLAG_SECURE, "
                "FLAG_SUPPORTS_PROTECTED_BUFFERS, installOrientation 0}",
                "",
                "Logical Displays: size=1",
                "  Display 0:",
                "    mDisplayId=0",
                "    mLayerStack=0",
                "    mHasContent=true",
                "    mPrimaryDisplayDevice=Built-in Screen",
                f"    mBaseDisplayInfo={info(pw, ph, 0, pd)}",
                f"    mOverrideDisplayInfo={info(w, h, rot, d)}",
                "",
            ]
        )
        + "\n"
    )


def displays_dump(ctx: Ctx) -> str:
    """`dumpsys window displays`: the display's sizes (init: the panel; base: `wm size` / `wm density`'s override
    or the panel, both in the natural orientation; cur and app: the logical display in the current rotation) and
    DisplayRotation with its WindowOrientationListener (`mCurrentRotation=ROTATION_N`)."""
    model = ctx.model
    with model.lock:
        w, h = model.display_size
        bw, bh = model.base_size
        bd = model.density
        rot = model.rotation
        ntasks = len(model.tasks)
        locked = model.settings.get("system", {}).get("accelerometer_rotation", "0") == "0"
    pw, ph = model.physical_size
    d = model.profile.density
    short, long_ = min(w, h), max(w, h)
    return (
        "\n".join(
            [
                "WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)",
                f"  Display: mDisplayId=0 rootTasks={ntasks}",
                f"    init={pw}x{ph} {d}dpi base={bw}x{bh} {bd}dpi cur={w}x{h} app={w}x{h} "
                f"rng={short}x{short}-{long_}x{long_}",
                f"    deferred=false mLayoutNeeded=false mTouchExcludeRegion=SkRegion((0,0,{w},{h}))",
                "",
                f"  DisplayFrames w={w} h={h} r={rot}",
                "",
                "  DisplayRotation",
                "    mCurrentAppOrientation=SCREEN_ORIENTATION_UNSPECIFIED",
                "    mLastOrientation=-1",
                f"    mRotation={rot} mDeferredRotationPauseCount=0",
                "    mLandscapeRotation=ROTATION_90 mSeascapeRotation=ROTATION_270",
                "    mPortraitRotation=ROTATION_0 mUpsideDownRotation=ROTATION_180",
                f"    mUserRotationMode={'USER_ROTATION_LOCKED' if locked else 'USER_ROTATION_FREE'} "
                f"mUserRotation=ROTATION_{rot * 90} mCameraRotationMode=0 mAllowAllRotations=unknown",
                "    mFixedToUserRotation=false",
                "    WindowOrientationListener",
                f"      mEnabled={'false' if locked else 'true'}",
                f"      mCurrentRotation=ROTATION_{rot * 90}",
                "      mSensorType=null",
                "",
            ]
        )
        + "\n"
    )


def input_dump(ctx: Ctx) -> str:
    """`dumpsys input`, condensed: the touchscreen's TouchInputMapper surface (`SurfaceOrientation: N`) and
    InputReader's viewports (C++ DisplayViewport::toString: `logicalFrame=[0, 0, W, H]`)."""
    model = ctx.model
    with model.lock:
        w, h = model.display_size
        bw, bh = model.base_size
        rot = model.rotation
    pw, ph = model.physical_size
    rpw, rph = (ph, pw) if rot % 2 else (pw, ph)  # the panel in the current rotation
    viewport = (
        f"displayId=0, uniqueId=local:{DISPLAY_ID}, port=0, orientation={rot}, logicalFrame=[0, 0, {w}, {h}], "
        f"physicalFrame=[0, 0, {rpw}, {rph}], deviceSize=[{rpw}, {rph}]"
    )
    java_viewport = viewport.replace("uniqueId=local:", "uniqueId='local:").replace(", port=", "', physicalPort=")
    return (
        "\n".join(
            [
                "INPUT MANAGER (dumpsys input)",
                "",
                "Input Manager Service (Java) State:",
                "  Pointer Icon: ",
                "",
                "Event Hub State:",
                "  BuiltInKeyboardId: -2",
                "  Devices:",
                "    -1: Virtual",
                "      Classes: KEYBOARD | ALPHAKEY",
                "    2: virtio_input_multi_touch_1",
                "      Classes: TOUCH | TOUCH_MT",
                "      Path: /dev/input/event2",
                "",
                "Input Reader State (Nums of device: 2):",
                "  Device 2: virtio_input_multi_touch_1",
                "    EventHub Devices: [ 2 ] ",
                "    Generation: 9",
                "    IsExternal: false",
                "    AssociatedDisplayPort: <none>",
                "    Sources: TOUCHSCREEN",
                "    KeyboardType: None",
                "    Touch Input Mapper (mode - DIRECT):",
                "      DeviceType: touchScreen",
                f"      Viewport INTERNAL: {viewport}, isActive=[1]",
                f"      RawSurfaceWidth: {bw}px",
                f"      RawSurfaceHeight: {bh}px",
                "      SurfaceLeft: 0",
                "      SurfaceTop: 0",
                f"      SurfaceRight: {w}",
                f"      SurfaceBottom: {h}",
                f"      PhysicalWidth: {rpw}px",
                f"      PhysicalHeight: {rph}px",
                "      PhysicalLeft: 0",
                "      PhysicalTop: 0",
                f"      SurfaceOrientation: {rot}",
                "  Viewports:",
                f"    DisplayViewport{{type=INTERNAL, valid=true, isActive=true, {java_viewport}}}",
                "",
            ]
        )
        + "\n"
    )


def stack_list(ctx: Ctx) -> str:
    """`am stack list`: one RootTaskInfo per task, the top one (and only it) `visible=true`."""
    model = ctx.model
    with model.lock:
        tasks = [(t.package, t.stack[0].activity, t.top.activity) for t in model.tasks if t.stack]
        w, h = model.display_size
    out = []
    for i, (pkg, base, top) in enumerate(reversed(tasks)):
        tid = task_id(pkg)
        visible = "true" if i == 0 else "false"
        out += [
            f"RootTask id={tid} bounds=[0,0][{w},{h}] displayId=0 userId=0",
            f" configuration={{1.0 ?mcc?mnc [{model.locale_tag.replace('-', '_')}] ldltr "
            f"winConfig={{ mBounds=Rect(0, 0 - {w}, {h}) mWindowingMode=fullscreen }}}}",
            f"  taskId={tid}: {pkg}/{base} bounds=[0,0][{w},{h}] userId=0 visible={visible} "
            f"topActivity=ComponentInfo{{{pkg}/{top}}}",
            "",
        ]
    return "\n".join(out) + ("\n" if out else "")
