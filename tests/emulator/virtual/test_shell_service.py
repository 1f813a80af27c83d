"""The shell services (`shell:` v1, `shell,v2:`, `exec:`) through the real adb CLI and adbutils.

Protocol tests run a scripted stand-in for the mini shell, so they check the framing and not the commands;
a few tests at the end go through the real mini shell (`false`, `cat`).
"""

from __future__ import annotations

import hashlib
import os
import struct
import threading
import time

import pytest

from emulator.virtual.services import shell_service

pytestmark = pytest.mark.timeout(60)

BIG = os.urandom(3 * 1024 * 1024 + 5)


class ScriptedShell:
    """Stands in for `shell.run`: a few fixed programs, and a record of every command line."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.stdin: dict[str, bytes] = {}
        self.done = threading.Event()  # set when a `slurp` saw the end of its input

    def __call__(self, model, line: str, io) -> int:
        self.lines.append(line)
        argv = line.split()
        prog = argv[0] if argv else ""
        if prog == "both":  # stdout, stderr, exit 3
            io.write_stdout(b"out\n")
            io.write_stderr(b"err\n")
            return 3
        if prog == "exit":
            return int(argv[1])
        if prog == "big":
            io.write_stdout(BIG)
            return 0
        if prog == "slurp":  # read stdin to EOF, print its size and digest
            buf = bytearray()
            while True:
                chunk = io.read_stdin(-1)
                if not chunk:
                    break
                buf += chunk
            self.stdin[line] = bytes(buf)
            self.done.set()
            io.write_stdout(f"{len(buf)} {hashlib.sha256(buf).hexdigest()}\n".encode())
            return 0
        if prog == "say":
            io.write_stdout((" ".join(argv[1:]) + "\n").encode())
            return 0
        io.write_stderr(f"/system/bin/sh: {prog}: inaccessible or not found\n".encode())
        return 127


@pytest.fixture
def scripted(monkeypatch) -> ScriptedShell:
    sh = ScriptedShell()
    monkeypatch.setattr(shell_service, "run_command", sh)
    return sh


def test_parse_shell_service() -> None:
    assert shell_service.parse_shell_service("shell:ls -l") == (False, {}, "ls -l")
    assert shell_service.parse_shell_service("shell,v2,TERM=xterm-256color,raw:echo a:b") == (
        True,
        {"v2": "", "TERM": "xterm-256color", "raw": ""},
        "echo a:b",
    )
    assert shell_service.parse_shell_service("shell,v2,pty:") == (True, {"v2": "", "pty": ""}, "")


def test_v1_merges_stderr_and_has_no_exit_code(vdevice, scripted) -> None:
    out = vdevice.adb.shell("both", encoding=None, rstrip=False)
    assert out == b"out\nerr\n"
    assert scripted.lines == ["both"]
    assert {"name": "shell:both"} in [e.data for e in vdevice.model.events.all("service")]


def test_v2_separates_stderr_and_reports_exit(vdevice, adb_cli, scripted) -> None:
    r = vdevice.adb.shell2("both", v2=True, rstrip=False)
    assert (r.returncode, r.stdout, r.stderr) == (3, "out\n", "err\n")
    r = adb_cli("-s", vdevice.serial, "shell", "both")
    assert (r.returncode, r.stdout, r.stderr) == (3, b"out\n", b"err\n")
    r = adb_cli("-s", vdevice.serial, "shell", "exit", "200")
    assert r.returncode == 200


def test_exec_out_is_raw_stdout_only(vdevice, adb_cli, scripted) -> None:
    r = adb_cli("-s", vdevice.serial, "exec-out", "both")
    assert r.stdout == b"out\n"
    r = adb_cli("-s", vdevice.serial, "exec-out", "big")
    assert r.returncode == 0 and r.stdout == BIG


def test_big_output_on_every_path(vdevice, adb_cli, scripted) -> None:
    assert vdevice.adb.shell("big", encoding=None, rstrip=False) == BIG
    r = vdevice.adb.shell2("big", v2=True, rstrip=False, encoding=None)
    assert r.returncode == 0 and r.stdout == BIG
    r = adb_cli("-s", vdevice.serial, "shell", "big")
    assert r.returncode == 0 and r.stdout == BIG


def test_stdin_through_v2_and_exec(vdevice, adb_cli, scripted) -> None:
    data = os.urandom(2 * 1024 * 1024 + 3)
    want = f"{len(data)} {hashlib.sha256(data).hexdigest()}\n".encode()
    r = adb_cli("-s", vdevice.serial, "shell", "slurp", "v2", input=data)
    assert (r.returncode, r.stdout) == (0, want)
    assert scripted.stdin["slurp v2"] == data
    scripted.done.clear()
    # exec: stdin is the raw stream; `adb exec-in` closes it at the end (what `adb install` relies on)
    r = adb_cli("-s", vdevice.serial, "exec-in", "slurp", input=data)
    assert r.returncode == 0
    assert scripted.done.wait(10)  # adb exits as soon as it has sent everything; the service may still run
    assert scripted.stdin.get("slurp") == data


def test_interactive_shell_runs_lines_until_exit(vdevice, adb_cli) -> None:
    r = adb_cli("-s", vdevice.serial, "shell", input=b"echo one\necho two\nexit 7\ntouch /sdcard/never\n")
    assert r.stdout == b"one\ntwo\n"
    assert r.returncode == 7
    assert not vdevice.model.fs.exists("/sdcard/never")


def test_v1_interactive_over_adbutils(vdevice) -> None:
    c = vdevice.adb.open_transport()
    try:
        c.send_command("shell,raw:")  # no terminal: no prompt, no echo, the output as written
        c.check_okay()
        c.conn.sendall(b"echo hi\r\nexit\n")
        assert c.read_until_close(encoding=None) == b"hi\n"
    finally:
        c.close()


def _until(c, token: bytes, timeout: float = 10.0) -> bytes:
    """Read from an open shell stream until `token` (a prompt) arrives; what was read."""
    buf = b""
    deadline = time.monotonic() + timeout
    while not buf.endswith(token):
        c.conn.settimeout(max(0.01, deadline - time.monotonic()))
        data = c.conn.recv(4096)
        if not data:
            break
        buf += data
    return buf


def test_a_command_less_shell_gets_a_terminal_prompt_echo_and_crlf(vdevice) -> None:
    """`adb shell` with no command, typed at as on a phone: mksh's prompt (last failed status, the device's code
    name, the directory), each key echoed, CR NL line ends, stderr on the same terminal, DEL erasing, ^C dropping
    an open compound command, ^D on an empty line ending the session."""
    name = vdevice.model.props["ro.product.device"]
    c = vdevice.adb.open_transport()
    try:
        c.send_command("shell:")
        c.check_okay()
        assert _until(c, b"$ ") == f"{name}:/ $ ".encode()
        c.conn.sendall(b"cd /sdcard\r")
        assert _until(c, b"$ ") == f"cd /sdcard\r\n{name}:/sdcard $ ".encode()
        c.conn.sendall(b"ls /nope\r")
        out = _until(c, b"$ ")
        assert out == f"ls /nope\r\nls: /nope: No such file or directory\r\n1|{name}:/sdcard $ ".encode()
        c.conn.sendall("echo hx\x7fi 你\x7f\r".encode())
        out = _until(c, b"$ ")
        assert out == "echo hx\b \bi 你\b \b\r\nhi\r\n".encode() + f"{name}:/sdcard $ ".encode()
        c.conn.sendall(b"for i in 1 2\r")
        assert _until(c, b"> ") == b"for i in 1 2\r\n> "
        c.conn.sendall(b"\x03")
        assert _until(c, b"$ ") == f"^C\r\n{name}:/sdcard $ ".encode()
        c.conn.sendall(b"echo after\r")
        assert _until(c, b"$ ") == f"echo after\r\nafter\r\n{name}:/sdcard $ ".encode()
        c.conn.sendall(b"\x04")
        assert _until(c, b"never") == b"", "^D on an empty line ends the session"
    finally:
        c.close()


def test_the_adb_client_gets_a_terminal_when_it_forces_one(vdevice, adb_cli) -> None:
    """The real adb client: `-tt` forces a remote PTY even with stdin not a terminal (CR NL line ends, stderr
    merged); `-T` and a plain command get none."""
    r = adb_cli("-s", vdevice.serial, "shell", "-tt", "echo hi; ls /nope")
    assert r.stdout == b"hi\r\nls: /nope: No such file or directory\r\n"
    r = adb_cli("-s", vdevice.serial, "shell", "-T", "echo hi")
    assert r.stdout == b"hi\n"
    r = adb_cli("-s", vdevice.serial, "shell", "echo hi")
    assert r.stdout == b"hi\n"


def test_a_terminal_asked_for_with_a_command(vdevice) -> None:
    """`adb shell -t CMD` (`shell,v2,pty:`): stdout and stderr reach the terminal as one, with CR NL line ends."""
    c = vdevice.adb.open_transport()
    try:
        c.send_command("shell,v2,pty:echo out; echo err >&2; exit 3")
        c.check_okay()
        data = c.read_until_close(encoding=None)
    finally:
        c.close()
    packets, i = [], 0
    while i < len(data):
        kind, size = struct.unpack_from("<BI", data, i)
        packets.append((kind, data[i + 5 : i + 5 + size]))
        i += 5 + size
    assert b"".join(body for kind, body in packets if kind == 1) == b"out\r\nerr\r\n"
    assert [kind for kind, _ in packets if kind == 2] == [], "no separate stderr on a terminal"
    assert packets[-1] == (3, b"\x03")


def test_an_interactive_session_is_one_shell(vdevice, adb_cli) -> None:
    """Its lines share one shell's state, as mksh reading stdin does: the directory, variables, functions, `$?`;
    `exit` ends it from inside a compound line, and its EXIT trap runs when it ends."""
    script = (
        b"cd /sdcard\n"
        b"pwd\n"
        b"X=kept; greet() { echo hello $1; }\n"
        b"echo $X; greet you\n"
        b"false\n"
        b"echo status $?\n"
        b"trap 'echo bye' EXIT\n"
        b"true && exit 4\n"
        b"echo never\n"
    )
    r = adb_cli("-s", vdevice.serial, "shell", input=script)
    assert r.stdout == b"/sdcard\nkept\nhello you\nstatus 1\nbye\n"
    assert r.returncode == 4
    r = adb_cli("-s", vdevice.serial, "shell", input=b"trap 'echo at the end' EXIT\necho last\n")
    assert (r.stdout, r.returncode) == (b"last\nat the end\n", 0)  # the input ended: the trap runs then


def test_host_closing_mid_output_does_not_break_the_transport(vdevice, scripted) -> None:
    c = vdevice.adb.shell("big", stream=True)
    c.read_exact(1000)
    c.close()
    assert vdevice.adb.shell("say still here") == "still here"


def test_concurrent_shells(vdevice, scripted) -> None:
    errors: list[BaseException] = []

    def one(i: int) -> None:
        try:
            assert vdevice.adb.shell(f"say {i}") == str(i)
            assert vdevice.adb.shell2("big", v2=True, rstrip=False, encoding=None).stdout == BIG
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(40)
    assert not errors, errors


# --- through the real mini shell ---------------------------------------------------------------------------
def test_real_shell_exit_codes(vdevice, adb_cli) -> None:
    assert adb_cli("-s", vdevice.serial, "shell", "false").returncode == 1
    assert adb_cli("-s", vdevice.serial, "shell", "true").returncode == 0
    assert vdevice.adb.shell2("false").returncode == 1  # v1 with `; echo X4EXIT:$?`
    assert vdevice.adb.shell2("false", v2=True).returncode == 1
    r = adb_cli("-s", vdevice.serial, "shell", "no_such_program_xyz")
    assert r.returncode == 127 and b"not found" in r.stderr and r.stdout == b""


def test_real_shell_cat_of_a_big_file_is_byte_exact(vdevice, adb_cli) -> None:
    vdevice.model.fs.write("/sdcard/Download/blob.bin", BIG)
    r = adb_cli("-s", vdevice.serial, "exec-out", "cat", "/sdcard/Download/blob.bin")
    assert r.returncode == 0 and r.stdout == BIG
