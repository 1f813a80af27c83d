"""The log a device writes while nothing happens: system services, SystemUI, the phone process and the HALs log a
few lines a second on an idle phone. `SystemChatter` yields such lines (real tags, the pids of the processes in
`procs.SYSTEM_PROCESSES`, the buffer each goes to) at random times, ~3 a second; `procs.LogBuffer` asks it for the
lines due whenever the log is read or written, so nothing runs while nobody looks and the timestamps stay in
order. Levels are V, D, I and W only: an idle phone's errors are rare, and tests filter on `*:E`.

The lines are noise for clients (a following `logcat` gets lines from an idle device, as on a phone). Nothing
in the harness reads the device log; its checks read the model, content providers and the hierarchy.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

SYSTEM_SERVER, SYSTEMUI, PHONE, SURFACEFLINGER, LOGD, VOLD, IME = 1012, 1201, 1330, 705, 301, 330, 1402
MEAN_GAP_S = 0.35  # ~3 lines a second
MAX_BACKLOG = 2000  # after a long idle time only the most recent lines are made (the ring would drop the rest)


@dataclass(frozen=True)
class Line:
    t: float
    pid: int
    tid: int
    level: str
    tag: str
    msg: str
    buffer: str


Template = tuple[int, str, str, str, Callable[[random.Random], str]]  # pid, buffer, level, tag, message


def _pct(r: random.Random) -> int:
    return 100  # the battery `dumpsys battery` reports: full, on USB power


TEMPLATES: list[Template] = [
    (
        SYSTEM_SERVER,
        "system",
        "D",
        "CompatibilityChangeReporter",
        lambda r: (
            f"Compat change id reported: {r.choice([168419799, 161145287, 194833441, 263259275])}; "
            f"UID {r.randint(10100, 10499)}; state: {r.choice(['ENABLED', 'DISABLED'])}"
        ),
    ),
    (
        SYSTEM_SERVER,
        "system",
        "I",
        "ActivityManager",
        lambda r: f"Changes in {r.randint(10100, 10499)} {r.choice([2, 5, 19])} to {r.choice([5, 6, 19])}, 0 to 56",
    ),
    (
        SYSTEM_SERVER,
        "system",
        "D",
        "ActivityManager",
        lambda r: f"freezing {r.randint(3000, 9000)} com.google.android.gms.persistent",
    ),
    (
        SYSTEM_SERVER,
        "system",
        "I",
        "AlarmManager",
        lambda r: (
            f"Deferring alarm: Alarm{{{r.getrandbits(28):x} type 3 origWhen {r.randint(10**6, 10**7)} "
            "com.android.systemui}"
        ),
    ),
    (
        SYSTEM_SERVER,
        "system",
        "D",
        "BatteryService",
        lambda r: (
            f"Processing new values: info={{chargerAcOnline=false, chargerUsbOnline=true, batteryLevel={_pct(r)}, "
            f"batteryTemperature={r.choice([250, 250, 260])}, batteryVoltage=4350}}"
        ),
    ),
    (
        SYSTEM_SERVER,
        "system",
        "V",
        "WindowManager",
        lambda r: f"Relayout Window{{{r.getrandbits(28):x} u0 NotificationShade}}: viewVisibility=4 req=1080x2400",
    ),
    (
        SYSTEM_SERVER,
        "system",
        "D",
        "ConnectivityService",
        lambda r: f"NetReassign [no changes] [c {r.randint(1, 9)}] [a {r.randint(1, 9)}] [i 1]",
    ),
    (SYSTEM_SERVER, "system", "I", "NetworkStats", lambda r: f"Performing poll, lastPollTime={r.randint(10, 900)}s"),
    (SYSTEM_SERVER, "system", "D", "WifiNetworkFactory", lambda r: "got request NetworkRequest [ TRACK_DEFAULT ]"),
    (
        SYSTEM_SERVER,
        "system",
        "W",
        "ProcessStats",
        lambda r: (
            "Tracking association SourceState{"
            + f"{r.getrandbits(28):x} system/1000 BTop #{r.randint(1000, 9999)}"
            + "}"
            " whose proc state 2 is better than process ProcessState{" + f"{r.getrandbits(28):x}"
            " com.google.android.gms.persistent/10148 pkg=com.google.android.gms} proc state 4"
        ),
    ),
    (SYSTEM_SERVER, "system", "I", "UsageStatsService", lambda r: "User[0] Flushing usage stats to disk"),
    (
        SYSTEM_SERVER,
        "system",
        "D",
        "PowerManagerService",
        lambda r: f"updateWakefulnessLocked: wakefulness=Awake, uptime={r.randint(10**5, 10**7)}",
    ),
    (
        SYSTEM_SERVER,
        "main",
        "D",
        "WifiVendorHal",
        lambda r: f"getWifiLinkLayerStats_1_6_Internal: rssi=-{r.randint(40, 70)}",
    ),
    (
        SYSTEM_SERVER,
        "main",
        "I",
        "WifiScoreReport",
        lambda r: (
            f"{r.randint(10, 59)}:{r.randint(10, 59)}.{r.randint(100, 999)},{r.randint(2412, 5805)},-"
            f"{r.randint(40, 70)}.0,{r.randint(6, 866)}.0,0.0,0.0,0.0,60,0,0"
        ),
    ),
    (
        SYSTEMUI,
        "main",
        "D",
        "KeyguardUpdateMonitor",
        lambda r: f"handleBatteryUpdate: level={_pct(r)} plugged=2 status=2",
    ),
    (SYSTEMUI, "main", "D", "BatteryControllerImpl", lambda r: f"onReceive: ACTION_BATTERY_CHANGED level={_pct(r)}"),
    (SYSTEMUI, "main", "I", "StatusBarIconController", lambda r: "setIconVisibility: wifi visible=true"),
    (SYSTEMUI, "main", "D", "NotifCollection", lambda r: "onNotificationRankingUpdate"),
    (PHONE, "main", "D", "CarrierServiceBindHelper", lambda r: "Receive action: android.intent.action.USER_UNLOCKED"),
    (PHONE, "main", "I", "PhoneGlobals", lambda r: f"onReceive: ACTION_BATTERY_CHANGED level={_pct(r)}"),
    (PHONE, "main", "D", "ImsPhoneCallTracker", lambda r: "updatePhoneState pendingMo = false, fgState = IDLE"),
    (
        SURFACEFLINGER,
        "main",
        "D",
        "SurfaceFlinger",
        lambda r: f"Display {r.choice([4619827259835644672, 0])} HWC layers: {r.randint(3, 7)}",
    ),
    (
        LOGD,
        "main",
        "I",
        "logd",
        lambda r: (
            f"logdr: UID={r.choice([0, 1000, 2000])} GID={r.choice([0, 1000, 2000])} PID={r.randint(3000, 9000)} "
            "n tail=0 logMask=19 pid=0 start=0ns deadline=0ns"
        ),
    ),
    (VOLD, "main", "D", "vold", lambda r: "Disk at 7:8 changed"),
    (IME, "main", "I", "LatinIME", lambda r: "onStartInputView: editorInfo: inputType=0x1 imeOptions=0x6"),
]


class SystemChatter:
    """What the device logs on its own, one line at a time at random gaps (seeded: the same per device)."""

    def __init__(self, start: float, seed: int = 0, mean_gap_s: float = MEAN_GAP_S) -> None:
        self.rng = random.Random(seed)
        self.mean_gap = mean_gap_s
        self.next_at = start + self.rng.expovariate(1.0 / mean_gap_s)

    def due(self, now: float) -> list[Line]:
        """The lines whose time has come, oldest first."""
        if now - self.next_at > MAX_BACKLOG * self.mean_gap:
            self.next_at = now - MAX_BACKLOG * self.mean_gap
        out: list[Line] = []
        while self.next_at <= now:
            pid, buffer, level, tag, make = self.rng.choice(TEMPLATES)
            tid = pid + 1 + self.rng.choice([0, 11, 17, 23, 40, 57])  # a few stable threads per process
            out.append(Line(self.next_at, pid, tid, level, tag, make(self.rng), buffer))
            self.next_at += self.rng.expovariate(1.0 / self.mean_gap)
        return out
