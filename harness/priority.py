"""CPU priority of background threads: work that no step waits for yields the cores to the work a step waits for.

The trajectory writer (frames, hierarchies, step lines, fsync) runs beside the run loop. With one device it fills
the gaps between the device's bursts; with several devices on few cores it competes with every device's capture and
the run loop, which wait on each other. Lowered by `BACKGROUND_NICE`, it runs when a core is free and otherwise
waits its turn (its bounded queue holds a step up only when it is that far behind).

Linux only: there a thread is a task with its own nice value (`setpriority(PRIO_PROCESS, tid)`); elsewhere the
same call would name a process, so nothing is done.
"""

from __future__ import annotations

import os
import sys
import threading

BACKGROUND_NICE = 10


def lower_this_thread(by: int = BACKGROUND_NICE) -> bool:
    """Raise the calling thread's nice value by `by` (at most 19); True when it was changed. Never raises: a
    priority is a preference, not a requirement."""
    if not sys.platform.startswith("linux") or by <= 0:
        return False
    tid = threading.get_native_id()
    try:
        now = os.getpriority(os.PRIO_PROCESS, tid)
        os.setpriority(os.PRIO_PROCESS, tid, min(19, now + by))
    except OSError:
        return False
    return True
