"""File permissions through the real adb binary: `chmod`/`chown` change what `stat` and `ls -l` show, and the file
system's one access check (`FileSystem.check_access`) decides for the shell user (uid 2000) what `cat`,
redirections, `rm`, `adb pull` and `adb push` may do; root (adb root) passes."""

from __future__ import annotations

import time

import pytest

from emulator.virtual.fs import R_OK, W_OK, FileSystem, FsError
from emulator.virtual.shell.users import ADBD_ROOT, SHELL

pytestmark = pytest.mark.integration

F = "/data/local/tmp/perm_file"


def _sh(adb_cli, serial: str, line: str, *flags: str) -> tuple[int, str, str]:
    r = adb_cli("-s", serial, "shell", *flags, line)
    return r.returncode, r.stdout.decode(), r.stderr.decode()


def _wait_device(adb_server, serial: str, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while adb_server.state(serial) != "device":
        assert time.monotonic() < deadline, adb_server.run("devices").stdout
        time.sleep(0.05)


# --- the file system's check, without adb --------------------------------------------------------------------
def test_check_access_follows_mode_bits_owner_and_groups():
    fs = FileSystem()
    fs.write(F, b"x", owner=(2000, 2000))
    fs.check_access(F, SHELL, R_OK | W_OK)
    fs.chmod(F, 0o000)
    with pytest.raises(FsError) as e:
        fs.check_access(F, SHELL, R_OK)
    assert e.value.message == "Permission denied"
    fs.check_access(F, ADBD_ROOT, R_OK | W_OK)  # root passes
    fs.chmod(F, 0o040)
    fs.chown(F, 0, 1015)  # group sdcard_rw: one of the shell's supplementary groups
    fs.check_access(F, SHELL, R_OK)
    with pytest.raises(FsError):
        fs.check_access(F, SHELL, W_OK)
    with pytest.raises(FsError) as e:  # read-only mounts refuse even root
        fs.check_access("/system/bin/new", ADBD_ROOT, W_OK)
    assert e.value.message == "Read-only file system"
    with pytest.raises(FsError):  # /data is root's: the shell may not make files there
        fs.check_access("/data/new_file", SHELL, W_OK)
    fs.check_access("/data/local/tmp/a/b/c", SHELL, W_OK)  # made under the shell's own directory


def test_chmod_changes_what_stat_and_ls_show(posing_emulator, adb_cli):
    _, serial = posing_emulator
    assert _sh(adb_cli, serial, f"touch {F} && stat -c '%a %U %G' {F}")[1] == "644 shell shell\n"
    assert _sh(adb_cli, serial, f"chmod 600 {F} && stat -c %a {F}")[1] == "600\n"
    assert _sh(adb_cli, serial, f"chmod u+x,go+r {F} && stat -c %a {F}")[1] == "744\n"
    assert _sh(adb_cli, serial, f"chmod a=r {F} && stat -c %A {F}")[1] == "-r--r--r--\n"
    assert _sh(adb_cli, serial, f"chmod a-rwx {F} && ls -l {F}")[1].startswith("---------- 1 shell shell 0 ")
    # -R reaches every file below
    line = "mkdir -p /data/local/tmp/pd/sub && touch /data/local/tmp/pd/sub/f && chmod -R 700 /data/local/tmp/pd"
    assert _sh(adb_cli, serial, line)[0] == 0
    assert _sh(adb_cli, serial, "stat -c %a /data/local/tmp/pd/sub/f")[1] == "700\n"
    # an option after the operands counts, as toybox reads it (AndroidWorld's `chmod 777 -R DIR`); `--` ends them
    assert _sh(adb_cli, serial, "chmod 755 /data/local/tmp/pd -R && stat -c %a /data/local/tmp/pd/sub/f")[1] == "755\n"
    status, _, err = _sh(adb_cli, serial, "chmod 700 -- /data/local/tmp/pd -R")
    assert status == 1 and "-R: No such file or directory" in err
    # not the owner: refused
    status, _, err = _sh(adb_cli, serial, "chmod 777 /data")
    assert status == 1 and "Operation not permitted" in err


def test_mode_000_file_refuses_the_shell_user_but_not_root(posing_emulator, adb_cli, adb_server, tmp_path):
    _, serial = posing_emulator
    assert _sh(adb_cli, serial, f"echo secret > {F} && chmod 000 {F}")[0] == 0
    status, out, err = _sh(adb_cli, serial, f"cat {F}")
    assert (status, out) == (1, "") and err == f"cat: {F}: Permission denied\n"
    status, _, err = _sh(adb_cli, serial, f"echo more >> {F}")
    assert status == 1 and "Permission denied" in err
    r = adb_cli("-s", serial, "pull", F, str(tmp_path / "x"))
    assert r.returncode == 1
    assert b"remote open failed: Permission denied" in r.stdout + r.stderr
    assert not (tmp_path / "x").exists()
    assert _sh(adb_cli, serial, f"cp {F} {F}.copy")[0] == 1  # cp reads it as the shell user too
    # root reads it
    assert "restarting adbd as root" in adb_cli("-s", serial, "root").stdout.decode()
    _wait_device(adb_server, serial)
    assert _sh(adb_cli, serial, f"cat {F}")[1] == "secret\n"
    r = adb_cli("-s", serial, "pull", F, str(tmp_path / "y"))
    assert r.returncode == 0 and (tmp_path / "y").read_bytes() == b"secret\n"


def test_push_into_a_directory_the_shell_may_not_write(posing_emulator, adb_cli, tmp_path):
    _, serial = posing_emulator
    src = tmp_path / "f"
    src.write_bytes(b"data")
    assert _sh(adb_cli, serial, "mkdir /data/local/tmp/locked && chmod 500 /data/local/tmp/locked")[0] == 0
    r = adb_cli("-s", serial, "push", str(src), "/data/local/tmp/locked/f")
    assert r.returncode == 1 and b"Permission denied" in r.stdout + r.stderr
    r = adb_cli("-s", serial, "push", str(src), "/data/local/tmp/f")
    assert r.returncode == 0
    assert _sh(adb_cli, serial, "stat -c '%U %G' /data/local/tmp/f")[1] == "shell shell\n"
    # over a file the shell may not write but whose directory it may: adbd unlinks it first
    assert _sh(adb_cli, serial, "chmod 000 /data/local/tmp/f")[0] == 0
    src.chmod(0o640)
    assert adb_cli("-s", serial, "push", str(src), "/data/local/tmp/f").returncode == 0
    assert _sh(adb_cli, serial, "stat -c %a /data/local/tmp/f; cat /data/local/tmp/f")[1] == "640\ndata"
    status, _, err = _sh(adb_cli, serial, "rm /data/local/tmp/locked/../f; touch /data/local/tmp/locked/g")
    assert status == 1 and "touch: /data/local/tmp/locked/g: Permission denied" in err


def test_chown_is_root_only(posing_emulator, adb_cli, adb_server):
    _, serial = posing_emulator
    assert _sh(adb_cli, serial, f"touch {F}")[0] == 0
    status, _, err = _sh(adb_cli, serial, f"chown root:root {F}")
    assert status == 1
    assert err == f"chown: changing owner:group of '{F}' to 'root:root': Operation not permitted\n"
    assert _sh(adb_cli, serial, f"stat -c '%U:%G' {F}")[1] == "shell:shell\n"
    adb_cli("-s", serial, "root")
    _wait_device(adb_server, serial)
    assert _sh(adb_cli, serial, f"chown system:sdcard_rw {F} && stat -c '%U:%G %u:%g' {F}")[1] == (
        "system:sdcard_rw 1000:1015\n"
    )
    assert _sh(adb_cli, serial, f"chgrp shell {F} && ls -l {F}")[1].split()[2:4] == ["system", "shell"]


def test_run_as_runs_as_the_apps_uid_in_its_own_directory(posing_emulator, adb_cli):
    vd, serial = posing_emulator
    pkg = next(iter(vd.model.packages))
    status, _, err = _sh(adb_cli, serial, f"run-as {pkg} id -un")
    assert status == 1 and err == f"run-as: package not debuggable: {pkg}\n"
    status, _, err = _sh(adb_cli, serial, "run-as com.example.nope id")
    assert status == 1 and err == "run-as: unknown package: com.example.nope\n"
    from emulator.virtual.shell.pkgmeta import PackageMeta

    vd.model.procs.pkg_meta[pkg] = PackageMeta(debuggable=True)
    status, out, _ = _sh(adb_cli, serial, f"run-as {pkg} sh -c 'id -un; pwd; echo note > n; stat -c %U n'")
    uid_name, cwd, owner = out.split()
    assert status == 0 and uid_name.startswith("u0_a") and cwd == f"/data/data/{pkg}" and owner == uid_name
    # the app's directory is the app's: the shell user may not look in
    status, _, err = _sh(adb_cli, serial, f"cat /data/data/{pkg}/n")
    assert status == 1 and "Permission denied" in err
    assert _sh(adb_cli, serial, f"run-as {pkg} cat n")[1] == "note\n"


def test_chmod_modes_as_toybox_reads_them():
    from emulator.virtual.shell.cmd_perms import parse_mode

    assert parse_mode("755", 0o644, False) == 0o755
    assert parse_mode("u+x,go-w", 0o666, False) == 0o744
    assert parse_mode("a=r", 0o777, False) == 0o444
    assert parse_mode("a-rwx", 0o644, False) == 0
    assert parse_mode("+X", 0o644, True) == 0o755  # X: x for directories
    assert parse_mode("+X", 0o644, False) == 0o644  # ... and for files only when someone has x
    assert parse_mode("g=u", 0o640, False) == 0o660
    assert parse_mode("u+s,+t", 0o755, False) == 0o5755
    assert parse_mode("8", 0o644, False) is None and parse_mode("u*x", 0o644, False) is None


def test_test_r_w_x_ask_the_same_check(posing_emulator, adb_cli):
    _, serial = posing_emulator
    line = f"echo x > {F}; chmod 400 {F}; [ -r {F} ] && echo r; [ -w {F} ] || echo not-w; [ -x {F} ] || echo not-x"
    assert _sh(adb_cli, serial, line)[1] == "r\nnot-w\nnot-x\n"
    assert _sh(adb_cli, serial, "[ -w /system/bin ] || echo ro")[1] == "ro\n"


def test_a_missing_operand_fails_chmod_and_chown_but_not_the_others(posing_emulator, adb_cli):
    _, serial = posing_emulator
    assert _sh(adb_cli, serial, f"touch {F}")[0] == 0
    status, _, err = _sh(adb_cli, serial, f"chmod 600 /data/local/tmp/nope {F}")
    assert (status, err) == (1, "chmod: /data/local/tmp/nope: No such file or directory\n")
    assert _sh(adb_cli, serial, f"stat -c %a {F}")[1] == "600\n"  # the file that exists changed all the same
    status, _, err = _sh(adb_cli, serial, f"chown shell /data/local/tmp/nope {F}")
    assert (status, err) == (1, "chown: /data/local/tmp/nope: No such file or directory\n")


def test_every_installed_app_has_its_data_directory_as_installd_makes_it(posing_emulator, adb_cli, adb_server):
    """/data/data/PKG, the app's own (its uid, 0700) with cache/ and code_cache/: what `adb root` then `cp -r` of an
    app's data (AndroidWorld's app snapshots) reads; the shell user may not look in."""
    vd, serial = posing_emulator
    pkg = "com.android.settings"
    status, _, err = _sh(adb_cli, serial, f"ls /data/data/{pkg}")
    assert status == 1 and "Permission denied" in err
    adb_cli("-s", serial, "root")
    _wait_device(adb_server, serial)
    deadline = time.monotonic() + 15
    while _sh(adb_cli, serial, "whoami")[1].strip() != "root":
        assert time.monotonic() < deadline
        time.sleep(0.05)
    status, out, _ = _sh(adb_cli, serial, f"ls -ld /data/data/{pkg}; ls /data/data/{pkg}")
    (
        mode,
        *_,
    ) = out.split()
    assert status == 0 and mode.startswith("drwx------") and "u0_a" in out
    assert out.split("\n", 1)[1].split() == ["cache", "code_cache"]
    status, _, _ = _sh(adb_cli, serial, f"cp -r /data/data/{pkg} /data/local/tmp/snap && ls /data/local/tmp/snap")
    assert status == 0
