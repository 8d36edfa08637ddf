"""Training: the Lightning module, the optimiser and schedule, and ``scinum fit``.

Loss = token cross-entropy over hidden tokens + λ · number loss over hidden number tokens
(``optim.number_loss_weight``); each term is a mean over its hidden positions and 0 (not NaN)
when a batch hides none. AdamW (weight decay on matrices only), linear warmup then cosine decay
to ``min_lr_ratio · lr`` (xVal: 0.1) at ``max_steps``, gradient clipping by norm. Precision
``bf16-mixed`` on GPU and ``32-true`` on CPU unless set; several devices/nodes go through
Lightning's strategies (DDP by default). Checkpoints (``<out>/checkpoints/last.ckpt``, resumed
automatically) and the final ``<out>/model.ckpt`` carry everything :mod:`scinum.checkpoint`
needs. Logs: CSV (``<out>/logs``), TensorBoard too when installed.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from functools import partial
from pathlib import Path
from typing import Any, Callable, Sequence

import lightning as L
import torch

from . import encodings
from .atomic import write_text_atomic
from .checkpoint import CheckpointMeta, digest, save_checkpoint
from .config import load_config, resolve_normalizer, validate_config
from .console import quiet_lightning
from .data import MLMDataModule, check_batches
from .distributed import (MetricSums, StopOnSignal, StoppedBySignal, end_child_ranks, explain_failure,
                          make_strategy)
from .errors import ConfigError, TrainingError
from .model import LOSS_NAMES, ModelConfig
from .provenance import run_info
from .speed import logs_this_step

__all__ = ["MLMModule", "make_meta", "fit", "add_arguments", "run"]


def lr_factor(step: int, warmup: int, total: int, min_ratio: float,
              fraction: float | None = None) -> float:
    """Multiplier of the base LR: linear warmup over ``warmup`` steps, cosine to ``min_ratio``
    at step ``total`` — or, with a time budget, at ``fraction`` (of the budget's seconds) 1."""
    if step < warmup:
        return (step + 1) / warmup
    t = fraction if fraction is not None else min(1.0, (step - warmup) / max(1, total - warmup))
    return min_ratio + (1 - min_ratio) * 0.5 * (1 + math.cos(math.pi * t))


class MLMModule(L.LightningModule):
    """Lightning's view of a :class:`~scinum.model.NumberMLM` built from checkpoint metadata
    (the model owns its losses; this adds logging, the optimiser and checkpoints)."""

    def __init__(self, meta: CheckpointMeta | None, optim: dict[str, Any], max_steps: int,
                 watch: dict[int, str] | None = None,
                 plan: Callable[[MLMDataModule], tuple[CheckpointMeta, dict[int, str]]] | None = None,
                 clock: Any = None):
        """``meta``: build the model now; or None and ``plan``: Lightning's
        :meth:`configure_model` builds it once the datamodule is set up, from
        ``plan(datamodule) -> (meta, watch)``. ``watch``: field id -> field name whose validation
        error is logged on its own (``val/err/<field>``: the training curves of the fields a
        dataset is evaluated on). ``clock``: a :class:`~scinum.budget.TimeBudget` whose
        ``fraction`` drives the cosine decay (a seconds budget) instead of the step count."""
        super().__init__()
        self.clock = clock
        if meta is None and plan is None:
            raise ValueError("MLMModule needs meta or a plan to make it from the data")
        self.meta, self.optim, self.max_steps, self.plan = meta, optim, max_steps, plan
        self.watch = dict(watch or {})
        self.model = meta.build_model() if meta is not None else None

    def configure_model(self) -> None:
        if self.model is None:
            self.meta, self.watch = self.plan(self.trainer.datamodule)
            self.model = self.meta.build_model()

    def losses(self, batch: dict[str, torch.Tensor]) -> dict[str, Any]:
        """:meth:`NumberMLM.losses <scinum.model.NumberMLM.losses>` with the configured number
        loss weight (and, in validation, the watched fields' errors)."""
        return self.model.losses(batch, self.optim["number_loss_weight"],
                                 None if self.training else self.watch)

    def training_step(self, batch: dict[str, torch.Tensor], batch_idx: int) -> torch.Tensor:
        res = self.losses(batch)
        if self.clock is None and not logs_this_step(self):  # metrics no logger writes (scinum.speed)
            return res["loss"]
        bs = batch["ids"].shape[0]
        self.log("train/loss", res["loss"], prog_bar=True, batch_size=bs)
        self.log_dict({f"train/{k}": v for k, v in res.items() if k != "loss"}, batch_size=bs)
        self.log("train/tokens", batch["attend"].sum().float(), reduce_fx="sum", batch_size=bs)
        return res["loss"]

    def on_validation_epoch_start(self) -> None:
        # the same names on every rank, whatever its batches hide: one matched all_reduce at the end
        self.val_sums = MetricSums([*LOSS_NAMES, *(f"err/{f}" for f in self.watch.values())])

    def validation_step(self, batch: dict[str, torch.Tensor], batch_idx: int) -> None:
        res = self.losses(batch)
        for k, v in res.items():
            if k.startswith("err/"):  # mean over the field's numbers, not over batches
                self.val_sums.add(k, *v)
            else:
                self.val_sums.add(k, v, batch["ids"].shape[0])

    def on_validation_epoch_end(self) -> None:
        for k, v in self.val_sums.reduce(self.device).items():
            self.log(f"val/{k}", v)  # already reduced over ranks: no sync_dist

    def configure_optimizers(self):
        o = self.optim
        decay = [p for p in self.parameters() if p.dim() >= 2]
        no_decay = [p for p in self.parameters() if p.dim() < 2]
        opt = torch.optim.AdamW([{"params": decay, "weight_decay": o["weight_decay"]},
                                 {"params": no_decay, "weight_decay": 0.0}],
                                lr=o["lr"], betas=tuple(o["betas"]))
        sched = torch.optim.lr_scheduler.LambdaLR(
            opt, lambda s: lr_factor(s, o["warmup_steps"], self.max_steps, o["min_lr_ratio"],
                                     None if self.clock is None else self.clock.fraction))
        return {"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval": "step"}}

    def on_save_checkpoint(self, checkpoint: dict[str, Any]) -> None:
        checkpoint["scinum"] = self.meta.to_dict()
        checkpoint["digest"] = digest(checkpoint["scinum"], checkpoint["state_dict"])


def make_meta(config: dict, dm: MLMDataModule, encoding: Any) -> CheckpointMeta:
    """Checkpoint metadata for a prepared data module; its ``run`` entry records the dataset's
    identity, the training ranges of every field, the budget, versions and commit
    (:func:`scinum.provenance.run_info`)."""
    longest = _check_context(dm, config["data"]["max_record_tokens"])
    model = dict(config["model"])
    if model.get("positions") != "rope":
        if model.get("max_positions") is None:
            model["max_positions"] = longest
        elif model["max_positions"] < longest:
            raise ConfigError(f"model.max_positions {model['max_positions']} is shorter than the longest "
                              f"training or validation record ({longest} tokens): raise it or leave it null")
    cfg = ModelConfig(vocab_size=len(dm.vocab), num_dim=encoding.dim, combine=encoding.combine, **model)
    return CheckpointMeta(model=cfg, encoding=encoding.config(), vocab=dm.vocab, normalizer=dm.normalizer,
                          head=dict(config["head"]), context_length=longest,
                          run=run_info(config, dm.vocab.fields,
                                       ((f, v) for _, f, v in dm.shards["train"].chunks())))


def _check_context(dm: MLMDataModule, limit: int) -> int:
    """The longest train/validation record in tokens — the context the model must hold; a
    record longer than ``limit`` (``data.max_record_tokens``) is refused before training, naming
    the split, the record and the cost (attention grows with the square of the length)."""
    longest = {split: (int(s.lengths.max()), int(s.lengths.argmax())) for split, s in dm.shards.items()}
    split, (n, i) = max(longest.items(), key=lambda kv: kv[1][0])
    if n > limit:
        raise ConfigError(
            f"{dm.path}: {split} record {i} is {n} tokens long, over data.max_record_tokens {limit}: "
            f"the model would attend over {n} positions ({n * n / 1e6:.0f} M pairs per layer and head, "
            f"every step); shorten the records or raise data.max_record_tokens")
    return n


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
    """Train as ``config`` says (see :mod:`scinum.config`); resume from ``<out>/checkpoints/last.ckpt``
    if present. Returns the path of the exported ``<out>/model.ckpt``. A ``budget``
    (:mod:`scinum.budget`) sets ``trainer.max_steps``; ``<out>/training.json`` records the steps
    taken and the training seconds they took (validation and checkpoints not counted). One run
    at a time owns ``out_dir`` (:func:`scinum.run_dir.out_dir_lock`): a second one refuses."""
    from .run_dir import out_dir_lock
    validate_config(config)  # also configs built without load_config (recipes' overrides)
    with out_dir_lock(config["out_dir"]):
        _check_resumable(Path(config["out_dir"]) / "checkpoints" / "last.ckpt")
        return _fit(config, callbacks)


def _check_resumable(last: Path) -> None:
    """A damaged ``last.ckpt`` (its digest does not match) is refused before resuming from it."""
    if last.exists():
        from .checkpoint import load_checkpoint
        load_checkpoint(last)


def _fit(config: dict, callbacks: Sequence[L.Callback] = ()) -> Path:
    import copy
    from lightning.pytorch.callbacks import ModelCheckpoint

    from .budget import TimeBudget, check_budget, resolve_steps
    config = copy.deepcopy(config)
    quiet_lightning()
    L.seed_everything(config["seed"], workers=True, verbose=False)
    out = Path(config["out_dir"])
    out.mkdir(parents=True, exist_ok=True)
    encoding = encodings.from_config(config["encoding"])
    d, t = config["data"], dict(config["trainer"])
    dm = MLMDataModule(d["path"], encoding, normalizer=resolve_normalizer(config, encoding),
                       batch_size=d["batch_size"], mask_prob=d["mask_prob"], seed=config["seed"],
                       mask_fields=d["mask_fields"], mask_fields_prob=d["mask_fields_prob"],
                       num_workers=d["num_workers"], pool=d["pool"], cache_dir=d["cache_dir"],
                       max_run=d["max_run"], val_split=d["val_split"])
    world = _check_world(config, dm)  # before any process is spawned: say what to change
    budget = config.get("budget")
    if budget is not None:
        check_budget(budget)
        lengths = None
        if "tokens" in budget:  # the exact stream needs the records' token lengths
            dm.prepare()
            lengths = dm.shards["train"].lengths
        t["max_steps"] = config["trainer"]["max_steps"] = resolve_steps(
            budget, batch_size=d["batch_size"], max_steps=t["max_steps"], lengths=lengths,
            seed=config["seed"], pool=d["pool"], accumulate=t["accumulate_grad_batches"])
    clock = TimeBudget(budget["seconds"] if budget and "seconds" in budget else math.inf)
    # the data is tokenized in dm.prepare_data (once per node) and loaded in dm.setup (every
    # rank); the model is built after that, in MLMModule.configure_model
    module = MLMModule(None, config["optim"], t["max_steps"], plan=partial(_plan, config, encoding),
                       clock=clock if math.isfinite(clock.seconds) else None)
    precision = t.pop("precision")
    if precision == "auto":
        gpu = t["accelerator"] in ("auto", "gpu", "cuda") and torch.cuda.is_available()
        precision = "bf16-mixed" if gpu else "32-true"
    timeout_s, grace_s = t.pop("collective_timeout_s"), t.pop("signal_grace_s")
    last = out / "checkpoints" / "last.ckpt"
    stopper = StopOnSignal(last, grace_s)
    ckpt_cb = ModelCheckpoint(dirpath=out / "checkpoints", save_last=True, save_top_k=0,
                              every_n_train_steps=t.pop("checkpoint_every_n_steps"))
    has_val = len(dm.splits) > 1 and t["limit_val_batches"] != 0
    val_every, val_batches = t.pop("val_check_interval"), t.pop("limit_val_batches")
    # the remaining trainer keys (max_steps, accelerator, devices, num_nodes, strategy,
    # accumulate_grad_batches, log_every_n_steps) are Trainer arguments of the same name
    trainer = L.Trainer(
        precision=precision, val_check_interval=val_every if has_val else None,
        check_val_every_n_epoch=None, limit_val_batches=val_batches if has_val else 0,
        enable_progress_bar=t.pop("progress_bar"),
        gradient_clip_val=config["optim"]["grad_clip"], use_distributed_sampler=False,
        callbacks=[ckpt_cb, stopper, clock, *callbacks], logger=_loggers(out), default_root_dir=out,
        deterministic=False, enable_model_summary=False, num_sanity_val_steps=0,
        strategy=make_strategy(t.pop("strategy"), world, timeout_s), **t)
    if trainer.is_global_zero:  # one writer per run: rank 0
        write_text_atomic(out / "config.json", json.dumps(config, indent=1))
    try:
        trainer.fit(module, datamodule=dm, ckpt_path=str(last) if last.exists() else None)
    except Exception as e:
        end_child_ranks(trainer)  # none left waiting in a collective for this rank
        why = explain_failure(e, timeout_s) if world > 1 else None
        if why is None:
            raise
        raise TrainingError(why) from None
    finally:
        stopper.release()
    stopper.raise_if_stopped()
    final = out / "model.ckpt"
    if trainer.is_global_zero:
        save_checkpoint(final, module.model, module.meta)
        write_text_atomic(out / "training.json", json.dumps(
            {"budget": budget, "steps": trainer.global_step, "batch_size": d["batch_size"],
             "train_seconds": round(clock.elapsed, 3)}, indent=1))
        _calibrate(config, dm, module, final)
    return final


def _calibrate(config: dict, dm: MLMDataModule, module: MLMModule, ckpt: Path) -> None:
    """``calibrate: true`` and a head with a distribution: fit the recalibration of its quantile
    levels per evaluation field on the validation split (:mod:`scinum.calibration`), store it
    in ``ckpt`` and say what it corrects."""
    from .calibration import fit_recalibration
    from .checkpoint import load_checkpoint
    from .datasets import Dataset
    from .infer import Model
    if not (config["calibrate"] and module.model.head.has_distribution and len(dm.splits) > 1):
        return
    fields = Dataset(dm.path).manifest.get("evaluation", {}).get("fields", [])
    if not fields:
        print("scinum fit: intervals not recalibrated (the dataset declares no evaluation fields)")
        return
    meta, net = load_checkpoint(ckpt)
    found = fit_recalibration(Model(meta, net), dm.path, fields, dm.val_split)
    meta.calibration = {field: r["table"] for field, r in found.items()}
    save_checkpoint(ckpt, net, meta)
    for field, r in found.items():
        print(f"scinum fit: recalibrated the intervals of {field} on {r['n']} {dm.val_split} "
              f"numbers (68/95 % intervals covered {r['coverage68_before']:.0%}/"
              f"{r['coverage95_before']:.0%})")


def _plan(config: dict, encoding: Any, dm: MLMDataModule) -> tuple[CheckpointMeta, dict[int, str]]:
    """The checkpoint metadata and the watched fields of a set-up datamodule."""
    return make_meta(config, dm, encoding), _watched_fields(dm)


def _watched_fields(dm: MLMDataModule) -> dict[int, str]:
    """Field id -> name of the fields the dataset declares for evaluation (its manifest's
    ``evaluation.fields``, as fields: ``data[-1][*]`` -> ``data[*][*]``) that the vocabulary
    knows; their validation error is logged per field."""
    from .datasets import Dataset
    from .paths import field_of
    declared = Dataset(dm.path).manifest.get("evaluation", {}).get("fields", [])
    index = {f: i for i, f in enumerate(dm.vocab.fields)}
    return {index[f]: f for f in dict.fromkeys(field_of(p) for p in declared) if f in index}


def _check_world(config: dict, dm: MLMDataModule) -> int:
    """Every rank needs a batch of train (and validation) records: checked in the launching
    process from the manifest's counts, so a bad setting fails once, with its fix, instead of in
    every spawned rank. Returns the number of processes (ranks) of the run."""
    from .datasets import Dataset
    counts = {split: Dataset(dm.path).count(split) for split in dm.splits}
    t = config["trainer"]
    devices = t["devices"] if isinstance(t["devices"], int) else (
        len(t["devices"]) if isinstance(t["devices"], (list, tuple)) else 1)
    world = max(1, devices) * max(1, int(t.get("num_nodes", 1)))
    bs = config["data"]["batch_size"]
    check_batches(counts["train"], bs, world, "train split")
    if dm.val_split in counts and t["limit_val_batches"] != 0:
        check_batches(counts[dm.val_split], bs, world, f"{dm.val_split} split")
    return world


def is_global_zero() -> bool:
    """Whether this process is the one that speaks for a (possibly distributed) run."""
    from lightning.pytorch.utilities import rank_zero_only
    return getattr(rank_zero_only, "rank", 0) == 0


#: ``scinum fit`` hands the arguments it does not know (the overrides) to :func:`run`
TAKES_OVERRIDES = True


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--config FILE``; every other argument is an override (``--trainer.max_steps 100``,
    ``optim.lr=1e-3``, see :func:`scinum.config.parse_overrides`), in ``args.overrides``."""
    parser.allow_abbrev = False  # ``--c.x`` is an override, not an abbreviation of --config
    parser.add_argument("--config", required=True, help="YAML config (see configs/planets-tiny.yaml)")
    parser.epilog = ("overrides: --section.key VALUE or section.key=VALUE, e.g. "
                     "--trainer.max_steps 100 encoding.name=fone head.kind=mixture")


def run(args: argparse.Namespace) -> int:
    try:
        config = load_config(args.config, args.overrides)
    except (KeyError, ValueError, OSError) as e:
        raise SystemExit(f"scinum fit: bad config: {e}") from None
    try:
        path = fit(config)
    except StoppedBySignal as stop:
        if is_global_zero():
            print(stop.message, file=sys.stderr)
        return stop.code
    if is_global_zero():
        print(f"scinum fit: model written to {path}")
    return 0
