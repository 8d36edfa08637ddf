"""Wall seconds of ``scinum.train.fit`` for STEPS steps of the planets ``best`` preset's model (the
run config's trunk with structure positions, xVal's mixture head, batches of 64, e₁ asked in half
the records) on planets-shaped records of 12 time steps (``benchmarks/quick_shapes.py``), one
thread: the check that training the planets model costs no more after the structure positions'
rows began to train through ``embedding_bag`` (README, *Fit time, paired*)::

    OMP_NUM_THREADS=1 farm-bench -n 3 --pin 0 \\
        --vs "sh -c 'PYTHONPATH=BEFORE exec python experiments/tables-fit-budget/planets_steps.py 150'" \\
        -- python experiments/tables-fit-budget/planets_steps.py 150
"""

import sys
import tempfile
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from quick_shapes import make_dataset  # noqa: E402

from scinum.train.config import load_config  # noqa: E402
from scinum.train.fit import fit  # noqa: E402

if __name__ == "__main__":
    torch.set_num_threads(1)
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 150
    with tempfile.TemporaryDirectory() as tmp:
        data = make_dataset(Path(tmp) / "data", n_train=4000, n_val=64)
        config = load_config(
            None,
            {
                "seed": 0,
                "out_dir": str(Path(tmp) / "run"),
                "encoding": {"name": "xval"},
                "head": {"kind": "mixture", "n_components": 8, "mse_weight": 1.0},
                "data": {"path": str(data), "batch_size": 64, "mask_fields": ["description.planet0.e"], "mask_fields_prob": 0.5},
                "trainer": {
                    "max_steps": steps,
                    "accelerator": "cpu",
                    "devices": 1,
                    "precision": "32-true",
                    "val_check_interval": 100000,
                    "limit_val_batches": 0,
                    "checkpoint_every_n_steps": 100000,
                    "progress_bar": False,
                },
            },
        )
        t = time.perf_counter()
        fit(config)
        wall = time.perf_counter() - t
    print(f"{steps} steps of 64 records: {wall:.1f} s = {steps * 64 / wall:.0f} samples/s", flush=True)
