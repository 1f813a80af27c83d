"""File commands over the in-memory file system (toybox applets): ls, cat, rm, mkdir, touch, md5sum, cp, mv,
chmod, chown. Messages follow toybox: `cmd: PATH: strerror`. (stat, find, df, realpath: `cmd_fileinfo`.)"""

from __future__ import annotations

import hashlib
import posixpath
import stat as statmod
from datetime import datetime, tzinfo

from ..fs import R_OK, FsError, Node
from .cmd_identity import shown_zone
from .registry import Ctx, command, fs_error_text, owner_names, split_opts


def _long_line(zone: tzinfo, name: str, node: Node, numeric: bool = False, full_time: bool = False) -> str:
    """One `ls -l` line; `full_time` (`-ll`, `--full-time`): the time to the nanosecond and the zone offset, as
    toybox prints it (`2023-11-28 23:17:43.000000000 +0000`; the file system keeps whole seconds). The file system
    keeps one time per file, so `-u` (access) and `-c` (change) show it too."""
    user, group = (str(node.uid), str(node.gid)) if numeric else owner_names(node)
    when = datetime.fromtimestamp(node.mtime, zone)
    mtime = when.strftime("%Y-%m-%d %H:%M:%S.000000000 %z" if full_time else "%Y-%m-%d %H:%M")
    nlink = 2 if node.is_dir else 1
    size = f"{node.rdev >> 8:>3}, {node.rdev & 0xFF:>3}" if node.is_chr else str(node.size)
    return f"{statmod.filemode(node.mode)} {nlink} {user} {group} {size} {mtime} {name}"


@command("ls", toybox=True)
def ls(ctx: Ctx, argv: list[str]) -> int:
    opts, args = split_opts(argv)
    full_time = opts.count("l") > 1 or "--full-time" in argv[1:]
    long_ = "l" in opts or "n" in opts or full_time
    zone = shown_zone(ctx, utc=False)  # the times in the device's local time, as bionic's localtime gives them
    show_all, almost = "a" in opts, "A" in opts
    targets = args or ["."]
    status = 0
    fs = ctx.model.fs
    files: list[tuple[str, str, Node]] = []
    dirs: list[tuple[str, str]] = []
    for t in targets:
        p = ctx.path(t)
        node = fs.stat(p)
        if node is None:
            ctx.errln(f"ls: {t}: No such file or directory")
            status = 1
        elif node.is_dir and "d" not in opts:
            dirs.append((t, p))
        else:
            files.append((p, t, node))

    def emit(entries: list[tuple[str, str, Node]]) -> None:
        if "t" in opts:
            entries.sort(key=lambda e: -e[2].mtime)
        elif "S" in opts:
            entries.sort(key=lambda e: -e[2].size)
        if "r" in opts:
            entries.reverse()
        for _, name, node in entries:
            if long_:
                ctx.outln(_long_line(zone, name, node, numeric="n" in opts, full_time=full_time))
            else:
                ctx.outln(name + ("/" if "F" in opts and node.is_dir else ""))

    emit(files)
    for i, (t, p) in enumerate(dirs):
        if len(targets) > 1:
            ctx.out(("\n" if files or i else "") + f"{t}:\n")
        try:
            fs.check_access(p, ctx.state.user, R_OK)
            children = fs.listdir(p)
        except (FsError, OSError) as e:
            ctx.errln(f"ls: {t}: {fs_error_text(e)}")
            status = 1
            continue
        entries = [
            (posixpath.join(p, n), n, node) for n, node in children if show_all or almost or not n.startswith(".")
        ]
        if show_all:
            here = fs.stat(p)
            parent = fs.stat(posixpath.dirname(p)) or here
            assert here is not None and parent is not None
            entries = [(p, ".", here), (posixpath.dirname(p), "..", parent)] + entries
        if long_:
            blocks = sum((n.size + 4095) // 4096 * 4 for _, _, n in entries)
            ctx.outln(f"total {blocks}")
        emit(entries)
    return status


@command("cat", toybox=True)
def cat(ctx: Ctx, argv: list[str]) -> int:
    _, files = split_opts(argv)
    if not files:
        while True:
            chunk = ctx.io.read_stdin(-1)
            if not chunk:
                return 0
            ctx.io.write_stdout(chunk)
    status = 0
    for f in files:
        if f == "-":
            ctx.io.write_stdout(ctx.stdin_all())
            continue
        try:
            ctx.io.write_stdout(ctx.read_file(f))
        except (FsError, OSError) as e:
            ctx.errln(f"cat: {f}: {fs_error_text(e)}")
            status = 1
    return status


@command("rm", toybox=True)
def rm(ctx: Ctx, argv: list[str]) -> int:
    opts, args = split_opts(argv)
    force, recursive = "f" in opts, "r" in opts or "R" in opts
    if not args and not force:
        ctx.errln("rm: Needs 1 argument")
        return 1
    status = 0
    for a in args:
        p = ctx.path(a)
        node = ctx.model.fs.stat(p)
        if node is None:
            if not force:
                ctx.errln(f"rm: {a}: No such file or directory")
                status = 1
            continue
        denied = ctx.remove_error(p)
        if denied:
            ctx.errln(f"rm: {a}: {denied}")
            status = 1
            continue
        if node.is_dir and not recursive:
            ctx.errln(f"rm: {a}: Is a directory")
            status = 1
            continue
        try:
            ctx.model.fs.remove(p, recursive=recursive)
        except (FsError, OSError) as e:
            ctx.errln(f"rm: {a}: {fs_error_text(e)}")
            status = 1
    return status


@command("rmdir", toybox=True)
def rmdir(ctx: Ctx, argv: list[str]) -> int:
    _, args = split_opts(argv)
    status = 0
    for a in args:
        p = ctx.path(a)
        node = ctx.model.fs.stat(p)
        err = None
        if node is None:
            err = "No such file or directory"
        elif not node.is_dir:
            err = "Not a directory"
        elif node.children:
            err = "Directory not empty"
        else:
            err = ctx.remove_error(p)
        if err:
            ctx.errln(f"rmdir: {a}: {err}")
            status = 1
        else:
            ctx.model.fs.remove(p, recursive=True)
    return status


@command("mkdir", toybox=True)
def mkdir(ctx: Ctx, argv: list[str]) -> int:
    opts, args = split_opts(argv)
    args = [a for a in args if not a.isdigit() or "m" not in opts]
    status = 0
    for a in args:
        p = ctx.path(a)
        denied = ctx.write_error(p)
        if denied and not (ctx.model.fs.is_dir(p) and "p" in opts):
            ctx.errln(f"mkdir: {a}: {denied}")
            status = 1
            continue
        try:
            ctx.model.fs.mkdir(p, parents="p" in opts, owner=ctx.owner)
        except (FsError, OSError) as e:
            ctx.errln(f"mkdir: {a}: {fs_error_text(e)}")
            status = 1
    return status


@command("touch", toybox=True)
def touch(ctx: Ctx, argv: list[str]) -> int:
    _, args = split_opts(argv)
    status = 0
    for a in args:
        p = ctx.path(a)
        denied = ctx.write_error(p)
        if denied:
            ctx.errln(f"touch: {a}: {denied}")
            status = 1
            continue
        try:
            if ctx.model.fs.is_dir(p):
                continue
            ctx.model.fs.write(p, b"", append=True, owner=ctx.owner)
        except (FsError, OSError) as e:
            ctx.errln(f"touch: {a}: {fs_error_text(e)}")
            status = 1
    return status


def _hashsum(algo: str):
    def cmd(ctx: Ctx, argv: list[str]) -> int:
        _, args = split_opts(argv)
        status = 0
        if not args:
            ctx.outln(f"{hashlib.new(algo, ctx.stdin_all()).hexdigest()}  -")
            return 0
        for a in args:
            try:
                data = ctx.read_file(a)
            except (FsError, OSError) as e:
                ctx.errln(f"{argv[0]}: {a}: {fs_error_text(e)}")
                status = 1
                continue
            ctx.outln(f"{hashlib.new(algo, data).hexdigest()}  {a}")
        return status

    return cmd


command("md5sum", toybox=True)(_hashsum("md5"))
command("sha1sum", toybox=True)(_hashsum("sha1"))
command("sha256sum", toybox=True)(_hashsum("sha256"))


def _copy(ctx: Ctx, src: str, dst: str, recursive: bool, preserve: bool = False) -> None:
    """Copy a file (a directory with `recursive`) to `dst`. With `preserve` (`cp -a`, `-p`) the copy keeps the
    source's mode and modification time, and - for root, who may give files away - its owner."""
    fs = ctx.model.fs
    node = fs.stat(src)
    if node is None:
        raise FsError(2, src)
    owner = (node.uid, node.gid) if preserve and ctx.state.user.uid == 0 else ctx.owner
    if node.is_dir:
        if not recursive:
            raise FsError(21, src)
        fs.mkdir(dst, parents=True, owner=owner)
        for name, _ in fs.listdir(src):
            _copy(ctx, posixpath.join(src, name), posixpath.join(dst, name), recursive, preserve)
        if preserve:
            fs.chmod(dst, statmod.S_IMODE(node.mode))
        return
    fs.write(dst, ctx.read_file(src), mode=statmod.S_IMODE(node.mode), owner=owner)
    if preserve:
        written = fs.stat(dst)
        if written is not None:
            written.mtime = node.mtime


def _copy_or_move(ctx: Ctx, argv: list[str], move: bool) -> int:
    opts, args = split_opts(argv)
    name = argv[0]
    if len(args) < 2:
        ctx.errln(f"{name}: Needs 2 arguments")
        return 1
    *srcs, dst = args
    dst_p = ctx.path(dst)
    status = 0
    for s in srcs:
        src_p = ctx.path(s)
        # into a directory: under the operand's last name as typed (`cp -a SRC/. DST`: SRC's contents into DST)
        last = posixpath.basename(s.rstrip("/")) or posixpath.basename(src_p)
        target = posixpath.normpath(posixpath.join(dst_p, last)) if ctx.model.fs.is_dir(dst_p) else dst_p
        denied = ctx.write_error(target) or (ctx.remove_error(src_p) if move else None)
        if denied:
            ctx.errln(f"{name}: {dst}: {denied}")
            status = 1
            continue
        try:
            recursive = move or "r" in opts or "R" in opts or "a" in opts
            _copy(ctx, src_p, target, recursive, preserve=move or "a" in opts or "p" in opts)
            if move:
                ctx.model.fs.remove(src_p, recursive=True)
        except (FsError, OSError) as e:
            ctx.errln(f"{name}: {s}: {fs_error_text(e)}")
            status = 1
    return status


@command("cp", toybox=True)
def cp(ctx: Ctx, argv: list[str]) -> int:
    return _copy_or_move(ctx, argv, move=False)


@command("mv", toybox=True)
def mv(ctx: Ctx, argv: list[str]) -> int:
    return _copy_or_move(ctx, argv, move=True)


@command("chcon", "restorecon", "sync", toybox=True)
def chcon(ctx: Ctx, argv: list[str]) -> int:
    """Accepted and ignored (the in-memory fs keeps no SELinux labels); missing files still fail."""
    _, args = split_opts(argv)
    status = 0
    for a in args[1:] if argv[0] not in ("restorecon", "sync") else args:
        if not ctx.model.fs.exists(ctx.path(a)):
            ctx.errln(f"{argv[0]}: {a}: No such file or directory")
            status = 1
    return status
