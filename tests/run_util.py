"""Shared options for tests that run suites to check the run loop, scoring or recovery, not trajectory storage:
no fsync and the fastest lossless WebP effort (tests/harness/trajectory/test_format_v2.py and
tests/harness/trajectory/test_writer.py cover the default storage). Same records, same files, a fraction of the CPU on a
2-core machine."""

from __future__ import annotations

from harness.trajectory.frames import WriterOptions

FAST_WRITER = WriterOptions(fsync=False, webp_method=0)
