"""Shell job control as mksh has it, through the real adb server: `&`, `$!`, `wait`, `jobs`, `kill %N`,
`kill -SIG PID`, `trap`, here documents; adbutils' own screenrecord start/stop (a background `screenrecord`
stopped by `kill -INT` while the script reads stdin) gives a valid MP4."""

from __future__ import annotations

import threading
import time

import pytest

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def sh(vdevice, adb_cli):
    """`adb shell CMD` (the shell protocol v2: the real exit status) -> (status, stdout + stderr)."""

    def run(cmd: str) -> tuple[int, str]:
        r = adb_cli("-s", vdevice.serial, "shell", cmd)
        return r.returncode, (r.stdout + r.stderr).decode()

    return run


def test_background_jobs_pid_wait_and_jobs(sh):
    code, out = sh("sleep 0.3 & echo pid=$!; jobs; wait $!; echo waited=$?; jobs")
    lines = out.splitlines()
    pid = lines[0].removeprefix("pid=")
    assert code == 0 and pid.isdigit()
    assert lines[1] == "[1] + Running              sleep 0.3"
    assert lines[2:] == ["waited=0"]  # a job that was waited for leaves the list
    # a job's status is its exit status; `wait` without operands waits for all and returns 0
    code, out = sh("(exit 3) & wait $!; echo $?; false & true & wait; echo all=$?")
    assert out.splitlines() == ["3", "all=0"]
    # an unknown pid: 127, silently; an unknown %job: mksh's message
    code, out = sh("wait 99999; echo $?; wait %4; echo $?")
    assert out.splitlines()[:2] == ["127", "127"] and "wait: %4: no such job" in out  # stderr comes last here


def test_background_job_runs_while_the_shell_goes_on(sh):
    # the job's output arrives after the shell's own; $? after `&` is 0
    code, out = sh("{ sleep 0.3; echo late; } & echo early $?; wait")
    assert out.splitlines() == ["early 0", "late"]
    # the job shows in ps while it runs and is gone after
    code, out = sh("sleep 5 & P=$!; ps -o PID,NAME -p $P | tail -1; kill $P; wait $P; echo $?")
    row, status = out.splitlines()[-2:]
    assert row.split()[1] == "sleep" and status == "143"


def test_kill_signals_jobs_as_mksh_does(sh):
    # a background job ignores SIGINT and SIGQUIT (no job control): it runs on; TERM ends it with 128+15
    start = time.monotonic()
    code, out = sh("sleep 0.5 & kill -INT $!; wait $!; echo int=$?; sleep 5 & kill %1; wait %1; echo $?")
    assert out.splitlines() == ["int=0", "143"]
    assert time.monotonic() - start >= 0.4  # the INT-ignoring sleep ran its time
    code, out = sh("sleep 5 & kill -s KILL $!; wait; sleep 5 & kill -9 %%; wait %1; echo $?")
    assert out.splitlines() == ["137"]
    code, out = sh("kill %3; echo $?; kill -FOO 1")
    assert "kill: %3: no such job" in out and "1" in out.splitlines() and "FOO: unknown signal" in out


def test_trap_runs_on_signals_and_exit(sh):
    code, out = sh("trap 'echo bye' EXIT; trap 'echo got-term' TERM; kill $$; echo after; exit 4")
    assert code == 4 and out.splitlines() == ["got-term", "after", "bye"]
    code, out = sh("trap 'echo x' INT; trap; trap - INT; trap; trap '' TERM; kill -TERM $$; echo alive")
    assert out.splitlines() == ["trap -- 'echo x' INT", "alive"]
    code, out = sh("kill -TERM $$; echo never")
    assert code == 143 and "never" not in out
    code, out = sh("trap 'echo x' NOPE")
    assert code == 1 and "trap: bad signal 'NOPE'" in out


def test_here_documents(sh):
    code, out = sh("X=world; cat <<EOF\nhello $X $((1+1))\n\\$X `echo sub`\nEOF\necho next")
    assert out == "hello world 2\n$X sub\nnext\n"
    code, out = sh("cat <<'EOF'\n$HOME `x`\nEOF")
    assert out == "$HOME `x`\n"
    code, out = sh("cat <<-END | wc -l\n\tone\n\ttwo\n\tEND")
    assert out.strip() == "2"
    code, out = sh("cat <<EOF\nno end")
    assert code == 1 and "here document 'EOF' unclosed" in out


def test_adbutils_screenrecord_start_stop_gives_a_valid_mp4(vdevice, tmp_path):
    from emulator.virtual.media import parse_boxes

    d = vdevice.adb
    d.start_recording(str(tmp_path / "rec.mp4"))  # `screenrecord "$1" & PID=$!; read ANY; kill -INT $PID; wait`
    time.sleep(0.3)
    assert d.is_recording()
    d.shell("input keyevent HOME")
    d.stop_recording()
    data = (tmp_path / "rec.mp4").read_bytes()
    kinds = [k for k, _, _ in parse_boxes(data)]  # every box size adds up
    assert kinds[0] == b"ftyp" and b"moov" in kinds and b"mdat" in kinds
    assert "screenrecord" not in d.shell("ps -A -o NAME")  # it ended on SIGINT


def test_screenrecord_in_the_foreground_stops_on_sigint_from_another_shell(vdevice, adb_cli):
    from emulator.virtual.media import parse_boxes

    result = {}
    t = threading.Thread(
        target=lambda: result.update(r=adb_cli("-s", vdevice.serial, "shell", "screenrecord /sdcard/fg.mp4; echo $?"))
    )
    t.start()
    deadline = time.monotonic() + 20
    while "screenrecord" not in vdevice.adb.shell("pidof screenrecord; ps -A -o NAME") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert vdevice.adb.shell("pkill -INT screenrecord; echo $?").strip() == "0"
    t.join(20)
    assert result["r"].stdout.decode().split() == ["0"]  # it finished its file and exited 0
    data = vdevice.adb.sync.read_bytes("/sdcard/fg.mp4")
    assert [k for k, _, _ in parse_boxes(data)][0] == b"ftyp" and b"moov" in data


@pytest.mark.parametrize(
    ("cmd", "out"),
    [
        ("seq 3", "1\n2\n3\n"),
        ("seq 5 -2 -3", "5\n3\n1\n-1\n-3\n"),  # negative step
        ("seq 0 0.25 1", "0.00\n0.25\n0.50\n0.75\n1.00\n"),  # precision from the arguments' decimals
        ("seq 1 0.1 1.3", "1.0\n1.1\n1.2\n1.3\n"),  # first + k * step: no accumulated rounding
        ("seq -w 8 11", "08\n09\n10\n11\n"),
        ("seq -w -5 3 5", "-5\n-2\n01\n04\n"),  # the width of the widest of first, step, last
        ("seq -s , 4", "1,2,3,4\n"),  # the separator goes between items; the output still ends in a newline
        ("seq -s '' -w 1 0.5 2", "1.01.52.0\n"),
        ("seq -f 'n%03g.' 3", "n001.\nn002.\nn003.\n"),
        ("seq -f %e 1 2", "1.000000e+00\n2.000000e+00\n"),
        ("seq 1.5e1 16", "15.0\n16.0\n"),  # upstream's "1.5e1 has one decimal" precision, as toybox keeps it
        ("seq 10 1", ""),
        ("seq 1 0 5", ""),  # a zero step prints nothing (toybox), rather than looping
    ],
)
def test_seq_matches_toybox(sh, cmd, out):
    code, text = sh(cmd)
    assert (code, text) == (0, out)


def test_seq_streams_without_a_cap_and_reports_errors_as_toybox(sh):
    code, out = sh("seq 250000 | tail -1; seq 0.5 0.5 120000 | wc -l")
    assert out.split() == ["250000", "240000"]
    for cmd, message in [
        ("seq", "seq: Needs 1 argument"),
        ("seq 1 2 3 4", "seq: Max 3 arguments"),
        ("seq abc", "seq: strtod abc: Argument list too long"),
        ("seq -f %d 3", "seq: bad -f '%d'@2"),
        ("seq -w -f %g 3", "seq: No 'w' with 'f'"),
    ]:
        code, text = sh(cmd)
        assert (code, text.strip()) == (1, message)
