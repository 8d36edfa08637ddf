"""Planets recipe (xVal paper §3.3): REBOUND orbits -> one model per encoding -> ID vs OOD.

    python recipes/planets.py --preset quick     # CPU, about 20 minutes on 2 cores
    python recipes/planets.py --preset paper     # the paper's sizes, GPU

Presets live in recipes/planets.yaml; results in results/planets/ (table.md, plots/).
"""

import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `recipes` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from recipes.runner import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main("planets"))
