"""Which core each embedded device process of a run runs on (`--cpu-affinity`).

A device on the `instant` latency profile never waits: it is pure CPU, and so are the harness thread that drives
it and the adb server between them. Every step hands work between those threads dozens of times. When there are
at least as many such devices as cores, every core is busy, and a thread that the scheduler wakes on another
core than the one it last ran on pays for it twice: its caches are cold there, and waking a busy core costs an
interrupt (on a VM an exit to the host). A device pinned to a core of its own wakes where it ran before; measured
on 2 cores, 2 instant devices finish the bundled suite ~5% sooner pinned (four benches, from no gain to 9%), 4
devices ~3% sooner; 8 devices were ~3% sooner in a first measurement and 2% slower in the bench after it, so no
gain there (`bench/scale.py --cpu-affinity auto off`; docs/architecture.md). A device that models a phone's latencies
(`pixel`) sleeps most of the time: there pinning only takes away the scheduler's freedom to wake it on whichever
core is idle, and 8 of them were ~2% slower pinned.

Policies: `auto` (the default) pins each device process of an `instant` pool - or of a `--clock virtual` one,
whatever its latency profile: such a device never waits either - to one core when the pool has at
least as many devices as this process may use cores; `on` pins any pool's device processes; `off` never pins.
Devices go round the cores this process may use (its own affinity, so a `taskset` or a cgroup's cpuset is kept):
slot i runs on the i-th core modulo their number. Devices in threads of the harness and devices the harness does
not start (emulators, phones) are never pinned.
"""

from __future__ import annotations

import os
from typing import Literal

from emulator.virtual.latency import LATENCY_PROFILES
from harness.errors import ConfigError

CpuAffinity = Literal["auto", "on", "off"]
CPU_AFFINITIES: tuple[CpuAffinity, ...] = ("auto", "on", "off")


def check_policy(policy: str) -> CpuAffinity:
    """`policy` as a `CpuAffinity`, or a `ConfigError` naming the option."""
    for known in CPU_AFFINITIES:
        if policy == known:
            return known
    raise ConfigError(f"--cpu-affinity {policy!r} is not one of: {', '.join(CPU_AFFINITIES)}")


def usable_cpus() -> tuple[int, ...]:
    """The cores this process may run on, in order; () where the system does not say (no `sched_getaffinity`)."""
    if not hasattr(os, "sched_getaffinity"):
        return ()
    return tuple(sorted(os.sched_getaffinity(0)))


def never_waits(latency: str, clock: str = "real") -> bool:
    """Devices that answer every call at once (CPU-bound devices): those on a latency profile of no delays, and
    any device on the virtual clock (its delays, gestures and sleeps advance its clock instead of waiting)."""
    if clock == "virtual":
        return True
    profile = LATENCY_PROFILES.get(latency)
    return profile is not None and not any(profile.values())


def device_cpus(
    slot: int, devices: int, latency: str, policy: CpuAffinity, usable: tuple[int, ...], clock: str = "real"
) -> frozenset[int] | None:
    """The cores slot `slot`'s device process runs on in a pool of `devices` process devices on the `latency`
    profile and `clock`, given the `usable` cores; None: not pinned (the scheduler places it)."""
    if policy == "off" or len(usable) < 2:
        return None
    if policy == "auto" and not (never_waits(latency, clock) and devices >= len(usable)):
        return None
    return frozenset({usable[slot % len(usable)]})
