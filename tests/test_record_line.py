"""The least-squares line under the network for fields of JSON records (scinum.tokens.record_line)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from scinum.errors import CheckpointError, ConfigError
from scinum.fill.model import Model
from scinum.model.checkpoint import CheckpointMeta, load_checkpoint, save_checkpoint
from scinum.model.config import ModelConfig
from scinum.tokens.batch import make_batch
from scinum.tokens.codec import Codec, Vocabulary
from scinum.tokens.normalize import Normalizer
from scinum.tokens import record_line
from scinum.tokens.record_line import RecordLine, slot_names
from scinum.train.config import load_config
from scinum import encodings


def _records(n: int = 200, seed: int = 0) -> list[dict]:
    """``y = 2·a - 3·x[1] + 1`` (+ 1e-3 noise) with ``x`` of 2 or 3 elements, and a field ``m``
    of noise."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        x = rng.normal(size=2 + i % 2).round(6).tolist()
        a = round(float(rng.normal()), 6)
        y = 2 * a - 3 * x[1] + 1 + 1e-3 * rng.normal()
        out.append({"a": a, "x": x, "y": float(y), "m": float(rng.normal())})
    return out


def _setup(records: list[dict], fields=("y",)) -> tuple[Codec, list, RecordLine]:
    vocab = Vocabulary.build(records)
    codec = Codec(vocab)
    enc = [codec.encode(r) for r in records]
    return codec, enc, RecordLine.fit(enc, codec, list(fields))


def test_slot_names_fill_in_the_list_indices():
    codec, enc, _ = _setup(_records(4))
    assert slot_names(enc[1], codec) == ["a", "x[0]", "x[1]", "x[2]", "y", "m"]
    assert slot_names(enc[0], codec) == ["a", "x[0]", "x[1]", "y", "m"]


def test_the_line_recovers_a_linear_field_and_its_residual_spread():
    records = _records()
    codec, enc, line = _setup(records)
    starts = [codec.number_starts(e.ids) for e in enc]
    for r, e, s in zip(records, enc, starts):
        shown = e.fields[s] != codec.vocab.fields.index("y")
        assert line.value(e, shown, codec)[0] == pytest.approx(2 * r["a"] - 3 * r["x"][1] + 1, abs=5e-3)
    assert 5e-4 < line.scale[0] < 3e-3  # the noise's 1e-3, left-one-out
    assert line.slots[0] == "y" and line.slots[1:3] == ["a", "x[0]"]  # the fields' own first


def _design(records: list[dict], fl) -> np.ndarray:
    """The centred design rows of ``_records`` as a line builds them (a, x[0], x[1], m, x[2]: the
    most frequent first, standardized, 0 where absent; then x[2]'s indicator), independently of
    record_line."""
    x = np.array([[r["a"], r["x"][0], r["x"][1], r["m"], r["x"][2] if len(r["x"]) > 2 else np.nan] for r in records])
    absent = np.isnan(x)
    z = np.hstack([np.where(absent, 0.0, (x - fl.mean) / fl.sd), absent[:, [4]].astype(float)])
    return z - fl.centre


def test_the_span_and_support_are_the_training_records_lines_and_largest_leverage():
    records = _records(60)
    codec, enc, line = _setup(records)
    fl = line.lines[0]
    zc = _design(records, fl)
    fitted = fl.y_mean + zc @ fl.w
    lever = np.einsum("ij,jk,ik->i", zc, np.linalg.inv(zc.T @ zc + fl.alpha * np.eye(zc.shape[1])), zc)
    assert fl.span == pytest.approx((fitted.min(), fitted.max()), rel=1e-9)
    assert fl.support == pytest.approx(lever.max(), rel=1e-4)  # an explicit inverse at a small penalty


def test_a_training_record_is_never_held_whatever_it_hides():
    records = _records()
    codec, enc, line = _setup(records)
    rng = np.random.default_rng(1)
    y = codec.vocab.fields.index("y")
    for e in enc:
        fields = e.fields[codec.number_starts(e.ids)]
        shown = (fields != y) & (rng.random(len(fields)) > 0.4)
        value, move = line.value_and_move(e, shown, codec)
        assert move.tolist() == [0.0]


def test_a_record_without_support_is_held_within_the_span_and_says_how_far():
    """Inputs far past the training records: leverage above the support and a line past the
    span, held at the span's edge; the move is what the unbounded line adds; a line saved
    without span and support (older checkpoints) is never held."""
    records = _records()
    codec, enc, line = _setup(records)
    far = {"a": 50.0, "x": [0.0, -40.0], "y": 0.0, "m": 0.0}  # the line: 2·50 + 3·40 + 1 ≈ 221
    e = codec.encode(far)
    shown = e.fields[codec.number_starts(e.ids)] != codec.vocab.fields.index("y")
    d = line.to_dict()
    for key in ("span", "support"):
        del d["lines"][0][key]
    unbounded = RecordLine.from_dict(d)
    assert unbounded.lines[0].span is None
    free, none = unbounded.value_and_move(e, shown, codec)
    assert free[0] == pytest.approx(221, rel=0.01) and none.tolist() == [0.0]
    value, move = line.value_and_move(e, shown, codec)
    assert value[0] == line.lines[0].span[1] and move[0] == pytest.approx(free[0] - value[0], rel=1e-12)
    near = {"a": 2.0, "x": [0.0, -2.5], "y": 0.0, "m": 0.0}  # past the span (12.5), within the support
    e = codec.encode(near)
    v, m = line.value_and_move(e, shown, codec)
    assert m.tolist() == [0.0] and v[0] == unbounded.value(e, shown, codec)[0] > line.lines[0].span[1]


def test_a_span_needs_its_support():
    d = _setup(_records())[2].to_dict()
    del d["lines"][0]["support"]
    with pytest.raises(ValueError, match="support"):
        RecordLine.from_dict(d)


def test_the_line_reads_only_the_numbers_shown():
    """A hidden number is missing to the line: its value cannot move the line's value, and the
    line of a record with x[1] hidden is the line's guess without it (here: not the truth)."""
    records = _records()
    codec, enc, line = _setup(records)
    e = enc[0]
    shown = np.array([True, True, False, True, False, True])  # a, x[0], [x[1]], y, [m]... as slots
    shown = shown[: len(codec.number_starts(e.ids))]
    before = line.value(e, shown, codec)
    moved = type(e)(e.ids, e.values.copy(), e.fields)
    moved.values[codec.number_starts(e.ids)[~shown]] += 1e6
    assert np.array_equal(line.value(moved, shown, codec), before)
    every = np.ones_like(shown)
    every[codec.vocab.fields.index("y") == e.fields[codec.number_starts(e.ids)]] = False
    assert abs(line.value(e, every, codec)[0] - before[0]) > 0.1


def test_a_hidden_input_refits_the_line_without_it(monkeypatch):
    """The line of a record with x[1] and x[2] hidden (or x[2] alone) is, to rounding, the line
    fitted on training records that never had them (one penalty for every fit: ALPHAS pinned);
    x[2], absent from half the records, has an indicator, which goes with it."""
    monkeypatch.setattr(record_line, "ALPHAS", np.array([1e-3]))
    records = _records()
    codec, enc, line = _setup(records)
    assert line.lines[0].alpha == 1e-3 and len(line.lines[0].marked) == 1  # x[2]'s indicator
    y = codec.vocab.fields.index("y")
    for keep, hidden in ((1, ("x[1]", "x[2]")), (2, ("x[2]",))):
        codec_s, enc_s, line_s = _setup([{**r, "x": r["x"][:keep]} for r in records])
        for e, es in list(zip(enc, enc_s))[1:40:2]:  # the records with an x[2]
            shown = np.array([n not in hidden for n in slot_names(e, codec)]) & (e.fields[codec.number_starts(e.ids)] != y)
            shown_s = codec_s.vocab.fields.index("y") != es.fields[codec_s.number_starts(es.ids)]
            got, want = line.value(e, shown, codec)[0], line_s.value(es, shown_s, codec_s)[0]
            assert got == pytest.approx(want, rel=1e-9, abs=1e-9)


def test_errors_name_the_field():
    records = _records(20)
    vocab = Vocabulary.build(records)
    codec = Codec(vocab)
    enc = [codec.encode(r) for r in records]
    with pytest.raises(ConfigError, match=r"\['z'\] are not numeric fields.*they have: a, "):
        RecordLine.fit(enc, codec, ["z"])
    with pytest.raises(ConfigError, match=r"field 'x\[\*\]' holds 2 numbers in training record 0"):
        RecordLine.fit(enc, codec, ["x[*]"])


def test_a_batch_under_the_line_round_trips_its_targets():
    """num_target = (normalized value - num_offset) / num_scale, exactly inverted by
    num_offset + num_scale · num_target; other fields keep offset 0 and scale 1."""
    records = _records()
    codec, enc, line = _setup(records)
    norm = Normalizer.fit(codec.vocab.fields, [(e.fields, e.values) for e in enc], "standard")
    enc_x = encodings.from_config({"name": "xval"})
    hide = [np.isin(e.fields, [codec.vocab.fields.index("y"), codec.vocab.fields.index("m")]) for e in enc[:16]]
    plain = make_batch(enc[:16], hide, codec=codec, normalizer=norm, encoding=enc_x)
    lined = make_batch(enc[:16], hide, codec=codec, normalizer=norm, encoding=enc_x, line=line)
    back = lined["num_offset"] + lined["num_scale"] * lined["num_target"]
    assert torch.allclose(back, plain["num_target"], rtol=0, atol=1e-12)
    on = lined["num_field"] == codec.vocab.fields.index("y")
    assert bool(on.any()) and bool((~on).any())
    assert torch.equal(lined["num_offset"][~on], torch.zeros(int((~on).sum()), dtype=torch.float64))
    assert torch.equal(lined["num_scale"][~on], torch.ones(int((~on).sum()), dtype=torch.float64))
    assert not lined["num_held"].any()  # training records: never held
    assert float(lined["num_target"][on].abs().max()) < 5  # the residual, in the line's unit (the inputs shown)
    assert float(plain["num_target"][on].abs().max()) / float(lined["num_scale"][on][0]) > 100


def _model(records: list[dict], line: RecordLine | None, head: dict | None = None) -> Model:
    vocab = Vocabulary.build(records)
    codec = Codec(vocab)
    enc = [codec.encode(r) for r in records]
    norm = Normalizer.fit(vocab.fields, [(e.fields, e.values) for e in enc], "minmax")
    cfg = ModelConfig(
        vocab_size=len(vocab),
        num_dim=1,
        combine="multiply",
        n_fields=len(vocab.fields),
        d_model=16,
        n_layers=1,
        n_heads=2,
        max_positions=64,
    )
    meta = CheckpointMeta(model=cfg, encoding={"name": "xval"}, vocab=vocab, normalizer=norm, line=line, head=head or {"kind": "native"})
    torch.manual_seed(0)
    return Model(meta, meta.build_model())


def test_fill_adds_the_line_to_what_the_network_says(tmp_path):
    """With the number head's output zeroed, the network says 0: fill's value is the line's
    (reading the record's other numbers), through a saved and loaded checkpoint."""
    records = _records()
    codec, enc, line = _setup(records)
    model = _model(records, line)
    with torch.no_grad():
        model.model.head.out.weight.zero_()
        model.model.head.out.bias.zero_()
    save_checkpoint(tmp_path / "m.ckpt", model.model, model.meta)
    meta, net = load_checkpoint(tmp_path / "m.ckpt")
    assert meta.line is not None and meta.line.to_dict() == line.to_dict()
    loaded = Model(meta, net)
    for r, e in zip(records[:5], enc[:5]):
        got = loaded.fill(r, ["y"])["y"]
        shown = e.fields[codec.number_starts(e.ids)] != codec.vocab.fields.index("y")
        assert got == pytest.approx(line.value(e, shown, codec)[0], rel=1e-9, abs=1e-9)
        assert got == pytest.approx(r["y"], abs=5e-3)
    plain = _model(records, None)
    with torch.no_grad():
        plain.model.head.out.weight.zero_()
        plain.model.head.out.bias.zero_()
    assert abs(plain.fill(records[0], ["y"])["y"] - records[0]["y"]) > 0.05  # without the line: the field's centre


def test_fill_holds_the_line_without_support_and_widens_the_interval(tmp_path):
    """A record far past the training ones: fill's value is the held line (the network says 0),
    and a mixture head's spread and 95 % interval widen by half of what the line was held."""
    records = _records()
    codec, enc, line = _setup(records)
    model = _model(records, line, head={"kind": "mixture", "n_components": 2})
    with torch.no_grad():
        for p in model.model.head.parameters():
            p.zero_()
    far = {"a": 50.0, "x": [0.0, -40.0], "y": None, "m": 0.0}
    got = model.predict(far).predictions[0]
    assert got.value == pytest.approx(line.lines[0].span[1], rel=1e-9)
    d = line.to_dict()
    for key in ("span", "support"):
        del d["lines"][0][key]
    old = _model(records, RecordLine.from_dict(d), head={"kind": "mixture", "n_components": 2})
    old.model.load_state_dict(model.model.state_dict())
    free = old.predict(far).predictions[0]
    move = free.value - got.value
    assert move > 100  # the unbounded line: about 221
    assert got.uncertainty["std"] == pytest.approx(np.hypot(free.uncertainty["std"], 0.5 * move), rel=1e-6)
    lo, hi = got.uncertainty["interval_95"]
    assert hi - lo >= 2 * 1.959 * np.hypot(free.uncertainty["std"], 0.5 * move)
    inside = old.predict(records[0] | {"y": None}).predictions[0]  # a training record: as before
    assert model.predict(records[0] | {"y": None}).predictions[0].value == inside.value


def test_a_damaged_line_is_refused(tmp_path):
    records = _records(30)
    _, _, line = _setup(records)
    model = _model(records, line)
    d = model.meta.to_dict()
    d["line"]["fields"] = ["nope"]
    with pytest.raises(CheckpointError, match="damaged metadata.*line fields"):
        CheckpointMeta.from_dict(d)
    d = model.meta.to_dict()
    d["line"]["lines"][0]["scale"] = 0.0
    with pytest.raises(CheckpointError, match="damaged metadata.*scales > 0"):
        CheckpointMeta.from_dict(d)


def test_the_config_refuses_a_line_under_a_head_without_a_number(tmp_path):
    with pytest.raises(ConfigError, match="line = .*needs a head whose prediction is a number"):
        load_config(None, {"data": {"path": str(tmp_path)}, "line": ["y"], "encoding": {"name": "fone"}})
    assert load_config(None, {"data": {"path": str(tmp_path)}, "line": ["y"]})["line"] == ["y"]


def test_an_export_keeps_the_line_and_its_card_says_so(tmp_path):
    """``scinum export`` writes the line into config.json (its digest covers it), the export
    loads back filling as the checkpoint does, and the card and ``scinum info`` name the fields."""
    from scinum.model.exported import load_dir
    from scinum.share import card
    from scinum.share.export import export

    records = _records(60)
    _, _, line = _setup(records)
    model = _model(records, line)
    save_checkpoint(tmp_path / "m.ckpt", model.model, model.meta)
    out = export(tmp_path / "m.ckpt", tmp_path / "export")
    meta, net = load_dir(out)
    assert meta.line is not None and meta.line.to_dict() == line.to_dict()
    assert Model(meta, net).fill(records[0], ["y"]) == model.fill(records[0], ["y"])
    text = (out / "README.md").read_text()
    assert "It predicts `y` on top of a least-squares line of the record's other numbers" in text
    config = __import__("json").loads((out / "config.json").read_text())
    assert "  on a least-squares line of the record's other numbers: y" in card.describe(config)
    plain = _model(records, None)
    save_checkpoint(tmp_path / "p.ckpt", plain.model, plain.meta)
    assert "least-squares line" not in (export(tmp_path / "p.ckpt", tmp_path / "plain") / "README.md").read_text()


def test_training_with_a_line_fits_it_on_the_training_records(tmp_path):
    """``scinum fit`` with ``line``: the checkpoint holds the line fitted on the train split (a
    second fit on the same records gives the same line), and an unknown field is refused before
    training, naming the fields there are."""
    import json

    from scinum.train.fit import fit

    from conftest import write_dataset

    records = _records(120)
    data = write_dataset(tmp_path / "d", lambda i: (records[i], {}), {"train": 100, "val": (20, lambda i: (records[100 + i], {}))})
    config = load_config(
        None,
        {
            "data": {"path": str(data), "batch_size": 16, "num_workers": 0},
            "out_dir": str(tmp_path / "run"),
            "line": ["y"],
            "head": {"kind": "mixture", "n_components": 2, "mse_weight": 1.0},
            "model": {"d_model": 16, "n_layers": 1, "n_heads": 2},
            "trainer": {"max_steps": 4, "progress_bar": False, "val_check_interval": 2, "limit_val_batches": 1},
        },
    )
    meta, _ = load_checkpoint(fit(config))
    codec = Codec(meta.vocab)
    again = RecordLine.fit([codec.encode(r) for r in records[:100]], codec, ["y"])
    assert meta.line is not None and meta.line.to_dict() == json.loads(json.dumps(again.to_dict()))
    with pytest.raises(ConfigError, match=r"\['z'\] are not numeric fields"):
        fit({**config, "line": ["z"], "out_dir": str(tmp_path / "run2")})
