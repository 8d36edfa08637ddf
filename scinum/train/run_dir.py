"""One run owns its output directory, and a resumed run keeps what the killed one logged.

* :func:`out_dir_lock`: ``scinum fit`` holds an exclusive ``flock`` on ``<out>/.lock`` for the
  whole run, so a second fit into the same directory refuses in one line (naming the pid that
  holds it) instead of mixing checkpoints and logs. The kernel releases the lock when its
  process ends, however it ends (``kill -9`` included): a dead run never blocks the next one.
  Only the launching process takes it: the rank processes that Lightning's launcher (or
  torchrun, SLURM) starts for a distributed run carry a non-zero rank in their environment.
* :func:`check_resume`: a run resumes ``<out>/checkpoints/last.ckpt`` only when its config is the
  one that checkpoint was trained with, up to the keys in :data:`RESUME_MAY_CHANGE` (train
  longer, report otherwise); anything else is refused in one line naming what differs, before
  anything in ``out_dir`` is written.
* :func:`check_finished`: running a finished run's command again (same config up to
  :data:`RESUME_MAY_CHANGE`) trains nothing and rewrites nothing: a run that stopped early, or
  trained its ``trainer.max_steps`` (its budget), raises :class:`RunFinished` (``scinum fit``
  says so in one line and exits 0); a ``trainer.max_steps`` below the step a run already
  reached (finished or in ``last.ckpt``) is a :class:`ConfigError`; a higher one trains longer.
* :class:`KeptCSVLogger`: Lightning's CSV logger deletes ``metrics.csv`` when it starts; this one
  keeps the rows of the steps before the first step the new run logs (a run resumed from its
  last checkpoint re-logs the steps after it), so the curves keep their start.
"""

from __future__ import annotations

import csv
import io
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from ..util.atomic import write_text_atomic
from ..errors import CheckpointError, ConfigError, ScinumError

__all__ = [
    "RunDirBusy",
    "RunFinished",
    "out_dir_lock",
    "launching_process",
    "RESUME_MAY_CHANGE",
    "check_resume",
    "check_finished",
    "KeptCSVLogger",
]

#: environment variables that name a process's rank in a distributed run (Lightning's
#: subprocess launcher sets LOCAL_RANK/NODE_RANK in the processes it starts; torchrun RANK;
#: SLURM SLURM_PROCID)
_RANK_VARS = ("LOCAL_RANK", "NODE_RANK", "GROUP_RANK", "RANK", "SLURM_PROCID")


class RunDirBusy(ScinumError):
    """An output directory that another run is writing."""


class RunFinished(ScinumError):
    """A run whose command ran again after it finished (stopped early, or trained its steps):
    nothing to train; ``path`` is its ``model.ckpt``, left as it was."""

    def __init__(self, message: str, path: Path):
        super().__init__(message)
        self.path = path


def launching_process() -> bool:
    """Whether this process is the one that launched the run (rank 0 everywhere)."""
    return all(os.environ.get(var, "0").strip() in ("0", "") for var in _RANK_VARS)


@contextmanager
def out_dir_lock(out: str | os.PathLike) -> Iterator[None]:
    """Hold ``<out>/.lock`` for the block (in the launching process only; others pass through).
    Raises :class:`RunDirBusy` if another live process holds it."""
    if not launching_process():
        yield
        return
    import fcntl

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / ".lock"
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "?"
            raise RunDirBusy(
                f"{out}: another run (pid {holder}) is writing this out_dir; wait for it to end or choose another out_dir (lock: {path})"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield
    finally:
        os.close(fd)  # releases the lock; the file stays (removing it would race a new run)


#: config keys (dotted; a section name covers its keys) a resumed run may change: how long it
#: trains, how it reports and checkpoints, where its files are. ``data.path`` may name another
#: copy of the same dataset (compared by its manifest's sha256).
RESUME_MAY_CHANGE = (
    "out_dir",
    "budget",
    "calibrate",
    "trainer.max_steps",
    "trainer.progress_bar",
    "trainer.checkpoint_every_n_steps",
    "trainer.log_every_n_steps",
    "trainer.val_check_interval",
    "trainer.limit_val_batches",
    "trainer.signal_grace_s",
    "trainer.collective_timeout_s",
    "data.path",
    "data.num_workers",
    "data.cache_dir",
    "data.pin_memory",
    "data.prefetch_factor",
    "trainer.compile",
)


def check_resume(config: dict, last: str | os.PathLike) -> None:
    """Refuse to resume ``last`` (a ``last.ckpt``; nothing to check when it does not exist) with
    ``config`` unless it is an intact training checkpoint of ``scinum fit`` whose recorded run
    config equals ``config`` outside :data:`RESUME_MAY_CHANGE` and whose dataset is the one
    ``config`` names: :class:`CheckpointError` (damaged, not a training checkpoint, no recorded
    config) or :class:`ConfigError` naming the first key that differs, both values, and how many
    more do."""

    import torch

    from ..model.checkpoint import load_checkpoint
    from ..util.provenance import dataset_identity

    last = Path(last)
    if not last.exists():
        return
    load_checkpoint(last)  # damaged or foreign: its one-line error
    raw = torch.load(last, map_location="cpu", weights_only=True)
    if "pytorch-lightning_version" not in raw:
        raise CheckpointError(
            f"{last}: not a training checkpoint of scinum fit (a model file?); move it away to train afresh in this out_dir"
        )
    run = raw["scinum"].get("run") or {}
    before = run.get("config")
    if not isinstance(before, dict):
        raise CheckpointError(
            f"{last}: records no run config (written by an older scinum), so resuming it cannot be checked; move it away to train afresh"
        )
    old, new, differ = _differences(before, config)
    was, now = (run.get("dataset") or {}).get("manifest_sha256"), dataset_identity(config["data"]["path"]).get("manifest_sha256")
    if was != now:
        differ.insert(0, "data.path")
        old["data.path"] = f"{old.get('data.path')} (manifest sha256 {str(was)[:12]})"
        new["data.path"] = f"{new.get('data.path')} (manifest sha256 {str(now)[:12]})"
    elif not _same_shards(run, config):
        raise ConfigError(
            f"{last}: cannot resume: a shard of {config['data']['path']} was changed since this run trained on it "
            "(its content differs, its manifest does not); rebuild the dataset, or choose another out_dir to train afresh"
        )
    if differ:
        k = differ[0]
        more = f" (and {len(differ) - 1} more: {', '.join(differ[1:4])})" if len(differ) > 1 else ""
        raise ConfigError(
            f"{last}: cannot resume: {k} was {str(old.get(k, '(unset)'))[:80]} when it "
            f"was trained, now {str(new.get(k, '(unset)'))[:80]}{more}; to train longer "
            "change only trainer.max_steps or budget, else choose another out_dir"
        )
    step = raw.get("global_step")
    _check_steps(config, step if isinstance(step, int) else None, last)


def _same_shards(run: dict, config: dict) -> bool:
    """Whether the dataset's shards hold what the run ``run`` (a checkpoint's entry) trained on
    (runs recorded before the shards' sha256 was: assumed so)."""
    from ..datasets.token_shards import shards_sha256

    was = (run.get("dataset") or {}).get("shards_sha256")
    if was is None:
        return True
    try:
        return bool(was == shards_sha256(config["data"]["path"], config["data"].get("cache_dir")))
    except (OSError, ScinumError):
        return True  # no readable dataset: the run's own checks name it


def _differences(before: dict, config: dict) -> tuple[dict[str, object], dict[str, object], list[str]]:
    """Both configs by dotted key and the keys where they differ outside :data:`RESUME_MAY_CHANGE`."""
    import json

    old, new = _flat(before), _flat(json.loads(json.dumps(config, default=str)))
    differ = [
        k
        for k in sorted(set(old) | set(new), key=str)
        if old.get(k, "(unset)") != new.get(k, "(unset)") and not any(k == m or k.startswith(m + ".") for m in RESUME_MAY_CHANGE)
    ]
    return old, new, differ


def _check_steps(config: dict, step: int | None, where: Path) -> None:
    """A ``trainer.max_steps`` (no budget: a budget's steps are resolved later) below ``step``,
    the step the run in ``where`` already reached, is a :class:`ConfigError`: a run cannot be
    trained back to fewer steps."""
    max_steps = config["trainer"]["max_steps"]
    if step is not None and config.get("budget") is None and isinstance(max_steps, int) and max_steps < step:
        raise ConfigError(
            f"trainer.max_steps = {max_steps} is below step {step} that {where} was already trained to: "
            f"a run cannot go back to fewer steps; raise it to train longer, or choose another out_dir to train afresh"
        )


def check_finished(config: dict, out: str | os.PathLike) -> None:
    """Raise :class:`RunFinished` when ``out`` holds a finished run (``model.ckpt`` and
    ``training.json``) of ``config`` (equal outside :data:`RESUME_MAY_CHANGE`, same dataset) that
    has nothing left to train: it stopped early, or it trained ``trainer.max_steps`` (or the same
    budget). A ``trainer.max_steps`` below its steps is a :class:`ConfigError`. Nothing happens
    for a run of another config (:func:`check_resume` judges its ``last.ckpt``), for a later run
    that reached further (its ``last.ckpt`` resumes), or for more steps (trains longer)."""
    import json

    import torch

    from ..model.checkpoint import load_checkpoint
    from ..util.provenance import dataset_identity

    out = Path(out)
    model, done, last = out / "model.ckpt", out / "training.json", out / "checkpoints" / "last.ckpt"
    if not (model.is_file() and done.is_file()):
        return
    try:
        info = json.loads(done.read_text())
        steps = info["steps"]
        meta, _ = load_checkpoint(model)
        before = meta.run.get("config")
    except (OSError, ValueError, KeyError, TypeError, ScinumError):
        return  # not a finished run this scinum can read: the checks of a fresh or resumed run apply
    if not isinstance(steps, int) or not isinstance(before, dict):
        return
    if _differences(before, config)[2]:
        return
    if (meta.run.get("dataset") or {}).get("manifest_sha256") != dataset_identity(config["data"]["path"]).get("manifest_sha256"):
        return
    if not _same_shards(meta.run, config):
        return
    if last.is_file():
        try:
            reached = torch.load(last, map_location="cpu", weights_only=True).get("global_step")
        except Exception:
            reached = None  # check_resume names a damaged last.ckpt
        if not isinstance(reached, int) or reached > steps:
            return
    _check_steps(config, steps, out)
    best = info.get("best") or {}
    how = f"{out} holds this run, finished at step {steps}"
    again = "to train afresh choose another out_dir (or delete this one)"
    if best.get("stopped_early"):
        patience = config["trainer"].get("early_stopping_patience")
        raise RunFinished(
            f"{how}: it stopped early (trainer.early_stopping_patience {patience}: val/loss stopped improving); "
            f"nothing to train, {model} left as it is; {again}",
            model,
        )
    budget = config.get("budget")
    same = budget == info.get("budget") if budget is not None else config["trainer"]["max_steps"] == steps
    if same:
        what = "its budget" if budget is not None else "trainer.max_steps"
        raise RunFinished(
            f"{how}: it trained {what}; nothing to train, {model} left as it is; raise {what} to train longer, or {again}", model
        )


def _flat(d: dict, prefix: str = "") -> dict[str, object]:
    """A nested dict's leaves by dotted key (lists are leaves)."""
    out: dict[str, object] = {}
    for k, v in d.items():
        if isinstance(v, dict) and v:
            out.update(_flat(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def _kept_writer_class():
    from lightning.pytorch.loggers.csv_logs import ExperimentWriter

    class KeptWriter(ExperimentWriter):
        """Lightning's CSV writer, but an existing ``metrics.csv`` is kept and continued."""

        def _check_log_dir_exists(self) -> None:  # called by __init__: keep, do not delete
            self._kept = os.path.isfile(self.metrics_file_path)

        def save(self) -> None:
            if getattr(self, "_kept", False) and self.metrics:
                self._kept = False
                self._merge_kept()
            super().save()

        def _merge_kept(self) -> None:
            """Rewrite the kept file (atomically) with its rows before this run's first step,
            under a header of its keys and this run's."""
            first = min(m["step"] for m in self.metrics)
            with open(self.metrics_file_path, newline="") as f:
                reader = csv.DictReader(f)
                rows = [r for r in reader if _step(r) < first]
                old_keys = list(reader.fieldnames or [])
            keys = sorted(set(old_keys).union(*self.metrics))
            buf = io.StringIO()
            writer = csv.DictWriter(buf, fieldnames=keys, lineterminator="\r\n")
            writer.writeheader()
            writer.writerows(rows)
            write_text_atomic(self.metrics_file_path, buf.getvalue())
            self.metrics_keys = keys

    return KeptWriter


def _step(row: dict) -> float:
    try:
        return float(row.get("step") or "nan")
    except ValueError:
        return float("nan")


def KeptCSVLogger(save_dir: str | Path, name: str, version: str):  # noqa: N802
    """A Lightning ``CSVLogger`` whose ``metrics.csv`` survives a resumed run (module docstring)."""
    from lightning.pytorch.loggers import CSVLogger

    class _Logger(CSVLogger):
        @property
        def experiment(self):
            from lightning.pytorch.utilities import rank_zero_only

            if self._experiment is None and getattr(rank_zero_only, "rank", 0) == 0:
                self._fs.makedirs(self.root_dir, exist_ok=True)
                self._experiment = _kept_writer_class()(log_dir=self.log_dir)
            return super().experiment

    return _Logger(save_dir, name=name, version=version)
