"""The clauses of the README, read from this folder's published files.

    python experiments/planets-half-time/verdict.py

* ``results/``: the ``half-time`` runs (``recipes.publish``: ``seeds.csv``, ``meta.json``);
* ``reference/``: e5afef6's ``best`` beside them (``training.csv``, ``seedN/table.csv``);
* ``clock.csv``: each run's training interval (``model, seed, start, end``: UTC seconds), from its
  ``training.json``'s time of writing less its training seconds.

Prints the time clause (the half-time seeds that trained wholly while a reference run trained,
their mean training seconds against half the reference runs'), the quality clause (the mean over
seeds 0-4 of e₁ R², a₁ and Δt on the test split against the cap's result) and both models' rows.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from statistics import mean

HERE = Path(__file__).resolve().parent
EXPERIMENTS = HERE.parent
#: the cap's result (README): (field, metric, bound, "≥" or "≤")
TARGETS = (
    ("description.planet0.e", "r2", 0.95, "≥"),
    ("description.planet0.a", "mse", 0.00091, "≤"),
    ("description.stepsize", "mse", 2.7e-05, "≤"),
)
NAMES = {"description.planet0.e": "e₁ R²", "description.planet0.a": "a₁", "description.stepsize": "Δt"}


def clock(name: str = "clock.csv") -> dict[tuple[str, int], tuple[float, float]]:
    with open(HERE / name) as f:
        return {(r["model"], int(r["seed"])): (float(r["start"]), float(r["end"])) for r in csv.DictReader(f)}


def beside(run: tuple[float, float], reference: list[tuple[float, float]], gap: float = 60.0) -> bool:
    """Whether ``run`` lies wholly within the reference runs' intervals, those at most ``gap``
    seconds apart (one evaluation between two runs) taken as one."""
    merged: list[list[float]] = []
    for a, b in sorted(reference):
        if merged and a <= merged[-1][1] + gap:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    return any(a <= run[0] and run[1] <= b for a, b in merged)


def seeds_csv(path: Path, split: str = "test") -> dict[int, dict[tuple[str, str], float]]:
    out: dict[int, dict[tuple[str, str], float]] = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            if r["kind"] == "model" and r["split"] == split:
                for m in ("mse", "r2"):
                    out.setdefault(int(r["seed"]), {})[(r["field"], m)] = float(r[m])
    return out


def reference_scores(folder: str = "reference") -> dict[int, dict[tuple[str, str], float]]:
    out = {}
    for table in sorted((HERE / folder).glob("seed*/table.csv")):
        with open(table) as f:
            rows = [r for r in csv.DictReader(f) if r["kind"] == "model" and r["split"] == "test" and r["subset"] == "all"]
        out[int(table.parent.name[4:])] = {(r["field"], m): float(r[m]) for r in rows for m in ("mse", "r2")}
    return out


def caps_result(scores: dict[int, dict[tuple[str, str], float]], label: str) -> bool:
    """Prints each clause of the cap's result (the mean over the seeds of ``scores``, each seed
    beside it) after ``label``; whether all hold."""
    held = True
    for field, metric, bound, sign in TARGETS:
        values = [scores[s][(field, metric)] for s in sorted(scores)]
        m = mean(values)
        ok = m >= bound if sign == "≥" else m <= bound
        held &= ok
        each = ", ".join(f"{v:.3g}" for v in values)
        print(f"{label} {NAMES[field]} mean {m:.3g} ({each}) {sign} {bound:g}: {'holds' if ok else 'fails'}")
    return held


def side_by_side(results: str, reference: str, clock_file: str, model: str, label: str) -> tuple[float, bool, bool]:
    """The time clause and the quality clause of runs published in ``results`` beside the reference
    runs in ``reference``, their intervals in ``clock_file`` (``model``: the runs' name there);
    prints both and each run's figures. Returns the reference runs' mean training seconds and
    whether each clause holds."""
    meta = json.loads((HERE / results / "meta.json").read_text())
    seconds = {int(k.rsplit("seed", 1)[1]): v["train_seconds"] for k, v in meta["runs"].items()}
    with open(HERE / reference / "training.csv") as f:
        ref_seconds = {int(r["seed"]): float(r["train_seconds"]) for r in csv.DictReader(f)}
    times = clock(clock_file)
    ref_runs = [v for (m, _), v in times.items() if m == "reference"]
    side = [s for s in sorted(seconds) if beside(times[(model, s)], ref_runs)]
    new, old = mean(seconds[s] for s in side), mean(ref_seconds.values())
    fast = new <= 0.5 * old
    print(
        f"{label}time: {model} seeds {side} beside the reference runs: mean {new:.1f} s of training; reference seeds "
        f"{sorted(ref_seconds)}: mean {old:.1f} s; ratio {new / old:.3f} (the clause: <= 0.5): {'holds' if fast else 'fails'}"
    )
    for s in sorted(seconds):
        print(f"  {model} seed {s}: {seconds[s]:.1f} s{' (beside)' if s in side else ''}")
    for s in sorted(ref_seconds):
        print(f"  reference seed {s}: {ref_seconds[s]:.1f} s")
    held = caps_result(seeds_csv(HERE / results / "seeds.csv"), f"{label}quality:")
    ref = reference_scores(reference)
    for s in sorted(ref):
        cells = ", ".join(f"{NAMES[f]} {ref[s][(f, m)]:.3g}" for f, m, _, _ in TARGETS)
        print(f"  reference seed {s} (test): {cells}")
    print(f"{label}verdict: the time clause {'holds' if fast else 'fails'}, the quality clause {'holds' if held else 'fails'}")
    return old, fast, held


def main() -> None:
    old, _, _ = side_by_side("results", "reference", "clock.csv", "half-time", "")
    step2()
    step3(old)
    step4()
    step10()


def validation(path: Path) -> dict[str, float]:
    """field -> the model's mean validation MSE over its seeds (val_scores.py's file)."""
    with open(path) as f:
        rows = [r for r in csv.DictReader(f) if r["seed"] and r["metric"] == "mse"]
    return {field: mean(float(r["value"]) for r in rows if r["field"] == field) for field in NAMES}


def step2() -> None:
    """Step 2's choice (validation split; the cost clause from probe-a1.txt) and its test figures."""
    base, asked = validation(HERE / "results" / "val.csv"), validation(HERE / "a1-asked" / "val.csv")
    a, e, dt = (asked[f] / base[f] for f in ("description.planet0.a", "description.planet0.e", "description.stepsize"))
    cost = float((HERE / "probe-a1.txt").read_text().split("ratio b/a: ")[1].split()[0])
    chosen = a < 1 and e <= 1.1 and dt <= 1.1 and cost >= 0.95
    verdict = "adopted" if chosen else "not adopted"
    print(f"step 2, validation (a1 asked / half-time): a₁ {a:.3f}, e₁ {e:.3f}, Δt {dt:.3f}; cost {cost:.3f}: {verdict}")
    scores = seeds_csv(HERE / "a1-asked" / "seeds.csv")
    for field, metric, bound, sign in TARGETS:
        values = [scores[s][(field, metric)] for s in sorted(scores)]
        print(f"  a1 asked, test (reported): {NAMES[field]} mean {mean(values):.3g} ({', '.join(f'{v:.3g}' for v in values)})")


def step3(reference_seconds: float) -> None:
    """Step 3, a point of the curve: the cap's result read on the 614 400-sample runs (``614k/``),
    and their training clocks beside the reference's mean (not side by side: for the curve)."""
    meta = json.loads((HERE / "614k" / "meta.json").read_text())
    seconds = {int(k.rsplit("seed", 1)[1]): v["train_seconds"] for k, v in meta["runs"].items()}
    held = caps_result(seeds_csv(HERE / "614k" / "seeds.csv"), "step 3, 614 400 samples:")
    t = mean(seconds.values())
    print(
        f"step 3: the cap's result {'met' if held else 'not met'}; training {t:.1f} s a seed in the mean "
        f"({', '.join(f'{seconds[s]:.1f}' for s in sorted(seconds))}), {t / reference_seconds:.3f} of the reference's mean"
    )


def step4() -> None:
    """Step 4, a point of the curve: the 1 198 080-sample runs (``full-cap/``) beside the `best`
    preset's published seeds 0 and 1 (planets-values-alone's ``cap/``) and the regressors."""
    cap = EXPERIMENTS / "planets-values-alone" / "cap"
    ours, best = seeds_csv(HERE / "full-cap" / "seeds.csv"), seeds_csv(cap / "seeds.csv")
    with open(cap / "table.csv") as f:
        refs = {(r["model"], r["field"], r["split"], r["metric"]): float(r["mean"]) for r in csv.DictReader(f)}
    ood = seeds_csv(HERE / "full-cap" / "seeds.csv", "ood_stepsize")
    best_ood = seeds_csv(cap / "seeds.csv", "ood_stepsize")
    seconds = json.loads((HERE / "full-cap" / "meta.json").read_text())["runs"]
    for field, metric, _, _ in TARGETS:
        a, b = [ours[s][(field, metric)] for s in sorted(ours)], [best[s][(field, metric)] for s in sorted(ours)]
        line = f"step 4, {NAMES[field]}: seeds {sorted(ours)} mean {mean(a):.3g} ({', '.join(f'{v:.3g}' for v in a)}); "
        line += f"`best` at 737 280, the same seeds: {mean(b):.3g}"
        line += f"; ridge {refs[('ridge', field, 'test', metric)]:.3g}, trees {refs[('boosted trees', field, 'test', metric)]:.3g}"
        print(line)
    dt = "description.stepsize"
    a = [ood[s][(dt, "mse")] for s in sorted(ood)]
    b = mean(best_ood[s][(dt, "mse")] for s in sorted(ood))
    each = ", ".join(f"{v:.3g}" for v in a)
    print(f"step 4, Δt OoD: mean {mean(a):.3g} ({each}); `best` {b:.3g}; ridge {refs[('ridge', dt, 'ood_stepsize', 'mse')]:.3g}")
    clocks = ", ".join(f"{run['train_seconds']:.1f}" for run in seconds.values())
    print(f"step 4: training {clocks} s a seed")


def eval_scores(path: Path, split: str = "test") -> dict[tuple[str, str], float]:
    """(field, metric) -> a run's score on ``split`` from its ``eval.csv`` (or an evaluation's ``table.csv``)."""
    with open(path) as f:
        rows = [r for r in csv.DictReader(f) if r["kind"] == "model" and r["split"] == split and r["subset"] == "all"]
    return {(r["field"], m): float(r[m]) for r in rows for m in ("mse", "r2")}


def step10() -> None:
    """Step 10, stopped after one pair: the `half-time-614k` seed 0 (``by-value/``) beside the
    reference's seed 0 (``by-value-reference/``), their intervals in ``by-value-clock.csv``; the
    time ratio, and each run's test figures beside step 3's seed 0 (one seed: not the clause)."""
    seconds = json.loads((HERE / "by-value" / "seed0" / "training.json").read_text())["train_seconds"]
    with open(HERE / "by-value-reference" / "training.csv") as f:
        ref_seconds = [float(r["train_seconds"]) for r in csv.DictReader(f)]
    times = clock("by-value-clock.csv")
    inside = beside(times[("half-time-614k", 0)], [v for (m, _), v in times.items() if m == "reference"])
    ratio = seconds / mean(ref_seconds)
    print(
        f"step 10, time: half-time-614k seed 0 {seconds:.1f} s of training{' (wholly beside the reference)' if inside else ''}; "
        f"reference seed 0 {mean(ref_seconds):.1f} s; ratio {ratio:.3f} (the clause: <= 0.5): {'holds' if ratio <= 0.5 else 'fails'}"
    )
    ours, ref = eval_scores(HERE / "by-value" / "seed0" / "eval.csv"), eval_scores(HERE / "by-value-reference" / "seed0" / "table.csv")
    then = seeds_csv(HERE / "614k" / "seeds.csv")[0]
    for field, metric, bound, sign in TARGETS:
        print(
            f"step 10, {NAMES[field]} (test, seed 0): {ours[(field, metric)]:.3g}; step 3's seed 0 {then[(field, metric)]:.3g}; "
            f"the reference's seed 0 {ref[(field, metric)]:.3g}; the cap's bound {sign} {bound:g}"
        )


if __name__ == "__main__":
    main()
