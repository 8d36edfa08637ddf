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
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

__all__ = ["atomic_path", "atomic_dir", "write_bytes_atomic", "write_text_atomic"]


@contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; when the block ends normally (the caller has
    closed what it wrote there), rename it to ``path``; when it raises, remove it."""
    path = Path(path)
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
        os.fsync(f.fileno())


def write_text_atomic(path: str | os.PathLike, text: str) -> None:
    """Write UTF-8 ``text`` to ``path`` atomically and durably."""
    write_bytes_atomic(path, text.encode("utf-8"))


@contextmanager
def atomic_dir(path: str | os.PathLike) -> Iterator[Path]:
    """Yield an empty temporary directory beside ``path``; when the block ends normally, it
    replaces ``path`` whole (an existing ``path`` is moved aside, then removed); when it raises,
    it is removed and ``path`` stays as it was — never a mix of old and new files."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp, old = (path.with_name(f".{path.name}.{what}{os.getpid()}") for what in ("new", "old"))
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        tmp.mkdir()
        yield tmp
        if path.exists():
            os.replace(path, old)
        os.replace(tmp, path)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        if old.exists() and not path.exists():
            os.replace(old, path)
        raise
    shutil.rmtree(old, ignore_errors=True)
