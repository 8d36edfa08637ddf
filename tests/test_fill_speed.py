"""What makes fill fast without changing what it predicts (benchmarks/fill_throughput.py): batches
of a cache-sized token count, the garbage collector paused, the structure positions summed by
``embedding_bag`` in inference."""

from __future__ import annotations

import gc

import numpy as np
import pytest
import torch

from scinum.fill.batching import MAX_TOKENS, length_batches, no_gc


def test_length_batches_stay_under_the_token_cap_and_keep_every_sequence_once():
    rng = np.random.default_rng(0)
    lengths = rng.integers(20, 400, 1000).tolist()
    order = np.argsort(lengths, kind="stable").tolist()
    groups = length_batches(order, lengths, 256, max_tokens=2048)
    assert sorted(i for g in groups for i in g) == list(range(1000))
    assert all(max(lengths[i] for i in g) * len(g) <= 2048 for g in groups)
    assert all(len(g) <= 256 for g in groups)
    # a sequence longer than the cap is a batch of its own; the default cap is MAX_TOKENS
    assert length_batches([0, 1], [10, 5000], 8, max_tokens=100) == [[0], [1]]
    assert length_batches(order, lengths, 256) == length_batches(order, lengths, 256, max_tokens=MAX_TOKENS)


@pytest.mark.parametrize("enabled", [True, False])
def test_no_gc_pauses_the_collector_and_restores_it(enabled):
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        with pytest.raises(KeyError):
            with no_gc():
                assert not gc.isenabled()
                raise KeyError
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()


def test_structure_positions_in_inference_equal_those_in_training():
    """The inference path (embedding_bag) gives the float32 sums of the training path's gather
    and sum, bit for bit."""
    from scinum.model.config import ModelConfig
    from scinum.model.trunk import Transformer
    from scinum.tokens.structure import COLUMNS

    torch.manual_seed(0)
    cfg = ModelConfig(vocab_size=30, d_model=32, n_layers=1, n_heads=2, max_positions=40, n_fields=5, num_dim=1, combine="multiply")
    trunk = Transformer(cfg).eval()
    ids = torch.randint(0, 30, (3, 17))
    feats = torch.rand(3, 17, 1)
    structure = torch.randint(-1, 12, (3, 17, 1 + COLUMNS))
    structure[..., 0] = torch.randint(-1, 5, (3, 17))
    with torch.enable_grad():
        train = trunk.embed(ids, feats, structure)
    with torch.inference_mode():
        infer = trunk.embed(ids, feats, structure)
    assert torch.equal(train, infer)
