"""File information (toybox applets): stat, realpath/readlink, df (find: `cmd_find`)."""

from __future__ import annotations

import stat as statmod
import time

from .registry import Ctx, command, owner_names, split_opts


@command("stat", toybox=True)
def stat(ctx: Ctx, argv: list[str]) -> int:
    args = argv[1:]
    fmt = None
    if len(args) >= 2 and args[0] in ("-c", "--format"):
        fmt, args = args[1], args[2:]
    status = 0
    for a in args:
        p = ctx.path(a)
        node = ctx.model.fs.stat(p)
        if node is None:
            ctx.errln(f"stat: {a}: No such file or directory")
            status = 1
            continue
        kind = "directory" if node.is_dir else ("regular empty file" if not node.size else "regular file")
        kind = "character special file" if node.is_chr else kind
        user, group = owner_names(node)
        if fmt is not None:
            vals = {
                "s": str(node.size),
                "n": a,
                "Y": str(node.mtime),
                "a": format(statmod.S_IMODE(node.mode), "o"),
                "A": statmod.filemode(node.mode),
                "F": kind,
                "U": user,
                "G": group,
                "u": str(node.uid),
                "g": str(node.gid),
                "%": "%",
            }
            out, i = [], 0
            while i < len(fmt):
                if fmt[i] == "%" and i + 1 < len(fmt):
                    out.append(vals.get(fmt[i + 1], "?"))
                    i += 2
                else:
                    out.append(fmt[i])
                    i += 1
            ctx.outln("".join(out))
            continue
        ts = time.strftime("%Y-%m-%d %H:%M:%S.000000000 %z", time.localtime(node.mtime))
        ctx.out(
            f"  File: {a}\n  Size: {node.size}\t Blocks: {(node.size + 511) // 512}\t IO Blocks: 4096\t{kind}\n"
            f"Device: fd05h/64773d\t Inode: {abs(hash(p)) % 900000 + 1000}\t Links: {2 if node.is_dir else 1}\n"
            f"Access: (0{format(statmod.S_IMODE(node.mode), 'o')}/{statmod.filemode(node.mode)})\t"
            f"Uid: ({node.uid:5d}/{user:>8})\tGid: ({node.gid:5d}/{group:>8})\n"
            f"Access: {ts}\nModify: {ts}\nChange: {ts}\n"
        )
    return status


@command("realpath", "readlink", toybox=True)
def realpath(ctx: Ctx, argv: list[str]) -> int:
    _, args = split_opts(argv)
    for a in args:
        ctx.outln(ctx.path(a))
    return 0


@command("df", toybox=True)
def df(ctx: Ctx, argv: list[str]) -> int:
    rows = [
        ("/dev/block/dm-5", 6095800, 6059012, 20188, "/"),
        ("tmpfs", 3995112, 1620, 3993492, "/dev"),
        ("/dev/block/dm-47", 115645268, 9786624, 105727572, "/data"),
        ("/dev/fuse", 115645268, 9786624, 105727572, "/storage/emulated"),
    ]
    human = "h" in split_opts(argv)[0]
    ctx.outln(
        "Filesystem       "
        + ("  Size  Used Avail Use% Mounted on" if human else "1K-blocks    Used Available Use% Mounted on")
    )
    for fsname, total, used, avail, mnt in rows:
        pct = f"{(used * 100 + total - 1) // total}%"
        if human:

            def h(k: int) -> str:
                return f"{k / 1048576:.1f}G" if k >= 1048576 else f"{k // 1024}M"

            ctx.outln(f"{fsname:<16} {h(total):>5} {h(used):>5} {h(avail):>5} {pct:>4} {mnt}")
        else:
            ctx.outln(f"{fsname:<16} {total:>9} {used:>7} {avail:>9} {pct:>4} {mnt}")
    return 0
