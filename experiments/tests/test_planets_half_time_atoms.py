"""experiments/planets-half-time step 5: the figures its README quotes, from atoms.csv."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from published import readme

HERE = Path(__file__).resolve().parents[1] / "planets-half-time"


def test_step_5s_figures_are_atoms_csv():
    f = pd.read_csv(HERE / "atoms.csv")
    per_seed = f.assign(se=(f.pred - f.true) ** 2).groupby(["step", "atoms", "seed"]).se.mean().groupby(["step", "atoms"]).mean()
    text = readme("planets-half-time")
    for step, samples in (("step 1", "506 880"), ("step 3", "614 400")):
        off, on = per_seed[(step, "off")], per_seed[(step, "on")]
        assert f"| {step}, {samples} samples | {off:.6f} | {on:.6f} |" in text
    assert per_seed[("step 1", "on")] > 0.00091  # "still above 0.00091"
    at_one = f[(f.atoms == "off") & np.isclose(f.true, 1.0)]
    distance = (at_one.pred - 1.0).abs().groupby(at_one.step).mean()
    assert f"lie {distance['step 1']:.4f} (step 1) and {distance['step 3']:.4f} (step 3) from 1.0" in text


def test_the_line_models_distance_at_one_is_planets_atoms():
    p = pd.read_csv(HERE.parent / "planets-atoms" / "predictions.csv.gz")
    a = p[(p.atoms == "off") & (p.split == "test") & np.isclose(p.true, 1.0) & p.build.str.startswith("development")]
    assert f"against {(a.pred - 1.0).abs().mean():.4f} for the `best` preset's line-cap checkpoints" in readme("planets-half-time")
