"""Copy a recipe's results into the docs, with the provenance that produced them.

    python -m recipes.publish results/planets docs/results/planets-quick

Writes ``DOCS/table.md`` (the results table under a header naming the commit, machine, preset and
run time from ``meta.json``), ``DOCS/table.csv`` and ``DOCS/meta.json``, and copies the plots
named by ``--plots`` (default: the OOD plots). Refuses results made from uncommitted changes
(``dirty``), so a published number always comes from committed code.

Comparison results (``recipes/compare.py``: their ``meta.json`` names the ``command`` with its
``--seeds``) also bring ``seeds.csv`` and ``paired.csv``, and their plots default to
``compare_*.png``.
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from scinum.atomic import write_text_atomic
from scinum.errors import RecipeError


def publish(results: Path, docs: Path, plots: list[str] | None = None) -> Path:
    """Write ``docs`` from the recipe results in ``results`` (module docstring)."""
    meta = json.loads((results / "meta.json").read_text())
    if meta.get("dirty") or not meta.get("commit"):
        raise RecipeError(f"{results}: made from uncommitted changes (or outside git); commit, "
                         "re-run the recipe, then publish")
    docs.mkdir(parents=True, exist_ok=True)
    minutes, seconds = divmod(round(meta["elapsed_s"]), 60)
    command = meta.get("command") or f"python recipes/{meta['recipe']}.py --preset {meta.get('preset_name', '?')}"
    comparison = "command" in meta
    source = f"results/{meta['recipe']}" + (f"-{meta.get('preset_name')}" if comparison else "")
    spent = (f"{meta['core_seconds'] / 60:.0f} core-minutes of training and evaluation (the runs' "
             "own clocks)" if comparison and meta.get("core_seconds")
             else f"{minutes} min {seconds} s for build, training and evaluation")
    header = (f"Results of `{command}` at commit `{meta['commit'][:10]}`, {meta['machine']}: "
              f"{spent} (finished "
              f"{meta['finished']}). Regenerate: that command in a clean checkout, then "
              f"`python -m recipes.publish {source} {_in_checkout(docs)}`.\n\n")
    write_text_atomic(docs / "table.md", header + (results / "table.md").read_text())
    shutil.copyfile(results / "table.csv", docs / "table.csv")
    write_text_atomic(docs / "meta.json", json.dumps(meta, indent=1))
    for extra in ("seeds.csv", "paired.csv") if comparison else ():
        shutil.copyfile(results / extra, docs / extra)
    default = "compare_*.png" if comparison else "ood_*.png"
    for name in plots if plots is not None else [p.name for p in (results / "plots").glob(default)]:
        shutil.copyfile(results / "plots" / name, docs / name)
    return docs


def _in_checkout(path: Path) -> Path:
    """``path`` relative to the git checkout holding it (a published header must not name this
    machine's directories); as given when it lies in none."""
    full = path.resolve()
    for root in full.parents:
        if (root / ".git").exists():
            return full.relative_to(root)
    return path


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m recipes.publish", description=__doc__.splitlines()[0])
    p.add_argument("results", type=Path)
    p.add_argument("docs", type=Path)
    p.add_argument("--plots", nargs="*", help="plot file names to copy (default: ood_*.png)")
    a = p.parse_args(argv)
    try:
        print(publish(a.results, a.docs, a.plots))
    except RecipeError as e:
        print(f"recipes.publish: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
