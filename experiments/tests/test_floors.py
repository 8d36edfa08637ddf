"""experiments/fill-throughput and experiments/regressor-fit-time's floor section: every figure
recomputed from the benchmark output kept beside them."""

import re
import statistics
from pathlib import Path

EXP = Path(__file__).resolve().parents[1]


def _text(path: Path) -> str:
    return " ".join(path.read_text().split())


def _fill_runs() -> tuple[list[int], list[tuple[float, float, int, int]], str]:
    out = (EXP / "fill-throughput" / "benchmark-floor.txt").read_text()
    rates = [int(v) for v in re.findall(r"^fill_many \(batch 256\)\s+(\d+)", out, re.M)]
    floors = [
        (float(a), float(b), int(c), int(d))
        for a, b, c, d in re.findall(
            r"take ([\d.]+) CPU ms a record .*preparing ([\d.]+): on 2 cores with no other cost at most (\d+) records/s, (\d+) if", out
        )
    ]
    return rates, floors, out


def _cell(values) -> str:
    fmt = (lambda v: f"{v:,}") if isinstance(values[0], int) else (lambda v: f"{v:.3f}")  # noqa: E731
    return f"{fmt(statistics.median(values))} [{fmt(min(values))}–{fmt(max(values))}]"


def test_the_fill_floor():
    rates, floors, out = _fill_runs()
    text = _text(EXP / "fill-throughput" / "README.md")
    assert len(rates) == len(floors) == 7 and "seven runs" in text
    ops, prep, floor, free = (list(col) for col in zip(*floors))
    median, spread = _cell(rates).split(" ", 1)
    assert f"| `fill_many` (batch 256), as a user calls it | **{median}** {spread} | |" in text
    assert f"| torch's operations alone, one thread | | {_cell(ops)} |" in text
    assert f"| preparing a record (parse and encode), one thread | | {_cell(prep)} |" in text
    assert f"| the floor: both, on 2 cores with no other cost | {_cell(floor)} | |" in text
    assert f"| the floor if preparing were free | {_cell(free)} | |" in text
    shares = [round(100 * r / f) for r, f in zip(rates, floor)]
    assert f"`fill_many` runs at {min(shares)}–{max(shares)} % of its floor" in text
    assert max(floor) < 4000 and max(rates) < 4000 and f"(at most {max(floor):,})" in text and f"(at most {max(rates):,})" in text
    above = sorted(f for f in free if f > 4000)
    assert f"in {len(above)} runs of 7 ({', '.join(f'{f:,}' for f in above)})" in text
    tops = re.findall(r"\(_scaled_dot_product_flash_attention_for_cpu (\d+)%, mm (\d+)%, gelu (\d+)%\)", out)
    att, mm, gelu = (sorted({int(t[i]) for t in tops}) for i in range(3))
    assert f"attention takes {att[0]}–{att[-1]} %, the matrix products {mm[0]}–{mm[-1]} % and GELU {gelu[0]}–{gelu[-1]} %" in text


def test_the_regressor_floor():
    out = (EXP / "regressor-fit-time" / "benchmark-floor.txt").read_text()
    text = _text(EXP / "regressor-fit-time" / "README.md")
    cpu = re.findall(r"1000x10 scinum.Regressor\s+([\d.]+)\s+[\d.]+\s+([\d.]+)", out)
    trees = re.findall(r"1000x10 boosted trees\s+([\d.]+)", out)
    floors = re.findall(r"take ([\d.]+) CPU ms on one thread; the 1000x10 fit's (\d+) steps \(all members\) need at least ([\d.]+) s", out)
    assert len(cpu) == len(trees) == len(floors) == 3 and {mse for _, mse in cpu} == {"0.2266"}
    for step_ms, steps, floor in floors:
        assert f"{float(step_ms) * int(steps) / 1000:.1f}" == floor and int(steps) == 1902 and float(floor) > 10
    assert f"| `scinum.Regressor(seed=0).fit`, the defaults | {' | '.join(c for c, _ in cpu)} |" in text
    cells = [f"**{floors[0][2]}** ({floors[0][0]} ms a step)"] + [f"**{f}** ({ms} ms)" for ms, _, f in floors[1:]]
    assert f"| its long operations alone, 1,902 steps | {' | '.join(cells)} |" in text
    assert f"| boosted trees | {' | '.join(trees)} |" in text
    low, high = min(float(f) for *_, f in floors), max(float(f) for *_, f in floors)
    assert f"would take {low}–{high} s" in text


def test_the_fill_work_done_against_the_peak():
    """fill-throughput's section on the work a record needs: each run's rate, peak, share and
    ceiling from work-done.txt, and the spans the bullets quote, recomputed."""
    out = (EXP / "fill-throughput" / "work-done.txt").read_text()
    text = _text(EXP / "fill-throughput" / "README.md")
    runs = out.split("## run ")[1:]
    assert len(runs) == 3
    peaks, rates, per_thread = [], [], []
    for i, run in enumerate(runs, 1):
        rate = int(re.search(r"^fill_many \(batch 256\)\s+(\d+)", run, re.M)[1])
        peak = float(re.search(r"fp32 GEMM peak ([\d.]+) GFLOP/s", run)[1])
        work, share, ceiling = re.search(
            r"work done: ([\d.]+) MFLOP a record .*?, ([\d.]+)% of that peak; at the peak itself at most (\d+)", run
        ).groups()
        ops = float(re.search(r"take ([\d.]+) CPU ms a record", run)[1])
        assert work == "21.8" and abs(int(ceiling) / (peak * 1e3 / 21.8) - 1) < 0.01
        assert f"| {i} | {rate:,} | {peak} | {share} % | {int(ceiling):,} | {ops:.3f} |" in text, i
        peaks.append(peak), rates.append(rate), per_thread.append((21.8 / ops, peak / 2))
    need = sorted(4000 * 21.8e-3 / p for p in peaks)
    assert f"4,000 needs {100 * need[0]:.0f}–{100 * need[-1]:.0f} % of that peak" in text
    speeds = sorted(g for g, _ in per_thread)
    assert f"at {speeds[0]:.0f}–{speeds[-1]:.0f} GFLOP/s a thread" in text
    of_half = sorted(g / h for g, h in per_thread)
    assert f"{100 * of_half[0]:.0f}–{100 * of_half[-1]:.0f} % of half the run's two-thread peak" in text
    assert max(rates) < 4000 and f"**The target of 4,000 records/s is not met** ({min(rates):,}–{max(rates):,})" in text
    index = _text(EXP / "README.md")
    ceilings = sorted(peak * 1e3 / 21.8 for peak in peaks)
    assert f"allows {round(ceilings[0], -2):,.0f}–{round(ceilings[-1], -2):,.0f} records/s".replace(",", " ") in index
    assert f"({min(rates):,}–{max(rates):,}".replace(",", " ") + " records/s, three runs)" in index
