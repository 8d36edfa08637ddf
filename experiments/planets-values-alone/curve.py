"""Issue 64's learning-per-CPU-minute curve of the planets `best` model: e₁ R², a₁, Δt and Δt
between the training step sizes (test split) against one-core minutes of training, the trunk
reading every token (before) and the values alone (after), every point from published runs.

Before: planets-best-half (230 400 samples), planets-4heads (460 800, the cap, and its curve at
921 600 and 1 382 400, seeds 0-1). After: this folder's half/ (230 400), time/ (368 640) and cap/
(737 280); since the last block computes at the hidden rows alone: planets-half-time (506 880, 614 400 and, seeds 0-1, 1 198 080),
and at 506 880 its step 6 (the learning rate decayed to a hundredth of its peak, not a tenth),
step 7 (that, and a₁ asked as often as e₁), step 8 (a₁ asked in a quarter or 35 % of the
records, e₁ in half) and step 9 (step 6 with a₁ on a least-squares line). Those steps' fits
recorded a₁'s atom, so their a₁ is filled with the move onto 1.0 (experiments/planets-atoms);
every other point's without it.
Minutes are each run's own training clock (two runs at a time on the 2 cores).

    python experiments/planets-values-alone/curve.py [--plot curve.png]
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path
from statistics import mean

HERE = Path(__file__).resolve().parent
EXPERIMENTS = HERE.parent
#: (column, field, split, metric)
COLUMNS = (
    ("e₁ R²", "description.planet0.e", "test", "r2"),
    ("a₁", "description.planet0.a", "test", "mse"),
    ("Δt", "description.stepsize", "test", "mse"),
    ("Δt OoD", "description.stepsize", "ood_stepsize", "mse"),
)
Scores = dict[tuple[str, str, str], float]
#: the trunks, in the order the table lists them
ORDER = (
    "every token",
    "values alone",
    "values alone, hidden rows",
    "the same, LR to a hundredth",
    "the same, LR to a hundredth, a₁ asked",
    "the same, a₁ asked at 0.25",
    "the same, a₁ asked at 0.35",
    "LR to a hundredth, a₁ on a line",
)


@dataclass(frozen=True)
class Point:
    """One budget of one model: its seeds' scores and training seconds, in seed order."""

    model: str  # "every token" or "values alone"
    samples: int
    seeds: tuple[int, ...]
    scores: tuple[Scores, ...]
    seconds: tuple[float, ...]
    source: str  # the folder, relative to experiments/

    def mean(self, field: str, split: str, metric: str) -> float:
        return mean(s[(field, split, metric)] for s in self.scores)

    @property
    def minutes(self) -> float:
        return mean(self.seconds) / 60


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _seeds_csv(folder: Path, model: str) -> dict[int, Scores]:
    """seed -> scores of ``model`` in a published recipe folder's seeds.csv."""
    out: dict[int, Scores] = {}
    with open(folder / "seeds.csv") as f:
        for r in csv.DictReader(f):
            if r["model"] == model and r["kind"] == "model":
                for m in ("mse", "r2"):
                    out.setdefault(int(r["seed"]), {})[(r["field"], r["split"], m)] = float(r[m])
    return out


def _published(folder: Path, model: str, label: str) -> Point:
    """A recipe run published with ``recipes.publish``: seeds.csv and the seeds' training clocks
    (training.csv, or one training-seedN.json each)."""
    scores = _seeds_csv(folder, model)
    if (folder / "training.csv").exists():
        with open(folder / "training.csv") as f:
            rows = {int(r["seed"]): r for r in csv.DictReader(f) if r["model"] == model}
        seconds = {s: float(r["train_seconds"]) for s, r in rows.items()}
        samples = {int(r["samples"]) for r in rows.values()}
    else:
        runs = {s: json.loads((folder / f"training-seed{s}.json").read_text()) for s in scores}
        seconds = {s: r["train_seconds"] for s, r in runs.items()}
        samples = {r["budget"]["samples"] for r in runs.values()}
    assert scores.keys() == seconds.keys() and len(samples) == 1, folder
    seeds = tuple(sorted(scores))
    return Point(
        label,
        samples.pop(),
        seeds,
        tuple(scores[s] for s in seeds),
        tuple(seconds[s] for s in seeds),
        folder.relative_to(EXPERIMENTS).as_posix(),
    )


def before() -> list[Point]:
    """The trunk reading every token: the `best` preset as it was (planets-4heads' model)."""
    curve = _load("four_heads_curve", EXPERIMENTS / "planets-4heads" / "curve" / "curve.py")
    points = [_published(EXPERIMENTS / "planets-best-half", "xval+gmm", "every token")]
    for samples, seeds in ((460800, (0, 1, 2, 3, 4)), (921600, (0, 1)), (1382400, (0, 1))):
        runs = [curve.run_dir(samples, s) for s in seeds]
        scores = tuple({(f, sp, m): v for (f, sp, sub, m), v in curve.table_scores(r).items() if sub == "all"} for r in runs)
        source = "planets-4heads" if samples == 460800 else f"planets-4heads/curve/samples{samples}"
        points.append(Point("every token", samples, seeds, scores, tuple(curve.training_seconds(r) for r in runs), source))
    return points


def after() -> list[Point]:
    """The trunk reading the values alone (this folder's steps 1, 2 and the cap)."""
    return [_published(HERE / step, "xval+gmm, values alone", "values alone") for step in ("half", "time", "cap")]


def since() -> list[Point]:
    """The values alone with the training step's last block at the hidden rows alone
    (experiments/hidden-rows): planets-half-time's runs, at half the old preset's one-core time
    (506 880 samples), its step 3 (614 400) and step 4 (1 198 080, seeds 0-1: the cap's 30 minutes today)."""
    steps = ("results", "614k", "full-cap")
    return [_published(EXPERIMENTS / "planets-half-time" / step, "xval+gmm", "values alone, hidden rows") for step in steps]


def schedule() -> list[Point]:
    """planets-half-time's steps 6 to 9 at 506 880 samples: the learning rate decayed to a
    hundredth of its peak, then that with a₁ asked as often as e₁, then a₁ asked at 0.25 and 0.35
    (e₁ at 0.5), then step 6 with a₁ on a least-squares line."""
    half_time = EXPERIMENTS / "planets-half-time"
    return [
        _published(half_time / "anneal", "xval+gmm", ORDER[3]),
        _published(half_time / "anneal-a1", "xval+gmm, a1 asked", ORDER[4]),
        _published(half_time / "anneal-a1-25", "xval+gmm, a1 at 0.25", ORDER[5]),
        _published(half_time / "anneal-a1-35", "xval+gmm, a1 at 0.35", ORDER[6]),
        _published(half_time / "anneal-a1-line", "xval+gmm, a1 on a line", ORDER[7]),
    ]


def regressor(name: str) -> Scores:
    """The standard regressor ``name`` fitted on the same 4,000 training orbits (cap/table.csv)."""
    with open(HERE / "cap" / "table.csv") as f:
        return {(r["field"], r["split"], r["metric"]): float(r["mean"]) for r in csv.DictReader(f) if r["model"] == name}


def rows() -> list[list[str]]:
    """The curve as table rows: model, samples, seeds, minutes a seed (min-max), then COLUMNS."""
    out = []
    for p in sorted(before() + after() + since() + schedule(), key=lambda p: (ORDER.index(p.model), p.samples)):
        lo, hi = min(p.seconds) / 60, max(p.seconds) / 60
        cells = [p.model, f"{p.samples:,}".replace(",", " "), f"{p.seeds[0]}–{p.seeds[-1]}", f"{p.minutes:.1f} ({lo:.1f}–{hi:.1f})"]
        for _, field, split, metric in COLUMNS:
            v = p.mean(field, split, metric)
            cells.append(f"{v:.3f}" if metric == "r2" else f"{v:.2g}")
        cells.append(f"[{p.source}](../{p.source}/)")
        out.append(cells)
    return out


def markdown() -> str:
    head = ["trunk reads", "samples a seed", "seeds", "one-core minutes a seed", *(c[0] for c in COLUMNS), "source"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    return "\n".join([*lines, *("| " + " | ".join(r) + " |" for r in rows())])


def plot(path: Path) -> None:
    """Four panels, one per column: each seed a dot, the mean a line, against one-core minutes;
    ridge and boosted trees dashed, the cap of 30 minutes dotted."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(COLUMNS), figsize=(4 * len(COLUMNS), 3.4))
    series = (("every token", before(), "tab:gray"), ("values alone", after(), "tab:blue"), (ORDER[2], since(), "tab:purple"))
    series += tuple((p.model, [p], colour) for p, colour in zip(schedule(), ("tab:red", "tab:brown", "tab:pink", "tab:olive", "tab:cyan")))
    for label, points, colour in series:
        for ax, (name, field, split, metric) in zip(axes, COLUMNS):
            for p in points:
                ax.scatter([s / 60 for s in p.seconds], [s[(field, split, metric)] for s in p.scores], s=10, color=colour, alpha=0.4)
            ax.plot([p.minutes for p in points], [p.mean(field, split, metric) for p in points], "-o", color=colour, label=label)
            ax.set_title(f"{name} ({split})")
            ax.set_xlabel("one-core minutes of training a seed")
            ax.set_yscale("linear" if metric == "r2" else "log")
            ax.axvline(30, color="k", lw=0.5, ls=":")
    for name, colour in (("ridge", "tab:orange"), ("boosted trees", "tab:green")):
        ref = regressor(name)
        for ax, (_, field, split, metric) in zip(axes, COLUMNS):
            ax.axhline(ref[(field, split, metric)], color=colour, lw=1, ls="--", label=name)
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plot", type=Path, help="also draw the curve into this PNG")
    args = parser.parse_args()
    print(markdown())
    if args.plot:
        plot(args.plot)
