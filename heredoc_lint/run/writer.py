"""Writing fixed files: atomically, with mode, owner, extended attributes, encoding and
line ends kept.

A file is replaced by a rename of a complete temp file, so it is never half-written.
A file with several hard links cannot be replaced without cutting the links: it is
rewritten in place instead, after a copy of its old bytes is kept beside it
(`.NAME.backup-XXXX.heredoc-lint`), which is removed once the new bytes are on disk (or,
when they cannot be written, once it is put back) and stays, for the user, only if the
process dies in between or even putting it back fails. Temp files that a killed run
left beside a file (older than a minute) are removed when that file is fixed again.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
import time
from pathlib import Path

from heredoc_lint.model import NewFile
from heredoc_lint.run.discover import TEMP_SUFFIX

BACKUP_MARK = ".backup-"  # in a temp file's name: the old bytes of a file rewritten in place
STALE_SECONDS = 60  # a temp file this old beside its target was left by a killed run


class WriteError(Exception):
    """A file could not be written; the message is one line for the user."""


def encode(text: str, encoding: str) -> bytes:
    if encoding == "utf-8-sig":
        return b"\xef\xbb\xbf" + text.encode("utf-8", "surrogateescape")
    return text.encode(encoding, "surrogateescape")


def _fsync_dir(directory: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def replace_atomically(path: Path, data: bytes, expected: bytes | None) -> None:
    """Replace `path` with `data` through a temp file and a rename.

    `expected` is the content read before fixing: if the file changed since,
    someone else wrote it, and it is left alone.  A symbolic link is written
    through (its target is replaced, the link stays a link).  The temp file is a
    dot-file named `.NAME.XXXX.heredoc-lint` beside the target: if the process
    dies before the rename, the original is untouched and only that file remains.
    """
    path = Path(os.path.realpath(path))
    try:
        info = path.stat()
    except OSError as error:
        raise WriteError(f"{path}: cannot write: {error.strerror or error}") from None
    if not stat.S_ISREG(info.st_mode):
        raise WriteError(f"{path}: not a regular file; left as it is")
    if not info.st_mode & 0o222:
        # A rename would replace it all the same: a read-only file says "do not touch".
        raise WriteError(f"{path}: read-only; not fixed")
    directory = path.parent
    _remove_stale_temps(path)
    if info.st_nlink > 1:
        _rewrite_in_place(path, data, expected)
        return
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=TEMP_SUFFIX, dir=directory)
    except OSError as error:
        raise WriteError(f"{path}: cannot write: {error.strerror or error}") from None
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fchmod(handle.fileno(), stat.S_IMODE(info.st_mode))
            if (info.st_uid, info.st_gid) != (os.geteuid(), os.getegid()):
                try:
                    os.fchown(handle.fileno(), info.st_uid, info.st_gid)
                except PermissionError:
                    raise WriteError(
                        f"{path}: owned by uid {info.st_uid} gid {info.st_gid}, which this user "
                        "cannot give to a new file; left as it is"
                    ) from None
                # chown may clear set-user-ID and set-group-ID bits: set the mode again.
                os.fchmod(handle.fileno(), stat.S_IMODE(info.st_mode))
            _copy_xattrs(path, handle.fileno())
            os.fsync(handle.fileno())
        _check_unchanged(path, expected)
        if _exchange(tmp, path):
            # Swapped in one step: `tmp` now holds exactly what the rename displaced. A
            # writer that replaced the file after the check above gets its file back.
            if expected is not None and tmp.read_bytes() != expected:
                _exchange(tmp, path)
                _check_unchanged(path, expected)
        else:
            os.replace(tmp, path)
        _fsync_dir(directory)
    except OSError as error:
        raise WriteError(f"{path}: cannot write: {error.strerror or error}") from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one step (Linux renameat2 RENAME_EXCHANGE); False where the
    system or the file system has no such call, and a plain rename must do."""
    import ctypes
    import errno

    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(b))


def _check_unchanged(path: Path, expected: bytes | None) -> None:
    if expected is not None and path.read_bytes() != expected:
        raise WriteError(f"{path}: changed by someone else while it was being fixed; left as it is")


def _copy_xattrs(source: Path, fd: int) -> None:
    """The extended attributes of `source` (an SELinux label, user.* notes) onto `fd`."""
    if not hasattr(os, "listxattr"):
        return
    with contextlib.suppress(OSError):
        for name in os.listxattr(source):
            with contextlib.suppress(OSError):
                os.setxattr(fd, name, os.getxattr(source, name))


def _rewrite_in_place(path: Path, data: bytes, expected: bytes | None) -> None:
    """New bytes into the same inode (its hard links stay), with the old bytes kept in a
    backup beside it until the new ones are on disk.  A write that fails (a full disk,
    the file size limit) has the backup's bytes put back; the backup stays only when even
    that fails (the message names it), or when the process dies in between."""
    backup = _backup(path)
    try:
        _check_unchanged(path, expected)
    except (OSError, WriteError) as error:
        _discard(backup)  # the file was not touched: nothing to keep
        if isinstance(error, WriteError):
            raise
        raise WriteError(f"{path}: cannot write: {error.strerror or error}") from None
    try:
        _overwrite(path, data)
    except OSError as error:
        reason = f"{path}: cannot write: {error.strerror or error}"
        try:
            _overwrite(path, backup.read_bytes())
        except OSError:
            raise WriteError(f"{reason}; its old bytes are in {backup}") from None
        _discard(backup)
        raise WriteError(f"{reason}; left as it was") from None
    _discard(backup)


def _backup(path: Path) -> Path:
    """A copy of the file's bytes beside it, on disk (none is left if it cannot be made)."""
    try:
        old = path.read_bytes()
        fd, name = tempfile.mkstemp(
            prefix=f".{path.name}{BACKUP_MARK}", suffix=TEMP_SUFFIX, dir=path.parent
        )
    except OSError as error:
        raise WriteError(f"{path}: cannot write: {error.strerror or error}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(old)
            os.fsync(handle.fileno())
    except OSError as error:
        _discard(Path(name))
        raise WriteError(f"{path}: cannot write: {error.strerror or error}") from None
    return Path(name)


def _overwrite(path: Path, data: bytes) -> None:
    """`data` into the file's own inode, on disk."""
    with open(path, "r+b") as target:
        target.write(data)
        target.truncate()
        target.flush()
        os.fsync(target.fileno())


def _discard(path: Path) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


def _remove_stale_temps(path: Path) -> None:
    """Temp files of `path` that a killed run left (never a backup: it holds a file's
    only copy of its old bytes)."""
    now = time.time()
    with contextlib.suppress(OSError):
        for entry in os.scandir(path.parent):
            name = entry.name
            if not (name.startswith(f".{path.name}.") and name.endswith(TEMP_SUFFIX)):
                continue
            if name.startswith(f".{path.name}{BACKUP_MARK}"):
                continue
            with contextlib.suppress(OSError):
                info = entry.stat(follow_symlinks=False)
                old = now - info.st_mtime > STALE_SECONDS
                if old and stat.S_ISREG(info.st_mode) and info.st_uid == os.geteuid():
                    os.unlink(entry.path)


def _resolve(path: Path) -> Path:
    """`path` resolved, a symlink loop on the way an error: from 3.13 a non-strict
    resolve leaves a loop in place instead of raising, so the path is resolved strictly
    first, and leniently only where a part of it does not exist yet."""
    try:
        return path.resolve(strict=True)
    except FileNotFoundError:
        return path.resolve()


def create_beside(script: Path, new: NewFile) -> None:
    """Create a fix's new file under the script's directory, never outside it.

    An existing file with the same content is fine; a different one is never
    overwritten.
    """
    try:
        base = _resolve(script.parent)
        target = _resolve(base / new.path)
    except RuntimeError:  # a symlink loop, before 3.13
        raise WriteError(f"{new.path}: cannot resolve: a symbolic link loop") from None
    except OSError as error:
        why = "a symbolic link loop" if error.errno == errno.ELOOP else error
        raise WriteError(f"{new.path}: cannot resolve: {why}") from None
    if base not in target.parents:
        raise WriteError(f"{new.path}: refusing to write outside {base}")
    existing = _existing_content(target)
    if existing is not None:
        if existing == new.content:
            return
        raise WriteError(f"{target}: exists with other content; not overwritten")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise WriteError(f"{target.parent}: cannot create: {error.strerror or error}") from None
    fd, tmp_name = tempfile.mkstemp(
        prefix=f".{target.name}.", suffix=TEMP_SUFFIX, dir=target.parent
    )
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(new.content)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp_name, new.mode)
        os.link(tmp_name, target)  # fails instead of overwriting a file created meanwhile
    except FileExistsError:
        raise WriteError(f"{target}: exists with other content; not overwritten") from None
    except OSError as error:
        raise WriteError(f"{target}: cannot write: {error.strerror or error}") from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)


def _existing_content(target: Path) -> bytes | None:
    """The bytes of a regular file at `target`, None when nothing is there.

    Anything else there (a FIFO, a device, a directory, a link put there since `resolve`)
    is refused: reading a FIFO would wait for a writer forever, so it is opened without
    blocking and not followed."""
    try:
        fd = os.open(target, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise WriteError(f"{target}: cannot read: {error.strerror or error}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise WriteError(f"{target}: exists and is not a regular file; not overwritten")
        with os.fdopen(os.dup(fd), "rb") as handle:
            return handle.read()
    finally:
        os.close(fd)
