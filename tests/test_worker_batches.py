"""Batches leave a data-loader worker by value (scinum.train.worker_batches): the same tensors as
the training process would make itself, without one shared-memory file and socket per tensor."""

import itertools
import pickle

import numpy as np
import torch
from torch.multiprocessing import reductions
from multiprocessing.reduction import ForkingPickler

from scinum import encodings
from scinum.tokens.batch import HiddenLayout
from scinum.train.data import MLMDataModule
from scinum.train.worker_batches import SentBatch, by_value

from test_data import make_dataset


def _same(a, b):
    """a and b hold equal values of the same types, dtypes and shapes, nested alike."""
    assert type(a) is type(b), (type(a), type(b))
    if isinstance(a, torch.Tensor):
        assert a.dtype == b.dtype and a.shape == b.shape and torch.equal(a, b)
    elif isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and np.array_equal(a, b)
    elif isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            _same(a[k], b[k])
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    else:
        assert a == b


def test_a_sent_batch_unpickles_as_the_plain_dict_it_carried():
    g = torch.Generator().manual_seed(0)
    batch = {
        "ids": torch.randint(0, 50, (4, 7), generator=g),
        "feats": torch.randn(4, 7, 3, generator=g)[:, :, :1],  # a strided view: its values alone travel
        "attend": torch.rand(4, 7, generator=g) > 0.3,
        "num_target": torch.randn(5, generator=g, dtype=torch.float64),
        "hidden_layout": HiddenLayout(*(torch.arange(k) for k in (3, 4, 5, 6))),
        "an_array": np.arange(3.0),  # an array the batch holds stays an array
        "count": 5,
    }
    back = pickle.loads(ForkingPickler.dumps(SentBatch(batch)))
    _same(back, batch)
    assert back["feats"].is_contiguous() and back["feats"].numel() == 28
    assert back["ids"].numpy().flags.writeable  # tensors over memory of their own, not shared


def test_by_value_wraps_only_inside_a_worker():
    batch = {"ids": torch.zeros(2, 3)}
    plain = by_value(lambda items: batch)([])
    assert plain is batch and type(plain) is dict


def test_worker_batches_arrive_by_value_and_equal_the_in_process_ones(tmp_path, monkeypatch):
    """A loader with a worker gives the batches the training process makes itself, bit for bit,
    and none of their storages arrives as a shared-memory file descriptor (15 socket connections a
    batch of the planets best preset, about 12 ms of the training process's step: the module's
    docstring)."""
    ds = make_dataset(tmp_path / "ds")
    kw = dict(batch_size=8, seed=3, structure=True, mask_fields=["c"], mask_fields_prob=0.5)
    here, worker = (MLMDataModule(str(ds), encodings.get("xval"), num_workers=n, **kw) for n in (0, 1))
    for dm in (here, worker):
        dm.prepare()
    streams = iter(here.train_dataloader()), iter(worker.train_dataloader())  # the worker starts here
    # patched after the worker forked (there it would no longer pickle), where batches unpickle
    fd_storages = []
    rebuild = reductions.rebuild_storage_fd
    monkeypatch.setattr(reductions, "rebuild_storage_fd", lambda *a: fd_storages.append(a) or rebuild(*a))
    for a, b in itertools.islice(zip(*streams), 5):  # the stream is endless
        _same(b, a)
        assert "hidden_layout" in b and "structure" in b
    assert not fd_storages
