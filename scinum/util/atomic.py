"""Atomic file writes: a file is either complete at its final name or not there at all.

Every writer of the project that publishes a file (records, shards, checkpoints, results, fill
output, synthetic sources) goes through :func:`atomic_path`: it writes under a temporary name
beside the target and renames it only when the writing finished; on any exception —
``KeyboardInterrupt`` (Ctrl-C) and the ``SystemExit`` that the CLI raises on SIGTERM included —
the temporary file is removed, so a stopped or failed run leaves nothing half-written.
"""

from __future__ import annotations

import os
import shutil
import stat
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

__all__ = ["atomic_path", "atomic_files", "write_bytes_atomic", "write_text_atomic"]


@contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; when the block ends normally (the caller has
    closed what it wrote there), rename it to ``path``; when it raises, remove it.

    A symbolic link is written through: the temporary file lies beside the link's target and
    replaces the target, the link stays. A ``path`` that is neither a regular file nor absent
    (a character device such as ``/dev/stdout`` or ``/dev/null``, a pipe, a socket) cannot be
    replaced: it is yielded itself, and the caller writes (streams) to it directly."""
    path = Path(path)
    try:
        mode = os.stat(path).st_mode  # follows links
    except (FileNotFoundError, NotADirectoryError):
        mode = None
    if mode is not None and not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
        yield path
        return
    if path.is_symlink():
        path = Path(os.path.realpath(path))
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        yield tmp
        os.replace(tmp, path)
    except BaseException:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
        raise


def write_bytes_atomic(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically and durably (fsync before the rename)."""
    with atomic_path(path) as tmp, open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        if stat.S_ISREG(os.fstat(f.fileno()).st_mode):  # a device or pipe has nothing to sync
            os.fsync(f.fileno())


def write_text_atomic(path: str | os.PathLike, text: str) -> None:
    """Write UTF-8 ``text`` to ``path`` atomically and durably."""
    write_bytes_atomic(path, text.encode("utf-8"))


#: the prefix of :func:`atomic_files`' staging directories (``<prefix><pid>``)
STAGING = ".scinum-staging-"


@contextmanager
def atomic_files(path: str | os.PathLike) -> Iterator[Path]:
    """Yield an empty staging directory inside the directory ``path`` (created, with its
    parents, when missing); when the block ends normally, each file written there is renamed
    to the same name in ``path`` (a file there of that name is replaced, each rename atomic) and
    the staging directory removed. Nothing else in ``path`` is touched: the files of ``path``
    that the block did not write stay as they are. When the block raises, the staging
    directory (and ``path``, when this call created it and it is empty) is removed.

    ``path`` an existing file (not a directory) is a :class:`FileExistsError`. Staging
    directories of earlier runs that were killed (their process is gone) are removed first."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise FileExistsError(17, "exists and is not a directory", str(path))
    created = [p for p in (path, *path.parents) if not p.exists()]
    path.mkdir(parents=True, exist_ok=True)
    _remove_stale_staging(path)
    tmp = path / f"{STAGING}{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        tmp.mkdir()
        yield tmp
        for dirpath, _, files in os.walk(tmp):
            target = path / Path(dirpath).relative_to(tmp)
            if target.exists() and not target.is_dir():
                raise FileExistsError(17, "exists and is not a directory", str(target))
            target.mkdir(exist_ok=True)
            for name in sorted(files):
                os.replace(Path(dirpath) / name, target / name)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        for p in created:  # deepest first; only the empty directories this call made
            try:
                p.rmdir()
            except OSError:
                break
        raise
    shutil.rmtree(tmp, ignore_errors=True)


def _remove_stale_staging(path: Path) -> None:
    """Remove ``path``'s :data:`STAGING` directories whose process no longer runs (a run killed
    with SIGKILL leaves its staging directory behind)."""
    for old in path.glob(f"{STAGING}*"):
        pid = old.name[len(STAGING) :]
        if pid.isdigit() and int(pid) != os.getpid() and not _running(int(pid)) and old.is_dir():
            shutil.rmtree(old, ignore_errors=True)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True
