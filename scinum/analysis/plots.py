"""``scinum plot RESULTS_DIR``: every applicable plot of an evaluation results directory, xVal
paper style (PNG, Agg backend, deterministic, one colour per model across all plots).

The directory's files: :mod:`.results`. The plot kinds, one module each:

* :func:`plot_ood` (:mod:`.ood`) — predicted vs true on an OOD split with the training values
  (Fig. 5 of seed 002);
* :func:`plot_histograms` and its 2-d form, predicted vs true per model (:mod:`.histograms`) —
  prediction histograms per model vs the true values (Fig. 7);
* :func:`plot_gmm_density` (:mod:`.density`) — one predictive density of a head that declares one;
* :func:`plot_scatter` (:mod:`.scatter`) — predicted vs true per model with R² (ERA5, §3.2);
* training curves (:mod:`.curves`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .curves import plot_curves
from .density import densities, plot_gmm_density
from .drawing import MANY_VALUES, slug
from .histograms import plot_histograms, plot_joint_histograms
from .ood import ood_pairs, plot_ood
from .results import Results, load_results
from .scatter import plot_scatter

__all__ = ["make_all", "add_arguments", "run"]


def make_all(results_dir: str | Path) -> list[Path]:
    """Write every applicable plot into ``results_dir/plots/``; returns the paths written.

    * ``ood_<split>__<field>.png`` per (split, field) of :func:`~.ood.ood_pairs`;
    * ``hist_<split>__<field>.png`` per field, on ``test`` (else the first split by name), and
      ``fig7_<split>__<field>.png`` (:func:`plot_joint_histograms`) where it has
      ≥ :data:`~.drawing.MANY_VALUES` distinct true values;
    * ``gmm_<model>_<split>__<field>.png`` per model whose head declares a density (the mixture
      head) and field, on that split;
    * ``scatter_<split>__<field>.png`` per (split, field) with ≥ :data:`~.drawing.MANY_VALUES`
      distinct true values (continuous fields: a line per true value would say nothing);
    * ``curves_<model>.png`` per training log in ``results_dir/logs/`` (:mod:`.curves`).

    Rows of the standard references (``kind``, :mod:`.baselines`): the regressors are drawn as
    models labelled ``<name> [regressor]``; references and oracles are in the tables only.
    """
    res = load_results(results_dir)
    outdir = Path(results_dir) / "plots"
    p = res.preds[res.preds["true"].notna()]
    if "kind" in p:  # standard references: the regressors drawn, labelled; the others in tables
        kind = p["kind"].fillna("model")
        p = p[kind.isin(["model", "regressor"])].copy()
        p["model"] = p["model"].where(kind[p.index] == "model", p["model"] + " [regressor]")
    res = Results(p, res.train_values, res.meta)
    written = [plot_ood(res, f, s, outdir / f"ood_{slug(s)}__{slug(f)}.png") for s, f in ood_pairs(res)]
    splits = sorted(p["split"].unique())
    if splits:
        ref = "test" if "test" in splits else splits[0]
        rows = p[p["split"] == ref]
        for f in sorted(rows["field"].unique()):
            name = f"{slug(ref)}__{slug(f)}.png"
            written.append(plot_histograms(res, f, ref, outdir / f"hist_{name}"))
            if rows.loc[rows["field"] == f, "true"].nunique() >= MANY_VALUES:  # Fig. 7 view
                written.append(plot_joint_histograms(res, f, ref, outdir / f"fig7_{name}"))
        for m, column in sorted(densities(res).items()):
            mix = rows[(rows["model"] == m) & rows[column].notna()]
            for f in sorted(mix["field"].unique()):
                name = f"gmm_{slug(m)}_{slug(ref)}__{slug(f)}.png"
                written.append(plot_gmm_density(res, m, f, ref, outdir / name, column))
    for log in sorted((Path(results_dir) / "logs").glob("*.csv")):  # copied by the recipes
        written.append(plot_curves(log, outdir / f"curves_{slug(log.stem)}.png", title=log.stem))
    for (s, f), g in sorted(p.groupby(["split", "field"]), key=lambda kv: kv[0]):
        if g["true"].nunique() >= MANY_VALUES:
            written.append(plot_scatter(res, f, s, outdir / f"scatter_{slug(s)}__{slug(f)}.png"))
    return written


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("results_dir", type=Path, help="directory written by `scinum evaluate` (predictions.csv, ...)")


def run(args: argparse.Namespace) -> int:
    written = make_all(args.results_dir)
    if not written:
        print(f"scinum plot: nothing to plot in {args.results_dir}", file=sys.stderr)
    for path in written:
        print(path)
    return 0
