"""Sharing a model: ``scinum export`` (safetensors + config.json + model card), ``scinum.load``
of the directory (bit-identical fills, no code run), tampered directories, ``scinum info``."""

import json
import random
import sys
from pathlib import Path

import pytest
import torch

import scinum
from scinum.share import card
from scinum.share.card_results import read_results
from scinum.analysis.evaluate import evaluate, results_meta, train_values, write_results
from scinum.cli.main import main
from scinum.train.config import load_config
from scinum.errors import CheckpointError, ResultsError
from scinum.model.exported import config_digest
from scinum.share.export import CARD, CONFIG, WEIGHTS, export
from scinum.train.fit import fit
from scinum.util.atomic import STAGING
from scinum.util.provenance import file_sha256

from conftest import tiny_config, write_dataset  # tests/conftest.py

DOCS_RESULTS = Path(__file__).resolve().parent.parent / "experiments" / "planets-quick"
STEPS = (0.2, 0.3, 0.5, 0.8)


class Toy:
    """Records like the planets ones: a step size from four values, a length, a short series."""

    def __init__(self, steps=STEPS):
        self.steps = steps

    def __call__(self, i):
        r = random.Random(i)
        dt = r.choice(self.steps)
        a = round(r.uniform(1, 2), 2)
        return {"dt": dt, "a": a, "data": [[round(a * k * dt, 2), round(-a * k, 2)] for k in range(r.randint(2, 4))]}, {}


pytestmark = pytest.mark.usefixtures("one_thread")  # tests/conftest.py


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    path = tmp_path_factory.mktemp("toy") / "data"
    # val: 32 numbers of each field, enough to recalibrate
    splits = {"train": 64, "val": 32, "test": 16, "ood_dt": (16, Toy(steps=(0.25, 0.4, 0.65)))}
    evaluation = {"fields": ["dt", "a"], "ood_fields": {"ood_dt": "dt"}, "units": {"dt": "time (s)", "a": "length (m)"}}
    return write_dataset(path, Toy(), splits, shard_size=64, evaluation=evaluation)


MODELS = {
    "xval": ({"name": "xval"}, {"kind": "native"}),
    "fone": ({"name": "fone", "int_digits": 2, "frac_digits": 2}, {"kind": "native"}),
    "bittokens": ({"name": "bittokens"}, {"kind": "native"}),
    "p1000": ({"name": "p1000"}, {"kind": "native"}),
    "xval+gmm": ({"name": "xval"}, {"kind": "mixture", "n_components": 3}),
}


@pytest.fixture(scope="module")
def ckpts(dataset, tmp_path_factory, one_thread_module):
    """A checkpoint per encoding (and the mixture head), a few steps each."""
    root = tmp_path_factory.mktemp("models")
    out = {}
    for label, (enc, head) in MODELS.items():
        cfg = load_config(
            None,
            tiny_config(
                dataset,
                root / label,
                encoding=enc,
                head=head,
                optim={"lr": 3e-3},
                trainer={"devices": 1, "val_check_interval": 1000, "limit_val_batches": 1, "checkpoint_every_n_steps": 1000},
            ),
        )
        out[label] = fit(cfg)
    return out


@pytest.fixture(scope="module")
def results(ckpts, dataset, tmp_path_factory):
    """A small results directory of the xVal model, as `scinum evaluate` writes it."""
    table, pred = evaluate(ckpts["xval"], dataset, label="xval")
    return write_results(tmp_path_factory.mktemp("res") / "results", table, pred, train_values(dataset, ["dt", "a"]), results_meta(dataset))


RECORDS = [Toy()(1000 + i)[0] for i in range(4)] + [Toy(steps=(0.4,))(2000)[0]]
MASKS = [["dt"], ["a", "data[-1][*]"], ["data[*][0]"]]


def _fills(model):
    """Everything a user reads from a model, as exact text (NaN-safe)."""
    out = []
    for mask in MASKS:
        out += [json.dumps(model.predict(r, mask=mask).to_dict()) for r in RECORDS]
        out += [json.dumps(model.fill_many(RECORDS, mask=mask, batch_size=2))]
    return out


@pytest.mark.determinism
@pytest.mark.parametrize("label", list(MODELS))
def test_export_loads_and_fills_bit_for_bit(label, ckpts, tmp_path):
    out = export(ckpts[label], tmp_path / "share")
    assert sorted(p.name for p in out.iterdir()) == sorted([WEIGHTS, CONFIG, CARD])
    from_ckpt, from_dir = scinum.load(ckpts[label]), scinum.load(out)
    assert _fills(from_dir) == _fills(from_ckpt)
    assert from_dir.meta.to_dict() == from_ckpt.meta.to_dict()
    # the ecosystem's reader takes the weights file as it is
    from safetensors.torch import load_file

    weights = load_file(str(out / WEIGHTS))
    state = from_ckpt.model.state_dict()
    assert set(weights) <= set(state)
    assert all(torch.equal(weights[k], state[k].cpu()) for k in weights)
    config = json.loads((out / CONFIG).read_text())
    assert config["format"] == "scinum-model" and config["encoding"] == MODELS[label][0] | config["encoding"]
    assert set(weights) | set(config["weights"]["tied"]) == set(state)


def test_loading_a_directory_never_unpickles(ckpts, tmp_path, monkeypatch):
    out = export(ckpts["xval"], tmp_path / "share")

    def refuse(*a, **k):
        raise AssertionError("torch.load called on an export directory")

    monkeypatch.setattr(torch, "load", refuse)
    assert scinum.load(out).fill(RECORDS[0], mask=["dt"])
    assert "scinum.share.hub" not in sys.modules  # the Hub is imported only on request


def _tamper(directory, edit, digest=True):
    """Edit ``directory``'s config.json; ``digest``: as a hand-made config would be, with its
    digest made to match (so the checks behind the digest are what refuses it)."""
    config = json.loads((directory / CONFIG).read_text())
    edit(config)
    if digest:
        config["digest"] = config_digest(config)
    (directory / CONFIG).write_text(json.dumps(config))


@pytest.mark.parametrize(
    "edit, says",
    [
        (lambda c: c["model"].update(d_model=32), "tensor"),
        (lambda c: c["model"].update(n_layers=2), "needs tensor"),
        (lambda c: c["encoding"].update(name="nope"), "unknown number encoding 'nope'"),
        (lambda c: c["vocab"]["tokens"].append("extra"), "vocabulary has"),
        (lambda c: c["normalizer"]["fields"].pop("dt"), "normalizer's fields"),
        (lambda c: c.pop("vocab"), "missing"),
        (lambda c: c.update(format="something-else"), "not a scinum model config"),
        (lambda c: c.update(version=99), "version 99"),
        (lambda c: c["weights"].update(sha256="0" * 64), "sha256"),
        (lambda c: c["weights"].update(sha256=None), "names no model.safetensors with its sha256"),
        (lambda c: c["weights"].pop("sha256"), "names no model.safetensors with its sha256"),
        (lambda c: c["normalizer"]["fields"]["dt"].update(scale=float("nan")), "'dt' has shift"),
        (lambda c: c["normalizer"]["fields"]["dt"].update(scale=-1.0), "'dt' has shift"),
        (lambda c: c["run"].update(dataset="a string"), "'run.dataset'"),
    ],
)
def test_tampered_config_is_a_one_line_error_naming_the_file(ckpts, tmp_path, edit, says):
    out = export(ckpts["xval"], tmp_path / "share")
    _tamper(out, edit)
    with pytest.raises(CheckpointError) as e:
        scinum.load(out)
    msg = str(e.value)
    assert "\n" not in msg and says in msg, msg
    assert str(out) in msg and (CONFIG in msg or WEIGHTS in msg), msg


def test_damaged_or_foreign_directories(ckpts, tmp_path):
    out = export(ckpts["bittokens"], tmp_path / "share")
    data = (out / WEIGHTS).read_bytes()
    (out / WEIGHTS).write_bytes(data[: len(data) // 2])
    # digests that match the damage: the reader must catch it
    _tamper(out, lambda c: c["weights"].update(sha256=file_sha256(out / WEIGHTS)))
    with pytest.raises(CheckpointError, match=f"{WEIGHTS}: not a readable safetensors file") as e:
        scinum.load(out)
    assert "\n" not in str(e.value)
    (out / WEIGHTS).unlink()
    with pytest.raises(CheckpointError, match=f"{WEIGHTS}: missing"):
        scinum.load(out)
    (tmp_path / "empty").mkdir()
    with pytest.raises(CheckpointError, match=f"{CONFIG}: missing"):
        scinum.load(tmp_path / "empty")
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / CONFIG).write_text("{not json")
    with pytest.raises(CheckpointError, match="not readable JSON"):
        scinum.load(tmp_path / "junk")


def test_export_is_atomic_and_refuses_foreign_directories(ckpts, tmp_path, monkeypatch):
    target = tmp_path / "share"
    target.mkdir()
    (target / "notes.txt").write_text("mine")
    with pytest.raises(CheckpointError, match="not a scinum model export"):
        export(ckpts["xval"], target)
    assert (target / "notes.txt").read_text() == "mine"
    good = export(ckpts["xval"], tmp_path / "good")
    before = (good / CONFIG).read_text()

    def boom(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(card, "render", boom)
    with pytest.raises(KeyboardInterrupt):
        export(ckpts["fone"], good)  # an interrupted re-export keeps the old one whole
    assert (good / CONFIG).read_text() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["good", "share"]  # no temp left
    assert sorted(p.name for p in good.iterdir()) == sorted([WEIGHTS, CONFIG, CARD])
    monkeypatch.undo()
    export(ckpts["fone"], good)
    assert json.loads((good / CONFIG).read_text())["encoding"]["name"] == "fone"


def test_card_has_front_matter_ranges_and_the_ood_table(ckpts, results, tmp_path):
    out = export(ckpts["xval"], tmp_path / "share", results)
    text = (out / CARD).read_text()
    front, body = text.split("---\n")[1], text.split("---\n", 2)[2]
    import yaml

    fm = yaml.safe_load(front)
    assert fm["library_name"] == "scinum" and "xval" in fm["tags"] and fm["datasets"] == ["toy"]
    assert {r["dataset"]["split"] for r in fm["model-index"][0]["results"]} == {"test", "ood_dt"}
    # training ranges, recorded at training time, with units
    assert "| `dt` | time (s) | 0.2 – 0.8 (only the values 0.2, 0.3, 0.5, 0.8) |" in body
    assert "| `a` | length (m) | 1" in body
    # the ID vs OOD table and what it means
    table = json.loads((out / CONFIG).read_text())
    assert table["exported"]["results"] == results.name
    rows = {(r["field"], r["split"]): r for r in read_results(results, None, "xval")["rows"]}
    ratio = rows[("dt", "ood_dt")]["mse"] / rows[("dt", "test")]["mse"]
    assert "| `dt` | ood_dt | 16 |" in body and f"×{ratio:.3g}" in body
    assert (
        "**ood_dt** — `dt` (time (s)), trained only on the values 0.2, 0.3, 0.5, 0.8; this "
        "split holds 0.25 – 0.65, 0 of 16 a training value: error ×"
    ) in body
    assert "seed 0" in body and "packages: scinum" in body and "Known limits" in body


def test_card_reads_the_published_planets_results(ckpts, tmp_path):
    """The planets quick table as published in experiments/ (table.csv and meta.json only)."""
    ev = read_results(DOCS_RESULTS, None, "xval")
    assert {r["split"] for r in ev["rows"]} == {"test", "ood_stepsize", "ood_a1"}
    config = json.loads((export(ckpts["xval"], tmp_path / "s") / CONFIG).read_text())
    text = card.render(config, ev)
    assert "**ood_stepsize** — `description.stepsize` (time (G = M = 1))" in text
    import pandas as pd

    t = pd.read_csv(DOCS_RESULTS / "table.csv")
    t = t[
        (t["model"] == "xval") & (t["field"] == "description.stepsize") & (t.get("subset", pd.Series("all", index=t.index)) == "all")
    ].set_index("split")["mse"]
    assert f"error ×{t['ood_stepsize'] / t['test']:.3g} vs test" in text  # as published
    assert "| `description.planet0.a` | ood_a1 | 200 |" in text
    with pytest.raises(ResultsError, match="no rows of model 'nope'"):
        read_results(DOCS_RESULTS, None, "nope")
    with pytest.raises(ResultsError, match="table.csv: missing"):
        read_results(tmp_path, None)


def test_mixture_card_says_calibration(ckpts, dataset, tmp_path):
    table, pred = evaluate(ckpts["xval+gmm"], dataset)
    res = write_results(tmp_path / "res", table, pred, {}, results_meta(dataset))
    text = (export(ckpts["xval+gmm"], tmp_path / "share", res) / CARD).read_text()
    assert "## Uncertainty" in text and "68 % interval covers" in text
    assert "recalibrated on the validation split for `dt`, `a`" in text


def test_cli_export_and_info(ckpts, results, tmp_path, capsys):
    out = tmp_path / "share"
    assert main(["export", "--ckpt", str(ckpts["p1000"]), "--out", str(out)]) == 0
    assert (out / CARD).is_file()
    capsys.readouterr()
    for model in (out, ckpts["p1000"]):
        assert main(["info", str(model)]) == 0
        text = capsys.readouterr().out
        assert "p1000" in text and "dt [time (s)]: trained on 0.2 – 0.8 (only the values" in text
        assert "context" in text and "from: toy v1 seed 0; 6 steps × batch 8" in text
        assert len(text.splitlines()) <= 12
    assert main(["export", "--ckpt", str(ckpts["xval"]), "--out", str(tmp_path / "x"), "--results", str(results), "--label", "nope"]) == 1
    assert "no rows of model 'nope'" in capsys.readouterr().err
    (out / CONFIG).write_text("[]")
    assert main(["info", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and CONFIG in err


def test_recipes_export_each_model_with_its_rows(ckpts, dataset, tmp_path):
    """recipes.runner.export_models: ``<results>/models/<label>/`` with that model's card."""
    from recipes.runner import export_models

    t1, p1 = evaluate(ckpts["xval"], dataset, label="xval")
    t2, p2 = evaluate(ckpts["fone"], dataset, label="fone")
    import pandas as pd

    res = write_results(
        tmp_path / "results", pd.concat([t1, t2]), pd.concat([p1, p2]), train_values(dataset, ["dt", "a"]), results_meta(dataset)
    )
    done = export_models({"xval": ckpts["xval"], "fone": ckpts["fone"]}, res, log=lambda s: None)
    assert done == [res / "models" / "xval", res / "models" / "fone"]
    for label in ("xval", "fone"):
        text = (res / "models" / label / CARD).read_text()
        assert f"# {label}: a scinum filler for toy records" in text and "| `dt` | ood_dt | 16 |" in text
        assert scinum.load(res / "models" / label).meta.encoding["name"] == label


def test_hub_glue_without_network(ckpts, tmp_path, monkeypatch):
    """scinum.share.hub with a stand-in huggingface_hub: upload names the three files, a download is a
    snapshot directory of symlinks (as the Hub cache makes) that scinum.load reads; without the
    package, a one-line hint to install the extra."""
    import types
    from scinum import ScinumError
    from scinum.share import hub

    out = export(ckpts["xval"], tmp_path / "share")
    calls = []

    class Api:
        def __init__(self, token=None):
            pass

        def create_repo(self, repo_id, **kw):
            calls.append(("create", repo_id))

        def upload_folder(self, repo_id, folder_path, allow_patterns, **kw):
            calls.append(("upload", repo_id, folder_path, sorted(allow_patterns)))

    def snapshot_download(repo_id, revision=None, allow_patterns=(), **kw):
        calls.append(("download", repo_id, revision))
        snap = tmp_path / "cache" / repo_id.replace("/", "--") / (revision or "main")
        snap.mkdir(parents=True, exist_ok=True)
        for name in allow_patterns:
            if not (snap / name).exists():
                (snap / name).symlink_to(out / name)
        return str(snap)

    fake = types.SimpleNamespace(HfApi=Api, snapshot_download=snapshot_download)
    monkeypatch.setitem(sys.modules, "huggingface_hub", fake)
    assert hub.push_to_hub(out, "me/toy-xval") == "https://huggingface.co/me/toy-xval"
    assert calls[:2] == [("create", "me/toy-xval"), ("upload", "me/toy-xval", str(out), sorted([WEIGHTS, CONFIG, CARD]))]
    model = scinum.load("hf://me/toy-xval@v1")
    assert calls[-1] == ("download", "me/toy-xval", "v1")
    assert _fills(model) == _fills(scinum.load(ckpts["xval"]))
    with pytest.raises(CheckpointError, match="config.json: missing"):
        hub.push_to_hub(tmp_path, "me/not-a-model")
    monkeypatch.setitem(sys.modules, "huggingface_hub", None)  # not installed
    with pytest.raises(ScinumError, match=r'pip install "scinum\[hub\]"'):
        hub.download("me/toy-xval")


def test_card_without_an_ood_declaration_speaks_of_every_field(ckpts, results, tmp_path):
    """Own data (`scinum build jsonl --ood`): no split says which field it is about, so the card
    compares every scored field of the split with its training range."""
    config = json.loads((export(ckpts["xval"], tmp_path / "s") / CONFIG).read_text())
    config["run"]["dataset"]["evaluation"].pop("ood_fields")
    ev = read_results(results, None)
    ev["meta"].pop("ood_fields")
    text = card.render(config, ev)
    assert "* **ood_dt** — `dt` (time (s)), trained only on the values 0.2, 0.3, 0.5, 0.8" in text
    line = next(x for x in text.splitlines() if x.startswith("* **ood_dt** — `a`"))
    assert "trained on 1.01 – 1.99; this split holds" in line and "outside that range: error ×" in line


def test_card_labels_the_interp_and_extrap_rows_of_a_split(ckpts, tmp_path):
    """A results table with ``subset`` rows (evaluate's interp/extrap of a declared training
    range): the card's table says which rows are inside and outside the range, and the
    bullets and the model index read only the whole split."""
    import pandas as pd

    res = tmp_path / "res"
    res.mkdir()
    (res / "meta.json").write_text((DOCS_RESULTS / "meta.json").read_text())
    table = pd.read_csv(DOCS_RESULTS / "table.csv")
    if "subset" in table:
        table = table[table["subset"] == "all"]
    table = table.assign(subset="all")
    xv = table[(table["model"] == "xval") & (table["split"] == "ood_stepsize") & (table["field"] == "description.stepsize")]
    parts = [xv.assign(subset="interp", n=150, mse=0.004), xv.assign(subset="extrap", n=50, mse=0.006)]
    pd.concat([table, *parts], ignore_index=True).to_csv(res / "table.csv", index=False)
    ev = read_results(res, None, "xval")
    config = json.loads((export(ckpts["xval"], tmp_path / "s") / CONFIG).read_text())
    text = card.render(config, ev)
    assert "| `description.stepsize` | ood_stepsize, inside the training range | 150 | 0.004 |" in text
    assert "| `description.stepsize` | ood_stepsize, outside the training range | 50 | 0.006 |" in text
    assert text.count("* **ood_stepsize** —") == 1
    assert text.count("split: ood_stepsize") == len(table[(table["model"] == "xval") & (table["split"] == "ood_stepsize")])


@pytest.mark.parametrize(
    "edit",
    [
        lambda c: c["normalizer"]["fields"]["dt"].update(scale=c["normalizer"]["fields"]["dt"]["scale"] * 2),
        lambda c: c["vocab"]["tokens"].__setitem__(slice(-2, None), c["vocab"]["tokens"][-2:][::-1]),
        lambda c: c["run"].update(dataset="a string"),
        lambda c: c.pop("digest"),
    ],
)
def test_an_edited_config_is_refused_by_its_digest(ckpts, tmp_path, edit, capsys):
    """Issue 37 case 3: a doubled normaliser scale or two swapped vocabulary tokens loaded
    silently and changed fills; config.json had no digest. ``scinum info`` reads it too."""
    out = export(ckpts["xval"], tmp_path / "share")
    _tamper(out, edit, digest=False)
    with pytest.raises(CheckpointError, match=f"{CONFIG}: damaged or edited") as e:
        scinum.load(out)
    assert "\n" not in str(e.value)
    from scinum.cli.main import main

    assert main(["info", str(out)]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "damaged or edited" in err, err


def test_a_config_nested_too_deep_is_one_line(ckpts, tmp_path):
    """Issue 37 case 3: a config.json nested 100,000 deep was a RecursionError."""
    out = export(ckpts["xval"], tmp_path / "share")
    (out / CONFIG).write_text('{"format": "scinum-model", "x": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(CheckpointError, match=f"{CONFIG}: .*nested too deep"):
        scinum.load(out)


def test_exports_of_one_checkpoint_are_byte_identical(ckpts, tmp_path):
    """Issue 37 case 13: the safetensors header's metadata came in no fixed order."""
    files = []
    for i in range(3):
        out = export(ckpts["xval+gmm"], tmp_path / f"e{i}")
        files.append({f: (out / f).read_bytes() for f in (WEIGHTS, CONFIG, CARD)})
    assert files[0] == files[1] == files[2]


def test_reexport_writes_only_its_own_files(ckpts, tmp_path, monkeypatch):
    """Issue 37 case 1 (and 10, 13): re-exporting into an export deleted a Hub clone's .git/
    and the user's notes; ``--out .`` was a traceback; a killed export's staging directory
    stayed forever."""
    out = export(ckpts["xval"], tmp_path / "share")
    (out / ".git").mkdir()
    (out / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (out / "notes.md").write_text("mine")
    stale = out / f"{STAGING}{2**23 + 1}"  # a killed export's (no such process)
    stale.mkdir()
    (stale / WEIGHTS).write_bytes(b"half")
    export(ckpts["fone"], out)
    assert (out / ".git" / "HEAD").read_text().startswith("ref:") and (out / "notes.md").read_text() == "mine"
    assert not stale.exists() and scinum.load(out).meta.encoding["name"] == "fone"
    with pytest.raises(CheckpointError, match="not a scinum model export"):
        export(ckpts["xval"], out / ".git")
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    from scinum.cli.main import main

    assert main(["export", "--ckpt", str(ckpts["xval"]), "--out", "."]) == 0
    assert sorted(p.name for p in here.iterdir()) == sorted([WEIGHTS, CONFIG, CARD])
    (tmp_path / "afile").write_text("mine")
    with pytest.raises(CheckpointError, match="afile: exists"):
        export(ckpts["xval"], tmp_path / "afile")
    assert (tmp_path / "afile").read_text() == "mine"


def test_export_onto_a_full_disk_is_one_line_and_leaves_nothing(ckpts, tmp_path, monkeypatch):
    """Issue 37 case 10: a full disk while writing the weights was a SafetensorError traceback."""
    import safetensors.torch
    from safetensors import SafetensorError

    def full(*a, **k):
        raise SafetensorError("Error while serializing: IoError(No space left on device)")

    monkeypatch.setattr(safetensors.torch, "save_file", full)
    (tmp_path / "share").mkdir()
    with pytest.raises(CheckpointError, match=f"{WEIGHTS}: cannot write .*No space left") as e:
        export(ckpts["xval"], tmp_path / "share")
    assert "\n" not in str(e.value) and list((tmp_path / "share").iterdir()) == []


def test_evaluate_limit_below_one_and_results_written_all_or_nothing(ckpts, dataset, results, tmp_path, capsys, monkeypatch):
    """Issue 37 case 10: ``evaluate --limit 0`` / ``-1`` was ``KeyError: 'true'``; evaluate wrote
    its outputs file by file (a failure at meta.json left new tables beside an old meta)."""
    for limit in ("0", "-1"):
        assert main(["evaluate", "--ckpt", str(ckpts["xval"]), "--data", str(dataset), "--out", str(tmp_path / "r"), "--limit", limit]) == 1
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and f"--limit {limit}" in err, err
    assert not (tmp_path / "r").exists()
    before = {p.name: p.read_bytes() for p in results.iterdir() if p.is_file()}
    table, pred = evaluate(ckpts["fone"], dataset, label="fone")
    real_dumps = json.dumps
    monkeypatch.setattr(
        json,
        "dumps",
        lambda obj, **k: (_ for _ in ()).throw(OSError(28, "No space left on device")) if "heads" in obj else real_dumps(obj, **k),
    )
    with pytest.raises(OSError):
        write_results(results, table, pred, train_values(dataset, ["dt", "a"]), results_meta(dataset))
    monkeypatch.undo()
    assert {p.name: p.read_bytes() for p in results.iterdir() if p.is_file()} == before
    assert not [p for p in results.iterdir() if p.name.startswith(".")]
