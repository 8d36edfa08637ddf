"""The shards' storage: a dataset directory tokenized once into memory-mapped arrays.

* :func:`tokenize_dataset` writes ``<dataset>/.tokens/<key>/`` (or a cache dir of your choice);
  ``key`` hashes the manifest, the content of every shard (:func:`shards_sha256`) and the codec
  options, so a rebuilt dataset, or a shard edited in place, gets new token shards. The
  vocabulary is built from the train split and saved next to the shards (``vocab.json``). Raw
  float64 values are stored; normalization happens at batch time, so any normalizer can be used
  with the same shards. Encodings that spell numbers in tokens of their own (the text
  baselines) get those tokens in the vocabulary and their own cache key.
* :class:`TokenShards` reads one split: concatenated ``ids`` int32, ``values`` float64,
  ``fields`` int32, ``offsets`` int64[n+1], and the ``(file, line)`` of every record.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import Iterator, Sequence

import numpy as np

from ..util.atomic import write_text_atomic
from ..util.provenance import file_sha256
from ..tokens.codec import MAX_RUN, ONE_TOKEN, Codec, Encoded, Spelling, Vocabulary
from .directory import Dataset
from ..errors import RecordError
from ..records.strict import read_jsonl

__all__ = ["tokenize_dataset", "TokenShards", "shards_sha256"]

CACHE_FORMAT = 1
_CHUNK = 1 << 20  # tokens per chunk when scanning shards


def _cache_dir(dataset: Dataset, cache_dir: str | os.PathLike | None) -> Path:
    return Path(cache_dir) if cache_dir else dataset.path / ".tokens"


def shards_sha256(path: str | os.PathLike, cache_dir: str | os.PathLike | None = None) -> str:
    """The identity of a dataset directory's content: sha256 over every shard of every split
    (its name and the sha256 of its bytes), so a shard edited in place after the build changes
    it while the manifest stays as it was. Each shard's sha256 is kept in
    ``<cache dir>/shards-<id>.json`` with its size and modification time, and recomputed only
    when either changed (a fit re-reads no shard it has hashed; a dataset on a read-only disk is
    hashed every time)."""
    dataset = Dataset(path)
    root = _cache_dir(dataset, cache_dir)
    known_file = root / f"shards-{hashlib.sha256(str(dataset.path.resolve()).encode()).hexdigest()[:12]}.json"
    try:
        known = json.loads(known_file.read_text())
        if not isinstance(known, dict):
            known = {}
    except (OSError, ValueError):
        known = {}
    entries, changed = [], False
    for split in dataset.splits:
        for f in dataset.files(split):
            rel = str(f.relative_to(dataset.path))
            st = f.stat()
            k = known.get(rel)
            if isinstance(k, dict) and k.get("size") == st.st_size and k.get("mtime_ns") == st.st_mtime_ns and k.get("sha256"):
                sha = k["sha256"]
            else:
                sha, changed = file_sha256(f), True
                known[rel] = {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": sha}
            entries.append([rel, sha])
    if changed:
        try:
            root.mkdir(parents=True, exist_ok=True)
            write_text_atomic(known_file, json.dumps(known))
        except OSError:  # a read-only place: hashed again next time, never wrong
            pass
    return hashlib.sha256(json.dumps(entries).encode()).hexdigest()


def _cache_root(dataset: Dataset, cache_dir: str | os.PathLike | None, max_run: int, spelling: Spelling) -> Path:
    key = {"manifest": dataset.manifest, "max_run": max_run, "format": CACHE_FORMAT}
    key["shards"] = shards_sha256(dataset.path, cache_dir)  # an edited shard: new token shards
    if spelling.value_in_tokens or spelling.tokens_per_number != 1 or spelling.vocabulary():
        key["text"] = spelling.config()  # one-token keys stay as they were (caches remain valid)
    text = json.dumps(key, sort_keys=True)
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    return _cache_dir(dataset, cache_dir) / digest


def tokenize_dataset(
    path: str | os.PathLike,
    splits: Sequence[str] = ("train", "val"),
    *,
    cache_dir: str | os.PathLike | None = None,
    max_run: int = MAX_RUN,
    encoding: Spelling | None = None,
) -> tuple[Vocabulary, dict[str, "TokenShards"]]:
    """Tokenize ``splits`` of a dataset directory once (later calls reuse the shards).

    Returns the vocabulary (built from ``train``) and a :class:`TokenShards` per split. A record
    the vocabulary cannot encode raises a :class:`RecordError` naming its file, line and path.
    ``encoding``: the number encoding, which spells the numbers (None: one ``[NUM]``/``[INT]``
    token each); a number it cannot write raises :class:`ValueOutOfRange` (file, line, path).
    """
    dataset = Dataset(path)
    spelling = encoding if encoding is not None else ONE_TOKEN
    root = _cache_root(dataset, cache_dir, max_run, spelling)
    root.mkdir(parents=True, exist_ok=True)
    vocab_file = root / "vocab.json"
    if not vocab_file.exists():
        Vocabulary.build(dataset.records("train"), max_run=max_run, number_tokens=spelling.vocabulary()).save(vocab_file)
    vocab = Vocabulary.load(vocab_file)
    codec = Codec(vocab, spelling)
    out = {}
    for split in splits:
        if not (root / split / "meta.json").exists():
            _write_split(dataset, split, codec, root)
        out[split] = TokenShards(root / split, dataset.path)
    return vocab, out


def _write_split(dataset: Dataset, split: str, codec: Codec, root: Path) -> None:
    """Stream ``split`` into raw binary arrays in a temp dir, then rename it into place."""
    tmp = root / f".{split}.tmp{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    files = [str(f.relative_to(dataset.path)) for f in dataset.files(split)]
    try:
        _write_arrays(dataset, split, codec, tmp, files)
    except BaseException:  # a bad record or a damaged shard: no half-written arrays left
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    final = root / split
    try:
        os.replace(tmp, final)
    except OSError:  # another process (e.g. a DDP rank) finished the same split first
        if not (final / "meta.json").exists():
            raise
        shutil.rmtree(tmp, ignore_errors=True)


def _write_arrays(dataset: Dataset, split: str, codec: Codec, tmp: Path, files: list[str]) -> None:
    """The binary arrays and ``meta.json`` of ``split`` in ``tmp``."""
    n = n_tok = 0
    with (
        open(tmp / "ids.bin", "wb") as fi,
        open(tmp / "values.bin", "wb") as fv,
        open(tmp / "fields.bin", "wb") as ff,
        open(tmp / "offsets.bin", "wb") as fo,
        open(tmp / "source.bin", "wb") as fs,
    ):
        fo.write(np.zeros(1, np.int64).tobytes())
        for k, rel in enumerate(files):
            for line, record in read_jsonl(dataset.path / rel):
                try:
                    enc = codec.encode(record)
                except RecordError as e:
                    raise e.located(file=str(dataset.path / rel), line=line) from None
                fi.write(enc.ids.astype(np.int32).tobytes())
                fv.write(enc.values.tobytes())
                ff.write(enc.fields.astype(np.int32).tobytes())
                n, n_tok = n + 1, n_tok + len(enc)
                fo.write(np.array([n_tok], np.int64).tobytes())
                fs.write(np.array([k, line], np.int32).tobytes())
    write_text_atomic(tmp / "meta.json", json.dumps({"records": n, "tokens": n_tok, "files": files}))


class TokenShards:
    """One tokenized split, memory-mapped (nothing but ``offsets`` is read eagerly)."""

    def __init__(self, path: str | os.PathLike, dataset_path: str | os.PathLike | None = None):
        self.path = Path(path)
        self.dataset_path = Path(dataset_path) if dataset_path else None
        meta = json.loads((self.path / "meta.json").read_text())
        self.files: list[str] = meta["files"]
        n, t = meta["records"], meta["tokens"]

        def mm(name: str, dtype, shape):
            if not shape[0]:
                return np.zeros(shape, dtype)
            # a plain read-only array over the mapping: a slice of an np.memmap is a memmap, whose
            # Python-level bookkeeping cost 3.4 us a slice against 1.0 (three slices an item)
            return np.asarray(np.memmap(self.path / name, dtype=dtype, mode="r", shape=shape))

        self.ids, self.values, self.fields = (
            mm("ids.bin", np.int32, (t,)),
            mm("values.bin", np.float64, (t,)),
            mm("fields.bin", np.int32, (t,)),
        )
        self.offsets = np.fromfile(self.path / "offsets.bin", dtype=np.int64)
        self.source = mm("source.bin", np.int32, (n, 2))
        self.lengths = np.diff(self.offsets)

    def __len__(self) -> int:
        return len(self.lengths)

    def __getitem__(self, i: int) -> Encoded:
        a, b = self.offsets[i], self.offsets[i + 1]
        return Encoded(self.ids[a:b].astype(np.int64), np.array(self.values[a:b]), np.array(self.fields[a:b]))

    def location(self, i: int) -> tuple[str, int]:
        """``(file, line)`` of record ``i``."""
        k, line = self.source[i]
        base = self.dataset_path if self.dataset_path else Path(".")
        return str(base / self.files[k]), int(line)

    def chunks(self) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
        """``(start token, fields, values)`` in chunks of about a million tokens."""
        for a in range(0, len(self.ids), _CHUNK):
            yield a, np.asarray(self.fields[a : a + _CHUNK]), np.asarray(self.values[a : a + _CHUNK])
