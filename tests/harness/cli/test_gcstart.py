"""Garbage collection around a command's start (harness.cli.gcstart): in a process of its own the command's imports
are frozen out of later collections and none runs while they happen; in a process that goes on (a test's
CliRunner) nothing changes."""

from __future__ import annotations

import gc
import subprocess
import sys
import textwrap

from harness.cli.gcstart import heavy_imports

OWN = textwrap.dedent(
    """
    import atexit, gc
    from harness.cli.gcstart import heavy_imports, own_process

    frozen = gc.get_freeze_count()
    own_process()
    assert gc.get_freeze_count() > frozen, "what was imported is frozen"
    frozen = gc.get_freeze_count()
    with heavy_imports():
        assert not gc.isenabled(), "no collection while the heavy imports run"
        made = [[] for _ in range(1000)]
    assert gc.isenabled() and all(gc.is_tracked(x) for x in made)
    assert gc.get_freeze_count() >= frozen + 1000, "what they made is frozen too"
    atexit.register(lambda: print("gc at exit", gc.isenabled()))
    """
)


def test_a_command_s_own_process_freezes_its_imports_and_collects_nothing_while_they_run():
    out = subprocess.run([sys.executable, "-c", OWN], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "gc at exit True"


def test_in_a_process_that_goes_on_the_collector_is_left_as_it_is():
    frozen = gc.get_freeze_count()
    with heavy_imports():
        assert gc.isenabled()
    assert gc.get_freeze_count() == frozen
