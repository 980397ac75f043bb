"""Writing fixed files: atomically, with mode, owner, encoding and line ends kept."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path

from heredoc_lint.discover import TEMP_SUFFIX
from heredoc_lint.model import NewFile


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
    try:
        fd, tmp_name = tempfile.mkstemp(
            prefix=f".{path.name}.", suffix=TEMP_SUFFIX, dir=directory
        )
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
            os.fsync(handle.fileno())
        if expected is not None and path.read_bytes() != expected:
            raise WriteError(
                f"{path}: changed by someone else while it was being fixed; left as it is"
            )
        os.replace(tmp, path)
        _fsync_dir(directory)
    except OSError as error:
        raise WriteError(f"{path}: cannot write: {error.strerror or error}") from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def create_beside(script: Path, new: NewFile) -> None:
    """Create a fix's new file under the script's directory, never outside it.

    An existing file with the same content is fine; a different one is never
    overwritten.
    """
    base = script.parent.resolve()
    target = (base / new.path).resolve()
    if base not in target.parents:
        raise WriteError(f"{new.path}: refusing to write outside {base}")
    if target.exists():
        if target.read_bytes() == new.content:
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
