"""/proc files the shell can read (cat, grep, head, `<` redirections): generated from the device state on each
read, in the kernel's formats. meminfo, stat, cpuinfo, uptime, loadavg, version, and for every process
/proc/PID/{stat,cmdline,status,comm} (also /proc/self)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..fs import FsError
from .proctable import Proc, process_table

if TYPE_CHECKING:  # pragma: no cover
    from ..model import VirtualDeviceModel

MEM_TOTAL_KB = 3_995_112  # the "Total RAM" dumpsys meminfo reports
CLK_TCK = 100
KERNEL = "6.1.57-android14-11-g2ff7e2a0b1a4-ab11531744"


def _uptime(model: VirtualDeviceModel) -> float:
    return model.uptime()


def _cpus(model: VirtualDeviceModel) -> int:
    return 4 if model.profile.emulator else 8


def meminfo(model: VirtualDeviceModel) -> str:
    free = 1_020_304 + (len(model.tasks) * 7919) % 50_000
    rows = [
        ("MemTotal", MEM_TOTAL_KB),
        ("MemFree", free),
        ("MemAvailable", free + 1_530_112),
        ("Buffers", 10_448),
        ("Cached", 1_563_212),
        ("SwapCached", 1_204),
        ("Active", 1_024_880),
        ("Inactive", 1_105_336),
        ("Active(anon)", 514_952),
        ("Inactive(anon)", 92_172),
        ("Active(file)", 509_928),
        ("Inactive(file)", 1_013_164),
        ("Unevictable", 108_300),
        ("Mlocked", 108_300),
        ("SwapTotal", 2_997_332),
        ("SwapFree", 2_980_116),
        ("Dirty", 244),
        ("Writeback", 0),
        ("AnonPages", 673_944),
        ("Mapped", 778_360),
        ("Shmem", 8_824),
        ("KReclaimable", 98_500),
        ("Slab", 214_408),
        ("SReclaimable", 60_724),
        ("SUnreclaim", 153_684),
        ("KernelStack", 31_552),
        ("ShadowCallStack", 7_912),
        ("PageTables", 57_196),
        ("SecPageTables", 0),
        ("NFS_Unstable", 0),
        ("Bounce", 0),
        ("WritebackTmp", 0),
        ("CommitLimit", 4_994_888),
        ("Committed_AS", 72_338_112),
        ("VmallocTotal", 34_359_738_367),
        ("VmallocUsed", 59_336),
        ("VmallocChunk", 0),
        ("Percpu", 4_160),
        ("CmaTotal", 0),
        ("CmaFree", 0),
    ]
    # fs/proc/meminfo.c: a 16-column label, the value right-aligned in 8, " kB"
    return "".join(f"{(name + ':'):<16}{value:>8} kB\n" for name, value in rows)


def stat(model: VirtualDeviceModel) -> str:
    up = _uptime(model)
    ticks = int(up * CLK_TCK)
    cpus = _cpus(model)

    def line(name: str, share: float) -> str:
        user, nice, system = int(ticks * 0.06 * share), int(ticks * 0.004 * share), int(ticks * 0.04 * share)
        idle = int(ticks * 0.88 * share)
        return (
            f"{name} {user} {nice} {system} {idle} {int(ticks * 0.003 * share)} {int(ticks * 0.002 * share)} "
            f"{int(ticks * 0.001 * share)} 0 0 0\n"
        )

    out = line("cpu ", cpus)  # the total line: "cpu" and two spaces
    out += "".join(line(f"cpu{i}", 1.0) for i in range(cpus))
    boot = int(model.boot_time - 3600)
    out += (
        f"intr {ticks * 37} 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\nctxt {ticks * 211}\nbtime {boot}\n"
        f"processes {model.procs.next_pid}\nprocs_running 1\nprocs_blocked 0\n"
        f"softirq {ticks * 9} 0 {ticks * 3} 1 {ticks} 0 0 {ticks * 2} {ticks * 2} 0 {ticks}\n"
    )
    return out


def cpuinfo(model: VirtualDeviceModel) -> str:
    n = _cpus(model)
    if model.profile.emulator:
        return "".join(
            f"processor\t: {i}\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\n"
            f"model name\t: Intel(R) Xeon(R) CPU @ 2.20GHz\nstepping\t: 7\nmicrocode\t: 0x1\ncpu MHz\t\t: 2199.998\n"
            f"cache size\t: 39424 KB\nphysical id\t: 0\nsiblings\t: {n}\ncore id\t\t: {i}\ncpu cores\t: {n}\n"
            f"apicid\t\t: {i}\ninitial apicid\t: {i}\nfpu\t\t: yes\nfpu_exception\t: yes\ncpuid level\t: 13\n"
            "wp\t\t: yes\nflags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 "
            "clflush mmx fxsr sse sse2 ss ht syscall nx pdpe1gb rdtscp lm constant_tsc rep_good nopl xtopology "
            "nonstop_tsc cpuid tsc_known_freq pni pclmulqdq ssse3 fma cx16 pcid sse4_1 sse4_2 x2apic movbe popcnt "
            "aes xsave avx f16c rdrand hypervisor lahf_lm abm 3dnowprefetch avx2 bmi1 bmi2\n"
            "bugs\t\t: spectre_v1 spectre_v2 spec_store_bypass swapgs\nbogomips\t: 4399.99\n"
            "clflush size\t: 64\ncache_alignment\t: 64\naddress sizes\t: 46 bits physical, 48 bits virtual\n"
            "power management:\n\n"
            for i in range(n)
        )
    parts = ["0xd05"] * 4 + ["0xd41"] * 2 + ["0xd44"] * 2  # Tensor: 4x A55, 2x A76/A78, 2x X1
    return "".join(
        f"processor\t: {i}\nBogoMIPS\t: 49.15\nFeatures\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp "
        f"asimdhp cpuid asimdrdm lrcpc dcpop asimddp\nCPU implementer\t: 0x41\nCPU architecture: 8\n"
        f"CPU variant\t: {'0x2' if i < 4 else '0x1'}\nCPU part\t: {parts[i]}\nCPU revision\t: 0\n\n"
        for i in range(n)
    )


def _proc_stat_line(model: VirtualDeviceModel, r: Proc) -> str:
    ticks_start = int(max(0.0, (r.start or model.boot_time) - model.boot_time + 3600.0) * CLK_TCK)
    vsz_kb = 2_000_000 + (r.pid * 7919) % 9_000_000 if r.app else 10_000_000 + (r.pid * 104729) % 3_000_000
    rss_pages = (20_000 + (r.pid * 31) % 200_000) // 4
    utime, stime = (r.pid * 7) % 400 + 10, (r.pid * 3) % 200 + 5
    prio, nice = (10, -10) if r.app else (20, 0)
    threads = 22 if r.app else 3
    fields = [
        r.pid,
        f"({r.comm})",
        "S",
        r.ppid,
        r.pid if r.ppid in (0, 1) else r.ppid,
        0,
        0,
        -1,
        4194560,
        1200 + r.pid % 900,
        0,
        r.pid % 40,
        0,
        utime,
        stime,
        0,
        0,
        prio,
        nice,
        threads,
        0,
        ticks_start,
        vsz_kb * 1024,
        rss_pages,
        18446744073709551615,
        1,
        1,
        0,
        0,
        0,
        0,
        0,
        4612,
        1073775864,
        0,
        0,
        0,
        17,
        r.pid % _cpus(model),
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
    ]
    return " ".join(str(f) for f in fields) + "\n"


def _status(r: Proc) -> str:
    return (
        f"Name:\t{r.comm}\nUmask:\t0077\nState:\tS (sleeping)\nTgid:\t{r.pid}\nNgid:\t0\nPid:\t{r.pid}\n"
        f"PPid:\t{r.ppid}\nTracerPid:\t0\nUid:\t{r.uid}\t{r.uid}\t{r.uid}\t{r.uid}\n"
        f"Gid:\t{r.uid}\t{r.uid}\t{r.uid}\t{r.uid}\nFDSize:\t128\n"
        f"VmRSS:\t{20_000 + (r.pid * 31) % 200_000:>8} kB\nThreads:\t{22 if r.app else 3}\n"
    )


_GLOBAL = {"meminfo": meminfo, "stat": stat, "cpuinfo": cpuinfo}


def read(model: VirtualDeviceModel, path: str, shell_pid: int) -> bytes | None:
    """The contents of /proc file `path` (absolute, normalized) read by the shell `shell_pid` (/proc/self), or
    None when `path` is not under /proc. Raises FsError(ENOENT) for a /proc path that does not exist."""
    if path != "/proc" and not path.startswith("/proc/"):
        return None
    rest = path[len("/proc/") :]
    if rest in _GLOBAL:
        return _GLOBAL[rest](model).encode()
    if rest == "uptime":
        up = _uptime(model)
        return f"{up:.2f} {up * _cpus(model) * 0.88:.2f}\n".encode()
    if rest == "loadavg":
        return f"0.52 0.58 0.59 1/1714 {model.procs.next_pid}\n".encode()
    if rest == "version":
        return (
            f"Linux version {KERNEL} (build-user@build-host) (Android (10087095, +pgo, +bolt, +lto, -mlgo, "
            "based on r487747c) clang version 17.0.2, LLD 17.0.2) #1 SMP PREEMPT Fri Mar 15 18:30:58 UTC "
            "2024\n"
        ).encode()
    m = re.fullmatch(r"(self|\d+)/(stat|cmdline|status|comm)", rest)
    if m:
        rows = process_table(model, shell_pid)
        pid = shell_pid if m.group(1) == "self" else int(m.group(1))
        r = next((p for p in rows if p.pid == pid), None)
        if r is not None:
            what = m.group(2)
            if what == "stat":
                return _proc_stat_line(model, r).encode()
            if what == "cmdline":
                return ("\0".join(r.cmdline.split(" ")) + "\0").encode()
            if what == "comm":
                return (r.comm + "\n").encode()
            return _status(r).encode()
    raise FsError(2, path)
