"""The import graph reads bottom-up: every import (function-level ones included) goes to the
same package or to a lower layer of :data:`LAYERS`, and no modules import each other in a
circle. Parsed with ``ast``, so nothing is imported to check it."""

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: directory -> the name its modules are imported by (pyproject's package-dir)
TOP = {"scinum": "scinum", "simulations": "scinum_simulations", "era5": "scinum_era5", "recipes": "recipes"}

#: bottom first; a module may import its own layer's modules and those of lower layers only.
#: ``scinum`` alone is the package's ``__init__`` (the public API: load, Model, registries).
LAYERS = [
    "scinum.errors",
    "scinum.util",
    "scinum.plugins",
    "scinum.records",
    "scinum.tokens",
    "scinum.datasets",
    "scinum.heads",
    "scinum.encodings",
    "scinum.model",
    "scinum.fill",
    "scinum.train",
    "scinum.share",
    "scinum.baselines",
    "scinum.regressor_params",
    "scinum.estimator",
    "scinum",
    "scinum.analysis",
    "scinum.cli",
    "scinum_simulations",
    "scinum_era5",
    "recipes",
]


def modules() -> dict[str, Path]:
    out = {}
    for top, name in TOP.items():
        for path in sorted((ROOT / top).rglob("*.py")):
            parts = [name, *path.relative_to(ROOT / top).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = path
    return out


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The project's modules that ``name`` imports anywhere in its file."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        else:
            continue
        for t in targets:
            while t and t not in known:
                t = t.rpartition(".")[0]
            if t and t != name:
                found.add(t)
    return found


def layer(name: str) -> int:
    best = max((p for p in LAYERS if name == p or (p != "scinum" and name.startswith(p + "."))), key=len, default=None)
    assert best is not None, f"{name}: in no layer of LAYERS (declare its package there)"
    return LAYERS.index(best)


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports(name, path, known) for name, path in known.items()}


def test_no_import_runs_up_the_layers():
    upward = [
        f"{a} (layer {LAYERS[layer(a)]}) imports {b} (layer {LAYERS[layer(b)]})"
        for a, deps in graph().items()
        for b in sorted(deps)
        if layer(b) > layer(a)
    ]
    assert not upward, "\n".join(upward)


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``edges`` as a list of nodes (first == last), or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> list[str] | None:
        state[n] = 1
        stack.append(n)
        for m in sorted(edges.get(n, ())):
            if state.get(m) == 1:
                return stack[stack.index(m) :] + [m]
            if m not in state and (c := visit(m)):
                return c
        state[n] = 2
        stack.pop()
        return None

    for n in sorted(edges):
        if n not in state and (c := visit(n)):
            return c
    return None


def test_no_import_cycles():
    cycle = find_cycle(graph())
    assert cycle is None, " -> ".join(cycle)


def test_the_checks_see_what_they_check():
    """The parser resolves relative and function-level imports, and the cycle finder finds one."""
    g = graph()
    assert "scinum.errors" in g["scinum.records.paths"]
    assert "scinum.fill.model" in g["scinum"]  # imported inside scinum.load
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
    assert layer("scinum") > layer("scinum.share") and layer("scinum.cli.main") == LAYERS.index("scinum.cli")


def test_every_package_is_installed_under_the_projects_names():
    """pyproject lists scinum's packages one by one (the builders are mapped to project names):
    a new package must be listed there too, and nothing generic is."""
    setup = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "scinum").rglob("__init__.py")}
    assert set(setup["packages"]) == found | {"scinum_simulations", "scinum_era5"}
    assert setup["package-dir"] == {"scinum_simulations": "simulations", "scinum_era5": "era5"}
    assert all(p.startswith("scinum") for p in setup["packages"])
