"""Step 6's scores: e₁, a₁ and Δt of step 1's and step 6's checkpoints on the validation and test
splits of build seed 0, each with a₁'s atom as a fit records it today.

Step 1's fits predate the record of a field's atom (experiments/planets-atoms), so their
checkpoints are given the atoms their fit would record now (planets-atoms' ``atoms_of``, from the
same training split), as step 5 did; step 6's fits recorded theirs, checked here to be the same.
Each checkpoint is scored by :func:`scinum.analysis.evaluate.evaluate` on the first 200 records of
each split, as the recipe and ``val_scores.py`` score them.

    python experiments/planets-half-time/anneal/scores.py RUNS_DIR   # RUNS_DIR/half-time/, RUNS_DIR/half-time-anneal/
    python experiments/planets-half-time/anneal/scores.py --read     # the choice (validation), then the cap's result (test)

Writes ``scores.csv`` here: ``step, seed, split, field, mse, r2, atoms`` (``atoms``: ``recorded`` by
the fit or ``added`` here).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
#: step -> its run folder under RUNS_DIR
STEPS = {"step 1": "half-time", "step 6": "half-time-anneal"}
E, A, DT = "description.planet0.e", "description.planet0.a", "description.stepsize"
FIELDS = (E, A, DT)
SPLITS = ("val", "test")
LIMIT = 200
#: the choice (README, step 6): step 6's validation MSE against step 1's, mean over seeds 0-4
RULE = {A: ("below", 1.0), DT: ("below", 1.0), E: ("at most", 1.1)}
#: the cap's result (step 1's clause 4): field -> (metric, bound, sign)
CAPS = {E: ("r2", 0.95, "≥"), A: ("mse", 0.00091, "≤"), DT: ("mse", 2.7e-05, "≤")}


def _planets_atoms():
    """experiments/planets-atoms/evaluate.py, whose ``atoms_of`` this reuses."""
    spec = importlib.util.spec_from_file_location("planets_atoms_evaluate", HERE.parent.parent / "planets-atoms" / "evaluate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def score(runs: Path) -> pd.DataFrame:
    import torch

    from scinum.analysis.evaluate import evaluate
    from scinum.fill.atoms import TrainingAtoms
    from scinum.fill.model import load

    torch.set_num_threads(1)
    rows = []
    for step, folder in STEPS.items():
        data = runs / folder / "data"
        atoms = _planets_atoms().atoms_of(data)
        for ckpt in sorted((runs / folder / "models" / "xval+gmm").glob("seed*/model.ckpt")):
            model = load(ckpt)
            ranges = model.meta.run["train_ranges"]
            recorded = {f: r["atom"] for f, r in ranges.items() if "atom" in r}
            if recorded:
                if recorded != atoms:
                    raise SystemExit(f"{ckpt}: recorded atoms {recorded} differ from the build's {atoms}")
                source = "recorded"
            else:
                for field, atom in atoms.items():
                    ranges[field]["atom"] = atom
                model.training_atoms = TrainingAtoms(model.vocab, model.meta.run)
                source = "added"
            table, _ = evaluate(model, data, list(FIELDS), list(SPLITS), label=step, limit=LIMIT)
            table = table[(table.kind == "model") & (table.subset == "all")]
            for _, r in table.iterrows():
                rows.append(dict(step=step, seed=int(ckpt.parent.name[4:]), split=r.split, field=r.field, mse=r.mse, r2=r.r2, atoms=source))
            print(f"{step}, {ckpt.parent.name}: atoms {source}", flush=True)
    return pd.DataFrame(rows)


def read(frame: pd.DataFrame) -> bool:
    """Prints the choice on the validation split and the cap's result on the test split; whether
    step 6 is chosen."""
    val = frame[frame.split == "val"].groupby(["step", "field"]).mse.mean().unstack("step")
    chosen = True
    print("validation split, mean MSE over seeds 0-4 (the choice):")
    for field, (word, bound) in RULE.items():
        ratio = val.loc[field, "step 6"] / val.loc[field, "step 1"]
        ok = ratio < bound if word == "below" else ratio <= bound
        chosen &= ok
        before, after = val.loc[field, "step 1"], val.loc[field, "step 6"]
        print(f"  {field}: step 1 {before:.4g}, step 6 {after:.4g} = {ratio:.3f}x ({word} {bound:g}x: {'holds' if ok else 'fails'})")
    print(f"step 6 {'chosen' if chosen else 'not chosen'}: the half-time point is {'step 6' if chosen else 'step 1'}")
    test = frame[frame.split == "test"]
    for step in STEPS:
        print(f"test split, {step}{' (chosen)' if (step == 'step 6') == chosen else ' (reported, not chosen)'}:")
        for field, (metric, bound, sign) in CAPS.items():
            per_seed = test[(test.step == step) & (test.field == field)].sort_values("seed")[metric]
            m = per_seed.mean()
            ok = m >= bound if sign == "≥" else m <= bound
            each = ", ".join(f"{v:.3g}" for v in per_seed)
            print(f"  {field} {metric} mean {m:.3g} ({each}) {sign} {bound:g}: {'holds' if ok else 'fails'}")
    return chosen


if __name__ == "__main__":
    if sys.argv[1:] != ["--read"]:
        score(Path(sys.argv[1])).to_csv(HERE / "scores.csv", index=False)
    read(pd.read_csv(HERE / "scores.csv"))
