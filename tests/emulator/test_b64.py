import base64
import binascii
import random

import pytest

from emulator import b64


@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 57, 76, 77, 83_000])
def test_the_same_bytes_as_the_standard_library(n):
    data = random.Random(n).randbytes(n)
    text = base64.b64encode(data)
    assert b64.encode(data) == text
    assert b64.decode(text) == data
    assert b64.decode(text.decode("ascii")) == data


def test_text_outside_the_alphabet_is_skipped_as_the_standard_library_skips_it():
    data = random.Random(7).randbytes(300)
    wrapped = base64.encodebytes(data)  # a line break every 76 characters, as Android's Base64.DEFAULT writes
    assert b"\n" in wrapped
    assert b64.decode(wrapped) == data == base64.b64decode(wrapped)
    assert b64.decode(wrapped.decode("ascii").replace("\n", "\r\n")) == data


@pytest.mark.parametrize("bad", [b"abc", b"a===", "é"])
def test_what_the_standard_library_refuses_is_refused(bad):
    with pytest.raises((binascii.Error, ValueError)):
        base64.b64decode(bad)
    with pytest.raises((binascii.Error, ValueError)):
        b64.decode(bad)
