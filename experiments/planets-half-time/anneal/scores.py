"""Steps 6 to 9's scores: e₁, a₁ and Δt of step 1's, 6's, 7's, 8's and 9's checkpoints on the
validation and test splits of build seed 0, each with a₁'s atom as a fit records it today.

Step 1's fits predate the record of a field's atom (experiments/planets-atoms), so their
checkpoints are given the atoms their fit would record now (planets-atoms' ``atoms_of``, from the
same training split), as step 5 did; steps 6 and 7's fits recorded theirs, checked here to be the same.
Each checkpoint is scored by :func:`scinum.analysis.evaluate.evaluate` on the first 200 records of
each split, as the recipe and ``val_scores.py`` score them.

    python experiments/planets-half-time/anneal/scores.py RUNS_DIR   # RUNS_DIR/half-time/, half-time-anneal/, ...
    python experiments/planets-half-time/anneal/scores.py --read     # each step's choice (validation), then the cap's result (test)

Writes ``scores.csv`` here: ``step, seed, split, field, mse, r2, atoms`` (``atoms``: ``recorded`` by
the fit or ``added`` here). A step whose run folder RUNS_DIR lacks keeps its rows of ``scores.csv``
(step 8 was scored on a machine that no longer held steps 1, 6 and 7's checkpoints).
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
    "step 8, a₁ at 0.25": ("half-time-anneal-a1-25", "xval+gmm, a1 at 0.25"),
    "step 8, a₁ at 0.35": ("half-time-anneal-a1-35", "xval+gmm, a1 at 0.35"),
    "step 9": ("half-time-anneal-a1-line", "xval+gmm, a1 on a line"),
}
STEP8 = [step for step in STEPS if step.startswith("step 8")]
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
        if not (runs / folder).is_dir():
            continue
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


def worst_ratio(frame: pd.DataFrame, step: str, split: str) -> float:
    """The largest ratio of a clause's mean over seeds to its bound (e₁ read as (1 - R²) / 0.05):
    at most 1 when every clause of the cap's result holds; step 8's tie-break."""
    rows = frame[(frame.step == step) & (frame.split == split)].groupby("field")[["mse", "r2"]].mean()
    ratios = [
        (1 - rows.loc[field, "r2"]) / (1 - bound) if sign == "≥" else rows.loc[field, metric] / bound
        for field, metric, bound, sign in VERDICT["TARGETS"]
    ]
    return max(ratios)


def step8_choice(frame: pd.DataFrame) -> str | None:
    """Step 8's rule: of its models meeting the cap's bounds on the validation split (mean over
    seeds 0-4), the one with the smaller :func:`worst_ratio` there; None if neither does."""
    eligible = {}
    for step in STEP8:
        print(f"{step}, validation split: the cap's bounds (the choice):")
        if caps_result(frame, step, "val"):
            eligible[step] = worst_ratio(frame, step, "val")
        print(f"  largest ratio to a bound: {worst_ratio(frame, step, 'val'):.3f}")
    choice = min(eligible, key=eligible.__getitem__) if eligible else None
    print(f"step 8: {choice + ' chosen' if choice else 'neither chosen'}")
    return choice


def read(frame: pd.DataFrame) -> dict[str, bool]:
    """Prints each step's choice on the validation split and the cap's result on the test split;
    step -> whether it was chosen."""
    chosen = {"step 6": step6_chosen(frame)}
    if "step 7" in set(frame.step):
        print("step 7, validation split: the cap's bounds (the choice):")
        chosen["step 7"] = caps_result(frame, "step 7", "val")
        print(f"step 7 {'chosen' if chosen['step 7'] else 'not chosen'}")
    if set(STEP8) <= set(frame.step):
        choice = step8_choice(frame)
        chosen.update({step: step == choice for step in STEP8})
    if "step 9" in set(frame.step):
        print("step 9, validation split: the cap's bounds (the choice):")
        chosen["step 9"] = caps_result(frame, "step 9", "val")
        print(f"step 9 {'chosen' if chosen['step 9'] else 'not chosen'}")
    for step in STEPS:
        if step in set(frame.step):
            state = {True: " (chosen)", False: " (reported, not chosen)"}.get(chosen.get(step), "")
            print(f"test split, {step}{state}:")
            caps_result(frame, step, "test")
    return chosen


if __name__ == "__main__":
    if sys.argv[1:] != ["--read"]:
        new = score(Path(sys.argv[1]))
        kept = pd.read_csv(HERE / "scores.csv") if (HERE / "scores.csv").exists() else new.iloc[:0]
        kept = kept[~kept.step.isin(set(new.step))]
        pd.concat([kept, new]).to_csv(HERE / "scores.csv", index=False)
    read(pd.read_csv(HERE / "scores.csv"))
