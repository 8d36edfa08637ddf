"""The script these runs were made with (reformatted since, the same steps): one ``scinum fit`` run
of compare-b64-30min's xVal+GMM at the cap that keeps the moving average of the weights for several
decays at once (an average does not change training), one checkpoint per decay, then ``scinum
evaluate`` of them all.

Run: ``python keep_averages.py SEED 0.99,0.995,0.998,0.999,0.9995`` with ``CONFIG`` a run config of
that model (here the recipe run's of ``recipe-0.999``) and ``OUT`` where the runs go.
"""

import json
import subprocess
import sys
from pathlib import Path

import lightning as L
import torch

from scinum.model.checkpoint import save_checkpoint
from scinum.train.config import load_config
from scinum.train.fit import fit

CONFIG = Path("/work/runs-s24/ema-cap/models/xval+gmm-ema0.999/seed0/config.json")
OUT = Path("/work/runs-s24/multi")


class KeepAverages(L.Callback):
    """The average of ``scinum.train.weight_average`` for each decay; a checkpoint of each at the end."""

    def __init__(self, decays: list[float], out: Path):
        self.decays, self.out = decays, out

    def on_fit_start(self, trainer, module):
        self.avg = {d: [p.detach().clone() for p in module.model.parameters()] for d in self.decays}
        self.n = 0

    @torch.no_grad()
    def on_train_batch_end(self, trainer, module, *args):
        if trainer.global_step <= self.n:
            return
        self.n = trainer.global_step
        weights = [p.detach() for p in module.model.parameters()]
        for d, avg in self.avg.items():
            torch._foreach_lerp_(avg, weights, 1 - min(d, (1 + self.n) / (10 + self.n)))

    @torch.no_grad()
    def on_train_end(self, trainer, module):
        last = [p.detach().clone() for p in module.model.parameters()]
        for d, avg in self.avg.items():
            for p, a in zip(module.model.parameters(), avg):
                p.copy_(a)
            save_checkpoint(self.out / f"avg{d:g}.ckpt", module.model, module.meta)
        for p, w in zip(module.model.parameters(), last):
            p.copy_(w)


def main() -> None:
    seed, decays = int(sys.argv[1]), [float(d) for d in sys.argv[2].split(",")]
    out = OUT / f"seed{seed}"
    config = json.loads(CONFIG.read_text())
    config.update(seed=seed, out_dir=str(out))
    config["optim"]["weight_average"] = 0.0  # the averages are kept by the callback
    torch.set_num_threads(1)
    fit(load_config(None, config), callbacks=[KeepAverages(decays, out)])
    checkpoints = [str(out / "model.ckpt")] + [str(out / f"avg{d:g}.ckpt") for d in decays]
    labels = ["raw"] + [f"avg{d:g}" for d in decays]
    command = ["scinum", "evaluate", "--ckpt", *checkpoints, "--labels", *labels, "--data", config["data"]["path"]]
    subprocess.run([*command, "--out", str(out / "eval"), "--limit", "200", "--no-baselines"], check=True)


if __name__ == "__main__":
    main()
