"""Where a model looks when it fills a field: the attention from a hidden number onto the record.

``scinum attention --model M --records R --field PATH`` hides the number(s) ``PATH`` names in each
record, as ``scinum fill`` hides them, runs the trunk once and reads every block's attention
weights (:meth:`scinum.model.trunk.Transformer.attention_maps`) from the hidden number's tokens.
The weight each key token receives is summed per JSON path of the number it belongs to
(``data[0][0][1]``: list indices kept, so records of other layouts add up at the same paths);
every token that is not a visible number — keys, brackets, the ``[MASK]`` itself — counts under
:data:`OTHER`. Each (layer, head) row then says, averaged over the records, what share of that
head's attention goes where: a head whose share is spread thin, or sits on :data:`OTHER`, reads
no particular number (experiments/planets-attention: what the shares went with on planets).

Shares are of the attention weights, not of the prediction: a head can look at a number and the
layers after it ignore what it read. Read them as where information *can* come from.
"""

from __future__ import annotations

import argparse
import csv
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from pathlib import Path
from typing import Iterable, Iterator

import numpy as np
import torch

from ..errors import RecordError, ScinumError
from ..records.paths import format_path
from ..util.atomic import atomic_path

__all__ = ["AttentionReport", "attention_report", "OTHER", "add_arguments", "run"]

#: the key under which tokens that are not visible numbers are counted
OTHER = "(not a number)"


@dataclass
class AttentionReport:
    """Mean attention shares from the hidden ``field`` over ``records`` records: ``share[(layer,
    head)][path]`` (each (layer, head)'s shares sum to 1)."""

    field: str
    records: int = 0
    share: dict[tuple[int, int], dict[str, float]] = dataclass_field(default_factory=dict)

    def top(self, layer: int, head: int, n: int = 8) -> list[tuple[str, float]]:
        """The ``n`` paths of largest share for one head, largest first."""
        return sorted(self.share[(layer, head)].items(), key=lambda kv: (-kv[1], kv[0]))[:n]

    def total(self, paths: Iterable[str]) -> dict[tuple[int, int], float]:
        """The summed share of ``paths`` per (layer, head)."""
        wanted = set(paths)
        return {lh: sum(v for p, v in shares.items() if p in wanted) for lh, shares in self.share.items()}

    def rows(self) -> list[dict]:
        """One row per (layer, head, path): what :func:`run` writes to CSV."""
        return [
            {"layer": layer, "head": head, "path": path, "share": value}
            for (layer, head), shares in sorted(self.share.items())
            for path, value in sorted(shares.items(), key=lambda kv: (-kv[1], kv[0]))
        ]

    def text(self, n: int = 8) -> str:
        lines = [f"attention from the hidden {self.field}, mean over {self.records} records (share of each head's weights):"]
        for layer, head in sorted(self.share):
            lines.append(f"  layer {layer} head {head}: " + ", ".join(f"{p} {v:.2f}" for p, v in self.top(layer, head, n)))
        return "\n".join(lines)


def attention_report(model, records: Iterable[dict | tuple[str, int, dict]], field: str, *, limit: int | None = None) -> AttentionReport:
    """Attention shares from the hidden ``field`` (a JSON path or pattern, as fill's mask) of a
    loaded model (:func:`scinum.load`), over ``records``: dicts, or ``(file, line, record)`` so
    that an error names where. A record where ``field`` names no number is a
    :class:`~scinum.errors.RecordError` naming the file, line or record and the path."""
    report = AttentionReport(field)
    sums: dict[tuple[int, int], dict[str, float]] = {}
    for i, item in enumerate(records):
        if limit is not None and i >= limit:
            break
        file, line, record = item if isinstance(item, tuple) else (None, None, item)
        try:
            maps, names = _maps_and_names(model, record, field)
        except RecordError as e:
            raise e.located(file=file, line=line, record=None if line is not None else i, path=field) from None
        for layer, weights in enumerate(maps):  # weights [H, Q (hidden tokens), L]
            for head in range(weights.shape[0]):
                per_key = weights[head].mean(0).numpy()
                acc = sums.setdefault((layer, head), {})
                for path, w in _by_name(names, per_key):
                    acc[path] = acc.get(path, 0.0) + w
        report.records += 1
    if not report.records:
        raise ScinumError("attention: no records to read")
    report.share = {lh: {p: v / report.records for p, v in acc.items()} for lh, acc in sums.items()}
    return report


def _maps_and_names(model, record: dict, field: str) -> tuple[list[torch.Tensor], list[str]]:
    """Every block's weights from the hidden tokens of ``field`` ([H, Q, L] each) and the name
    of each of the L key tokens (its number's path, or :data:`OTHER`)."""
    from ..tokens.batch import hidden_positions, make_batch
    from ..tokens.structure import read_tokens

    codec = model.codec
    trunk = model.model.trunk
    encoded, paths = codec.encode_with_paths(record)
    hide = hidden_positions(codec, record, [field])
    batch = make_batch(
        [encoded],
        [hide],
        codec=codec,
        normalizer=model.normalizer,
        encoding=model.encoding,
        structure=True,
        structure_tokens=trunk.cfg.structure_tokens,
    )
    dev = next(trunk.parameters()).device
    structure = batch["structure"].to(dev) if trunk.cfg.positions == "structure" else None
    maps = trunk.attention_maps(batch["ids"].to(dev), batch["feats"].to(dev), batch["attend"].to(dev), structure)
    names = [OTHER] * len(encoded.ids)
    starts = codec.number_starts(encoded.ids)
    for start, path in zip(starts, paths):
        for t in range(start, start + codec.tokens_per_number):
            if not hide[t]:
                names[t] = format_path(path)
    read = np.flatnonzero(read_tokens(encoded.ids, codec)) if not trunk.cfg.structure_tokens else np.arange(len(hide))
    queries = torch.from_numpy(np.flatnonzero(hide[read])).to(dev)
    return [m[0][:, queries].float().cpu() for m in maps], [names[t] for t in read]


def _by_name(names: list[str], weights: np.ndarray) -> Iterator[tuple[str, float]]:
    acc: dict[str, float] = {}
    for name, w in zip(names, weights.tolist()):
        acc[name] = acc.get(name, 0.0) + w
    yield from acc.items()


def _records(path: Path, split: str) -> Iterator[tuple[str, int, dict]]:
    """``(file, line, record)`` of a dataset directory's split, or of a JSONL(.gz) file."""
    from ..datasets.directory import Dataset
    from ..records.strict import read_jsonl

    if path.is_dir():
        ds = Dataset(path)
        if split not in ds.splits:
            raise ScinumError(f"{path}: no split {split!r} (it has {', '.join(ds.splits)})")
        for f, line, record in ds.located_records(split):
            yield str(f), line, record
    else:
        for line, record in read_jsonl(path):
            yield str(path), line, record


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", required=True, help="checkpoint file or directory written by `scinum export`")
    parser.add_argument("--records", required=True, help="a dataset directory (with --split) or a JSONL(.gz) file")
    parser.add_argument("--field", required=True, help="the JSON path whose hidden number attends (as fill's --mask)")
    parser.add_argument("--split", default="test", help="the dataset directory's split to read [test]")
    parser.add_argument("--limit", type=int, default=100, help="at most this many records [100]")
    parser.add_argument("--top", type=int, default=8, help="paths shown per head [8]")
    parser.add_argument("--out", help="write every (layer, head, path, share) to this CSV file")


def run(args: argparse.Namespace) -> int:
    from ..fill.model import load

    if args.limit < 1 or args.top < 1:
        raise ScinumError("attention: --limit and --top must be >= 1")
    model = load(args.model)
    report = attention_report(model, _records(Path(args.records), args.split), args.field, limit=args.limit)
    print(report.text(args.top))
    if args.out:
        with atomic_path(args.out) as tmp, open(tmp, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=["layer", "head", "path", "share"])
            w.writeheader()
            w.writerows(report.rows())
        print(f"wrote {args.out}")
    return 0
