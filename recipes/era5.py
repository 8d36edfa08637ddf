"""ERA5 recipe (xVal paper §3.2): 2 m temperature stations -> one model per encoding -> ID vs OOD.

    python recipes/era5.py --preset quick     # CPU, synthetic ERA5-schema field; --source PATH for real ERA5
    python recipes/era5.py --preset paper     # the paper's sizes, GPU

Presets live in recipes/era5.yaml; results in results/era5/ (table.md, plots/).
"""

import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `recipes` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from recipes.runner import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main("era5"))
