"""Training configuration: one typed schema with the defaults, YAML files and command-line overrides.

The schema is :class:`RunConfig`, one dataclass per section (:class:`DataConfig`,
:class:`~scinum.model.config.ModelConfig` less its derived fields, :class:`OptimConfig`,
:class:`TrainerConfig`); the default config (``section_defaults(RunConfig)``) and the defaults of the constructors that take a
section (:class:`~scinum.train.data.MLMDataModule`, :class:`~scinum.model.config.ModelConfig`) come from it,
and :func:`validate_config` checks a config against its types and ranges. A config itself is a
plain nested dict (JSON-able, saved with each run as ``<out>/config.json``; ``scinum fit
--print-config`` prints it)::

    seed: 0
    out_dir: runs/planets-tiny
    data:      {path: DIR, batch_size: 64, mask_prob: 0.2, ...}
    encoding:  {name: xval, ...encoding options}
    head:      {kind: native, ...native head options (bittokens: point, mse_weight)}
               | {kind: mixture, n_components: 8, sigma_min: 0.05, point: mean, precondition: true, location: free|shared}
               | {kind: NAME, ...}  (a head a plug-in installs: scinum.heads entry points)
    budget: null       # {samples: N} | {tokens: N} | {seconds: S} -> trainer.max_steps (scinum.train.budget)
    normalizer: null   # null: the encoding's default, or the head's declared one when that is "none"
    calibrate: true    # heads with a distribution (mixture): fit its spread per evaluation field on val
    line: []           # fields predicted on top of a least-squares line of the record's other numbers
    model:     {d_model: 64, n_layers: 2, n_heads: 4, positions: structure, max_positions: null, ...}
    optim:     {lr: 1.4e-3, warmup_steps: 50, min_lr_ratio: 0.1, grad_clip: 1.0, number_loss_weight: 1.0, ...}
    trainer:   {max_steps: 2000, accelerator: auto, devices: auto, precision: auto, strategy: auto, ...}

Overrides (:mod:`scinum.train.overrides`): ``--trainer.max_steps 100``, ``--trainer.max_steps=100`` or ``trainer.max_steps=100``;
values are parsed as YAML (``1e-3``, ``true``, ``[1, 2]``, ``null``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Collection, Mapping, Sequence

import yaml

from ..tokens.batch import MASK_PROB
from ..tokens.codec import MAX_RUN
from ..errors import ConfigError, brief
from ..model.config import MAX_POSITIONS, ModelConfig
from ..tokens.normalize import METHODS
from .overrides import FREE_SECTIONS, ConfigLoader, apply_overrides, parse_overrides
from ..util.schema import (
    above_zero,
    check_choice,
    check_section,
    checked,
    fail,
    fraction,
    in_unit_interval,
    one_of,
    positive,
    section_defaults,
)

if TYPE_CHECKING:
    from ..encodings import NumberEncoding

__all__ = [
    "RunConfig",
    "DataConfig",
    "OptimConfig",
    "TrainerConfig",
    "assemble_config",
    "load_config",
    "validate_config",
    "apply_overrides",
    "parse_overrides",
    "resolve_normalizer",
    "KINDS",
    "check_budget",
    "field_probs",
]


def _probability_or_mapping(v: float | dict) -> str | None:
    if isinstance(v, dict):
        ok = all(isinstance(k, str) and type(p) in (int, float) and 0 <= p <= 1 for k, p in v.items())
        return None if ok else "a number in [0, 1], or a mapping of mask_fields paths to numbers in [0, 1]"
    return in_unit_interval(v)


@dataclass
class DataConfig:
    """``data:``: the dataset and its batches — the keyword arguments of
    :class:`~scinum.train.data.MLMDataModule`."""

    path: str | Path | None = None  # the dataset directory (scinum fit requires one)
    batch_size: int = positive(64)  # records per batch and device
    mask_prob: float = fraction(MASK_PROB)  # each real token hidden with this probability
    num_workers: int = 0  # data loader processes
    pool: int = positive(50)  # batches per length-sorted pool (BucketBatchSampler)
    cache_dir: str | Path | None = None  # token shards; None: next to the dataset
    max_run: int = positive(MAX_RUN)
    val_split: str = "val"
    # fill-task training: numbers these JSON paths name are hidden with this probability on top of
    # the MLM masking (mask_prob 0: only these), or with one per path ({path: probability}, every
    # path of mask_fields named); alone: then nothing else in that record is, as `scinum fill`
    # asks (better on tables and on ERA5: experiments/tabular.md, experiments/era5-target-alone)
    mask_fields: list[str] = field(default_factory=list)
    mask_fields_prob: float | dict[str, float] = checked(_probability_or_mapping, 0.5)
    mask_fields_alone: bool = True
    # a longer train/val record is refused before training (attention costs its square)
    max_record_tokens: int = positive(16384)
    # each batch's length rounded up to a multiple of this (padding, which attention ignores): on
    # a GPU fewer distinct batch shapes (experiments/training-on-gpus.md); 1: the longest record's length
    pad_to: int = positive(1)
    # host-to-GPU copies: page-locked batches (only when CUDA is there; ignored on a CPU-only
    # machine) and batches each loader worker prepares ahead (null: torch's default, 2; only
    # with num_workers > 0) -- what keeps a GPU fed (experiments/training-on-gpus.md)
    pin_memory: bool = False
    prefetch_factor: int | None = positive(None)


def _betas(v: list) -> str | None:
    ok = len(v) == 2 and all(type(b) in (int, float) and 0 <= b < 1 for b in v)
    return None if ok else "two numbers in [0, 1)"


@dataclass
class OptimConfig:
    """``optim:``: AdamW and its schedule (linear warmup, cosine decay to ``min_lr_ratio·lr``)."""

    lr: float = checked(lambda v: None if type(v) in (int, float) and 0 < v <= 10 else "a number in (0, 10]", 1.4e-3)
    weight_decay: float = 0.1  # on matrices and embeddings only
    betas: list[float] = checked(_betas, factory=lambda: [0.9, 0.95])
    warmup_steps: int = 50
    min_lr_ratio: float = fraction(0.1)
    grad_clip: float | None = 1.0  # max gradient norm; None: no clipping
    number_loss_weight: float = 1.0  # loss = token CE + this · number loss
    # number loss as the mean over hidden numbers ("numbers") or the mean over the batch's fields
    # of each field's mean ("fields": a field with one number per record, e.g. an orbit's
    # eccentricity, weighs as much as one with a hundred, e.g. its trajectory's coordinates)
    number_loss_mean: str = one_of("numbers", ("numbers", "fields"), "number loss mean")
    # the curvature penalty (scinum.model.curvature): its weight (0: none), how far the visible
    # values move (normalized units), the share of each batch's records it reads, and its reach
    # (normalized units: how much farther from the data its outer point may go, drawn per record)
    curvature_weight: float = checked(lambda v: "a number >= 0" if type(v) in (int, float) and not v >= 0 else None, 0.0)
    curvature_step: float = positive(1.0)
    curvature_share: float = checked(lambda v: "a number in (0, 1]" if type(v) in (int, float) and not 0 < v <= 1 else None, 1.0)
    curvature_reach: float = checked(lambda v: "a number >= 0" if type(v) in (int, float) and not v >= 0 else None, 0.0)
    # the decay of the weights' moving average that is validated and written (scinum.train.weight_average); 0: none
    weight_average: float = checked(lambda v: None if type(v) in (int, float) and 0 <= v < 1 else "0 (none) or a decay in (0, 1)", 0.99)
    # AdamW's fused CUDA kernel (one launch for every parameter): on a CUDA device only, ignored on
    # the CPU; not with 16-mixed (its gradient scaler), where the unfused step is kept
    fused: bool = False


def _devices(v: Any) -> str | None:
    if isinstance(v, list) and not v:
        return "auto, a count > 0 or a non-empty list of device indices"
    return above_zero(v)


#: precisions Lightning's Trainer takes (``auto``: scinum's choice, see :mod:`scinum.train.fit`)
PRECISIONS = ("auto", "64-true", "32-true", "16-mixed", "bf16-mixed", "16-true", "bf16-true", "64", "32", "16", "bf16", 64, 32, 16)


def _precision(v: Any) -> str | None:
    return None if v in PRECISIONS and type(v) in (str, int) else f"one of {', '.join(map(str, PRECISIONS))}"


def _lightning_name(kind: str) -> Callable[[Any], str | None]:
    """A check that ``v`` is an accelerator or strategy name Lightning registers (or auto)."""

    def check(v: Any) -> str | None:
        if v == "auto" or (kind == "accelerator" and v == "gpu"):  # gpu: Lightning's alias
            return None
        names: Collection[str]
        if kind == "accelerator":
            from lightning.pytorch.accelerators import AcceleratorRegistry

            names = AcceleratorRegistry.available_accelerators()
        else:
            from lightning.pytorch.strategies import StrategyRegistry

            names = StrategyRegistry.available_strategies()
        return None if v in names else f"auto or a Lightning {kind}: {', '.join(sorted(names))}"

    return check


def _val_batches(v: Any) -> str | None:
    if type(v) is float and not 0 <= v <= 1:
        return "a count of batches (an integer) or a share of the split in [0, 1]"
    return None


def _non_negative_int(v: Any) -> str | None:
    return None if type(v) is int and v >= 0 else "an integer >= 0"


def _seed(v: Any) -> str | None:
    return None if type(v) is int and 0 <= v < 2**32 else "an integer in [0, 2^32)"


@dataclass
class TrainerConfig:
    """``trainer:``: Lightning Trainer arguments of the same name, and scinum's checkpoint and
    distributed settings."""

    max_steps: int = positive(2000)
    accelerator: str = checked(_lightning_name("accelerator"), "auto")
    devices: str | int | list[int] = checked(_devices, "auto")
    num_nodes: int = positive(1)
    precision: str | int = checked(_precision, "auto")  # auto: bf16-mixed on GPU, 32-true on CPU
    strategy: str = checked(_lightning_name("strategy"), "auto")
    accumulate_grad_batches: int = positive(1)
    val_check_interval: int = positive(500)  # steps (a float would be a share of an epoch)
    limit_val_batches: int | float = checked(_val_batches, 50)
    log_every_n_steps: int = positive(10)
    checkpoint_every_n_steps: int = positive(500)
    # stop after this many validations without a lower val/loss and restore the best weights
    # (scinum.train.early_stopping); None: train every step and keep the last weights
    early_stopping_patience: int | None = None
    # early stopping does not end a run before this step (its patience still counts there); the
    # weights kept are still those of the lowest val/loss
    early_stopping_min_steps: int = checked(_non_negative_int, 0)
    progress_bar: bool = True
    # torch.compile the transformer trunk (on a CUDA device only; ignored on the CPU), once, for
    # any batch length (dynamic shapes); the first steps pay the compile
    # (benchmarks/paper_gpu_throughput.py, variant tuned+compile)
    compile: bool = False
    # several processes: a collective waits at most this long (s), then the run fails naming the
    # cause; SIGTERM/SIGINT: ranks that have not stopped at a step boundary this long (s) after
    # the signal are ended (scinum.train.distributed)
    collective_timeout_s: float = positive(300.0)
    signal_grace_s: float = 20.0


@dataclass
class RunConfig:
    """A whole ``scinum fit`` config (the schema of the dict; each section's defaults are its
    dataclass's; ``model``'s are :class:`~scinum.model.config.ModelConfig`'s but its ``DERIVED``)."""

    seed: int = checked(_seed, 0)
    out_dir: str | Path = "runs/scinum"
    data: DataConfig = field(default_factory=DataConfig)
    encoding: dict[str, Any] = field(default_factory=lambda: {"name": "xval"})  # name + options
    head: dict[str, Any] = field(default_factory=lambda: {"kind": "native"})  # kind + options
    # None: the encoding's default, or the head's declared one when that is "none"
    normalizer: str | None = one_of(None, METHODS, "normalizer")
    # {samples: N} | {tokens: N} | {seconds: S}: sets trainer.max_steps (scinum.train.budget); None:
    # trainer.max_steps as given
    budget: dict[str, Any] | None = None
    # heads with a distribution (mixture): fit a quantile-recalibration table per evaluation field
    # on the validation split after training, so the 68/95 % intervals cover what they say
    # (scinum.fill.calibration)
    calibrate: bool = True
    # fields (names of the records' numeric fields, one number a record) predicted on top of a
    # least-squares line of the record's other numbers, fitted on train (scinum.tokens.record_line)
    line: list[str] = field(default_factory=list)
    # positions: structure (the default: from the record's JSON structure, experiments/parity.md) |
    # learned (xVal's additive table) | rope | both; max_positions None: the longest training
    # record; value_path: layernorm (the paper's) | linear | linear_mlp (scinum.model.trunk)
    model: ModelConfig = field(default=None)  # type: ignore[assignment]
    optim: OptimConfig = field(default_factory=OptimConfig)
    trainer: TrainerConfig = field(default_factory=TrainerConfig)


def assemble_config(path: str | Path | None = None, overrides: Sequence[str] | dict = ()) -> dict:
    """Defaults <- YAML file <- overrides, not validated (unknown keys are refused): what a run
    hands to :func:`scinum.train.fit.fit`, which validates it once. Paths in
    ``data.path``/``out_dir`` stay as written."""
    config = section_defaults(RunConfig)
    if path is not None:
        try:
            loaded = yaml.load(Path(path).read_text(), Loader=ConfigLoader) or {}
        except yaml.YAMLError as e:
            mark = getattr(e, "problem_mark", None)
            where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
            raise ConfigError(f"{path}: not valid YAML ({getattr(e, 'problem', None) or e}{where})") from None
        if not isinstance(loaded, dict):
            raise ConfigError(f"{path}: a config must be a YAML mapping")
        config = apply_overrides(config, loaded)
    if not isinstance(overrides, dict):
        overrides = parse_overrides(overrides)
    return apply_overrides(config, overrides)


def load_config(path: str | Path | None = None, overrides: Sequence[str] | dict = ()) -> dict:
    """:func:`assemble_config`, validated (:func:`validate_config`): a config checked without
    training (``scinum fit --print-config``, tests)."""
    config = assemble_config(path, overrides)
    validate_config(config)
    return config


def _first_line(e: Exception) -> str:
    return (str(e).splitlines() or [""])[0][:200]


#: the budget kinds, with their unit
KINDS = {"samples": "training records", "tokens": "real tokens", "seconds": "s of training time"}


def check_budget(budget: Any, where: str = "budget") -> dict[str, Any]:
    """Return ``budget`` (a dict of exactly one kind of :data:`KINDS` with a positive number,
    plus ``max_steps`` for seconds) or raise :class:`~scinum.errors.ConfigError` naming ``where``."""
    if not isinstance(budget, dict):
        raise ConfigError(f"{where}: must be a mapping like {{samples: 38400}}, got {brief(budget)}")
    kinds = [k for k in budget if k in KINDS]
    extra = [k for k in budget if k not in KINDS and k != "max_steps"]
    if len(kinds) != 1 or extra:
        raise ConfigError(f"{where}: give exactly one of {sorted(KINDS)} (got keys {sorted(budget)})")
    kind = kinds[0]
    value = budget[kind]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < math.inf:
        raise ConfigError(f"{where}.{kind}: must be a positive finite number, got {brief(value)}")
    if "max_steps" in budget and (kind != "seconds" or not isinstance(budget["max_steps"], int) or budget["max_steps"] < 1):
        raise ConfigError(f"{where}.max_steps: only with seconds, a positive integer")
    return dict(budget)


def field_probs(mask_fields: Sequence[str], mask_fields_prob: float | Mapping[str, float]) -> dict[str, float]:
    """Each ``data.mask_fields`` path's probability of being hidden: ``mask_fields_prob`` for
    every path, or its own from a mapping that names each path of ``mask_fields`` and no other
    (:class:`~scinum.errors.ConfigError` otherwise, naming the paths)."""
    if not isinstance(mask_fields_prob, Mapping):
        return {f: mask_fields_prob for f in mask_fields}
    missing = [f for f in mask_fields if f not in mask_fields_prob]
    extra = [f for f in mask_fields_prob if f not in mask_fields]
    if missing or extra:
        raise ConfigError(
            f"data.mask_fields_prob = {dict(mask_fields_prob)}: a mapping names each path of data.mask_fields "
            f"{list(mask_fields)} and no other"
            + (f"; missing: {', '.join(missing)}" if missing else "")
            + (f"; not in data.mask_fields: {', '.join(extra)}" if extra else "")
        )
    return {f: mask_fields_prob[f] for f in mask_fields}


def validate_config(config: dict) -> NumberEncoding:
    """The number encoding ``config`` names, built once here (a run uses this instance). Raise
    :class:`~scinum.errors.ConfigError` (one line: the key, the value and what it must be, or the
    choices there are) unless every key is one of :class:`RunConfig` and every value has its
    type (an int where a float is expected is fine), numbers are finite and in range (>= 0;
    counts > 0; probabilities in [0, 1]), ``data.path`` is set, the encoding and head are
    installed (choices: the registries', plug-ins included) and take their options, the model
    section makes a trunk, the budget is one, and the accelerator exists here."""
    check_section(config, RunConfig, "")  # first: a section replaced by a value (data=5)
    if not config["data"]["path"]:
        raise ConfigError("config: data.path (the dataset directory) is required")
    from .. import encodings, heads  # local: the registries import the encodings and heads

    field_probs(config["data"].get("mask_fields", []), config["data"].get("mask_fields_prob", DataConfig.mask_fields_prob))

    for section in FREE_SECTIONS:
        if not isinstance(config.get(section), dict):
            fail(section, config.get(section), "a mapping")
    check_choice("encoding.name", config["encoding"].get("name"), encodings.names(), "number encoding")
    check_choice("head.kind", config["head"].get("kind", "native"), heads.REGISTRY.names(), "number head kind")
    try:
        encoding = encodings.from_config(config["encoding"])
    except (TypeError, ValueError, KeyError) as e:
        raise ConfigError(f"config: encoding = {brief(config['encoding'], 120)}: {_first_line(e)}") from None
    try:
        heads.check_options(encoding, config["head"])
    except ValueError as e:
        raise ConfigError(f"config: head = {brief(config['head'], 120)}: {_first_line(e)}") from None
    weight = config.get("optim", {}).get("curvature_weight")
    if weight:
        from ..model.curvature import check_curvature

        try:
            check_curvature(encoding, config["head"])
        except ValueError as e:
            raise ConfigError(f"config: optim.curvature_weight = {brief(weight)}: {_first_line(e)}") from None
    if config.get("line"):
        if not heads.make_head(encoding, 8, config["head"]).has_smooth_point:
            raise ConfigError(
                f"config: line = {brief(config['line'])}: needs a head whose prediction is a number "
                f"it can move by an offset and scale (xVal's head, the mixture head); head = {brief(config['head'])}"
            )
    positions = config["model"].get("max_positions")
    longest = config["data"]["max_record_tokens"]
    if positions is not None and positions > min(longest, MAX_POSITIONS):
        fail(
            "model.max_positions",
            positions,
            f"null (the longest training record) or at most data.max_record_tokens ({longest}), the longest record a run "
            f"trains on, and at most {MAX_POSITIONS}",
        )
    model = {**config.get("model", {}), "vocab_size": 1, "num_dim": encoding.dim, "combine": encoding.combine}
    try:
        ModelConfig(**{**model, "max_positions": model.get("max_positions") or 1})
    except ValueError as e:
        raise ConfigError(f"config: model: {_first_line(e)}") from None
    try:
        resolve_normalizer(config, encoding)
        if config.get("budget") is not None:
            check_budget(config["budget"])
    except ValueError as e:
        raise ConfigError(f"config: {_first_line(e)}") from None
    accelerator = config["trainer"]["accelerator"]
    import torch

    if accelerator in ("gpu", "cuda") and not torch.cuda.is_available():
        fail("trainer.accelerator", accelerator, "an accelerator this machine has (no CUDA GPU is available: use cpu or auto)")
    if accelerator not in ("auto", "cpu", "gpu", "cuda"):
        from lightning.pytorch.accelerators import AcceleratorRegistry

        try:  # TPU without torch_xla, MPS off a Mac: refused here, not in a traceback of the Trainer
            available = bool(AcceleratorRegistry[accelerator]["accelerator"].is_available())
        except Exception:
            available = False
        if not available:
            fail(
                "trainer.accelerator",
                accelerator,
                f"an accelerator this machine has ({accelerator} is not available here: use cpu or auto)",
            )
    return encoding


def resolve_normalizer(config: dict, encoding: Any) -> str:
    """The normalizer method: ``config["normalizer"]`` if set, else the encoding's default —
    except that a head that declares a normalizer (:attr:`scinum.heads.HeadOutputs.normalizer`;
    the mixture head, which works in normalized space with means initialised over [-5, 5],
    declares ``"standard"``) gets it where the encoding's default is ``"none"``. Encodings that are
    not ``normalizable`` (the text baselines, whose tokens write the raw values) always use
    ``"none"`` (any other setting raises ``ValueError``)."""
    if not encoding.normalizable:
        if config.get("normalizer") not in (None, "none"):
            raise ValueError(f"encoding {encoding.name} writes raw values as tokens: normalizer must be none, got {config['normalizer']!r}")
        return "none"
    if config.get("normalizer"):
        return config["normalizer"]
    from ..heads import declared

    wanted = declared(config["head"]).normalizer
    if wanted and encoding.default_normalizer == "none":
        return wanted
    return encoding.default_normalizer
