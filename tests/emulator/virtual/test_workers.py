"""The virtual adbd's service threads: a cached pool."""

from __future__ import annotations

import threading
import time

import pytest

from emulator.virtual.workers import ServiceThreads

pytestmark = pytest.mark.timeout(30)


def wait_for(predicate, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_a_finished_services_thread_runs_the_next_one() -> None:
    pool = ServiceThreads("t")
    ran: list[threading.Thread] = []
    done = threading.Event()
    pool.run(lambda: (ran.append(threading.current_thread()), done.set()))
    assert done.wait(5)
    assert wait_for(lambda: not pool.busy)  # back among the idle ones
    done.clear()
    pool.run(lambda: (ran.append(threading.current_thread()), done.set()))
    assert done.wait(5)
    assert ran[0] is ran[1] and ran[0].daemon
    pool.stop()


def test_a_blocked_service_does_not_hold_up_the_next_stream() -> None:
    """A service may block for as long as its stream is open: the next one gets a thread of its own."""
    pool = ServiceThreads("t")
    release, second = threading.Event(), threading.Event()
    pool.run(lambda: release.wait(10))
    pool.run(second.set)
    assert second.wait(5)
    assert len(pool.busy) == 1  # the first one still blocks
    release.set()
    assert wait_for(lambda: not pool.busy)
    pool.stop()


def test_a_failing_service_leaves_its_thread_usable() -> None:
    pool = ServiceThreads("t")
    done = threading.Event()

    def boom() -> None:
        raise RuntimeError("service bug")

    pool.run(boom)
    assert wait_for(lambda: not pool.busy)
    pool.run(done.set)
    assert done.wait(5)
    pool.stop()


def test_idle_threads_end_after_their_idle_time_and_on_stop() -> None:
    pool = ServiceThreads("t", idle_seconds=0.05)
    seen: list[threading.Thread] = []
    pool.run(lambda: seen.append(threading.current_thread()))
    assert wait_for(lambda: bool(seen) and not seen[0].is_alive())

    pool = ServiceThreads("t", idle_seconds=60)
    seen.clear()
    pool.run(lambda: seen.append(threading.current_thread()))
    assert wait_for(lambda: bool(seen) and not pool.busy)
    assert seen[0].is_alive()  # idle, waiting for the next service
    pool.stop()
    assert wait_for(lambda: not seen[0].is_alive())
