"""Base64 (RFC 4648's standard alphabet) through pybase64's SIMD codec: the same bytes as the standard library's
`base64`, ~50x faster for a screenshot. A uiautomator2 screenshot crosses the wire as base64 JSON text: the device
encodes it (110 KB of text for a typical 83 KB frame: 0.14 ms with `base64`, 2 us here) and the harness decodes
it on every step's critical path (0.28 ms with `base64`, 5 us here). Shared by the virtual device and the harness,
as `emulator.httpframing` is, outside `emulator.virtual`."""

from __future__ import annotations

import base64
import binascii

import pybase64


def encode(data: bytes) -> bytes:
    """`base64.b64encode(data)`."""
    return pybase64.b64encode(data)


def decode(text: str | bytes) -> bytes:
    """`base64.b64decode(text)`: characters outside the alphabet (the line breaks of Android's `Base64.DEFAULT`) are
    skipped, bad padding raises `binascii.Error`. Strict text takes the fast path."""
    try:
        return pybase64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return base64.b64decode(text)
