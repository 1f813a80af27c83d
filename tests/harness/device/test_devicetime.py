"""A device's time as the harness sees it (harness.device.devicetime): the host's for a real-clock device, the
device's own for a virtual-clock one, read (`cat /proc/uptime`) and moved (`sleep`) through its shell only; settling's
pauses on that time while its deadline stays on the host's clock."""

from __future__ import annotations

import pytest

from harness.device.devicetime import device_time, host_time, link_time, sleep_argument
from harness.device.fastadb import ShellResult
from harness.device.settle import SettleConfig, wait_until_settled
from harness.errors import ConfigError, DeviceError
from harness.hierarchy import UITree
from tests.fake_clock import FakeClock


class ShellLink:
    """A link whose shell answers `uptime` to `cat /proc/uptime` and records every command line and timeout."""

    serial = "VIRTUAL0001"
    grpc = None

    def __init__(self, uptime: str = "3605.25 12689.28\n", exit_code: int = 0, kept: bool = False) -> None:
        self.uptime, self.exit_code, self.kept = uptime, exit_code, kept
        self.calls: list[tuple[str, float | None]] = []
        self.kept_calls: list[str] = []

    def has(self, capability: str) -> bool:
        return capability == "kept_shell" and self.kept

    def shell(self, op: str, command: str, timeout: float | None = None) -> ShellResult:
        self.calls.append((command, timeout))
        out = self.uptime if command == "cat /proc/uptime" else ""
        return ShellResult(self.exit_code, out.encode(), b"sleep: oops" if self.exit_code else b"")

    def kept_shell(self, op: str, command: str, timeout: float | None = None) -> ShellResult:
        self.kept_calls.append(command)
        return ShellResult(0, (self.uptime if command == "cat /proc/uptime" else "").encode(), b"")


def test_sleep_takes_up_to_three_decimals():
    assert [sleep_argument(s) for s in (5, 5.0, 0.25, 1.0004, 1.2346, 0.1, 120)] == [
        "5",
        "5",
        "0.25",
        "1",
        "1.235",
        "0.1",
        "120",
    ]


def test_a_virtual_clock_is_read_from_proc_uptime_and_moved_by_sleep_on_the_device():
    link = ShellLink()
    t = link_time(link, call_timeout=20.0)
    assert t.now() == 3605.25
    t.wait(5)
    t.wait(0.125)
    t.wait(0)  # nothing to wait: no call
    t.wait(-1)
    t.wait(0.0004)  # rounds to no time at all
    # the first read twice: the second takes only a read's own delay (`read_cost`; none on this clock)
    read = ("cat /proc/uptime", None)
    assert link.calls == [read, read, ("sleep 5", 25.0), ("sleep 0.125", 20.125)] and t.read_cost() == 0.0


def test_the_clock_is_read_on_the_kept_shell_where_the_link_keeps_one():
    link = ShellLink(kept=True)
    t = link_time(link)
    assert t.now() == 3605.25 and link.kept_calls == ["cat /proc/uptime"] * 2 and link.calls == []
    t.wait(1)  # a wait still has its own stream (its timeout is its length plus the call's)
    assert link.calls == [("sleep 1", 21.0)]


def test_an_unreadable_clock_and_a_failed_sleep_name_the_device():
    with pytest.raises(DeviceError, match=r"VIRTUAL0001: cannot read its clock.*'no such file'"):
        link_time(ShellLink(uptime="no such file")).now()
    with pytest.raises(DeviceError, match=r"VIRTUAL0001: `sleep 2` exited 1: sleep: oops"):
        link_time(ShellLink(exit_code=1)).wait(2)


def test_a_real_clock_device_lives_on_the_host_time_and_an_unknown_clock_is_refused():
    link = ShellLink()
    t = device_time("real", link)
    assert t.now() <= host_time().now()  # time.monotonic, never the device's shell
    t.wait(0)
    assert link.calls == []
    with pytest.raises(ConfigError, match="VIRTUAL0001: unknown clock 'warp'; choose one of: real, virtual"):
        device_time("warp", link)


def _tree(label: str) -> UITree:
    return UITree.from_xml(
        f'<hierarchy rotation="0"><node text="{label}" package="p" bounds="[0,0][10,10]"/></hierarchy>'
    )


def test_settling_pauses_on_the_device_time_and_gives_up_on_the_host_clock():
    """The pauses between polls go to the injected `sleep` (a virtual-clock device's `sleep`), which moves no host
    time: the deadline still comes, by the host clock the test drives (each read moves it 1/8 s)."""
    clock = FakeClock(tick=0.125)
    pauses: list[float] = []
    n = iter(range(10**6))

    def poll() -> UITree:
        return _tree(str(next(n)))  # never stable

    cfg = SettleConfig(strategy="poll", timeout=1.0, min_interval=0.5)
    res = wait_until_settled(poll, cfg, clock=clock, sleep=pauses.append)
    assert not res.settled and res.polls == 4 and res.seconds == 1.0
    assert pauses == [0.375, 0.375, 0.25]  # min_interval less the poll's 1/8 s; the last one cut at the deadline


class CountingLink:
    """A link that counts its calls as `Link` does (`calls`); its clock moves by the `sleep`s it is asked."""

    serial = "VIRTUAL0001"

    def __init__(self) -> None:
        self.grpc: object = None
        self.calls, self.uptime, self.reads = 0, 3600.0, 0
        self.read_delay = 0.0

    def has(self, capability: str) -> bool:
        return capability == "kept_shell"

    def kept_shell(self, op: str, command: str, timeout: float | None = None) -> ShellResult:
        self.calls += 1
        self.reads += 1
        self.uptime += self.read_delay  # a shell line's delay passes before it runs
        return ShellResult(0, f"{self.uptime:.2f} 1.00\n".encode(), b"")

    def shell(self, op: str, command: str, timeout: float | None = None) -> ShellResult:
        self.calls += 1
        self.uptime += float(command.split()[1])
        return ShellResult(0, b"", b"")


def test_a_clock_read_with_nothing_asked_of_the_device_since_the_last_gives_its_time_again():
    link = CountingLink()
    t = link_time(link)  # type: ignore[arg-type]
    assert t.now() == 3600.0 and link.reads == 2  # the first read made twice (its own delay measured)
    assert t.now() == 3600.0 and link.reads == 2  # a step's end, the next step's start: one read
    t.wait(2)  # anything asked of the device: read again
    assert t.now() == 3602.0 and link.reads == 3
    link.grpc = object()  # a gRPC door's calls are not counted: every read goes to the device
    t.now()
    t.now()
    assert link.reads == 5


def test_a_step_measured_by_two_reads_does_not_count_the_end_reads_own_delay():
    """A read through the shell takes a shell line's delay on the device's clock (0.01 s here): the first read is
    made twice, the second taking that delay alone (`read_cost`); a step from its start's read to its end's counts
    its work and that one delay, which the step's measure takes off (`AdbDevice.step`)."""
    link = CountingLink()
    link.read_delay = 0.01
    t = link_time(link)  # type: ignore[arg-type]
    start = t.now()
    assert link.reads == 2 and t.read_cost() == pytest.approx(0.01)
    t.wait(2)  # the step's work: 2 s on the device
    end = t.now()  # its own 0.01 s passes before it reads
    assert end - start - t.read_cost() == pytest.approx(2.0)
    assert t.now() == end and t.read_cost() == pytest.approx(0.01) and link.reads == 3  # measured once
