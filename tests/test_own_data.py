"""Your own data: `scinum build jsonl`, fill-task training (data.mask_fields), evaluate, fill."""

import gzip
import json
import random
import shutil
from pathlib import Path

import numpy as np
import pytest

from scinum import encodings
from scinum.cli.main import main as scinum
from scinum.train.data import MLMDataModule
from scinum.datasets.directory import Dataset, DatasetWriter
from scinum.errors import ConfigError, DatasetError, MalformedJSON
from scinum.datasets.jsonl import build

from conftest import tiny_config  # tests/conftest.py


def _records(n, seed=0):
    r = random.Random(seed)
    out = []
    for _ in range(n):
        a, b = r.uniform(0, 1), r.uniform(0, 1)
        out.append({"x": [round(a, 4), round(b, 4), round(r.uniform(0, 1), 4)], "y": round(a + b, 4)})
    return out


def _write(path, records, extra_lines=()):
    text = "".join(json.dumps(r) + "\n" for r in records) + "".join(extra_lines)
    if str(path).endswith(".gz"):
        with gzip.open(path, "wt") as f:
            f.write(text)
    else:
        Path(path).write_text(text)
    return path


def _tree(root):
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(Path(root).rglob("*")) if p.is_file() and p.name != "manifest.json"}


def test_bad_line_fails_naming_file_line_and_path_and_leaves_nothing(tmp_path):
    src = _write(tmp_path / "a.jsonl", _records(30), ['{"x": [1, 2, 1e400], "y": 1}\n'])
    out = tmp_path / "ds"
    with pytest.raises(MalformedJSON) as e:
        build(out, train=[src], shard_size=8, progress=False)
    assert f"{src}:31" in str(e.value) and "x[2]" in str(e.value)
    assert not out.exists()  # no half-written dataset left behind


def test_skip_counts_every_bad_line_and_names_the_first(tmp_path, capsys):
    bad = ['{"x": [1, 2, 3], "y": NaN}\n', '\xff not utf8\n', '{"y": 1, "y": 2}\n']
    src = tmp_path / "a.jsonl"
    src.write_bytes((_write(tmp_path / "ok.jsonl", _records(20)).read_text() + "".join(bad[:1])).encode() + b"\xff\xfe\n" + bad[2].encode())
    assert scinum(["build", "jsonl", str(tmp_path / "ds"), "--train", str(src), "--on-error", "skip"]) == 0
    m = Dataset(tmp_path / "ds").manifest
    assert m["splits"]["train"]["count"] == 20
    assert m["skipped"]["count"] == 3 and len(m["skipped"]["first"]) == 3
    assert f"{src}:21" in m["skipped"]["first"][0] and "NaN" in m["skipped"]["first"][0]
    assert "UTF-8" in m["skipped"]["first"][1] and "duplicate key" in m["skipped"]["first"][2]
    assert "skipped 3 bad line(s)" in capsys.readouterr().err


def test_split_is_deterministic_complete_and_seeded(tmp_path):
    recs = _records(500)
    src = _write(tmp_path / "a.jsonl", recs)
    a = build(tmp_path / "a", train=[src], split=[0.8, 0.1, 0.1], seed=3, shard_size=64, progress=False)
    build(tmp_path / "b", train=[src], split=[0.8, 0.1, 0.1], seed=3, shard_size=64, progress=False)
    build(tmp_path / "c", train=[src], split=[0.8, 0.1, 0.1], seed=4, shard_size=64, progress=False)
    assert _tree(tmp_path / "a") == _tree(tmp_path / "b")
    assert _tree(tmp_path / "a") != _tree(tmp_path / "c")
    counts = {s: a["splits"][s]["count"] for s in ("train", "val", "test")}
    assert sum(counts.values()) == 500 and 360 < counts["train"] < 440 and counts["val"] > 25
    got = sorted(json.dumps(r, sort_keys=True) for s in ("train", "val", "test") for r in Dataset(tmp_path / "a").records(s))
    assert got == sorted(json.dumps(r, sort_keys=True) for r in recs)  # every record, once
    with pytest.raises(DatasetError, match="sum to 1"):
        build(tmp_path / "d", train=[src], split=[0.8, 0.1], progress=False)
    with pytest.raises(DatasetError, match="not both"):
        build(tmp_path / "e", train=[src], val=[src], split=[0.8, 0.1, 0.1], progress=False)


def test_gz_inputs_and_an_ood_split_from_a_file(tmp_path):
    plain = _write(tmp_path / "a.jsonl", _records(40))
    gz = _write(tmp_path / "a.jsonl.gz", _records(40))
    far = [{"x": [5.0, 6.0, 7.0], "y": 11.0}] * 3
    ood = _write(tmp_path / "far.jsonl", far)
    assert scinum(["build", "jsonl", str(tmp_path / "p"), "--train", str(plain)]) == 0
    assert scinum(["build", "jsonl", str(tmp_path / "g"), "--train", str(gz), "--ood", f"far={ood}", "--fields", "y"]) == 0
    assert _tree(tmp_path / "p")["train/part-00000.jsonl"] == _tree(tmp_path / "g")["train/part-00000.jsonl"]
    m = Dataset(tmp_path / "g").manifest
    assert m["splits"]["ood_far"]["count"] == 3 and list(Dataset(tmp_path / "g").records("ood_far")) == far
    assert m["splits"]["ood_far"]["fields"]["y"] == {"count": 3, "min": 11.0, "max": 11.0}
    assert m["splits"]["train"]["fields"]["x[*]"]["count"] == 120
    assert m["evaluation"] == {"fields": ["y"]}
    sha = m["parameters"]["inputs"]["train"][0]
    assert sha["sha256"] == __import__("hashlib").sha256(gz.read_bytes()).hexdigest()


def test_interrupted_build_resumes_byte_identical_and_refuses_changed_inputs(tmp_path, monkeypatch):
    src = _write(tmp_path / "a.jsonl", _records(300))
    whole = build(tmp_path / "whole", train=[src], split=[0.7, 0.2, 0.1], shard_size=32, progress=False)
    real, calls = DatasetWriter.write_shard, []

    def dies_at_the_fourth(self, *args, **kwargs):
        calls.append(args[:2])
        if len(calls) == 4:
            raise KeyboardInterrupt
        return real(self, *args, **kwargs)

    monkeypatch.setattr(DatasetWriter, "write_shard", dies_at_the_fourth)
    with pytest.raises(KeyboardInterrupt):
        build(tmp_path / "cut", train=[src], split=[0.7, 0.2, 0.1], shard_size=32, progress=False)
    assert not (tmp_path / "cut" / "manifest.json").exists()  # interrupted: kept to resume
    monkeypatch.setattr(DatasetWriter, "write_shard", real)
    again = build(tmp_path / "cut", train=[src], split=[0.7, 0.2, 0.1], shard_size=32, progress=False)
    assert _tree(tmp_path / "cut") == _tree(tmp_path / "whole") and again["splits"] == whole["splits"]
    shutil.rmtree(tmp_path / "cut" / ".build", ignore_errors=True)
    (tmp_path / "cut" / "manifest.json").unlink()
    (tmp_path / "cut" / ".build").mkdir()
    (tmp_path / "cut" / ".build" / "parameters.json").write_text("{}")
    with open(src, "a") as f:
        f.write(json.dumps(_records(1, seed=9)[0]) + "\n")
    with pytest.raises(DatasetError, match="other parameters"):
        build(tmp_path / "cut", train=[src], split=[0.7, 0.2, 0.1], shard_size=32, progress=False)


def _datamodule(tmp_path, **kw):
    src = _write(tmp_path / "a.jsonl", _records(400))
    build(tmp_path / "ds", train=[src], split=[0.9, 0.1, 0.0], shard_size=100, progress=False)
    dm = MLMDataModule(str(tmp_path / "ds"), encodings.get("xval"), batch_size=50, **kw)
    dm.prepare()
    return dm


@pytest.mark.parametrize("prob", [0.3, 1.0])
def test_mask_fields_hides_the_named_field_at_the_requested_rate(tmp_path, prob):
    dm = _datamodule(tmp_path, mask_prob=0.0, mask_fields=["y"], mask_fields_prob=prob)
    y_id = dm.vocab.fields.index("y")
    hidden_y = total = other = 0
    for k, batch in zip(range(8), dm.train_dataloader()):
        fld = batch["num_field"]
        hidden_y += int((fld == y_id).sum())
        other += int((fld != y_id).sum())
        total += batch["ids"].shape[0]  # one y per record
    assert other == 0  # mask_prob 0: nothing but the named field is ever hidden
    assert abs(hidden_y / total - prob) < 0.06, hidden_y / total
    with pytest.raises(ConfigError, match="nothing to learn"):
        MLMDataModule(str(tmp_path / "ds"), encodings.get("xval"), mask_prob=0.0)
    with pytest.raises(ConfigError, match="name no number"):
        MLMDataModule(str(tmp_path / "ds"), encodings.get("xval"), mask_fields=["z"]).prepare()


def _asked_rates(dm, batches=8):
    """Per field name: the share of records where a number of that field is hidden."""
    counts = dict.fromkeys(dm.vocab.fields, 0)
    records = 0
    for k, batch in zip(range(batches), dm.train_dataloader()):
        for hidden in _hidden_fields_per_record(batch):
            for f in set(hidden):
                counts[dm.vocab.fields[f]] += 1
        records += batch["ids"].shape[0]
    return {f: n / records for f, n in counts.items()}


def test_mask_fields_prob_per_path_asks_each_path_at_its_own_rate(tmp_path):
    """``mask_fields_prob`` as a mapping: each path hidden with its own probability; a number two
    paths name (``x[0]`` and ``x[-3]``) takes the higher one."""
    dm = _datamodule(tmp_path, mask_prob=0.0, mask_fields=["y", "x[0]"], mask_fields_prob={"y": 0.8, "x[0]": 0.2})
    rates = _asked_rates(dm)
    assert abs(rates["y"] - 0.8) < 0.06 and abs(rates["x[*]"] - 0.2) < 0.06, rates
    both = MLMDataModule(
        str(tmp_path / "ds"),
        encodings.get("xval"),
        batch_size=50,
        mask_prob=0.0,
        mask_fields=["x[0]", "x[-3]"],
        mask_fields_prob={"x[0]": 0.1, "x[-3]": 0.9},
    )
    both.prepare()
    rates = _asked_rates(both)
    assert abs(rates["x[*]"] - 0.9) < 0.06 and rates["y"] == 0, rates


def test_one_probability_for_every_path_draws_the_masks_it_always_drew(tmp_path):
    """A scalar ``mask_fields_prob``, or a mapping giving every path that value, draws the very
    masks of the code before per-path probabilities (digest of four batches, recorded at 3f169ea):
    every seeded run of a preset trains as it did."""
    import hashlib

    kw = dict(mask_prob=0.2, mask_fields=["y", "x[0]"], mask_fields_alone=False)
    scalar = _datamodule(tmp_path, mask_fields_prob=0.4, **kw)
    mapping = MLMDataModule(str(tmp_path / "ds"), encodings.get("xval"), batch_size=50, mask_fields_prob={"y": 0.4, "x[0]": 0.4}, **kw)
    mapping.prepare()
    for dm in (scalar, mapping):
        h = hashlib.sha256()
        for k, b in zip(range(4), dm.train_dataloader()):
            for key in ("ids", "num_hidden", "num_field"):
                h.update(np.ascontiguousarray(b[key].numpy()).tobytes())
        assert h.hexdigest()[:16] == "0a19e672a60d23a2"


def test_mask_fields_prob_mapping_must_name_each_path_of_mask_fields(tmp_path):
    from scinum.train.config import validate_config

    ds = str(tmp_path / "ds")
    with pytest.raises(ConfigError, match=r"missing: x\[0\]"):
        MLMDataModule(ds, encodings.get("xval"), mask_fields=["y", "x[0]"], mask_fields_prob={"y": 0.5})
    with pytest.raises(ConfigError, match="not in data.mask_fields: z"):
        MLMDataModule(ds, encodings.get("xval"), mask_fields=["y"], mask_fields_prob={"y": 0.5, "z": 0.5})
    with pytest.raises(ConfigError, match="nothing to learn"):
        MLMDataModule(ds, encodings.get("xval"), mask_prob=0.0, mask_fields=["y"], mask_fields_prob={"y": 0.0})
    for bad in ({"y": 1.5}, {"y": "half"}, -0.1):
        cfg = tiny_config(ds, tmp_path / "out", data={"mask_fields": ["y"], "mask_fields_prob": bad})
        with pytest.raises(ConfigError, match="data.mask_fields_prob"):
            validate_config(cfg)
    cfg = tiny_config(ds, tmp_path / "out", data={"mask_fields": ["y"], "mask_fields_prob": {"x": 0.5}})
    with pytest.raises(ConfigError, match="not in data.mask_fields: x"):
        validate_config(cfg)


def _hidden_fields_per_record(batch):
    """Per record of a batch: the field ids of its hidden numbers."""
    counts = batch["num_hidden"].sum(1).tolist()
    return [f.tolist() for f in batch["num_field"].split(counts)]


def test_mask_fields_alone_asks_the_named_field_with_everything_else_visible(tmp_path):
    """``mask_fields_alone``: a record whose named number is hidden (by the field's draw or the
    MLM's) has nothing else hidden; the other records keep their MLM masks as drawn."""
    kw = dict(mask_prob=0.5, mask_fields=["y"], mask_fields_prob=0.5)
    plain = _datamodule(tmp_path, **kw)
    alone = MLMDataModule(str(tmp_path / "ds"), encodings.get("xval"), batch_size=50, mask_fields_alone=True, **kw)
    alone.prepare()
    y_id = plain.vocab.fields.index("y")
    asked = others_hidden = 0
    for k, b_plain, b_alone in zip(range(6), plain.train_dataloader(), alone.train_dataloader()):
        for p, a in zip(_hidden_fields_per_record(b_plain), _hidden_fields_per_record(b_alone)):
            if y_id in a:
                asked += 1
                assert a == [y_id]  # the question alone
                assert y_id in p  # drawn the same way as without the option
            else:  # y hidden by neither draw: the MLM masks as drawn
                assert a == p and y_id not in p
                others_hidden += len(a)
    assert asked > 50 and others_hidden > 50  # both kinds of record occur (6 batches of 50)


def _fit_and_score(tmp_path, name, data, extra):
    out = tmp_path / name
    cfg = tmp_path / f"{name}.yaml"
    cfg.write_text(
        json.dumps(
            tiny_config(
                data,
                out,
                seed=0,
                data={"batch_size": 32, **extra},
                model={"d_model": 32},
                optim={"lr": 3e-3, "warmup_steps": 20},
                trainer={"max_steps": 120, "devices": 1, "val_check_interval": 1000, "limit_val_batches": 0},
            )
        )
    )
    assert scinum(["fit", "--config", str(cfg)]) == 0
    assert scinum(["evaluate", "--ckpt", str(out / "model.ckpt"), "--data", str(data), "--out", str(tmp_path / f"{name}-res")]) == 0
    import pandas as pd

    table = pd.read_csv(tmp_path / f"{name}-res" / "table.csv")
    return out / "model.ckpt", float(table[table.field == "y"].mse.iloc[0])


def test_mask_fields_training_fills_its_field_better_than_mlm_alone_end_to_end(tmp_path, capsys, one_thread):
    """build jsonl -> fit -> evaluate (fields from the manifest) -> fill, on a user file where y
    = x[0] + x[1]: the same 120 steps with y always hidden beat random MLM masking."""
    src = _write(tmp_path / "sum.jsonl", _records(1200))
    data = tmp_path / "ds"
    assert scinum(["build", "jsonl", str(data), "--train", str(src), "--split", "0.9,0.05,0.05", "--fields", "y"]) == 0
    _, mse_mlm = _fit_and_score(tmp_path, "mlm", data, {})
    ckpt, mse_task = _fit_and_score(tmp_path, "task", data, {"mask_fields": ["y"], "mask_fields_prob": 1.0})
    assert mse_task < 0.5 * mse_mlm, (mse_task, mse_mlm)
    rec = tmp_path / "q.jsonl"
    rec.write_text(json.dumps({"x": [0.25, 0.5, 0.1], "y": None}) + "\n")
    capsys.readouterr()
    assert scinum(["fill", "--ckpt", str(ckpt), "--mask", "y", "--input", str(rec)]) == 0
    filled = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert abs(filled["y"] - 0.75) < 0.3 and filled["x"] == [0.25, 0.5, 0.1]


def test_co2_example_records_are_real_disjoint_windows(tmp_path):
    pytest.importorskip("statsmodels", reason="the worked example's data ships in statsmodels")
    from recipes import co2

    files = co2.write_records(tmp_path)
    recs = {s: [json.loads(line) for line in open(f)] for s, f in files.items()}
    assert all(len(r["co2"]) == 13 and all(300 < v < 400 for v in r["co2"]) for rs in recs.values() for r in rs)
    years = {s: {int(r["t"]) for r in rs} for s, rs in recs.items()}
    assert years["test"] == co2.TEST_YEARS and not years["test"] & years["train"]
    assert min(years["late"]) > co2.LAST_TRAIN_YEAR >= max(years["train"])
    top = max(v for r in recs["train"] for v in r["co2"])
    assert np.mean([r["co2"][6] > top for r in recs["late"]]) > 0.8  # late: mostly above training
    assert len(recs["train"]) > 700 and len(recs["test"]) > 100


@pytest.mark.slow
def test_co2_example_runs_end_to_end(tmp_path):
    pytest.importorskip("statsmodels")
    from recipes import co2

    assert (
        co2.main(
            ["--work", str(tmp_path / "w"), "--out", str(tmp_path / "r"), "--set", "trainer.max_steps=30", "trainer.val_check_interval=30"]
        )
        == 0
    )
    table = (tmp_path / "r" / "table.md").read_text()
    for label in ("xval, fill-task", "xval, MLM only", "linear interpolation", "train mean", "ridge", "boosted trees"):
        assert label in table


def test_co2_table_carries_the_standard_regressors(tmp_path):
    """Issue 66, 9: the co2 table had neither ridge nor boosted trees, where every other recipe's
    table carries them; now its baselines are the standard references beside linear
    interpolation, on both splits, fitted on the training records."""
    pytest.importorskip("statsmodels")
    pytest.importorskip("sklearn")
    from recipes import co2
    from scinum.datasets.jsonl import build as build_jsonl

    files = co2.write_records(tmp_path / "w")
    data = tmp_path / "data"
    build_jsonl(data, train=[files["train"]], val=[files["val"]], test=[files["test"]], ood={"late": [files["late"]]}, fields=[co2.FIELD])
    table, pred = co2.baselines(data, ["test", "ood_late"], log=lambda s: None)
    for split in ("test", "ood_late"):
        rows = table[table["split"] == split].set_index("model")
        assert {"linear interpolation", "train mean", "ridge", "boosted trees"} <= set(rows.index), rows.index
        assert rows.loc["ridge", "kind"] == rows.loc["boosted trees", "kind"] == "regressor"
        assert rows.loc["ridge", "n"] == sum(1 for _ in open(files["test" if split == "test" else "late"]))
    oracles = {"oracle: truth clamped to training range", "oracle: nearest training value"}
    assert oracles <= set(table[table["split"] == "ood_late"]["model"])
    assert set(pred["model"]) >= {"linear interpolation", "ridge", "boosted trees"}


def test_build_refuses_integers_fill_would_refuse(tmp_path, capsys):
    """Issue 37 case 6: ``build jsonl`` wrote the integer 2**64, which fill then refused."""
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"x": 1.5, "n": 3}) + "\n" + json.dumps({"x": 2.5, "n": 2**64}) + "\n")
    assert scinum(["build", "jsonl", str(tmp_path / "ds"), "--train", str(src)]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"{src}:2" in err and "path n" in err and "2^53" in err, err
    assert scinum(["build", "jsonl", str(tmp_path / "ds2"), "--train", str(src), "--on-error", "skip"]) == 0
    assert Dataset(tmp_path / "ds2").count("train") == 1
