"""More of toybox as Android ships it, through the real adb binary: tty and `test -t` with and without the PTY adbd
gives (`adb shell -tt` / `-T`), id's flags and their combinations, head -c / tail -c, and /dev's character devices."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.integration


def _sh(adb_cli, serial: str, line: str, *flags: str) -> tuple[int, bytes, bytes]:
    r = adb_cli("-s", serial, "shell", *flags, line)
    return r.returncode, r.stdout, r.stderr


def test_tty_and_test_t_see_the_pty_only_when_adbd_gives_one(posing_emulator, adb_cli):
    _, serial = posing_emulator
    status, out, _ = _sh(adb_cli, serial, "tty", "-tt")
    assert status == 0 and out.startswith(b"/dev/pts/") and out.endswith(b"\r\n"), out
    assert _sh(adb_cli, serial, "tty", "-T")[:2] == (1, b"not a tty\n")
    assert _sh(adb_cli, serial, "tty -s", "-T")[:2] == (1, b"")
    assert _sh(adb_cli, serial, "[ -t 0 ]", "-tt")[0] == 0
    assert _sh(adb_cli, serial, "[ -t 0 ]", "-T")[0] == 1
    assert _sh(adb_cli, serial, "test -t 1 && echo yes", "-tt")[1] == b"yes\r\n"
    # a redirection or a pipe is no terminal, even in a PTY session
    assert _sh(adb_cli, serial, "[ -t 0 ] </dev/null || echo no", "-tt")[1] == b"no\r\n"
    assert _sh(adb_cli, serial, "echo | tty", "-tt")[1] == b"not a tty\r\n"
    assert _sh(adb_cli, serial, "[[ -t 0 ]] && echo yes", "-tt")[1] == b"yes\r\n"


def test_id_flags_as_toybox_prints_them(posing_emulator, adb_cli):
    _, serial = posing_emulator

    def out(line: str) -> str:
        return _sh(adb_cli, serial, line)[1].decode()

    assert out("id -un") == "shell\n"
    assert out("id -u") == "2000\n"
    assert out("id -gn") == "shell\n"
    assert out("id -g -r") == "2000\n"
    groups = out("id -G").split()
    assert groups[0] == "2000" and "1015" in groups and "3003" in groups
    names = out("id -Gn").split()
    assert names[0] == "shell" and "sdcard_rw" in names and "inet" in names and len(names) == len(groups)
    assert out("id -Z") == "u:r:shell:s0\n"
    assert out("id -n").startswith("uid=2000(shell) gid=2000(shell) groups=2000(shell),")
    status, _, err = _sh(adb_cli, serial, "id -u -g")
    assert status == 1 and err.startswith(b"id: No 'g' with 'u'")
    assert _sh(adb_cli, serial, "id -x")[0] == 1
    assert out("id -un root") == "root\n"


def test_head_and_tail_count_bytes(posing_emulator, adb_cli):
    _, serial = posing_emulator
    assert _sh(adb_cli, serial, "printf abcdef | head -c 3")[1] == b"abc"
    assert _sh(adb_cli, serial, "head -c 1k /dev/zero | wc -c")[1] == b"1024\n"
    status, out, _ = _sh(adb_cli, serial, "head -c 100 /dev/urandom")
    assert status == 0 and len(out) == 100
    assert _sh(adb_cli, serial, "printf abcdef > /data/local/tmp/t; tail -c 2 /data/local/tmp/t")[1] == b"ef"
    assert _sh(adb_cli, serial, "tail -c +3 /data/local/tmp/t")[1] == b"cdef"
    assert _sh(adb_cli, serial, "head -c2 /data/local/tmp/t")[1] == b"ab"


def test_dev_nodes_are_character_devices(posing_emulator, adb_cli):
    _, serial = posing_emulator
    listing = _sh(adb_cli, serial, "ls -l /dev")[1].decode().splitlines()
    rows = {line.split()[-1]: line for line in listing if line.startswith("c")}
    assert set(rows) >= {"null", "zero", "random", "urandom"}
    assert rows["null"].startswith("crw-rw-rw- 1 root root   1,   3 ")
    assert _sh(adb_cli, serial, "[ -c /dev/zero ] && echo chr")[1] == b"chr\n"
    assert _sh(adb_cli, serial, "stat -c %F /dev/null")[1] == b"character special file\n"
    # writable by the shell; keeps nothing
    assert _sh(adb_cli, serial, "echo x > /dev/null; echo y >/dev/zero; cat /dev/null | wc -c")[1] == b"0\n"
    assert _sh(adb_cli, serial, "dd if=/dev/zero of=/dev/null bs=1k count=4 status=none; echo $?")[1] == b"0\n"
    assert _sh(adb_cli, serial, "stat -c %s /dev/null")[1] == b"0\n"
