"""The time of a device as the harness sees it: what its waits take and what its steps are measured on.

Two kinds, by the device's clock (`DeviceConfig.clock`, emulator.virtual.clock):

- `real` (every phone, emulator and AVD; an embedded device by default): the host's time. `now()` is
  `time.monotonic()`; `wait(s)` waits `s` seconds here.
- `virtual` (an embedded device started with `--clock virtual`): the device's own simulated clock, which moves
  only when the device waits. It is read and moved through adb's doors only, as any client would: `now()` is the
  first field of the device's `cat /proc/uptime` (on the shell the link keeps open, where it has one); `wait(s)`
  is the shell command `sleep s` on the device, which returns at once and moves the device's clock on by `s`.

    t = device_time("virtual", link)
    t0 = t.now()
    t.wait(5)          # a WAIT of 5 s: 5 s pass on the device, none here
    t.now() - t0       # 5.0

Deadlines that guard the harness against a hung device (a call's timeout, settling's give-up) stay on the host's
clock whatever the device's: they bound how long the harness waits, not what the device lives through.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from harness.device.link import DeviceLink
from harness.errors import ConfigError, DeviceError
from harness.shellquote import command

HOST_CLOCK, DEVICE_CLOCK = "real", "virtual"
CLOCKS = (HOST_CLOCK, DEVICE_CLOCK)  # the clocks a device may run on (emulator.virtual.clock.CLOCKS)


@dataclass(frozen=True)
class DeviceTime:
    """A device's time: `now()` in seconds (a monotonic scale: only differences mean anything) and `wait(s)`,
    which lets `s` seconds pass on it (nothing for `s <= 0`)."""

    now: Callable[[], float]
    wait: Callable[[float], object]
    # what reading `now()` itself takes on the device's time (a clock read through a door is a call, whose own
    # delay passes on the device): a step measured by two reads counts one such delay that is not the step's
    read_cost: Callable[[], float] = lambda: 0.0


def host_wait(seconds: float) -> None:
    """Wait `seconds` on the host (nothing for `seconds <= 0`)."""
    if seconds > 0:
        threading.Event().wait(seconds)


def host_time() -> DeviceTime:
    """The host's time: a real-clock device lives on it."""
    return DeviceTime(time.monotonic, host_wait)


def sleep_argument(seconds: float) -> str:
    """`seconds` as `sleep` takes it: up to 3 decimals, no trailing zeros (`5`, `0.25`, `1.001`)."""
    return f"{seconds:.3f}".rstrip("0").rstrip(".")


def link_time(link: DeviceLink, call_timeout: float = 20.0) -> DeviceTime:
    """A virtual-clock device's own time, through its link's shell: `cat /proc/uptime` and `sleep`. A wait's
    shell call may take its length on top of `call_timeout` (a device that slept for real would still answer).
    A read with no call made on the link since the last read (a step's start right after the last step's end) gives
    that read's time again: the virtual clock moves only by what the device is asked to do. The read's own delay
    (`read_cost`: the first read is made twice, the second taking only that delay) is what a step measured from
    its start's read to its end's counts beyond the step: the host's clock, which a real-clock step is measured
    on, pays none. Only on a `Link` (it counts its calls) without an emulator's gRPC door (whose calls it does not
    count)."""
    last: list[tuple[int, float]] = []  # (the link's call count right after the last read, the time it read)
    cost: list[float] = []  # a read's own delay on the device's time, measured by the first two reads

    def now() -> float:
        calls = _calls(link)
        if calls is not None and last and last[0][0] == calls:
            return last[0][1]
        value = read()
        if not cost:  # the first read: a second one right after it takes only its own delay
            again = read()
            cost.append(max(0.0, again - value))
            value = again
        calls = _calls(link)
        last[:] = [(calls, value)] if calls is not None else []
        return value

    def read_cost() -> float:
        if not cost:
            now()
        return cost[0]

    def read() -> float:
        query = command("cat", "/proc/uptime")  # on the shell the link keeps open, where it has one: no new stream
        if link.has("kept_shell"):
            res = link.kept_shell("read the device clock", query)
        else:
            res = link.shell("read the device clock", query)
        fields = res.text.split()
        try:
            return float(fields[0])
        except (IndexError, ValueError):
            raise DeviceError(
                f"device {link.serial}: cannot read its clock: `cat /proc/uptime` said {res.text.strip()[:80]!r}"
            ) from None

    def wait(seconds: float) -> None:
        arg = sleep_argument(seconds) if seconds > 0 else "0"
        if arg == "0":
            return
        res = link.shell(f"wait {arg} s on the device", command("sleep", arg), timeout=seconds + call_timeout)
        if res.exit_code != 0:
            raise DeviceError(f"device {link.serial}: `sleep {arg}` exited {res.exit_code}: {res.error_text[:200]}")

    return DeviceTime(now, wait, read_cost)


def _calls(link: DeviceLink) -> int | None:
    """The calls begun on `link` so far, when it counts them all (a `Link` with no gRPC door); else None."""
    calls = getattr(link, "calls", None)
    return calls if isinstance(calls, int) and link.grpc is None else None


def device_time(clock: str, link: DeviceLink, call_timeout: float = 20.0) -> DeviceTime:
    """The time of a device on `clock` (`real`: the host's; `virtual`: its own, through `link`)."""
    if clock == HOST_CLOCK:
        return host_time()
    if clock == DEVICE_CLOCK:
        return link_time(link, call_timeout)
    raise ConfigError(f"device {link.serial}: unknown clock {clock!r}; choose one of: {', '.join(CLOCKS)}")
