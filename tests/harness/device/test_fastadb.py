"""`harness.device.fastadb`'s JSON reading of uiautomator2 replies (`loads`): the values `json` gives."""

import json

import pytest

from harness.device.fastadb import loads


@pytest.mark.parametrize(
    "body",
    [
        b'{"jsonrpc": "2.0", "id": 1, "result": "' + b"QUJD" * 30000 + b'"}',
        b'{"result": {"a": [1, 2.5, true, null, "\\u00e9\\n"]}}',
        b'{"result": NaN}',
        b'{"result": [9223372036854775807, -9223372036854775808, 18446744073709551615]}',  # Java's longs and more
        b'{"result": "\\ud800"}',
    ],
)
def test_a_reply_reads_as_json_reads_it(body: bytes) -> None:
    assert repr(loads(body)) == repr(json.loads(body))


def test_a_reply_that_is_not_json_is_refused_as_json_refuses_it() -> None:
    with pytest.raises(ValueError):
        loads(b'{"result": ')
