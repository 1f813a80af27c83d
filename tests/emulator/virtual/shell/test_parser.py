"""The mini shell's parser and runner, in process: quoting, expansions, lists, pipes, redirections, syntax
errors, and hostile text that must stay data (proved through `model.events` "exec" records)."""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from emulator.virtual.model import VirtualDeviceModel
from emulator.virtual.shell import run
from emulator.virtual.shell.parser import ShellSyntaxError, parse


@dataclass
class FakeIO:
    """A ShellIO over memory: stdin bytes, separate stdout/stderr buffers."""

    stdin: bytes = b""
    out: bytearray = field(default_factory=bytearray)
    err: bytearray = field(default_factory=bytearray)
    is_closed: bool = False

    def read_stdin(self, n: int = -1, timeout: float | None = None) -> bytes:
        data = self.stdin if n is None or n < 0 else self.stdin[:n]
        self.stdin = self.stdin[len(data) :]
        return data

    def write_stdout(self, data: bytes) -> None:
        self.out.extend(data)

    def write_stderr(self, data: bytes) -> None:
        self.err.extend(data)

    @property
    def closed(self) -> bool:
        return self.is_closed

    def wait_closed(self, timeout: float | None = None) -> bool:
        return self.is_closed


@dataclass
class Result:
    status: int
    out: str
    err: str
    argvs: list[list[str]]


@pytest.fixture(scope="module")
def model() -> VirtualDeviceModel:
    return VirtualDeviceModel()


def sh(model: VirtualDeviceModel, line: str, stdin: bytes = b"") -> Result:
    mark = model.events.mark()
    io = FakeIO(stdin=stdin)
    status = run(model, line, io)
    argvs = [list(e.data["argv"]) for e in model.events.since(mark, "exec")]
    return Result(status, io.out.decode("utf-8", "replace"), io.err.decode("utf-8", "replace"), argvs)


def programs(r: Result) -> list[str]:
    return [a[0] for a in r.argvs]


# --- quoting -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "line, argv",
    [
        ("echo a b", ["echo", "a", "b"]),
        ("echo 'a  b'", ["echo", "a  b"]),
        ('echo "a  b"', ["echo", "a  b"]),
        (r'echo "a \"q\" \$HOME \\ \x"', ["echo", r'a "q" $HOME \ \x']),
        (r"echo a\ b c\;d", ["echo", "a b", "c;d"]),
        ("echo 'it'\\''s'", ["echo", "it's"]),
        ('echo ""', ["echo", ""]),
        ("echo ''x''", ["echo", "x"]),
        ("echo a'b'\"c\"d", ["echo", "abcd"]),
        ("echo '$(reboot)' '`reboot`' \"\\$(reboot)\"", ["echo", "$(reboot)", "`reboot`", "$(reboot)"]),
        ("echo ';reboot' '&&' '|' '>x'", ["echo", ";reboot", "&&", "|", ">x"]),
        ("echo a#b #comment; reboot", ["echo", "a#b"]),
        ("echo 'line1\nline2'", ["echo", "line1\nline2"]),
        ("echo a\\\nb", ["echo", "ab"]),
    ],
)
def test_quoting_reaches_the_program_verbatim(model, line, argv):
    r = sh(model, line)
    assert r.argvs == [argv]
    assert "reboot" not in programs(r)


def test_variables_and_status(model):
    r = sh(model, "X=1; echo $X ${X} \"$X\" '$X'; false; echo $?; true; echo $?")
    assert r.out == "1 1 1 $X\n1\n0\n"
    r = sh(model, "echo ${UNSET:-dflt} ${HOME} ${#HOME} $UNSET.")
    assert r.out == "dflt / 1 .\n"


def test_var_prefix_is_an_environment_not_an_assignment(model):
    r = sh(model, "FOO=bar env | grep FOO; echo [$FOO]")
    assert r.out == "FOO=bar\n[]\n"
    assert r.argvs[0] == ["env"]


def test_unquoted_expansion_is_field_split_quoted_is_not(model):
    r = sh(model, 'V="a  b"; printf "<%s>" $V; printf "<%s>" "$V"')
    assert r.out == "<a><b><a  b>"


def test_command_substitution_runs_through_the_shell(model):
    r = sh(model, 'echo "sdk=$(getprop ro.build.version.sdk)" `echo hi`')
    assert r.out == "sdk=34 hi\n"
    assert programs(r) == ["getprop", "echo", "echo"]


def test_substitution_inside_single_quotes_never_runs(model):
    r = sh(model, "echo '$(reboot)' '`reboot`' '${HOME}'")
    assert r.out == "$(reboot) `reboot` ${HOME}\n"
    assert programs(r) == ["echo"]


# --- lists -------------------------------------------------------------------------------------------
def test_and_or_semicolon(model):
    r = sh(model, "false && echo no; true && echo yes || echo no2; false || echo alt")
    assert r.out == "yes\nalt\n"
    assert programs(r) == ["false", "true", "echo", "false", "echo"]


def test_exit_status_of_last_and_negation(model):
    assert sh(model, "true; false").status == 1
    assert sh(model, "! false").status == 0
    assert sh(model, "exit 3; echo never").status == 3


def test_adbutils_shell2_suffix(model):
    r = sh(model, "ls /nonexistent; echo X4EXIT:$?")
    assert r.out.endswith("X4EXIT:1\n")


def test_newlines_separate_commands(model):
    r = sh(model, "echo a\necho b\n\n")
    assert r.out == "a\nb\n"


def test_subshell_and_group(model):
    r = sh(model, "(cd /sdcard; pwd); pwd; { echo x; echo y; } | wc -l")
    assert r.out == "/sdcard\n/\n2\n"


# --- pipes and redirections --------------------------------------------------------------------------
def test_pipes(model):
    r = sh(model, "getprop | grep ro.product.model | head -n 1")
    assert r.out == "[ro.product.model]: [Medium Phone]\n"
    assert sh(model, "printf 'a\\nb\\nc\\n' | wc -l").out.strip() == "3"
    assert sh(model, "printf 'k=v\\n' | cut -d= -f2").out == "v\n"
    assert sh(model, "echo abc | grep -q zzz").status == 1


def test_redirections_into_the_fs(model):
    r = sh(model, "echo one > /data/local/tmp/r.txt; echo two >> /data/local/tmp/r.txt; cat < /data/local/tmp/r.txt")
    assert r.out == "one\ntwo\n"
    assert model.fs.read("/data/local/tmp/r.txt") == b"one\ntwo\n"
    r = sh(model, "ls /nope 2>/dev/null; echo after")
    assert r.out == "after\n" and r.err == ""
    r = sh(model, "ls /nope 2>&1 | grep -c 'No such file'")
    assert r.out == "1\n"
    r = sh(model, "ls /nope > /data/local/tmp/o.txt 2>&1; cat /data/local/tmp/o.txt")
    assert "No such file or directory" in r.out
    r = sh(model, "echo x > /system/evil")
    assert r.status == 1 and "can't create /system/evil" in r.err
    r = sh(model, "cat < /missing")
    assert r.status == 1 and "can't open /missing" in r.err


def test_globs_match_the_fs_and_quoted_stars_stay(model):
    model.fs.write("/sdcard/Download/g1.png", b"1")
    model.fs.write("/sdcard/Download/g2.png", b"2")
    r = sh(model, "echo /sdcard/Download/g*.png '/sdcard/Download/g*.png' /sdcard/none*")
    assert r.out == "/sdcard/Download/g1.png /sdcard/Download/g2.png /sdcard/Download/g*.png /sdcard/none*\n"


def test_toybox_and_busybox_prefix(model):
    model.fs.write("/data/local/tmp/f", b"abc")
    r = sh(model, "toybox md5sum /data/local/tmp/f")
    assert r.out == "900150983cd24fb0d6963f7d28e17f72  /data/local/tmp/f\n"
    assert r.argvs == [["toybox", "md5sum", "/data/local/tmp/f"]]
    assert sh(model, "busybox echo hi").out == "hi\n"
    assert sh(model, "/system/bin/echo hi").out == "hi\n"


def test_sh_c_and_eval(model):
    assert sh(model, "sh -c 'echo a; echo b'").out == "a\nb\n"
    assert sh(model, "eval 'echo x'").out == "x\n"


# --- errors ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "line, message",
    [
        ("echo 'abc", "no closing quote"),
        ('echo "abc', "no closing quote"),
        ("echo )", "syntax error: unexpected ')'"),
        ("| echo", "syntax error: unexpected '|'"),
        ("echo a &&", "syntax error: unexpected EOF"),
        ("echo a ;; echo b", "syntax error: unexpected ';;'"),
        ("echo $(echo a", "syntax error: unexpected EOF"),
        ("echo >", "syntax error: unexpected EOF"),
    ],
)
def test_syntax_errors_run_nothing(model, line, message):
    r = sh(model, line)
    assert r.status == 1
    assert r.err == f"/system/bin/sh: {message}\n"
    assert r.argvs == []


def test_parse_raises_typed_error():
    with pytest.raises(ShellSyntaxError):
        parse("echo 'x")
    assert parse("a; b && c | d").items


def test_unknown_command(model):
    r = sh(model, "frobnicate --now; echo $?")
    assert r.err == "/system/bin/sh: frobnicate: inaccessible or not found\n"
    assert r.out == "127\n"


def test_reboot_is_refused_but_logged(model):
    mark = model.events.mark()
    r = sh(model, "reboot")
    assert r.status != 0
    assert model.events.since(mark, "reboot")


def test_never_raises_on_garbage(model):
    for line in [
        "",
        "   ",
        ";",
        "&&",
        "((((",
        "${",
        "$((1+1))",
        "\x00\x01",
        "'" * 101,
        "echo $" + "(" * 50,
        "cat <",
        ">>",
        "2>&",
        "echo >&foo",
        "if true; then echo; fi",
        "\\",
    ]:
        r = sh(model, line)
        assert isinstance(r.status, int) and 0 <= r.status <= 255


# --- hostile text as data (what a harness sends through shlex.quote / adbutils list2cmdline) -------------
HOSTILE = [
    "'; reboot; '",
    '"; reboot; "',
    "$(reboot)",
    "`reboot`",
    "a && reboot",
    "a || reboot",
    "a | reboot",
    "> /sdcard/pwned",
    "line1\nreboot",
    "50%soff",
    "tab\there",
    "emoji 😀🎉",
    "中文 你好",
    "x" * 2000,
    "\\'\\\"\\\\",
    "$HOME ${HOME} $?",
    "*",
    "~",
    "#not a comment",
    "&",
    "a;b",
    "(x)",
    "{ y; }",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_text_reaches_echo_verbatim(model, text):
    r = sh(model, "printf %s " + shlex.quote(text))
    assert r.argvs == [["printf", "%s", text]]
    assert r.out == text
    assert not model.fs.exists("/sdcard/pwned")


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=80))
def test_any_quoted_text_is_one_argument(model, text):
    r = sh(model, "printf %s " + shlex.quote(text))
    assert r.argvs == [["printf", "%s", text]]
    assert r.out == text


def test_a_line_parsed_again_is_the_same_tree_and_runs_the_same(model):
    """`parse` keeps the trees of lines it parsed lately (a harness sends the same lines every step): the tree is
    shared, so running it must leave it as it was - a loop, a function and a here document run twice alike."""
    from emulator.virtual.shell.parser import parse

    line = 'f() { echo "f:$1"; }; for i in 1 2; do f $i; done; i=$((i + 1)); cat <<EOF\nhere $i\nEOF'
    assert parse(line) is parse(line)
    first, again = sh(model, line), sh(model, line)
    assert first.out == again.out == "f:1\nf:2\nhere 3\n" and first.status == again.status == 0
