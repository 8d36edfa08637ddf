"""Worked example "Your own data": fill a missing week of the Mauna Loa CO2 record.

The data is real and nobody here made it: the weekly CO2 concentrations measured at Mauna Loa,
1958-2001 (ppm), bundled inside the ``statsmodels`` wheel (``statsmodels.datasets.co2``; nothing
is downloaded). ``pip install -e ".[examples]"`` installs it.

Records: 13 consecutive weeks inside one calendar year, ``{"t": decimal year of the first week,
"co2": [13 values]}`` (windows touching one of the 59 missing weeks are left out). The task:
fill ``co2[6]``, the middle week, from the other twelve — gap filling. Splits by calendar year,
so no test window overlaps a training window: every 6th year from 1962 is test, every 6th from
1965 validation, the rest up to 1990 train; 1991-2001 is ``ood_late``: concentrations mostly
above any the model trained on.

Steps (each is one command a user with their own file would run; see the README):

1. write the records to ``<work>/{train,val,test,late}.jsonl``;
2. ``scinum build jsonl <work>/data --train ... --val ... --test ... --ood late=... --fields co2[6]``;
3. ``scinum fit --config recipes/co2.yaml`` (``data.mask_fields: [co2[6]]``) and, for
   comparison, the same model with MLM masking only;
4. ``scinum evaluate`` on test and ood_late, next to linear interpolation between the
   neighbouring weeks (the baseline a scientist would use) and the standard references every
   recipe's table carries (:mod:`scinum.analysis.baselines`: the train mean, ridge and boosted
   trees fitted on the training records, and on ``ood_late`` the two oracles);
5. ``scinum fill`` on a few test records with the middle week removed.

Results: ``results/co2/table.md`` (+ ``predictions.csv``, plots); how long it took is in its
``meta.json`` (``elapsed_s``).
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
if str(HERE.parent) not in sys.path:
    sys.path.insert(0, str(HERE.parent))

WEEKS = 13
MIDDLE = WEEKS // 2
FIELD = f"co2[{MIDDLE}]"
TEST_YEARS = set(range(1962, 1991, 6))
VAL_YEARS = set(range(1965, 1991, 6))
LAST_TRAIN_YEAR = 1990


def load_co2():
    """The weekly Mauna Loa series: a pandas Series of ppm indexed by week (NaN: missing)."""
    try:
        from statsmodels.datasets import co2
    except ImportError:
        raise SystemExit("recipes/co2.py needs statsmodels (its wheel holds the data): pip install -e \".[examples]\"") from None
    return co2.load_pandas().data["co2"]


def write_records(work: Path) -> dict[str, Path]:
    """Windows of 13 weeks inside one calendar year -> ``<work>/<split>.jsonl``; returns the files."""
    from scinum.util.atomic import write_text_atomic
    from scinum.records.strict import dumps

    series = load_co2()
    lines: dict[str, list[str]] = {"train": [], "val": [], "test": [], "late": []}
    for year, part in series.groupby(series.index.year):
        values, dates = part.to_numpy(), part.index
        split = "late" if year > LAST_TRAIN_YEAR else "test" if year in TEST_YEARS else "val" if year in VAL_YEARS else "train"
        for a in range(len(values) - WEEKS + 1):
            window = values[a : a + WEEKS]
            if np.isnan(window).any():
                continue
            t = year + (dates[a].day_of_year - 1) / 365.25
            lines[split].append(dumps({"t": round(t, 3), "co2": [float(v) for v in window]}))
    work.mkdir(parents=True, exist_ok=True)
    files = {}
    for split, rows in lines.items():
        files[split] = work / f"{split}.jsonl"
        write_text_atomic(files[split], "\n".join(rows) + "\n")
    return files


def baselines(data: Path, splits: list[str], log=print):
    """The rows and predictions a model is compared with: linear interpolation between weeks 5
    and 7, and the standard references of every recipe's table
    (:func:`scinum.analysis.baselines.baseline_results`: train mean, ridge, boosted trees, the
    oracles on ``ood_late``; ridge and the trees are skipped with one line where scikit-learn is
    not installed)."""
    import pandas as pd

    from scinum.analysis.baselines import baseline_results
    from scinum.analysis.metrics import summarize
    from scinum.datasets.directory import Dataset

    ds = Dataset(data)
    rows, preds = [], []
    for split in splits:
        recs = list(ds.records(split))
        true = np.array([r["co2"][MIDDLE] for r in recs])
        for label, pred in (("linear interpolation", np.array([(r["co2"][MIDDLE - 1] + r["co2"][MIDDLE + 1]) / 2 for r in recs])),):
            rows.append({"model": label, "kind": "reference", "field": FIELD, "split": split, **summarize(true, pred)})
            preds.append(
                pd.DataFrame(
                    {
                        "model": label,
                        "kind": "reference",
                        "encoding": "baseline",
                        "head": "",
                        "field": FIELD,
                        "split": split,
                        "record": np.arange(len(recs)),
                        "path": FIELD,
                        "true": true,
                        "pred": pred,
                    }
                )
            )
    table, pred, _ = baseline_results(data, [FIELD], splits, seed=0, log=log)
    table = table[table["subset"] == "all"] if "subset" in table else table
    return pd.concat([pd.DataFrame(rows), table], ignore_index=True), pd.concat(preds + [pred], ignore_index=True)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="recipes/co2.py", description=__doc__.splitlines()[0])
    p.add_argument("--work", type=Path, default=Path("runs/co2"), help="working directory [runs/co2]")
    p.add_argument("--out", type=Path, default=Path("results/co2"), help="results [results/co2]")
    p.add_argument("--records-only", action="store_true", help="only write the JSONL records (to run the other steps by hand)")
    p.add_argument(
        "--set",
        nargs="+",
        default=[],
        metavar="KEY=VALUE",
        help="overrides of recipes/co2.yaml for both models (e.g. trainer.max_steps=100)",
    )
    a = p.parse_args(argv)
    import pandas as pd
    import torch

    from recipes.runner import export_models, train_models
    from scinum.util.provenance import result_provenance
    from scinum.analysis import evaluate as ev
    from scinum.analysis import plots
    from scinum.errors import ScinumError
    from scinum.datasets.jsonl import build as build_jsonl
    from scinum.train.config import apply_overrides, assemble_config, parse_overrides
    from scinum.datasets.directory import Dataset
    from scinum.fill.model import load

    def log(msg: str) -> None:
        print(f"[co2] {msg}", file=sys.stderr, flush=True)

    t0 = time.time()
    files = write_records(a.work)
    log(f"records: { {s: sum(1 for _ in open(f)) for s, f in files.items()} } in {a.work}")
    if a.records_only:
        return 0
    data = a.work / "data"
    try:
        build_jsonl(data, train=[files["train"]], val=[files["val"]], test=[files["test"]], ood={"late": [files["late"]]}, fields=[FIELD])
    except ScinumError as e:
        log(f"error: {e}")
        return 1
    base = assemble_config(HERE / "co2.yaml", overrides={"data": {"path": str(data)}})
    base = apply_overrides(base, parse_overrides(a.set))
    configs = {"xval, fill-task": copy.deepcopy(base), "xval, MLM only": copy.deepcopy(base)}
    configs["xval, fill-task"]["out_dir"] = str(a.work / "models" / "fill-task")
    configs["xval, MLM only"]["out_dir"] = str(a.work / "models" / "mlm-only")
    configs["xval, MLM only"]["data"].update(mask_fields=[])
    ckpts = train_models("co2", configs, log=lambda s: print(s, file=sys.stderr, flush=True))
    torch.set_num_threads(1)
    splits = ["test", "ood_late"]
    tables, preds = [], []
    for label, ckpt in ckpts.items():
        t, pr = ev.evaluate(ckpt, data, [FIELD], splits, label=label)
        tables.append(t)
        preds.append(pr)
    bt, bp = baselines(data, splits, log=log)
    table = pd.concat(tables + [bt], ignore_index=True)[["model", "kind", "field", "split", "n", "mse", "r2"]]
    table = table.sort_values(["split", "mse"], kind="stable").reset_index(drop=True)
    a.out.mkdir(parents=True, exist_ok=True)
    ev.write_results(
        a.out,
        table,
        pd.concat(preds + [bp], ignore_index=True),
        ev.train_values(data, [FIELD]),
        {
            **ev.results_meta(data),
            "recipe": "co2",
            "elapsed_s": round(time.time() - t0, 1),
            **result_provenance(),
            "units": {FIELD: "ppm"},
            "models": {k: v for k, v in configs.items()},
        },
    )
    plots.make_all(a.out)
    export_models(ckpts, a.out, log=log)  # results/co2/models/fill-task/, .../mlm-only/
    # fill: three test records with their middle week removed, as a user would
    model = load(ckpts["xval, fill-task"])
    log("fill (the middle week removed from three test records):")
    for rec in list(Dataset(data).records("test"))[:3]:
        blank = json.loads(json.dumps(rec))
        blank["co2"][MIDDLE] = None
        got = model.fill(blank)
        log(
            f"  t={rec['t']}: true {rec['co2'][MIDDLE]} ppm, filled {got['co2'][MIDDLE]:.2f} ppm, "
            f"linear interpolation {(rec['co2'][MIDDLE - 1] + rec['co2'][MIDDLE + 1]) / 2:.2f} ppm"
        )
    print((a.out / "table.md").read_text())
    log(f"results in {a.out}; total {time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
