"""Masked inference: scinum.load + fill/fill_many/predict and the `scinum fill` CLI."""

import json
import math
import random

import numpy as np
import pytest

import scinum
from scinum.cli.main import main
from scinum.train.config import load_config
from scinum.errors import CheckpointError, MalformedJSON, RecordError, ValueOutOfRange, VocabularyError
from scinum.train.fit import fit

from conftest import tiny_config, write_dataset  # tests/conftest.py


class Orbit:
    """Tiny structured records: y = a * x on a few points, with a label string."""

    def __call__(self, i):
        rng = random.Random(i)
        a = rng.uniform(0.5, 2.0)
        xs = [rng.uniform(-1, 1) for _ in range(rng.randint(3, 6))]
        return {"params": {"a": a, "n": len(xs)}, "kind": "line", "points": [[x, a * x] for x in xs]}, {}


def train(tmp_path_factory, head):
    root = tmp_path_factory.mktemp(f"fill-{head}")
    write_dataset(root / "data", Orbit(), {"train": 128, "val": 16}, builder="orbit", shard_size=64)
    cfg = tiny_config(
        root / "data",
        root / "run",
        data={"batch_size": 16},
        head={"kind": head},
        model={"d_model": 32},
        optim={"warmup_steps": 5, "lr": 3e-3},
        trainer={"max_steps": 30, "devices": 1, "val_check_interval": 1000, "checkpoint_every_n_steps": 1000},
    )
    cfg = load_config(overrides=cfg)
    return fit(cfg)


@pytest.fixture(scope="module")
def ckpt(tmp_path_factory):
    return train(tmp_path_factory, "native")


@pytest.fixture(scope="module")
def gmm_ckpt(tmp_path_factory):
    return train(tmp_path_factory, "mixture")


RECORD = Orbit()(1000)[0]


def test_fill_keeps_structure_and_unmasked_bits(ckpt):
    model = scinum.load(ckpt)
    out = model.fill(RECORD, mask=["params.a", "points[-1][1]"])
    assert set(out) == set(RECORD) and out["kind"] == "line"
    assert len(out["points"]) == len(RECORD["points"])
    for k, (p, q) in enumerate(zip(out["points"], RECORD["points"])):
        assert p[0] == q[0]  # bit-identical
        if k < len(RECORD["points"]) - 1:
            assert p[1] == q[1]
    assert out["params"]["n"] == RECORD["params"]["n"] and isinstance(out["params"]["n"], int)
    assert isinstance(out["params"]["a"], float) and math.isfinite(out["params"]["a"])
    assert out["params"]["a"] != RECORD["params"]["a"]  # predicted, not copied
    assert RECORD == Orbit()(1000)[0]  # input untouched


def test_fill_many_matches_fill_and_null_placeholders(ckpt):
    model = scinum.load(ckpt)
    recs = [Orbit()(1000 + i)[0] for i in range(5)]
    many = model.fill_many(recs, mask=["params.*"], batch_size=2)
    one = [model.fill(r, mask=["params.*"]) for r in recs]
    for a, b in zip(many, one):
        assert a["params"]["a"] == pytest.approx(b["params"]["a"], rel=1e-5)
    holey = json.loads(json.dumps(recs[0]))
    holey["params"]["a"] = None
    res = model.predict(holey)
    assert [p.path for p in res.predictions] == ["params.a"]
    assert isinstance(res.record["params"]["a"], float)
    assert res.kind == "none" and res.predictions[0].uncertainty == {}


def test_sequential_mode_conditions_on_filled_values(ckpt):
    model = scinum.load(ckpt)
    n = len(RECORD["points"])
    joint = model.predict(RECORD, mask=["points[*][1]"])
    seq = model.predict(RECORD, mask=["points[*][1]"], mode="sequential")
    assert [p.path for p in joint.predictions] == [p.path for p in seq.predictions]
    # the first number sees the same context in both modes
    assert seq.predictions[0].value == pytest.approx(joint.predictions[0].value, rel=1e-5)
    # number k is predicted from a record holding the k earlier predictions, the rest masked
    for k in range(1, n):
        rec = json.loads(json.dumps(RECORD))
        for j in range(k):
            rec["points"][j][1] = seq.predictions[j].value
        step = model.predict(rec, mask=[f"points[{j}][1]" for j in range(k, n)])
        assert seq.predictions[k].value == pytest.approx(step.predictions[0].value, rel=1e-5)
    assert any(abs(s.value - j.value) > 1e-6 for s, j in zip(seq.predictions[1:], joint.predictions[1:]))


@pytest.mark.determinism
def test_predictions_are_the_head_output_in_record_units(ckpt, one_thread):
    """The filled value is the head's normalized prediction mapped back by the field's own
    scale and shift (computed here by hand): dropping ``normalizer.inverse`` would fail this.
    By hand on one thread, as fill computes every batch (:func:`scinum.fill.batching.batch_threads`):
    on every core, a CPU whose kernels split a product among threads gave another float32 sum."""
    import torch
    from scinum.tokens.batch import hidden_positions, make_batch

    model = scinum.load(ckpt)
    m = model
    field = m.normalizer.to_dict()["fields"]["params.a"]
    assert field["scale"] != 1.0 and field["shift"] != 0.0  # a non-trivial map
    hide = hidden_positions(m.codec, RECORD, ["params.a"])
    b = make_batch([m.codec.encode(RECORD)], [hide], codec=m.codec, normalizer=m.normalizer, encoding=m.encoding, structure=True)
    from scinum.tokens.batch import hidden_rows

    rows, valid = hidden_rows(b["num_hidden"])
    with torch.no_grad():
        norm = float(m.model.head.predict(m.model.head(m.model(b["ids"], b["feats"], b["attend"], rows, b["structure"])[valid]))[0])
        h = m.model(b["ids"], b["feats"], b["attend"], structure=b["structure"])
        full = float(m.model.head.predict(m.model.head(h[b["num_hidden"]]))[0])
    assert norm == pytest.approx(full, rel=1e-5)  # only the wanted rows: the same up to float32 sums
    filled = model.fill(RECORD, ["params.a"])["params"]["a"]
    assert filled == pytest.approx(norm * field["scale"] + field["shift"], rel=1e-12)
    assert filled != pytest.approx(norm, rel=1e-3)


def test_fill_computes_every_batch_on_one_intra_op_thread(ckpt, monkeypatch):
    """What makes fill's numbers independent of ``torch.get_num_threads()`` (issue 37 case 12):
    with two threads, each batch still runs on one."""
    import torch
    from scinum.model.mlm import NumberMLM

    seen, predict = [], NumberMLM.predict
    monkeypatch.setattr(NumberMLM, "predict", lambda self, *a, **k: seen.append(torch.get_num_threads()) or predict(self, *a, **k))
    model, before = scinum.load(ckpt), torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        model.fill(RECORD, ["params.a"])
        model.fill_many([RECORD] * 5, ["params.a"], batch_size=2)
    finally:
        torch.set_num_threads(before)
    assert seen and set(seen) == {1}


def test_one_batch_is_predicted_on_the_calling_thread_with_the_pools_floats(ckpt, monkeypatch):
    """A record filled alone (or records that make one batch) starts no thread: it is predicted
    on the calling thread, on one intra-op thread as a pool thread would, so its floats are those
    of the same record in a one-record batch of fill_many's pool (compared bit for bit); work
    of several batches still goes to the pool, and the thread setting comes back."""
    import torch

    import scinum.fill.batching as batching
    from scinum.tokens.batch import hidden_positions

    pools = []

    class Counted(batching.ThreadPoolExecutor):
        def __init__(self, *a, **k):
            pools.append(1)
            super().__init__(*a, **k)

    monkeypatch.setattr(batching, "ThreadPoolExecutor", Counted)
    model, before = scinum.load(ckpt), torch.get_num_threads()
    recs = [Orbit()(3000 + i)[0] for i in range(4)]
    torch.set_num_threads(2)
    try:
        alone = [model.predict(r, ["params.a"]).predictions[0].value for r in recs]
        assert pools == [] and torch.get_num_threads() == 2
        batch = model.predict_hidden(  # one batch of the four: no pool either
            [model.codec.encode(r) for r in recs], [hidden_positions(model.codec, r, ["params.a"]) for r in recs], batch_size=8
        )
        assert pools == [] and len(batch) == 4
        pooled = model.predict_many(recs, ["params.a"], batch_size=2, processes=False)  # slices of one record on two threads
        assert pools == [1] and torch.get_num_threads() == 2
        forked = model.predict_many(recs, ["params.a"], batch_size=2, processes=True)  # ... on two processes
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)
    assert [f.predictions[0].value for f in pooled] == alone
    assert [f.predictions[0].value for f in forked] == alone


def test_fill_on_processes_gives_the_threads_floats_and_their_errors(ckpt, monkeypatch):
    """On two threads a fill of many slices goes to two processes by default (this one and a
    forked copy, each preparing and predicting its slices) and gives the floats, the order and
    the progress of the fill on threads; the first bad record is the one named, whichever
    process met it; where the system cannot fork, the default is threads and asking for
    processes is a clear error."""
    import torch

    import scinum.fill.model as fill_model
    from scinum.errors import ScinumError

    model, before = scinum.load(ckpt), torch.get_num_threads()
    recs = [Orbit()(4000 + i)[0] for i in range(40)]
    calls = []
    real = fill_model.forked_slices
    monkeypatch.setattr(fill_model, "forked_slices", lambda *a, **k: calls.append(a[1]) or real(*a, **k))
    torch.set_num_threads(2)
    try:
        threads = model.predict_many(recs, ["params.a", "points[-1][0]"], batch_size=4, processes=False)
        assert calls == []
        forked = model.predict_many(recs, ["params.a", "points[-1][0]"], batch_size=4, progress=True)
        assert calls == [20] and torch.get_num_threads() == 2  # 40 records in slices of 2: FORK_MIN_SLICES or more
        model.predict_many(recs[:30], ["params.a"], batch_size=4)
        assert calls == [20]  # 15 slices: on threads
        bad = [json.loads(json.dumps(r)) for r in recs]
        bad[31]["params"]["a"] = "x"
        bad[8]["params"]["e"] = "y"  # the first: in another slice, maybe of the other process
        with pytest.raises(RecordError, match=r"record 8\b.*params.e"):
            model.predict_many(bad, ["points[0][0]"], batch_size=6, processes=True)
        assert torch.get_num_threads() == 2 and calls == [20, 14]
        monkeypatch.setattr("scinum.fill.forked.CAN_FORK", False)
        assert [f.record for f in model.predict_many(recs, ["params.a"], batch_size=4)] == [
            f.record for f in model.predict_many(recs, ["params.a"], batch_size=4, processes=False)
        ]
        assert calls == [20, 14]  # threads by default
        with pytest.raises(ScinumError, match="needs fork"):
            model.predict_many(recs, ["params.a"], batch_size=6, processes=True)
    finally:
        torch.set_num_threads(before)
    assert [f.record for f in forked] == [f.record for f in threads]
    assert [[(p.path, p.value) for p in f.predictions] for f in forked] == [[(p.path, p.value) for p in f.predictions] for f in threads]


#: what a multiprocessing.Pool worker (forked) finds of the test's model and records
_IN_POOL: dict = {}


def _fill_in_a_pool_worker(_):
    import torch

    from scinum.errors import ScinumError

    torch.set_num_threads(2)
    model, recs = _IN_POOL["model"], _IN_POOL["recs"]
    values = [f.predictions[0].value for f in model.predict_many(recs, ["params.a"], batch_size=4)]
    try:
        model.predict_many(recs, ["params.a"], batch_size=4, processes=True)
        refused = ""
    except ScinumError as e:
        refused = str(e)
    return values, refused


def test_a_daemonic_process_fills_on_threads(ckpt):
    """multiprocessing.Pool's workers are daemonic and may start no process: a fill of many
    slices there stays on threads (the same values), and asking for processes says why not."""
    import multiprocessing

    import torch

    model, before = scinum.load(ckpt), torch.get_num_threads()
    recs = [Orbit()(6000 + i)[0] for i in range(40)]
    torch.set_num_threads(2)
    try:
        expected = [f.predictions[0].value for f in model.predict_many(recs, ["params.a"], batch_size=4, processes=False)]
    finally:
        torch.set_num_threads(before)
    _IN_POOL.update(model=model, recs=recs)
    try:
        with multiprocessing.get_context("fork").Pool(1) as pool:
            values, refused = pool.map(_fill_in_a_pool_worker, [0])[0]
    finally:
        _IN_POOL.clear()
    assert values == expected
    assert "daemonic" in refused


def test_mixture_uncertainty(gmm_ckpt):
    model = scinum.load(gmm_ckpt)
    res = model.predict(RECORD, mask=["params.a"])
    u = res.predictions[0].uncertainty
    assert res.kind == "mixture"
    assert {"mean", "std", "weights", "means", "stds", "interval_68", "interval_95"} <= set(u)
    assert sum(u["weights"]) == pytest.approx(1.0, abs=1e-5)
    lo95, hi95 = u["interval_95"]
    lo68, hi68 = u["interval_68"]
    assert lo95 <= lo68 <= hi68 <= hi95 and u["std"] > 0
    json.dumps(res.to_dict())  # JSON-able


@pytest.mark.parametrize(
    "record,mask,err,match",
    [
        (RECORD, ["params.zzz"], RecordError, "record 0.*matches no field"),
        (RECORD, ["kind"], RecordError, "record 0, path kind: mask 'kind' names a str"),
        ({**RECORD, "extra": 1.0}, ["params.a"], VocabularyError, "path extra"),
        ({**RECORD, "kind": "circle"}, ["params.a"], VocabularyError, 'string "circle"'),
        ({"params": {"a": float("inf"), "n": 1}}, ["params.a"], MalformedJSON, "non-finite"),
        (RECORD, ["params..a"], RecordError, "bad mask"),
        (RECORD, [], RecordError, "nothing to fill"),
    ],
)
def test_bad_input_names_record_and_path(ckpt, record, mask, err, match):
    model = scinum.load(ckpt)
    with pytest.raises(err, match=match):
        model.fill_many([record], mask=mask)


def test_record_longer_than_context(ckpt):
    model = scinum.load(ckpt)
    model._jobs.context_length = 10
    with pytest.raises(RecordError, match="longer than the model's context"):
        model.fill(RECORD, mask=["params.a"])


def test_load_rejects_foreign_and_truncated_files(tmp_path, ckpt):
    (tmp_path / "x.ckpt").write_bytes(b"not a checkpoint")
    with pytest.raises(CheckpointError, match="x.ckpt"):
        scinum.load(tmp_path / "x.ckpt")
    data = ckpt.read_bytes()
    (tmp_path / "t.ckpt").write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError, match="t.ckpt"):
        scinum.load(tmp_path / "t.ckpt")


def test_cli_streams_and_reports_errors(ckpt, tmp_path, capsys):
    good = [Orbit()(2000 + i)[0] for i in range(3)]
    lines = [json.dumps(good[0]), "{not json", json.dumps(good[1]), '{"params": {"a": NaN}}', json.dumps(good[2])]
    src = tmp_path / "in.jsonl"
    src.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out.jsonl"
    rc = main(
        ["fill", "--ckpt", str(ckpt), "--mask", "params.a", "-i", str(src), "-o", str(out), "--on-error", "skip", "--with-uncertainty"]
    )
    err = capsys.readouterr().err
    assert rc == 1
    assert "in.jsonl:2" in err and "in.jsonl:4" in err and "2 of 5 records skipped" in err
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(rows) == 3 and rows[0]["uncertainty_kind"] == "none"
    assert [r["record"]["points"] for r in rows] == [g["points"] for g in good]
    # fail mode with an output file: stops and leaves no file behind
    out2 = tmp_path / "out2.jsonl"
    rc = main(["fill", "--ckpt", str(ckpt), "--mask", "params.a", "-i", str(src), "-o", str(out2)])
    assert rc == 1 and not out2.exists() and not list(tmp_path.glob(".out2*"))
    assert "stopped at the first failed record" in capsys.readouterr().err


def test_cli_fills_a_chunk_on_processes_as_fill_many_and_reports_errors_in_line_order(ckpt, tmp_path, capsys, monkeypatch):
    """A chunk of many slices goes to forked processes, each reading, preparing and filling its
    lines: the records come out in line order with fill_many's predictions, bad lines are
    reported by line (whichever process met them), --on-error fail writes up to the first; the
    same output as a chunk filled here on threads (no fork), within float32 rounding (the
    batches differ: a bad line leaves its slice one record short)."""
    import torch

    import scinum.fill.forked as forked

    good = [Orbit()(5000 + i)[0] for i in range(40)]
    lines = [json.dumps(g) for g in good]
    lines[7], lines[23] = "{not json", '{"params": {"a": NaN}}'
    src = tmp_path / "in.jsonl"
    src.write_text("\n".join(lines) + "\n")
    calls = []
    real = forked.forked_slices
    monkeypatch.setattr(forked, "forked_slices", lambda *a, **k: calls.append(a[1]) or real(*a, **k))
    expected = [g for i, g in enumerate(good) if i not in (7, 23)]
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        filled = scinum.load(ckpt).fill_many(expected, ["params.a"], batch_size=4, processes=False)
        outputs = {}
        for how in ("processes", "threads"):
            if how == "threads":
                monkeypatch.setattr(forked, "CAN_FORK", False)
            out = tmp_path / f"{how}.jsonl"
            args = ["fill", "--ckpt", str(ckpt), "--mask", "params.a", "-i", str(src), "-o", str(out), "--batch-size", "4"]
            assert main(args + ["--on-error", "skip"]) == 1
            err = capsys.readouterr().err
            assert err.index("in.jsonl:8") < err.index("in.jsonl:24") and "2 of 40 records skipped" in err
            outputs[how] = out.read_text()
            fail = tmp_path / f"{how}-fail.jsonl"
            assert main(args[:-3] + [str(fail), "--batch-size", "4"]) == 1 and not fail.exists()  # fail: stops at line 8
            assert "in.jsonl:8" in (err := capsys.readouterr().err) and "in.jsonl:24" not in err
        assert calls == [20, 20]  # 40 lines in slices of 2, on processes; none when fork is off
    finally:
        torch.set_num_threads(before)
    rows, on_threads = ([json.loads(x) for x in outputs[how].splitlines()] for how in ("processes", "threads"))
    for got in (rows, on_threads):
        assert [r["points"] for r in got] == [g["points"] for g in expected]
        np.testing.assert_allclose([r["params"]["a"] for r in got], [f["params"]["a"] for f in filled], rtol=2e-6)


def test_cli_stdout_plain_records(ckpt, tmp_path, capsys, monkeypatch):
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(RECORD) + "\n"))
    assert main(["fill", "--ckpt", str(ckpt), "--mask", "points[0][1]"]) == 0
    out = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert len(out) == 1 and out[0]["points"][1:] == RECORD["points"][1:]
    assert np.isfinite(out[0]["points"][0][1])


def test_trained_context_length_refuses_longer_records(ckpt):
    model = scinum.load(ckpt)
    assert model.context_length == max(  # the longest training record (3-6 points)
        len(model.codec.encode(Orbit()(i)[0])) for i in range(128)
    )
    long = {**RECORD, "points": RECORD["points"] * 10}
    with pytest.raises(RecordError, match=r"record 0: record is \d+ tokens, longer than"):
        model.fill_many([long], mask=["params.a"])


def test_evaluate_reports_token_gate_and_physical_units(ckpt, tmp_path):
    """``not_number``: the share of masked numbers where the token head does not say "number"
    (checked against the trunk's own token logits); ``mse_K2``: MSE × std² of the builder's
    recorded scaling."""
    import torch
    from scinum.analysis.evaluate import evaluate
    from scinum.tokens.batch import hidden_positions, make_batch

    scalings = {"params.a": {"kind": "affine", "mean": 0.0, "std": 3.0, "unit": "K"}}
    write_dataset(tmp_path / "d", Orbit(), {"train": 8, "test": 24}, builder="orbit", seed=1, shard_size=64, scalings=scalings)
    table, preds = evaluate(ckpt, tmp_path / "d", ["params.a", "points[*][0]"], ["test"])
    m = scinum.load(ckpt)
    from scinum.datasets.directory import Dataset

    records = list(Dataset(tmp_path / "d").records("test"))
    says = []
    for r in records:
        seq = m.codec.encode(r)
        hide = hidden_positions(m.codec, r, ["params.a"])
        b = make_batch([seq], [hide], codec=m.codec, normalizer=m.normalizer, encoding=m.encoding, structure=True)
        with torch.no_grad():
            h = m.model(b["ids"], b["feats"], b["attend"], structure=b["structure"])
            tok = m.model.trunk.token_logits(h[b["num_hidden"]]).argmax(-1)
        says.append(bool(tok.item() in (m.vocab.num_id, m.vocab.int_id)))
    row = table[table["field"] == "params.a"].iloc[0]
    assert row["not_number"] == pytest.approx(1 - np.mean(says))
    assert row["mse_K2"] == pytest.approx(row["mse"] * 9.0)
    assert math.isnan(table[table["field"] == "points[*][0]"].iloc[0]["mse_K2"])  # not scaled
    assert set(preds["says_number"].unique()) <= {True, False}


def test_records_of_one_shape_prepare_like_a_model_that_never_saw_the_shape(ckpt):
    """prepare remembers the structure of each record shape (tokens, number paths, hidden
    numbers, placeholders): every later record of that shape must come out exactly as a fresh
    model prepares it, its own values included; an unsafe int still fails with its path."""
    shared = scinum.load(ckpt)
    recs = [Orbit()(i)[0] for i in range(40)]
    for r in recs[::3]:
        r["points"][1][1] = None  # a placeholder in some of them: another shape
    for r in recs:
        for mask in (["params.a"], ["points[*][0]", "params.a"]):
            got = shared.prepare(r, mask)
            ref = scinum.load(ckpt).prepare(r, mask)
            assert np.array_equal(got.encoded.ids, ref.encoded.ids)
            assert np.array_equal(got.encoded.values, ref.encoded.values, equal_nan=True)
            assert got.hidden == ref.hidden and got.paths == ref.paths and got.record == ref.record
    assert len(shared._jobs._shapes) < 20  # shapes were reused
    bad = json.loads(json.dumps(recs[1]))
    bad["params"]["n"] = 2**60
    with pytest.raises(ValueOutOfRange, match="params.n"):
        shared.prepare(bad, ["params.a"])


def test_inference_does_not_import_lightning(ckpt):
    """Loading a checkpoint and filling a record needs torch, not the training stack."""
    import subprocess
    import sys

    code = (
        "import json, sys, scinum; m = scinum.load(sys.argv[1]); "
        "r = m.fill(json.loads(sys.argv[2]), ['params.a']); "
        "print(sorted(k for k in sys.modules if k.split('.')[0] in ('lightning', 'pytorch_lightning')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(ckpt), json.dumps(RECORD)], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "[]"


def test_evaluate_splits_interpolation_from_extrapolation_where_a_training_range_is_declared(ckpt, tmp_path):
    """``evaluation.train_ranges``: a split whose true values lie both inside and outside a
    field's declared training range gets ``interp`` and ``extrap`` rows beside ``all``."""
    from scinum.analysis.evaluate import evaluate
    from scinum.datasets.directory import Dataset

    write_dataset(tmp_path / "d", Orbit(), {"train": 8, "test": 24}, builder="orbit", seed=1, shard_size=64)
    true = np.array(sorted(r["params"]["a"] for r in Dataset(tmp_path / "d").records("test")))
    lo, hi = float(true[0]), float(np.median(true))
    manifest = json.loads((tmp_path / "d" / "manifest.json").read_text())
    manifest["evaluation"] = {"train_ranges": {"params.a": [lo, hi]}}
    (tmp_path / "d" / "manifest.json").write_text(json.dumps(manifest))
    table, preds = evaluate(ckpt, tmp_path / "d", ["params.a", "points[*][0]"], ["test"])
    a = table[table["field"] == "params.a"].set_index("subset")
    assert list(a.index) == ["all", "interp", "extrap"]
    inside = preds[(preds["field"] == "params.a")]["true"].between(lo, hi)
    assert a.loc["interp", "n"] == inside.sum() and a.loc["extrap", "n"] == (~inside).sum() > 0
    err = preds[preds["field"] == "params.a"]["pred"] - preds[preds["field"] == "params.a"]["true"]
    assert a.loc["extrap", "mse"] == pytest.approx(float((err[~inside] ** 2).mean()))
    assert a.loc["interp", "mse"] == pytest.approx(float((err[inside] ** 2).mean()))
    # a field without a declared range, or a split entirely inside it, keeps its one row
    assert list(table[table["field"] == "points[*][0]"]["subset"]) == ["all"]
    manifest["evaluation"] = {"train_ranges": {"params.a": [lo - 1, float(true[-1]) + 1]}}
    (tmp_path / "d" / "manifest.json").write_text(json.dumps(manifest))
    table, _ = evaluate(ckpt, tmp_path / "d", ["params.a"], ["test"])
    assert list(table["subset"]) == ["all"]


def test_fill_many_on_threads_equals_an_independent_reference_within_float32(ckpt):
    """fill_many (remembered shapes, length batches split among threads, ragged records, null
    placeholders) gives every record the prediction of the plain path: a fresh encoding, one
    record per batch, the model's own predict, the normalizer's inverse (within float32
    rounding: batches of other sizes sum in another order); the thread setting is restored."""
    import torch

    from scinum.tokens.batch import hidden_positions, make_batch

    model = scinum.load(ckpt)
    recs = [Orbit()(2000 + i)[0] for i in range(60)]
    for r in recs[::4]:
        r["points"][0][0] = None  # placeholder: filled too
    mask = ["params.a", "points[-1][1]"]
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        got = model.predict_many(recs, mask, batch_size=7)
        assert torch.get_num_threads() == 2
        bad = [json.loads(json.dumps(r)) for r in recs]
        bad[50]["params"]["a"] = "x"  # prepared after the phase before it was predicted
        with pytest.raises(RecordError, match=r"record 50\b.*params.a|params.a.*record 50\b"):
            model.predict_many(bad, ["points[0][0]"], batch_size=7)
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)
    for rec, filled in zip(recs, got):
        clean = json.loads(json.dumps(rec).replace("null", "0.0"))
        hide = hidden_positions(model.codec, clean, mask + (["points[0][0]"] if rec["points"][0][0] is None else []))
        batch = make_batch(
            [model.codec.encode(clean)], [hide], codec=model.codec, normalizer=model.normalizer, encoding=model.encoding, structure=True
        )
        with torch.no_grad():
            res = model.model.predict(batch)
        ref = model.normalizer.inverse(res.values.numpy(), batch["num_field"].numpy())
        ours = np.array([p.value for p in filled.predictions])
        holes = ["points[0][0]"] if rec["points"][0][0] is None else []
        assert [p.path for p in filled.predictions] == [  # document order, as the reference's rows
            "params.a",
            *holes,
            f"points[{len(rec['points']) - 1}][1]",
        ]
        np.testing.assert_allclose(ours, ref, rtol=2e-6, atol=1e-6)


def test_record_shapes_of_float_arrays_stay_distinct_and_checked():
    """checked_copy walks float arrays at C speed as one shape entry: ragged arrays of other
    structure get other shapes, the copy is deep and equal, inf/NaN and too deep nesting still
    fail like the general walk."""
    from scinum.records.shape import NotJSON, checked_copy
    from scinum.records.strict import MAX_DEPTH

    def walk(node):
        shape, leaves = [], []
        return checked_copy(node, 0, shape, leaves), tuple(shape), leaves

    a = {"x": [[1.0, 2.0], [3.0]]}
    b = {"x": [[1.0], [2.0, 3.0]]}
    c = {"x": [[1.0, 2.0, 3.0]]}
    d = {"x": [1.0, 2.0, 3.0]}
    copies = [walk(r) for r in (a, b, c, d)]
    assert len({s for _, s, _ in copies}) == 4
    for r, (copy, _, leaves) in zip((a, b, c, d), copies):
        assert copy == r and leaves == [1.0, 2.0, 3.0]
        assert copy["x"] is not r["x"] and (not isinstance(r["x"][0], list) or copy["x"][0] is not r["x"][0])
    assert walk({"x": [[1.0, 2], [3.0]]})[1] != walk({"x": [[1.0, 2.0], [3.0]]})[1]  # int vs float
    for bad in ([[1.0, math.inf]], [[1.0], [math.nan]], [1.7e308, 1.7e308, -math.inf]):
        with pytest.raises(NotJSON):
            walk({"x": bad})
    assert walk({"x": [1.7e308, 1.7e308]})[2] == [1.7e308, 1.7e308]  # the sum overflows, values do not
    deep = [1.0]
    for _ in range(MAX_DEPTH - 1):
        deep = [deep]
    walk(deep)  # the float at depth MAX_DEPTH is allowed
    with pytest.raises(NotJSON):
        walk([deep])
