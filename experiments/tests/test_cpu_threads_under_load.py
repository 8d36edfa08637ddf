"""experiments/cpu-threads-under-load/README.md: its table is results.txt's figures, and the product
does what the README says was adopted."""

import re
from pathlib import Path

from scinum.regressor_params import DEFAULTS
from scinum.util.threads import SPIN_COUNT

HERE = Path(__file__).resolve().parents[1] / "cpu-threads-under-load"
TEXT = " ".join((HERE / "README.md").read_text().split())


def sections() -> dict[str, list[str]]:
    """results.txt's ``## `` sections: heading -> its lines."""
    out: dict[str, list[str]] = {}
    for line in (HERE / "results.txt").read_text().splitlines():
        if line.startswith("## "):
            out[line[3:]] = out.get(line[3:], [])
            current = line[3:]
        elif not line.startswith("#") and line.strip():
            out[current].append(line)
    return out


def quiet(name: str) -> tuple[float, float, float, float, float]:
    """(A wall, B wall, A/B wall, A cpu, B cpu) medians of a quiet farm-bench pair."""
    (head,) = [h for h in sections() if h.startswith(f"quiet, {name}")]
    med = {" ".join(line.split()[:-3]): float(line.split()[-2]) for line in sections()[head]}
    return med["A wall s"], med["B wall s"], med["A/B wall"], med["A cpu s"], med["B cpu s"]


def busy(heading: str) -> dict[str, float]:
    """label -> wall seconds of a busy or side-by-side section."""
    (head,) = [h for h in sections() if h.startswith(heading)]
    return {re.split(r"\s{2,}", line.strip())[0]: float(line.split()[-2]) for line in sections()[head]}


def test_the_idle_rows_are_the_paired_medians():
    for name, cell in (("toy", "{:.2f} / {:.2f} ({:.2f}×)"), ("planets", "{:.2f} / {:.2f} ({:.2f}×)")):
        a, b, ratio, _, _ = quiet(name)
        assert cell.format(a, b, ratio) in TEXT, name
    a, b, ratio, cpu_a, cpu_b = quiet("Regressor")
    assert f"{a:.2f} / {b:.2f} ({ratio:.2f}×; CPU seconds {cpu_a:.1f} / {cpu_b:.1f})" in TEXT


def test_the_busy_and_side_by_side_rows_are_the_runs():
    for heading, row in (("busy: one", "beside 1 spinning process"), ("busy: 2", "beside 2 spinning processes")):
        runs = busy(heading)
        own = "the runtime's own spin count"
        toy = sorted(v for k, v in runs.items() if k.startswith("toy, as it is"))
        cells = [
            f"{toy[0]:.1f}–{toy[-1]:.1f} / {runs['toy, ' + own]:.1f}",
            f"{runs['planets, as it is']:.1f} / {runs['planets, ' + own]:.1f}",
            f"{runs['Regressor 640 x 4, as it is (one thread a member)']:.1f} / "
            f"{runs['Regressor 640 x 4, torch first, n_jobs=-1 (as before)']:.1f}",
        ]
        assert f"| {row}: as it is / as before | {' | '.join(cells)} |" in TEXT, row
    runs = busy("side by side")
    pair = {k.rsplit(",", 1)[0]: [] for k in runs}
    for k, v in runs.items():
        pair[k.rsplit(",", 1)[0]].append(v)
    cell = lambda key: ", ".join(f"{v:.1f}" for v in sorted(pair[key]))  # noqa: E731
    cells = [
        f"{cell('toy, default')} / {cell('toy, spin')}",
        f"{cell('planets, default')} / {cell('planets, spin')}",
        f"{cell('Regressor 640 x 4, as it is')} / {cell('Regressor 640 x 4, as before')}",
    ]
    assert f"| two of the same fit at once: as it is / as before (each) | {' | '.join(cells)} |" in TEXT


def test_what_was_adopted_is_the_product():
    assert SPIN_COUNT == 1000 and DEFAULTS["n_jobs"] is None
    assert "sets `GOMP_SPINCOUNT=1000`" in TEXT and "`n_jobs=None`" in TEXT
