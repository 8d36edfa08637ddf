"""One side of step 10's paired fits on a quiet machine (fit-pairs.txt): a 250-step fit of a run
config on one thread, its data at DATA; appends ``label train_seconds`` to the file $LOG.

    LOG=F python fit_bench.py CONFIG DATA                  # this checkout
    OLD=1 LOG=F python fit_bench.py CONFIG DATA            # batches by torch's sharing, as before f2a4423
    SRC=/work/w13 LOG=F python fit_bench.py CONFIG DATA    # the scinum of another checkout (13aab85)

CONFIG: a run's config.json (the `best` preset's for the first pair, seed0/config.json here for
the second); DATA: the planets data of build seed 0.
"""

import importlib.util
import json
import os
import shutil
import sys
import tempfile

src = os.environ.get("SRC")
if src:  # that checkout's package in place of the installed one
    spec = importlib.util.spec_from_file_location("scinum", src + "/scinum/__init__.py", submodule_search_locations=[src + "/scinum"])
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["scinum"] = module
    spec.loader.exec_module(module)

import torch  # noqa: E402

torch.set_num_threads(1)
import scinum.train.data as data  # noqa: E402
from scinum.train.fit import fit  # noqa: E402

if os.environ.get("OLD"):
    data.by_value = lambda collate: collate  # type: ignore[assignment,misc]
config = json.loads(open(sys.argv[1]).read())
if src:
    config["trainer"].pop("early_stopping_min_steps", None)  # a key newer than 13aab85
out = tempfile.mkdtemp()
config.update(out_dir=out, budget={"samples": 64 * 250})
config["data"]["path"] = sys.argv[2]
config["trainer"].update(max_steps=250, val_check_interval=1600, checkpoint_every_n_steps=1600)
fit(config)
seconds = json.loads(open(out + "/training.json").read())["train_seconds"]
label = src or ("old" if os.environ.get("OLD") else "new")
with open(os.environ["LOG"], "a") as f:
    f.write(f"{label} {seconds}\n")
shutil.rmtree(out)
