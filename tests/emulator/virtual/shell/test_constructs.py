"""The device shell as a shell: loops, tests, `case`, functions, `$(( ))`, `command -v`, `$(...)` wherever mksh
takes it. The one-liners are the kind agent frameworks and test suites send; every expected output below was
written by hand as mksh (Android's /system/bin/sh) prints it. All of it goes through the real adb CLI."""

from __future__ import annotations

import shlex

import pytest

from emulator.virtual import VirtualDeviceModel
from emulator.virtual.shell import run

pytestmark = pytest.mark.timeout(90)

ONE_LINERS = [
    # (command line, stdout, exit status)
    ('for i in 1 2 3; do echo "item $i"; done', "item 1\nitem 2\nitem 3\n", 0),
    ("i=0; while [ $i -lt 3 ]; do echo $i; i=$((i + 1)); done", "0\n1\n2\n", 0),
    ("if [ -d /sdcard ]; then echo dir; elif [ -e /sdcard ]; then echo file; else echo none; fi", "dir\n", 0),
    (
        "echo $(( (7 + 3) * 4 / 3 % 5 )) $((1 << 4)) $((-7 / 2)) $((-7 % 2)) $((0x1F)) $((2147483647 + 1))",
        "3 16 -3 -1 31 -2147483648\n",
        0,
    ),
    ("command -v ls; command -v cd; command -v no_such_tool || echo missing", "/system/bin/ls\ncd\nmissing\n", 0),
    ('[ -n "$(pidof com.android.settings)" ] && echo running || echo stopped', "stopped\n", 0),
    ('case "$(getprop ro.product.cpu.abi)" in arm64*) echo arm;; x86_64) echo x86;; *) echo other;; esac', "x86\n", 0),
    ('until [ "$(getprop sys.boot_completed)" = 1 ]; do sleep 1; done; echo booted', "booted\n", 0),
    (
        "mkdir -p /sdcard/t && touch /sdcard/t/a /sdcard/t/b /sdcard/t/c && n=0; "
        "for f in /sdcard/t/*; do n=$((n + 1)); done; echo $n ${f##*/} ${f%/*}",
        "3 c /sdcard/t\n",
        0,
    ),
    ("for p in $(pm list packages | grep settings); do echo ${p#package:}; done", "com.android.settings\n", 0),
    ('f() { echo "$#:$1"; return 3; }; f "a b" c; echo $?', "2:a b\n3\n", 0),
    (
        "for i in 1 2 3; do for j in a b c; do [ $j = b ] && continue 2; [ $i = 3 ] && break 2; echo $i$j; done; "
        "done; echo end",
        "1a\n2a\nend\n",
        0,
    ),
    (
        "type ls echo if nosuch_cmd; echo $?",
        "ls is /system/bin/ls\necho is a shell builtin\nif is a reserved word\nnosuch_cmd not found\n1\n",
        0,
    ),
    ('x=5; [[ $x -gt 3 && $(echo ab) == a* ]] && echo big; [[ ab == "a*" ]] || echo literal', "big\nliteral\n", 0),
    (
        "pm list packages | while read line; do case $line in *settings) echo found ${line#*:};; esac; done",
        "found com.android.settings\n",
        0,
    ),
    ("echo $((1 / 0)); echo not reached", "", 1),
]


@pytest.fixture
def sh(vdevice, adb_cli):
    def run_cmd(line: str) -> tuple[str, str, int]:
        r = adb_cli("-s", vdevice.serial, "shell", line)
        return r.stdout.decode(), r.stderr.decode(), r.returncode

    return run_cmd


@pytest.mark.parametrize("line,stdout,status", ONE_LINERS, ids=[str(i) for i in range(len(ONE_LINERS))])
def test_agent_one_liners_as_mksh_prints_them(sh, line, stdout, status):
    out, err, rc = sh(line)
    assert (out, rc) == (stdout, status), err


def test_arithmetic_error_message_and_running_app_pidof(sh, vdevice):
    out, err, rc = sh("echo $((1 / 0))")
    assert (out, err, rc) == ("", "/system/bin/sh: 1 / 0: zero divisor\n", 1)
    vdevice.adb.shell("am start -n com.android.settings/.Settings")
    assert sh('[ -n "$(pidof com.android.settings)" ] && echo running || echo stopped')[0] == "running\n"


def test_command_substitution_wherever_mksh_takes_it(sh, vdevice):
    lines = {
        "x=$(echo assigned); echo $x": "assigned\n",
        'echo "in quotes: $(echo q)" `echo backticks`': "in quotes: q backticks\n",
        "echo ${unset_var:-$(echo default)}": "default\n",
        "echo $(( $(echo 3) + 1 ))": "4\n",
        "for w in $(echo a b); do echo $w; done": "a\nb\n",
        "case $(echo k) in k) echo case-word;; esac": "case-word\n",
        "if $(echo true); then echo cond; fi": "cond\n",
        "[[ $(echo z) = z ]] && echo dbl": "dbl\n",
        "echo hi > $(echo /sdcard/target.txt); cat /sdcard/target.txt": "hi\n",
        "echo $(echo $(echo nested) twice)": "nested twice\n",
        "echo $( (echo sub; echo shell) | wc -l)": "2\n",
    }
    for line, expected in lines.items():
        assert sh(line)[0] == expected, line
    assert vdevice.model.fs.read("/sdcard/target.txt") == b"hi\n"


def test_quoted_constructs_are_data_never_commands(vdevice):
    model = vdevice.model
    mark = model.events.mark()
    texts = [
        "for i in 1; do reboot; done",
        "$((1+1)) $(reboot)",
        "if true; then reboot; fi",
        "`reboot`",
        "case x in x) reboot;; esac",
        "f() { reboot; }; f",
        "[[ -n x ]] && reboot",
        "while :; do reboot; done",
    ]
    for text in texts:
        assert vdevice.adb.shell("echo " + shlex.quote(text)) == text
        assert vdevice.adb.shell("x=" + shlex.quote(text) + '; echo "$x"') == text
    ran = {e.data["argv"][0] for e in model.events.since(mark, "exec")}
    assert "reboot" not in ran and not model.events.since(mark, "reboot")


def test_syntax_errors_are_reported_like_mksh():
    model = VirtualDeviceModel()

    class IO:
        def __init__(self):
            self.err = bytearray()
            self.closed = False

        def read_stdin(self, n=-1, timeout=None):
            return b""

        def write_stdout(self, data):
            pass

        def write_stderr(self, data):
            self.err += data

        def wait_closed(self, timeout=None):
            return True

    for line, message in [
        ("for i in 1 2; do echo $i", "syntax error: unmatched 'for'"),
        ("if true; then echo x; done", "syntax error: unexpected 'done'"),
        ("echo a;; echo b", "syntax error: unexpected ';;'"),
        ("while true; do; done", "syntax error: unexpected ';'"),
    ]:
        io = IO()
        assert run(model, line, io) == 1
        assert io.err.decode() == f"/system/bin/sh: {message}\n", line


def test_interactive_shell_reads_a_compound_command_over_several_lines(vdevice):
    conn = vdevice.adb.open_transport()
    conn.send_command("shell,raw:")  # `adb shell -T` without a command: no terminal
    conn.check_okay()
    conn.conn.sendall(b"for i in 1 2\ndo\n  echo line $i\ndone\necho 'two\nlines'\nexit\n")
    out = bytearray()
    while True:
        chunk = conn.conn.recv(4096)
        if not chunk:
            break
        out += chunk
    conn.close()
    assert out.decode() == "line 1\nline 2\ntwo\nlines\n"


# --- arithmetic: precedence from Python's own parser (C and Python agree for these operators), C semantics ----
import ast  # noqa: E402

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from emulator.virtual.shell.arith import ArithError, evaluate  # noqa: E402

_OPS = ["+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^"]


def _c_eval(node: ast.AST) -> int:
    def wrap(v: int) -> int:
        v &= 0xFFFFFFFF
        return v - (1 << 32) if v & 0x80000000 else v

    if isinstance(node, ast.Expression):
        return _c_eval(node.body)
    if isinstance(node, ast.Constant):
        return wrap(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return wrap(-_c_eval(node.operand))
    assert isinstance(node, ast.BinOp)
    a, b = _c_eval(node.left), _c_eval(node.right)
    op = type(node.op)
    if op in (ast.FloorDiv, ast.Mod):
        if b == 0:
            raise ZeroDivisionError
        q = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)
        return wrap(q if op is ast.FloorDiv else a - q * b)
    return wrap(
        {
            ast.Add: a + b,
            ast.Sub: a - b,
            ast.Mult: a * b,
            ast.LShift: a << (b & 31),
            ast.RShift: a >> (b & 31),
            ast.BitAnd: a & b,
            ast.BitOr: a | b,
            ast.BitXor: a ^ b,
        }[op]
    )


_exprs = st.recursive(
    st.integers(0, 2_000_000).map(str),
    lambda inner: st.one_of(
        st.tuples(inner, st.sampled_from(_OPS), inner).map(lambda t: f"{t[0]} {t[1]} {t[2]}"),
        inner.map(lambda e: f"({e})"),
    ),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_exprs)
def test_arithmetic_matches_c_semantics(expr):
    tree = ast.parse(expr.replace("/", "//"), mode="eval")
    try:
        expected = _c_eval(tree)
    except ZeroDivisionError:
        with pytest.raises(ArithError, match="zero divisor"):
            evaluate(expr, {}.get, lambda k, v: None)
        return
    assert evaluate(expr, {}.get, lambda k, v: None) == expected
