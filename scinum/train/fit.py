"""``fit``: one training run from a config — data, model, Trainer, checkpoints, calibration.

Precision ``bf16-mixed`` on GPU and ``32-true`` on CPU unless set; several devices/nodes go
through Lightning's strategies (DDP by default). Checkpoints (``<out>/checkpoints/last.ckpt``,
resumed automatically) and the final ``<out>/model.ckpt`` carry everything
:mod:`scinum.model.checkpoint` needs. ``<out>/config.json`` is the run's whole config (what ``scinum
fit --print-config`` prints, with ``trainer.max_steps`` from the budget when there is one). Logs:
CSV (``<out>/logs``), TensorBoard too when installed.
"""

from __future__ import annotations

import copy
import json
import math
import sys
from functools import partial
from pathlib import Path
from typing import Sequence

import lightning as L
import torch

from ..encodings import NumberEncoding
from ..util.atomic import write_text_atomic
from ..model.checkpoint import CheckpointMeta, save_checkpoint
from .config import resolve_normalizer, validate_config
from ..util.console import StderrProgressBar, quiet_lightning
from .data import MLMDataModule
from ..datasets.token_shards import shards_sha256
from .sampler import check_batches
from .distributed import StopOnSignal, end_child_ranks, explain_failure, make_strategy
from .early_stopping import BestWeights
from .weight_average import WeightAverage
from ..errors import ConfigError, TrainingError
from .module import MLMModule
from ..model.config import ModelConfig
from ..model.mlm import NumberMLM
from ..util.provenance import run_info

__all__ = ["KeepNetwork", "data_module", "fit", "make_meta"]


def make_meta(config: dict, dm: MLMDataModule, encoding: NumberEncoding) -> CheckpointMeta:
    """Checkpoint metadata for a prepared data module; its ``run`` entry records the dataset's
    identity, the training ranges of every field, the budget, versions and commit
    (:func:`scinum.util.provenance.run_info`)."""
    assert dm.vocab is not None and dm.normalizer is not None  # dm is prepared
    longest = dm.longest_record()
    model = dict(config["model"])
    if model.get("positions") != "rope":
        if model.get("max_positions") is None:
            model["max_positions"] = longest
        elif model["max_positions"] < longest:
            raise ConfigError(
                f"model.max_positions {model['max_positions']} is shorter than the longest "
                f"training or validation record ({longest} tokens): raise it or leave it null"
            )
    cfg = ModelConfig(vocab_size=len(dm.vocab), num_dim=encoding.dim, combine=encoding.combine, n_fields=len(dm.vocab.fields), **model)
    run = run_info(config, dm.vocab.fields, lambda: ((f, v) for _, f, v in dm.shards["train"].chunks()))
    # the shards' content: a resumed run is refused when a shard was edited in place since
    run["dataset"]["shards_sha256"] = shards_sha256(dm.path, dm.cache_dir)
    return CheckpointMeta(
        model=cfg,
        encoding=encoding.config(),
        vocab=dm.vocab,
        normalizer=dm.normalizer,
        head=dict(config["head"]),
        context_length=longest,
        run=run,
        line=dm.line,
    )


def _loggers(out: Path) -> list:
    from .run_dir import KeptCSVLogger  # a resumed run keeps the killed one's metrics.csv

    loggers = [KeptCSVLogger(out, name="logs", version="")]
    try:
        import tensorboard  # noqa: F401
        from lightning.pytorch.loggers import TensorBoardLogger

        loggers.append(TensorBoardLogger(out, name="tb", version=""))
    except ImportError:
        pass
    return loggers


def fit(config: dict, callbacks: Sequence[L.Callback] = ()) -> Path:
    """Train as ``config`` says (see :mod:`scinum.train.config`); resume from ``<out>/checkpoints/last.ckpt``
    if present. Returns the path of the exported ``<out>/model.ckpt``. A ``budget``
    (:mod:`scinum.train.budget`) sets ``trainer.max_steps``; ``<out>/training.json`` records the steps
    taken and the training seconds they took (validation and checkpoints not counted). One run
    at a time owns ``out_dir`` (:func:`scinum.train.run_dir.out_dir_lock`): a second one refuses. A
    ``last.ckpt`` of another config is refused before anything is written
    (:func:`scinum.train.run_dir.check_resume`). The same config again after the run finished
    (stopped early, or trained its steps) raises :class:`~scinum.train.run_dir.RunFinished`
    and writes nothing; fewer ``trainer.max_steps`` than the run reached is a ConfigError
    (:func:`scinum.train.run_dir.check_finished`)."""
    from .run_dir import check_finished, check_resume, out_dir_lock

    encoding = validate_config(config)  # the one check of the run, and its one encoding
    with out_dir_lock(config["out_dir"]):
        check_finished(config, config["out_dir"])
        check_resume(config, Path(config["out_dir"]) / "checkpoints" / "last.ckpt")
        return _fit(config, encoding, callbacks)


def data_module(config: dict, encoding: NumberEncoding) -> MLMDataModule:
    """The data a run of ``config`` (validated, with its ``encoding``) trains on: its
    ``data`` section, its seed, the normalizer, positions and line its model reads."""
    return MLMDataModule(
        encoding=encoding,
        normalizer=resolve_normalizer(config, encoding),
        seed=config["seed"],
        structure=config["model"]["positions"] == "structure",
        structure_tokens=config["model"].get("structure_tokens", True),
        line=config.get("line", []),
        **config["data"],
    )


def _fit(config: dict, encoding: NumberEncoding, callbacks: Sequence[L.Callback] = ()) -> Path:
    from lightning.pytorch.callbacks import ModelCheckpoint

    from .budget import TimeBudget, resolve_steps

    config = copy.deepcopy(config)
    quiet_lightning()
    L.seed_everything(config["seed"], workers=True, verbose=False)
    out = Path(config["out_dir"])
    out.mkdir(parents=True, exist_ok=True)
    d, t = config["data"], dict(config["trainer"])
    dm = data_module(config, encoding)
    world = _check_world(config, dm)  # before any process is spawned: say what to change
    budget = config.get("budget")
    if budget is not None:
        lengths = None
        if "tokens" in budget or "samples" in budget:  # the exact stream needs the records' lengths
            dm.prepare()
            lengths = dm.shards["train"].lengths
        t["max_steps"] = config["trainer"]["max_steps"] = resolve_steps(
            budget,
            batch_size=d["batch_size"],
            max_steps=t["max_steps"],
            lengths=lengths,
            seed=config["seed"],
            pool=d["pool"],
            accumulate=t["accumulate_grad_batches"],
        )
    clock = TimeBudget(budget["seconds"] if budget and "seconds" in budget else math.inf)
    # the data is tokenized in dm.prepare_data (once per node) and loaded in dm.setup (every
    # rank); the model is built after that, in MLMModule.configure_model
    module = MLMModule(
        None,
        config["optim"],
        t["max_steps"],
        plan=partial(_plan, config, encoding),
        clock=clock if math.isfinite(clock.seconds) else None,
        compile=t.pop("compile"),
    )
    precision = t.pop("precision")
    if precision == "auto":
        gpu = t["accelerator"] in ("auto", "gpu", "cuda") and torch.cuda.is_available()
        precision = "bf16-mixed" if gpu else "32-true"
    timeout_s, grace_s = t.pop("collective_timeout_s"), t.pop("signal_grace_s")
    last = out / "checkpoints" / "last.ckpt"
    stopper = StopOnSignal(last, grace_s)
    ckpt_cb = ModelCheckpoint(
        dirpath=out / "checkpoints", save_last=True, save_top_k=0, every_n_train_steps=t.pop("checkpoint_every_n_steps")
    )
    has_val = len(dm.splits) > 1 and t["limit_val_batches"] != 0
    patience, floor, progress = t.pop("early_stopping_patience"), t.pop("early_stopping_min_steps"), t.pop("progress_bar")
    best = BestWeights(patience, floor) if patience and has_val else None
    if patience and not has_val and trainer_rank_zero():
        why = "trainer.limit_val_batches is 0" if len(dm.splits) > 1 else f"the dataset has no {dm.val_split!r} split"
        print(
            f"scinum fit: warning: trainer.early_stopping_patience = {patience} has no effect: {why}, so no validation runs; "
            f"training takes every one of its {t['max_steps']} steps",
            file=sys.stderr,
        )
    decay = config["optim"]["weight_average"]
    average = [WeightAverage(decay)] if decay else []  # after best: it keeps the averages validated
    val_every, val_batches = t.pop("val_check_interval"), t.pop("limit_val_batches")
    # the remaining trainer keys (max_steps, accelerator, devices, num_nodes, strategy,
    # accumulate_grad_batches, log_every_n_steps) are Trainer arguments of the same name
    trainer = L.Trainer(
        precision=precision,
        val_check_interval=val_every if has_val else None,
        check_val_every_n_epoch=None,
        limit_val_batches=val_batches if has_val else 0,
        enable_progress_bar=progress,
        gradient_clip_val=config["optim"]["grad_clip"],
        use_distributed_sampler=False,
        callbacks=[ckpt_cb, stopper, clock, *([best] if best else []), *average, *([StderrProgressBar()] if progress else []), *callbacks],
        logger=_loggers(out),
        default_root_dir=out,
        deterministic=False,
        enable_model_summary=False,
        num_sanity_val_steps=0,
        strategy=make_strategy(t.pop("strategy"), world, timeout_s),
        **t,
    )
    if trainer.is_global_zero:  # one writer per run: rank 0
        write_text_atomic(out / "config.json", json.dumps(config, indent=1))
    try:
        trainer.fit(module, datamodule=dm, ckpt_path=str(last) if last.exists() else None)
    except Exception as e:
        end_child_ranks(trainer)  # none left waiting in a collective for this rank
        failure = explain_failure(e, timeout_s) if world > 1 else None
        if failure is None:
            raise
        raise TrainingError(failure) from None
    finally:
        stopper.release()
    stopper.raise_if_stopped()
    final = out / "model.ckpt"
    kept = best.summary(trainer.global_step) if best else None
    if kept:  # every rank: the same weights (validation is reduced over ranks)
        assert best is not None and best.weights is not None  # kept with the step
        assert module.model is not None and module.meta is not None  # made in configure_model
        module.model.load_state_dict(best.weights)
        module.meta.run["best"] = kept
    if trainer.is_global_zero:
        assert module.model is not None and module.meta is not None  # made in configure_model
        if config["calibrate"] and module.model.head.has_distribution and len(dm.splits) > 1:
            from ..fill.calibration import recalibrate

            assert dm.val_split is not None  # the second split
            recalibrate(module.meta, module.model, dm.path, dm.val_split)  # in memory: one write below
        save_checkpoint(final, module.model, module.meta)
        write_text_atomic(
            out / "training.json",
            json.dumps(
                {
                    "budget": budget,
                    "steps": trainer.global_step,
                    "batch_size": d["batch_size"],
                    "train_seconds": round(clock.elapsed, 3),
                    "best": kept,
                },
                indent=1,
            ),
        )
        if kept:
            print(
                f"scinum fit: kept the weights of step {kept['step']} (val/loss {kept['val_loss']:.4g}, "
                f"lowest of the run; {'stopped early' if kept['stopped_early'] else 'trained'} at step "
                f"{kept['last_step']})",
                file=sys.stderr,
            )
        from ..model.checkpoint import load_checkpoint

        load_checkpoint(final)  # success is reported only for a model that loads back
    return final


def trainer_rank_zero() -> bool:
    """Whether this process speaks for the run (before the Trainer exists: rank 0 of a launch)."""
    from lightning.pytorch.utilities import rank_zero_only

    return getattr(rank_zero_only, "rank", 0) == 0


def _plan(config: dict, encoding: NumberEncoding, dm: MLMDataModule) -> tuple[CheckpointMeta, NumberMLM, dict[int, str]]:
    """The checkpoint metadata, a freshly initialised model and the watched fields of a set-up
    datamodule; the model is built on the run's encoding (not a second one made from the config)."""
    meta = make_meta(config, dm, encoding)
    return meta, meta.build_model(encoding), _watched_fields(dm)


def _watched_fields(dm: MLMDataModule) -> dict[int, str]:
    """Field id -> name of the fields the dataset declares for evaluation (its manifest's
    ``evaluation.fields``, as fields: ``data[-1][*]`` -> ``data[*][*]``) that the vocabulary
    knows; their validation error is logged per field."""
    from ..datasets.directory import Dataset
    from ..records.paths import field_of

    assert dm.vocab is not None  # dm is set up
    declared = Dataset(dm.path).manifest.get("evaluation", {}).get("fields", [])
    index = {f: i for i, f in enumerate(dm.vocab.fields)}
    return {index[f]: f for f in dict.fromkeys(field_of(p) for p in declared) if f in index}


def _check_world(config: dict, dm: MLMDataModule) -> int:
    """Every rank needs a batch of train (and validation) records: checked in the launching
    process from the manifest's counts, so a bad setting fails once, with its fix, instead of in
    every spawned rank. Returns the number of processes (ranks) of the run."""
    from ..datasets.directory import Dataset

    counts = {split: Dataset(dm.path).count(split) for split in dm.splits}
    t = config["trainer"]
    on_cpu = t["accelerator"] == "cpu" or (t["accelerator"] == "auto" and not torch.cuda.is_available())
    if on_cpu and isinstance(t["devices"], list):
        raise ConfigError(
            f"trainer.devices = {t['devices']}: a list of device indices names GPUs; on the CPU give a number of processes (or auto)"
        )
    devices = t["devices"] if isinstance(t["devices"], int) else (len(t["devices"]) if isinstance(t["devices"], (list, tuple)) else 1)
    world = max(1, devices) * max(1, int(t.get("num_nodes", 1)))
    bs = config["data"]["batch_size"]
    check_batches(counts["train"], bs, world, "train split")
    if dm.val_split in counts and t["limit_val_batches"] != 0:
        check_batches(counts[dm.val_split], bs, world, f"{dm.val_split} split")
    return world


class KeepNetwork(L.Callback):
    """Keeps the trained network and its metadata of a :func:`fit` run in memory, for a caller that
    uses them without a checkpoint (:class:`scinum.Regressor`); not the module: it holds the
    trainer, whose data module maps the temporary token files."""

    def __init__(self) -> None:
        self.kept: tuple[CheckpointMeta, NumberMLM] | None = None

    def on_fit_end(self, trainer, pl_module) -> None:
        self.kept = (pl_module.meta, pl_module.model)

    def take(self) -> tuple[CheckpointMeta, NumberMLM]:
        """``(meta, net)``: the best weights are restored into ``net`` after the fit ends."""
        assert self.kept is not None, "the fit ended without a model"
        meta, net = self.kept
        self.kept = None
        return meta, net
