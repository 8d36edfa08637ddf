"""Copy a recipe's results into the docs, with the provenance that produced them.

    python -m recipes.publish results/planets experiments/planets-quick

Writes ``DOCS/table.md`` (the results table under a header naming the commit, machine, preset and
run time from ``meta.json``), ``DOCS/table.csv`` and ``DOCS/meta.json``, and copies the plots
named by ``--plots`` (default: the OOD plots). Refuses results made from uncommitted changes
(``dirty``), so a published number always comes from committed code. ``DOCS/meta.json`` lists
the files publish wrote (``published_files``): publish replaces those, and refuses to replace
any other file of DOCS (yours).

Comparison results (``recipes/compare.py``: their ``meta.json`` names the ``command`` with its
``--seeds``) also bring ``seeds.csv``, ``paired.csv`` and ``predictions.csv.gz`` (every model's
per-seed predictions: model, seed, split, field, record, truth, prediction, unparsed — what a
reader recomputes any figure from), and their plots default to ``compare_*.png``. A comparison
under several budgets (``meta.json`` ``per_budget``) brings its side-by-side table with
``budgets_*.png`` and each budget's own report in ``DOCS/<budget>/``.
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import sys
from pathlib import Path

from scinum.util.atomic import atomic_files, write_text_atomic
from scinum.errors import RecipeError


def publish(results: Path, docs: Path, plots: list[str] | None = None) -> Path:
    """Write ``docs`` from the recipe results in ``results`` (module docstring). Everything is
    checked and written into a staging directory inside ``docs`` first, then each file renamed
    into place (:func:`scinum.atomic.atomic_files`): a missing or bad input raises
    :class:`RecipeError` and leaves ``docs`` as it was, and the files of ``docs`` that publish
    does not write (other pages) are never touched. ``docs`` the results directory is refused.
    A file of ``docs`` that publish would write but that an earlier publish did not (the
    published ``meta.json`` lists what publish wrote, ``published_files``): a user's own
    ``table.md``, ``meta.json`` or plot of the same name is refused in one line naming it."""
    meta = _read_meta(results)
    if docs.resolve() == results.resolve():
        raise RecipeError(
            f"{docs}: is the results directory (its table.md and meta.json would be overwritten); publish into a docs directory of its own"
        )
    comparison = "command" in meta  # a multi-seed comparison (recipes/compare.py)
    budgets = meta.get("per_budget") or {}  # ... under several budgets: name -> subdirectory
    default = "budgets_*.png" if budgets else "compare_*.png" if comparison else "ood_*.png"
    names = plots if plots is not None else [p.name for p in (results / "plots").glob(default)]
    extras = ("seeds.csv",) if budgets else ("seeds.csv", "paired.csv", "predictions.csv.gz") if comparison else ()
    sources = {
        "table.md": results / "table.md",
        "table.csv": results / "table.csv",
        **{extra: results / extra for extra in extras},
        **{name: results / "plots" / name for name in names},
    }
    for name in sources:
        if Path(name).name != name or name.startswith("."):
            raise RecipeError(f"--plots {name!r}: a plot file name, not a path")
    for slug in budgets.values():  # each budget's own report, as written
        sub = results / slug
        for name in ("table.md", "table.csv", "seeds.csv", "paired.csv", "predictions.csv.gz", "meta.json"):
            sources[f"{slug}/{name}"] = sub / name
        for png in sorted((sub / "plots").glob("compare_*.png")):
            sources[f"{slug}/{png.name}"] = png
    for name, src in sources.items():
        if not src.is_file():
            raise RecipeError(f"{src}: missing (run the recipe to the end, or check --plots)")
    minutes, seconds = divmod(round(meta["elapsed_s"]), 60)
    preset = f" --preset {meta['preset_name']}" if meta.get("preset_name") else ""  # co2 has none
    command = meta.get("command") or f"python recipes/{meta['recipe']}.py{preset}"
    source = f"results/{meta['recipe']}" + (f"-{meta.get('preset_name')}" if comparison else "")
    spent = (
        f"{meta['core_seconds'] / 60:.0f} core-minutes of training and evaluation (the runs' own clocks)"
        if comparison and meta.get("core_seconds")
        else f"{minutes} min {seconds} s for build, training and evaluation"
    )
    header = (
        f"Results of `{command}` at commit `{meta['commit'][:10]}`, {meta['machine']}: "
        f"{spent} (finished "
        f"{meta['finished']}). Regenerate: that command in a clean checkout, then "
        f"`python -m recipes.publish {source} {_in_checkout(docs)}`.\n\n"
    )
    written = ["meta.json", *sources]
    owned = _owned(docs, written)
    for name in written:
        if (docs / name).exists() and name not in owned:
            raise RecipeError(
                f"{docs / name}: exists and was not written by recipes.publish (not listed in {docs / 'meta.json'} "
                "'published_files'); move it away, or publish into another directory"
            )
    # what publish wrote here, now and before: the files a later publish may replace
    mine = sorted(set(written) | {name for name in owned if (docs / name).exists()})
    with atomic_files(docs) as tmp:
        write_text_atomic(tmp / "table.md", header + sources.pop("table.md").read_text())
        write_text_atomic(tmp / "meta.json", json.dumps({**meta, PUBLISHED: mine}, indent=1))
        for name, src in sources.items():
            (tmp / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, tmp / name)
    return docs


#: the entry of a published meta.json listing the files publish wrote into that directory
PUBLISHED = "published_files"


def _owned(docs: Path, written: list[str]) -> set[str]:
    """The files of ``docs`` that an earlier publish wrote (its ``meta.json``'s
    :data:`PUBLISHED`); a directory published before that list existed (its ``meta.json`` a
    publish's, without the list): the files this publish writes. Any other file of ``docs`` is
    someone else's: publish never replaces it."""
    try:
        meta = json.loads((docs / "meta.json").read_text())
    except (OSError, ValueError):
        return set()
    if not isinstance(meta, dict):
        return set()
    listed = meta.get(PUBLISHED)
    if isinstance(listed, list):
        return {name for name in listed if isinstance(name, str)}
    legacy = all(isinstance(meta.get(k), kind) and not isinstance(meta.get(k), bool) for k, kind in _META_KEYS.items())
    return set(written) if legacy and "dirty" in meta else set()


#: the entries of meta.json that the published header reads
_META_KEYS = {"commit": str, "recipe": str, "machine": str, "finished": str, "elapsed_s": (int, float)}


def _read_meta(results: Path) -> dict:
    path = results / "meta.json"
    try:
        meta = json.loads(path.read_text())
    except FileNotFoundError:
        raise RecipeError(f"{path}: missing: not a finished recipe's results directory") from None
    except (OSError, ValueError) as e:
        raise RecipeError(f"{path}: unreadable ({type(e).__name__}: {str(e)[:200]})") from None
    if not isinstance(meta, dict):
        raise RecipeError(f"{path}: not a JSON object")
    if meta.get("dirty") or not meta.get("commit"):
        raise RecipeError(f"{results}: made from uncommitted changes (or outside git); commit, re-run the recipe, then publish")
    for key, kind in _META_KEYS.items():
        value = meta.get(key)
        if not isinstance(value, kind) or isinstance(value, bool) or (isinstance(value, float) and not math.isfinite(value)):
            what = "missing" if key not in meta else f"{str(meta[key])[:80]!r}, not a {key} value"
            raise RecipeError(f"{path}: entry {key!r} is {what}")
    return meta


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
    except OSError as e:  # a docs path that cannot be written: one line
        print(f"recipes.publish: error: {e.filename or a.docs}: {e.strerror or e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
