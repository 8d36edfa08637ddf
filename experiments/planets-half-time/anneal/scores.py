"""Steps 6 and 7's scores: e₁, a₁ and Δt of step 1's, step 6's and step 7's checkpoints on the
validation and test splits of build seed 0, each with a₁'s atom as a fit records it today.

Step 1's fits predate the record of a field's atom (experiments/planets-atoms), so their
checkpoints are given the atoms their fit would record now (planets-atoms' ``atoms_of``, from the
same training split), as step 5 did; steps 6 and 7's fits recorded theirs, checked here to be the same.
Each checkpoint is scored by :func:`scinum.analysis.evaluate.evaluate` on the first 200 records of
each split, as the recipe and ``val_scores.py`` score them.

    python experiments/planets-half-time/anneal/scores.py RUNS_DIR   # RUNS_DIR/half-time/, half-time-anneal/, half-time-anneal-a1/
    python experiments/planets-half-time/anneal/scores.py --read     # each step's choice (validation), then the cap's result (test)

Writes ``scores.csv`` here: ``step, seed, split, field, mse, r2, atoms`` (``atoms``: ``recorded`` by
the fit or ``added`` here).
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
#: step -> (its run folder under RUNS_DIR, its model's label)
STEPS = {
    "step 1": ("half-time", "xval+gmm"),
    "step 6": ("half-time-anneal", "xval+gmm"),
    "step 7": ("half-time-anneal-a1", "xval+gmm, a1 asked"),
}
E, A, DT = "description.planet0.e", "description.planet0.a", "description.stepsize"
FIELDS = (E, A, DT)
SPLITS = ("val", "test")
LIMIT = 200
#: step 6's choice (README): its validation MSE against step 1's, mean over seeds 0-4
RULE = {A: ("below", 1.0), DT: ("below", 1.0), E: ("at most", 1.1)}
#: step 1's clause 4, the cap's result (``TARGETS``, read by ``caps_result``), which step 7's choice
#: reads on the validation split
VERDICT = runpy.run_path(str(HERE.parent / "verdict.py"))


def score(runs: Path) -> pd.DataFrame:
    import torch

    from scinum.analysis.evaluate import evaluate
    from scinum.fill.atoms import TrainingAtoms
    from scinum.fill.model import load

    torch.set_num_threads(1)
    atoms_of = runpy.run_path(str(HERE.parent.parent / "planets-atoms" / "evaluate.py"))["atoms_of"]  # as a fit records them
    rows = []
    for step, (folder, label) in STEPS.items():
        data = runs / folder / "data"
        atoms = atoms_of(data)
        for ckpt in sorted((runs / folder / "models" / label).glob("seed*/model.ckpt")):
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


def caps_result(frame: pd.DataFrame, step: str, split: str) -> bool:
    """Prints each clause of the cap's result on ``split`` (mean over seeds 0-4, each seed beside
    it) for ``step`` by verdict.py's ``caps_result``; whether all hold."""
    rows = frame[(frame.step == step) & (frame.split == split)]
    scores = {int(s): {(r.field, m): float(getattr(r, m)) for r in g.itertuples() for m in ("mse", "r2")} for s, g in rows.groupby("seed")}
    return VERDICT["caps_result"](scores, f"  {step}, {split}:")


def step6_chosen(frame: pd.DataFrame) -> bool:
    """Step 6's rule: its validation MSE against step 1's (RULE), mean over seeds 0-4."""
    val = frame[frame.split == "val"].groupby(["step", "field"]).mse.mean().unstack("step")
    chosen = True
    print("step 6, validation split, mean MSE over seeds 0-4 against step 1's (the choice):")
    for field, (word, bound) in RULE.items():
        before, after = val.loc[field, "step 1"], val.loc[field, "step 6"]
        ratio = after / before
        ok = ratio < bound if word == "below" else ratio <= bound
        chosen &= ok
        print(f"  {field}: step 1 {before:.4g}, step 6 {after:.4g} = {ratio:.3f}x ({word} {bound:g}x: {'holds' if ok else 'fails'})")
    print(f"step 6 {'chosen' if chosen else 'not chosen'}")
    return chosen


def read(frame: pd.DataFrame) -> dict[str, bool]:
    """Prints each step's choice on the validation split and the cap's result on the test split;
    step -> whether it was chosen."""
    chosen = {"step 6": step6_chosen(frame)}
    if "step 7" in set(frame.step):
        print("step 7, validation split: the cap's bounds (the choice):")
        chosen["step 7"] = caps_result(frame, "step 7", "val")
        print(f"step 7 {'chosen' if chosen['step 7'] else 'not chosen'}")
    for step in STEPS:
        if step in set(frame.step):
            state = {True: " (chosen)", False: " (reported, not chosen)"}.get(chosen.get(step), "")
            print(f"test split, {step}{state}:")
            caps_result(frame, step, "test")
    return chosen


if __name__ == "__main__":
    if sys.argv[1:] != ["--read"]:
        score(Path(sys.argv[1])).to_csv(HERE / "scores.csv", index=False)
    read(pd.read_csv(HERE / "scores.csv"))
