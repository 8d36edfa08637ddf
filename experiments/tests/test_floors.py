"""experiments/fill-throughput and experiments/regressor-fit-time's floor section: every figure
recomputed from the benchmark output kept beside them."""

import re
from pathlib import Path

EXP = Path(__file__).resolve().parents[1]


def _text(path: Path) -> str:
    return " ".join(path.read_text().split())


def test_the_fill_floor():
    out = (EXP / "fill-throughput" / "benchmark-floor.txt").read_text()
    text = _text(EXP / "fill-throughput" / "README.md")
    rate, cpu = re.search(r"fill_many \(batch 256\)\s+(\d+)\s+[\d.]+\s+([\d.]+)", out).groups()
    single, single_cpu = re.search(r"fill, one record at a time \(reference\)\s+(\d+)\s+[\d.]+\s+([\d.]+)", out).groups()
    ops, prep, floor, free = re.search(
        r"take ([\d.]+) CPU ms a record .*preparing ([\d.]+): on 2 cores with no other cost at most (\d+) records/s, (\d+) if", out
    ).groups()
    assert re.search(r"fill_throughput: \d+ records/s vs reference \d+ records/s", out.splitlines()[-1])
    n = lambda v: f"{int(v):,}"  # noqa: E731
    assert f"| `fill_many` (batch 256), as a user calls it | **{n(rate)}** | {cpu} (all threads) |" in text
    assert f"| the floor: torch's operations ({ops} ms) + preparing ({prep} ms) | {n(floor)} | {float(ops) + float(prep):.3f} |" in text
    assert f"| the floor if preparing were free | {n(free)} | {ops} |" in text
    assert f"| one record at a time (reference) | {single} | {single_cpu} |" in text
    assert f"reaches {100 * int(rate) / int(floor):.0f} % of its floor: {n(rate)} of {n(floor)} records/s" in text
    assert int(free) < 4000  # the verdict: out of reach even with preparing free
    top = re.search(r"\((_scaled_dot_product_flash_attention_for_cpu) (\d+)%, mm (\d+)%, gelu (\d+)%\)", out).groups()
    assert f"attention takes {top[1]} %, the matrix products {top[2]} % and GELU {top[3]} %" in text


def test_the_regressor_floor():
    out = (EXP / "regressor-fit-time" / "benchmark-floor.txt").read_text()
    text = _text(EXP / "regressor-fit-time" / "README.md")
    cpu = re.search(r"1000x10 scinum.Regressor\s+([\d.]+)", out).group(1)
    trees = re.search(r"1000x10 boosted trees\s+([\d.]+)", out).group(1)
    step_ms, steps, floor = re.search(
        r"take ([\d.]+) CPU ms on one thread; the 1000x10 fit's (\d+) steps \(all members\) need at least ([\d.]+) s", out
    ).groups()
    assert f"{float(step_ms) * int(steps) / 1000:.1f}" == floor
    assert f"| `scinum.Regressor(seed=0).fit`, the defaults | {cpu} |" in text
    assert f"| its long operations alone: {step_ms} ms a step × {int(steps):,} steps | **{floor}** |" in text
    assert f"| boosted trees | {trees} |" in text and float(floor) > 10
