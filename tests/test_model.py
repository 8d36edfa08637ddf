"""The trunk: architecture conventions, padding invariance, hidden values never reach the input."""

import numpy as np
import pytest
import torch

from scinum import encodings
from scinum.tokens.codec import Codec, Vocabulary
from scinum.tokens.batch import make_batch
from scinum.heads import make_head
from scinum.model.config import ModelConfig
from scinum.model.mlm import NumberMLM
from scinum.model.trunk import Transformer
from scinum.tokens.normalize import Normalizer
from scinum.tokens.structure import COLUMNS

RECORDS = [
    {"a": 1.5, "b": [[0.25, -1.0], [2.0, 3]], "s": "x"},
    {"a": -0.5, "b": [[1.0, 2.5]], "s": "y"},
    {"a": 4.0, "b": [[0.5, 0.75], [1.25, 1], [2.5, -2], [3.0, 0.125]], "s": "x"},
]


def _setup(name: str, n_layers: int = 2, positions: str = "learned", value_path: str = "layernorm", **options):
    vocab = Vocabulary.build(RECORDS)
    codec = Codec(vocab)
    enc = encodings.get(name, **options)
    seqs = [codec.encode(r) for r in RECORDS]
    norm = Normalizer.fit(vocab.fields, [(s.fields, s.values) for s in seqs], enc.default_normalizer)
    cfg = ModelConfig(
        vocab_size=len(vocab),
        num_dim=enc.dim,
        combine=enc.combine,
        d_model=32,
        n_layers=n_layers,
        n_heads=4,
        max_positions=512,
        positions=positions,
        value_path=value_path,
        n_fields=len(vocab.fields),
    )
    torch.manual_seed(0)
    model = NumberMLM(cfg, make_head(enc, 32)).eval()
    return vocab, seqs, norm, enc, model


def _batch(vocab, seqs, hides, norm, enc):
    return make_batch(seqs, hides, codec=Codec(vocab), normalizer=norm, encoding=enc, structure=True)


def test_trunk_conventions():
    cfg = ModelConfig(vocab_size=50, d_model=64, n_layers=3, n_heads=4, max_positions=512, value_path="layernorm")
    t = Transformer(cfg)
    for name, p in t.named_parameters():
        assert "bias" not in name, name
    for m in t.modules():
        if isinstance(m, torch.nn.Linear):
            expected = (2 * m.in_features * 3) ** -0.5
            assert m.weight.std().item() == pytest.approx(expected, rel=0.1)
    h = torch.randn(5, 64)
    assert torch.equal(t.token_logits(h), h @ t.tok.weight.T)  # tied head
    assert t.blocks[0].fc.out_features == 4 * 64
    with pytest.raises(ValueError):
        ModelConfig(vocab_size=10, d_model=30, n_heads=4)


@pytest.mark.parametrize("value_path", ["layernorm", "linear", "linear_mlp"])
@pytest.mark.parametrize("positions", ["learned", "structure"])
@pytest.mark.parametrize("name", ["xval", "fone", "bittokens"])
def test_padding_invariance(name, positions, value_path):
    vocab, seqs, norm, enc, model = _setup(name, positions=positions, value_path=value_path)
    short, long_ = seqs[1], seqs[2]
    hide_s = np.zeros(len(short), bool)
    hide_s[np.flatnonzero(short.fields >= 0)[0]] = True
    alone = _batch(vocab, [short], [hide_s], norm, enc)
    both = _batch(vocab, [short, long_], [hide_s, np.zeros(len(long_), bool)], norm, enc)
    assert both["ids"].shape[1] == len(long_) > len(short)
    with torch.no_grad():
        h1 = model(alone["ids"], alone["feats"], alone["attend"], structure=alone["structure"])[0]
        h2 = model(both["ids"], both["feats"], both["attend"], structure=both["structure"])[0, : len(short)]
        p1 = model.head.predict(model.head(h1[alone["num_hidden"][0]]))
        p2 = model.head.predict(model.head(h2[both["num_hidden"][0, : len(short)]]))
    assert torch.allclose(h1, h2, atol=1e-5)
    assert torch.allclose(p1, p2, atol=1e-5)


@pytest.mark.parametrize("name", ["xval", "fone", "bittokens"])
def test_hidden_values_never_reach_the_input(name):
    vocab, seqs, norm, enc, model = _setup(name)
    s = seqs[0]
    hide = np.zeros(len(s), bool)
    num = np.flatnonzero(s.fields >= 0)
    hide[num[[0, 2]]] = True
    other = type(s)(s.ids.copy(), s.values.copy(), s.fields)
    other.values[num[[0, 2]]] = [3.75, -0.875]
    a, b = _batch(vocab, [s], [hide], norm, enc), _batch(vocab, [other], [hide], norm, enc)
    for k in ("ids", "feats", "attend", "targets", "num_hidden"):
        assert torch.equal(a[k], b[k]), k
    # the targets are the hidden values, normalized by the field's (value - shift) / scale
    f = s.fields[num[[0, 2]]]
    for batch, values in ((a, s.values[num[[0, 2]]]), (b, np.array([3.75, -0.875]))):
        want = (values - norm.shift[f]) / norm.scale[f]
        assert batch["num_target"].dtype == torch.float64
        assert torch.equal(batch["num_target"], torch.from_numpy(want))
    assert (a["ids"][0, num[[0, 2]]] == vocab.mask_id).all()
    neutral = 1.0 if enc.combine == "multiply" else 0.0
    assert (a["feats"][0, num[[0, 2]]] == neutral).all()
    non_num = torch.from_numpy(s.fields < 0)
    assert (a["feats"][0, non_num] == neutral).all()
    with torch.no_grad():
        assert torch.equal(model(a["ids"], a["feats"], a["attend"]), model(b["ids"], b["feats"], b["attend"]))
        # at non-number tokens the input is the bare token embedding (+ its position vector)
        emb = model.trunk.embed(a["ids"], a["feats"])[0, non_num]
        pos = model.trunk.pos.weight[: len(s)][non_num]
        assert torch.equal(emb, model.trunk.tok(a["ids"][0, non_num]) + pos)


def test_visible_numbers_change_the_input():
    """xVal: the input at a visible number is its [NUM] embedding times the normalized value,
    plus the position vector; every other token's input stays as it was."""
    vocab, seqs, norm, enc, model = _setup("xval")
    s = seqs[0]
    j = np.flatnonzero(s.fields >= 0)[1]
    no_hide = [np.zeros(len(s), bool)]
    other = type(s)(s.ids, s.values.copy(), s.fields)
    other.values[j] += 1.0
    a, b = _batch(vocab, [s], no_hide, norm, enc), _batch(vocab, [other], no_hide, norm, enc)
    u, pos = model.trunk.tok.weight[s.ids[j]], model.trunk.pos.weight[j]
    f = s.fields[j]
    with torch.no_grad():
        for batch, value in ((a, s.values[j]), (b, s.values[j] + 1.0)):
            x = np.float32((value - norm.shift[f]) / norm.scale[f])
            emb = model.trunk.embed(batch["ids"], batch["feats"])[0]
            assert torch.allclose(emb[j], u * float(x) + pos, atol=1e-6)
        rest = torch.arange(len(s)) != j
        assert torch.equal(model.trunk.embed(a["ids"], a["feats"])[0, rest], model.trunk.embed(b["ids"], b["feats"])[0, rest])


def test_forward_under_bf16_autocast():
    """Under bf16 autocast the linear maps run in bf16, and the hidden states (float32 after the
    final LayerNorm) and losses stay within bf16 rounding of the float32 forward."""
    vocab, seqs, norm, enc, model = _setup("bittokens")
    batch = _batch(vocab, seqs, [np.asarray(s.fields >= 0) for s in seqs], norm, enc)
    args, hidden, target = (batch["ids"], batch["feats"], batch["attend"]), batch["num_hidden"], batch["num_target"]
    with torch.no_grad():
        h32 = model(*args)
        loss32 = model.head.loss(model.head(h32[hidden]), target)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            assert model.trunk.blocks[0].fc(h32).dtype == torch.bfloat16
            h = model(*args)
            loss = model.head.loss(model.head(h[hidden]), target)
    assert h.dtype == loss.dtype == torch.float32
    assert torch.allclose(h[batch["attend"]], h32[batch["attend"]], atol=0.05)
    assert torch.allclose(loss, loss32, atol=1e-2)


def _trunk(positions: str) -> Transformer:
    torch.manual_seed(0)
    cfg = ModelConfig(
        vocab_size=8, d_model=32, n_layers=1, n_heads=4, positions=positions, max_positions=None if positions == "rope" else 16
    )
    return Transformer(cfg).eval()


def _first_attention_input(t: Transformer, value: float) -> torch.Tensor:
    """The first block's attention input (``ln1`` of the embedding) at a number token of value
    ``value`` (token id 2 at position 1) of the xVal trunk ``t``."""
    ids = torch.tensor([[1, 2, 3]])
    feats = torch.ones(1, 3, 1)
    feats[0, 1, 0] = value  # token 1 is a number: its embedding is scaled by the value
    with torch.no_grad():
        return t.blocks[0].ln1(t.embed(ids, feats))[0, 1]


def _layer_norm(z: torch.Tensor) -> torch.Tensor:
    """LayerNorm at initialisation (weight 1, no bias, eps 1e-5), by hand."""
    return (z - z.mean()) / torch.sqrt(z.var(unbiased=False) + 1e-5)


@pytest.mark.parametrize("positions", ["learned", "both"])
def test_additive_positions_let_magnitude_reach_attention(positions):
    """xVal seed 002 §2.1: the first LayerNorm sees x·u + p, which keeps the magnitude of x."""
    t = _trunk(positions)
    u, p = t.tok.weight[2].detach(), t.pos.weight[1].detach()
    for x in (0.5, 3.0, -3.0):
        assert torch.allclose(_first_attention_input(t, x), _layer_norm(x * u + p), atol=1e-5)


def test_rope_trunk_sees_only_the_sign_of_a_number():
    """Without an additive vector, LN(x·u) = sign(x)·LN(u): magnitude is lost, sign is kept."""
    t = _trunk("rope")
    u = t.tok.weight[2].detach()
    for x in (0.5, 3.0, -3.0):
        assert torch.allclose(_first_attention_input(t, x), _layer_norm(x * u), atol=1e-5)
        assert torch.allclose(_first_attention_input(t, x), np.sign(x) * _layer_norm(u), atol=5e-3)  # eps aside


def test_position_options_are_checked():
    with pytest.raises(ValueError, match="positions must be one of"):
        ModelConfig(vocab_size=8, d_model=32, n_heads=4, positions="sinusoid")
    with pytest.raises(ValueError, match="max_positions"):
        ModelConfig(vocab_size=8, d_model=32, n_heads=4, positions="learned", max_positions=None)
    t = Transformer(ModelConfig(vocab_size=8, d_model=32, n_heads=4, max_positions=4, positions="learned"))
    with pytest.raises(ValueError, match="longer than the learned position table"):
        t(torch.zeros(1, 5, dtype=torch.long), torch.ones(1, 5, 1))


def test_config_without_positions_is_a_rope_trunk():
    """Checkpoints written before ``positions`` existed describe a RoPE trunk."""
    old = ModelConfig(vocab_size=8, d_model=32, n_heads=4, positions="rope", max_positions=None).to_dict()
    del old["positions"], old["max_positions"]
    cfg = ModelConfig.from_dict(old)
    assert cfg.positions == "rope" and Transformer(cfg).pos is None


def test_config_without_value_path_is_the_layernorm_trunk():
    """Checkpoints written before ``value_path`` existed (version <= 3) describe the paper's trunk."""
    old = ModelConfig(vocab_size=8, d_model=32, n_heads=4, max_positions=8).to_dict()
    del old["value_path"]
    assert ModelConfig.from_dict(old).value_path == "layernorm"
    with pytest.raises(ValueError, match="value_path must be one of"):
        ModelConfig(vocab_size=8, d_model=32, n_heads=4, max_positions=8, value_path="raw")


def _prediction_at(model, vocab, norm, enc, a: float) -> float:
    """xVal's prediction (normalized units) of ``b[0][0]`` hidden, with ``a`` visible at the
    normalized value ``a`` (features set directly, past anything a normalizer would give)."""
    seq = Codec(vocab).encode(RECORDS[1])
    hide = np.zeros(len(seq), bool)
    number_slots = np.flatnonzero(seq.fields >= 0)
    hide[number_slots[1]] = True
    b = _batch(vocab, [seq], [hide], norm, enc)
    b["feats"][0, number_slots[0], 0] = a
    with torch.no_grad():
        return float(model.predict(b).values[0])


def test_linear_value_path_lets_a_prediction_grow_with_its_input():
    """``value_path: linear``: a visible number reaches a hidden one's prediction through linear
    maps, so the prediction keeps changing as the input grows without bound; the paper's pre-LN
    trunk normalizes what every token receives and its prediction converges (it cannot leave a
    bounded range, whatever the input)."""
    for path in ("layernorm", "linear", "linear_mlp"):
        vocab, seqs, norm, enc, model = _setup("xval", positions="structure", value_path=path)
        far, farther = (_prediction_at(model, vocab, norm, enc, a) for a in (1e4, 1e5))
        if path == "layernorm":
            assert abs(farther - far) < 1e-3 * max(1.0, abs(far))
        else:
            assert abs(farther - far) > 1.0 and abs(farther) > 5 * abs(_prediction_at(model, vocab, norm, enc, 1e3))


@pytest.mark.parametrize("value_path", ["linear", "linear_mlp"])
def test_linear_value_path_normalizes_only_the_token_head(value_path):
    """The trunk's output is the residual stream; the tied token head reads its LayerNorm."""
    t = Transformer(ModelConfig(vocab_size=20, d_model=32, n_heads=4, max_positions=16, value_path=value_path))
    h = torch.randn(5, 32) * 7 + 3
    assert torch.allclose(t.token_logits(h), t.ln_f(h) @ t.tok.weight.T)


def test_value_path_text_names_every_departure_from_the_pre_ln_trunk():
    from scinum.model.config import VALUE_PATHS, value_path_text

    texts = {path: value_path_text({"value_path": path}) for path in VALUE_PATHS}
    assert texts == {"layernorm": "", "linear": ", linear value path", "linear_mlp": ", linear value and MLP path"}
    assert value_path_text({}) == ""  # configs from before the key: the paper's trunk


def test_linear_mlp_path_feeds_the_residual_stream_to_the_mlps():
    """``linear_mlp``: a block's MLP reads ``x`` itself (no second LayerNorm, so no weight left
    without a gradient), and scaling a block's input scales what its MLP receives; the
    ``linear`` path's MLP input is the same whatever the scale."""
    from scinum.model.trunk import Block

    torch.manual_seed(0)
    blocks = {
        path: Block(ModelConfig(vocab_size=20, d_model=32, n_heads=4, max_positions=16, value_path=path))
        for path in ("linear", "linear_mlp")
    }
    blocks["linear_mlp"].load_state_dict(blocks["linear"].state_dict(), strict=False)
    assert "ln2.weight" not in blocks["linear_mlp"].state_dict()
    seen = {}
    for path, block in blocks.items():
        block.fc.register_forward_hook(lambda mod, args, out, path=path: seen.setdefault(path, []).append(args[0]))
        x = torch.randn(2, 6, 32)
        block(x, None, None)
        block(10 * x, None, None)
    small, large = seen["linear_mlp"]
    assert large.norm() > 5 * small.norm()  # the attention's output grows with x on these paths
    small, large = seen["linear"]
    assert torch.allclose(large.norm(dim=-1), small.norm(dim=-1), rtol=1e-4)  # LN: unit scale
    out = blocks["linear_mlp"](torch.randn(2, 6, 32), None, None)
    out.sum().backward()
    assert all(p.grad is not None for p in blocks["linear_mlp"].parameters())


@pytest.mark.parametrize("multiple", [1, 5, 16])
@pytest.mark.parametrize("value_path", ["layernorm", "linear", "linear_mlp"])
@pytest.mark.parametrize("positions", ["learned", "rope", "both"])
def test_hidden_rows_give_the_full_outputs_at_those_positions(positions, value_path, multiple):
    """Inference computes the last block only at the masked positions: the same hidden states
    as the full forward there (float32 sums aside), padding and uneven counts included, and
    with the row count rounded up to ``multiple`` (16: past the 12 positions, so all of them)."""
    from scinum.tokens.batch import hidden_rows

    torch.manual_seed(0)
    cfg = ModelConfig(vocab_size=30, d_model=32, n_layers=3, n_heads=2, positions=positions, max_positions=16, value_path=value_path)
    net = Transformer(cfg).eval()
    ids = torch.randint(0, 30, (3, 12))
    feats = torch.rand(3, 12, 1) + 0.5
    attend = torch.ones(3, 12, dtype=torch.bool)
    attend[1, 9:] = False
    want = torch.zeros(3, 12, dtype=torch.bool)
    want[0, [1, 5, 11]] = True
    want[1, 8] = True
    want[2, [0, 3]] = True
    rows, valid = hidden_rows(want, multiple)
    assert rows.shape == valid.shape == (3, {1: 3, 5: 5, 16: 12}[multiple]) and valid.sum() == 6
    with torch.no_grad():
        full = net(ids, feats, attend)[want]
        part = net(ids, feats, attend, rows)[valid]
    assert part.shape == full.shape == (6, 32)
    assert torch.allclose(part, full, atol=1e-5)


def test_the_last_blocks_row_count_is_rounded_on_a_gpu_alone():
    """On a GPU each new attention shape cost a step ~130 ms (experiments/gpu-check-h200); CPU runs
    keep their shapes, bit for bit."""
    from scinum.tokens.batch import GPU_ROW_MULTIPLE, row_multiple

    assert row_multiple(torch.device("cpu")) == 1 and row_multiple(torch.device("cuda", 0)) == GPU_ROW_MULTIPLE == 16


def _every_row(hidden: torch.Tensor, multiple: int = 1) -> tuple[torch.Tensor, torch.Tensor]:
    """hidden_rows' contract with every position a row: the last block computes all of them."""
    B, L = hidden.shape
    return torch.arange(L).expand(B, L), hidden


@pytest.mark.parametrize("curvature", [False, True])
@pytest.mark.parametrize("name", ["xval", "fone", "bittokens"])
def test_training_losses_computing_only_the_hidden_rows_equal_those_of_every_row(name, curvature, monkeypatch):
    """The training step's last block computes only the hidden tokens' rows: the losses and every
    gradient are those of the full forward pass (float32 sums aside), padding, uneven counts,
    hidden text tokens and the curvature penalty's copies included."""
    import scinum.model.mlm as mlm
    import scinum.tokens.batch as batch_module
    from scinum.model.curvature import Curvature

    vocab, seqs, norm, enc, model = _setup(name, positions="structure", value_path="linear_mlp")
    rng = np.random.default_rng(0)
    hides = [rng.random(len(s)) < 0.4 for s in seqs]
    hides[1][:] = False
    hides[1][np.flatnonzero(seqs[1].fields >= 0)[0]] = True  # one record hides a single number
    batch = _batch(vocab, seqs, hides, norm, enc)
    assert (batch["targets"] != -100).sum() > batch["num_hidden"].sum() > 0  # text tokens hidden too
    spec = Curvature(5.0, 1.0, 1.0, enc) if curvature and model.head.has_smooth_point else None
    model.train()

    def step() -> tuple[dict, list[torch.Tensor]]:
        model.zero_grad()
        torch.manual_seed(7)
        res = model.losses(batch, curvature=spec)
        res["loss"].backward()
        return res, [p.grad.clone() for p in model.parameters() if p.grad is not None]

    some, some_grads = step()
    monkeypatch.setattr(mlm, "hidden_rows", _every_row)  # the curvature copies' rows
    monkeypatch.setattr(batch_module, "hidden_rows", _every_row)  # the batch's own (hidden_layout)
    every, every_grads = step()
    for key in ("loss", "token_ce", "number_loss", *(("curvature",) if spec else ())):
        assert some[key].item() == pytest.approx(every[key].item(), rel=1e-5, abs=1e-7), key
    assert len(some_grads) == len(every_grads) > 0
    for a, b in zip(some_grads, every_grads):
        assert torch.allclose(a, b, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("multiple", [1, 16])
def test_hidden_layout_indexes_what_the_boolean_masks_select(multiple):
    """HiddenLayout (made on the host before a batch moves to a GPU) picks, with index tensors,
    exactly what the masks pick: the hidden rows, their targets, the hidden numbers among them;
    and the training losses and gradients with a precomputed layout equal those without, bit for bit."""
    from scinum.tokens.batch import hidden_layout, hidden_rows

    vocab, seqs, norm, enc, model = _setup("xval", positions="structure")
    rng = np.random.default_rng(1)
    hides = [rng.random(len(s)) < 0.4 for s in seqs]
    batch = _batch(vocab, seqs, hides, norm, enc)
    tok = batch["targets"] != -100
    lay = hidden_layout(batch, multiple)
    rows, valid = hidden_rows(tok, multiple)
    assert torch.equal(lay.rows, rows) and lay.take.dtype == lay.numbers.dtype == torch.int64
    h = torch.randn(*rows.shape, 5)
    assert torch.equal(h.flatten(0, 1)[lay.take], h[valid])
    assert torch.equal(lay.targets, batch["targets"][tok])
    t = torch.randn(int(tok.sum()))
    assert torch.equal(t[lay.numbers], t[batch["num_hidden"][tok]]) and len(lay.numbers) == int(batch["num_hidden"].sum()) > 0
    model.train()

    def step(b) -> tuple[torch.Tensor, list[torch.Tensor]]:
        model.zero_grad()
        loss = model.losses(b)["loss"]
        loss.backward()
        return loss.detach(), [p.grad.clone() for p in model.parameters() if p.grad is not None]

    plain, plain_grads = step(batch)
    laid, laid_grads = step({**batch, "hidden_layout": hidden_layout(batch)})
    assert torch.equal(plain, laid) and all(torch.equal(a, b) for a, b in zip(plain_grads, laid_grads))


def test_bittokens_replace_puts_the_bits_in_place_of_the_token_embedding():
    """``combine: replace`` (the BitTokens reference's zero_pad): at a visible number the input is
    the ±1 bits × sqrt(d/dim), zero-padded to d (no token embedding, no parameters); at hidden
    numbers and other tokens the token embedding as before; hidden values never reach it."""
    vocab, seqs, norm, enc, model = _setup("bittokens", combine="replace", precision=16)
    assert enc.combine == "replace" and model.trunk.num_proj is None
    assert encodings.from_config(enc.config()).combine == "replace"
    s = seqs[0]
    num = np.flatnonzero(s.fields >= 0)
    hide = np.zeros(len(s), bool)
    hide[num[0]] = True
    b = _batch(vocab, [s], [hide], norm, enc)
    with torch.no_grad():
        emb = model.trunk.embed(b["ids"], b["feats"])[0] - model.trunk.pos.weight[: len(s)]
        tok = model.trunk.tok(b["ids"][0])
    visible = torch.from_numpy(s.fields >= 0) & ~torch.from_numpy(hide)
    bits = enc.encode(torch.from_numpy(norm.forward(s.values[visible.numpy()], s.fields[visible.numpy()])))
    want = torch.nn.functional.pad(bits * (32 / 16) ** 0.5, (0, 32 - 16))
    assert torch.allclose(emb[visible], want, atol=1e-6)
    assert torch.allclose(emb[~visible], tok[~visible], atol=1e-6)
    other = type(s)(s.ids.copy(), s.values.copy(), s.fields)
    other.values[num[0]] = 3.75
    c = _batch(vocab, [other], [hide], norm, enc)
    with torch.no_grad():
        assert torch.equal(model(b["ids"], b["feats"]), model(c["ids"], c["feats"]))
    with pytest.raises(ValueError, match="d_model 32 must be >= 128"):
        ModelConfig(vocab_size=8, num_dim=128, combine="replace", d_model=32, n_heads=4)
    with pytest.raises(ValueError, match="bittokens combine must be one of"):
        encodings.get("bittokens", combine="concat")
    # a checkpoint's options from before the option existed: the learned linear map
    assert encodings.from_config({"name": "bittokens", "reciprocal": False, "precision": 64}).combine == "add"


@pytest.mark.parametrize("name", ["xval", "fone", "bittokens"])
def test_a_batch_holds_exactly_the_declared_fields_with_their_shapes(name):
    """scinum.tokens.batch.Batch declares what the model reads; make_batch builds exactly that."""
    from typing import get_type_hints

    from scinum.tokens.batch import Batch

    vocab, seqs, norm, enc, _ = _setup(name)
    hides = [np.asarray(s.fields >= 0) & (np.arange(len(s)) % 2 == 0) for s in seqs[:2]]
    b = make_batch(seqs[:2], hides, codec=Codec(vocab), normalizer=norm, encoding=enc)
    assert list(b) == [k for k in get_type_hints(Batch) if k in Batch.__required_keys__]
    # num_* with a line (test_record_line); hidden_layout: added in training (test_hidden_layout_*)
    assert Batch.__optional_keys__ == {"structure", "num_offset", "num_scale", "num_held", "hidden_layout"}
    with_structure = make_batch(seqs[:2], hides, codec=Codec(vocab), normalizer=norm, encoding=enc, structure=True)
    assert set(with_structure) == set(get_type_hints(Batch)) - {"num_offset", "num_scale", "num_held", "hidden_layout"}
    B, T = 2, max(len(s) for s in seqs[:2])
    assert with_structure["structure"].dtype == torch.int64
    assert with_structure["structure"].shape == (B, T, 1 + COLUMNS)
    assert torch.equal(with_structure["structure"][..., 0][with_structure["num_hidden"]], b["num_field"])
    n = int(b["num_hidden"].sum())
    expected = {
        "ids": (torch.int64, (B, T)),
        "feats": (torch.float32, (B, T, enc.dim)),
        "attend": (torch.bool, (B, T)),
        "targets": (torch.int64, (B, T)),
        "num_hidden": (torch.bool, (B, T)),
        "num_target": (torch.float64, (n,)),
        "num_field": (torch.int64, (n,)),
    }
    assert {k: (v.dtype, tuple(v.shape)) for k, v in b.items()} == expected
    assert n > 0
