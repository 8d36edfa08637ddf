"""The figures README.md, docs/comparisons.md and docs/fidelity.md quote from the published runs,
recomputed from ``docs/results/**`` (issue 38): a sentence with a number nobody recomputes rots.
A claim is (document(s), quoted text, how to recompute): the quote must stand in the document
(whitespace collapsed) and the recomputed figure, formatted as the sentence writes it, in the quote.
"""

from __future__ import annotations

import json
import math
import re
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "results"
PLANETS = RESULTS / "planets-compare"
ERA5 = RESULTS / "era5-compare"
BUDGET_DIRS = {"equal samples": "equal-samples", "equal tokens": "equal-tokens", "equal runtime": "equal-runtime"}
DT, A1, E1, M1 = (f"description.{k}" for k in ("stepsize", "planet0.a", "planet0.e", "planet0.m"))
TUNED, GMM = "bittokens-tuned(16bit,binade,mean,mse30)", "xval+gmm(mse1)"
TEXT = ("p10", "p1000", "b1999", "fp15")


@cache
def doc(name: str) -> str:
    """A document's text with every run of whitespace collapsed to one space."""
    return re.sub(r"\s+", " ", (ROOT / name).read_text(encoding="utf-8"))


@cache
def csv(path: Path) -> pd.DataFrame:
    return pd.read_csv(path)


@cache
def meta(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def g(x: float, digits: int = 2) -> str:
    """``digits`` significant digits, as the report writes them (``%g``)."""
    return f"{x:.{digits}g}"


def plain(x: float) -> str:
    """Two significant digits without an exponent and with a typographic minus (the ERA5
    tables: 1.3e+02 -> 130, -16 -> −16)."""
    r = float(f"{x:.2g}")
    text = f"{r:.0f}" if abs(r) >= 10 else f"{r:g}"
    return text.replace("-", "−")


def pct(x: float, digits: int = 0) -> str:
    return f"{100 * x:.{digits}f} %"


# -- planets compare -------------------------------------------------------------------------


def p_cell(model: str, field: str, split: str, metric: str) -> pd.Series:
    t = csv(PLANETS / "table.csv")
    r = t[(t.model == model) & (t.field == field) & (t.split == split) & (t.metric == metric)]
    assert len(r) == 1, (model, field, split, metric)
    return r.iloc[0]


def p_seeds(model: str, field: str, split: str, metric: str = "mse") -> list[float]:
    s = csv(PLANETS / "seeds.csv")
    r = s[(s.model == model) & (s.field == field) & (s.split == split)].sort_values("seed")
    return r[metric].tolist()


def p_paired(model: str, column: str, path: Path = PLANETS / "paired.csv") -> pd.Series:
    p = csv(path)
    r = p[(p.model == model) & (p.column == column)] if column else p[p.model == model]
    assert len(r) == 1, (model, column)
    return r.iloc[0]


def ratio(model: str, column: str, digits: int = 2, path: Path = PLANETS / "paired.csv") -> str:
    return g(p_paired(model, column, path)["ratio"], digits)


def ratio_ci(model: str, column: str, path: Path = PLANETS / "paired.csv") -> str:
    r = p_paired(model, column, path)
    return f"{g(r['ratio'])}× [{g(r['ratio_low'])}, {g(r['ratio_high'])}]"


def span(values, fmt) -> str:
    return f"{fmt(min(values))}–{fmt(max(values))}"


def train_s(model: str, seed: int, path: Path = PLANETS / "meta.json") -> float:
    return meta(path)["runs"][f"{model}/seed{seed}"]["train_seconds"]


def time_ratios(model: str) -> list[float]:
    return [train_s(model, s) / train_s("xval", s) for s in range(3)]


def token_ratio(model: str) -> float:
    runs = meta(PLANETS / "meta.json")["runs"]
    return sum(runs[f"{model}/seed{s}"]["tokens"] for s in range(3)) / sum(runs[f"xval/seed{s}"]["tokens"] for s in range(3))


def ood_a1_constant() -> tuple[float, float]:
    """The split's variance and the constant's offset from its mean, from P1000's MSE and R²."""
    mse = p_seeds("p1000", A1, "ood_a1")[0]
    r2 = p_seeds("p1000", A1, "ood_a1", "r2")[0]
    var = mse / (1 - r2)
    return var, math.sqrt(mse - var)


def bittokens_a1() -> tuple[float, float]:
    """Bounds on the largest |error| of paper-form BitTokens' a₁ predictions (seed 1, test):
    at least √MSE, at most √(n·MSE)."""
    s = csv(PLANETS / "seeds.csv")
    r = s[(s.model == "bittokens") & (s.field == A1) & (s.split == "test") & (s.seed == 1)].iloc[0]
    return math.sqrt(r.mse), math.sqrt(r.n * r.mse)


def cov(field: str, split: str, level: int) -> float:
    return p_cell(GMM, field, split, f"coverage{level}")["mean"]


# -- ERA5 compare ----------------------------------------------------------------------------


def e_cell(budget: str, model: str, metric: str = "mse_K2") -> pd.Series:
    t = csv(ERA5 / "table.csv")
    r = t[(t.budget == budget) & (t.model == model) & (t.metric == metric)]
    assert len(r) == 1, (budget, model, metric)
    return r.iloc[0]


def e_ratio(budget: str, model: str, digits: int = 2) -> str:
    return ratio(model, "", digits, ERA5 / BUDGET_DIRS[budget] / "paired.csv")


def e_runs(budget: str) -> dict:
    return meta(ERA5 / BUDGET_DIRS[budget] / "meta.json")["runs"]


def e_steps(budget: str, model: str) -> list[int]:
    return [e_runs(budget)[f"{model}/seed{s}"]["steps"] for s in range(3)]


def e_mean_train_s(budget: str, model: str) -> float:
    return sum(e_runs(budget)[f"{model}/seed{s}"]["train_seconds"] for s in range(3)) / 3


def quick(model: str, field: str, split: str, metric: str, subset: str = "all") -> float:
    q = csv(RESULTS / "planets-quick" / "table.csv")
    r = q[(q.model == model) & (q.field == field) & (q.split == split) & (q.subset == subset)]
    return r.iloc[0][metric]


def thousands(x: float) -> str:
    return f"{x:,.0f}".replace(",", " ")


def e1_row(budget: str, model: str) -> str:
    """``| training s | e₁ test MSE | e₁ test R² |`` of one e₁-curve run, as comparisons.md writes it."""
    t = csv(RESULTS / "planets-e1-curve" / "table.csv")
    r = t[(t.budget == budget) & (t.model == model) & (t.field == E1) & (t.split == "test")].set_index("metric")
    runs = meta(RESULTS / "planets-e1-curve" / budget.replace(" ", "-") / "meta.json")["runs"]
    r2 = f"{r.loc['r2', 'mean']:.3f}".replace("-", "−")
    return f"| {thousands(runs[f'{model}/seed0']['train_seconds'])} | {r.loc['mse', 'mean']:.2f} | {r2} |"


R, C, F = "README.md", "docs/comparisons.md", "docs/fidelity.md"

CLAIMS = [
    # planets compare: paired ratios
    ((R, C), "36–54×", lambda: span([p_paired(m, "a₁")["ratio"] for m in ("p10", "p1000", "b1999")], lambda x: f"{x:.0f}")),
    (
        R,
        "FoNE 16× and tuned BitTokens 8×",
        lambda: f"FoNE {ratio('fone', 'a₁', 2)}× and tuned BitTokens {p_paired(TUNED, 'a₁')['ratio']:.0f}×",
    ),
    ((R, C), "1.9–2.5×", lambda: span([p_paired(m, "e₁")["ratio"] for m in ("p10", "p1000", "b1999", "fone")], lambda x: f"{x:.1f}")),
    (R, "(FP15's 1.6× [0.75, 3.4] is not significant)", lambda: ratio_ci("fp15", "e₁")),
    (R, "(FP15 out of distribution, 2.7×)", lambda: ratio("fp15", "Δt (OoD)")),
    ((R, C), "Δt test 0.25× [0.024, 2.6]", lambda: ratio_ci(GMM, "Δt")),
    (
        C,
        "P10 (3.4×), P1000 (3.6×), FP15 (2.7×), FoNE (2.1×) and paper-form BitTokens (19×)",
        lambda: "P10 ({}×), P1000 ({}×), FP15 ({}×), FoNE ({}×) and paper-form BitTokens ({}×)".format(
            *(ratio(m, "Δt (OoD)") for m in ("p10", "p1000", "fp15", "fone", "bittokens"))
        ),
    ),
    (
        R,
        "P10's Δt cells are 1.2 % (test) and 1.5 % (OoD) unparseable",
        lambda: "{} (test) and {} (OoD)".format(*(pct(p_cell("p10", DT, s, "unparseable")["mean"], 1) for s in ("test", "ood_stepsize"))),
    ),
    # ood_a1: one constant prediction
    (R, "P1000 and B1999 score the identical a₁ MSE 0.0090", lambda: f"{p_seeds('p1000', A1, 'ood_a1')[0]:.4f}"),
    (
        C,
        "the identical a₁ MSE 0.009003 (R² −3.16)",
        lambda: f"{p_seeds('b1999', A1, 'ood_a1')[0]:.6f} (R² {p_seeds('b1999', A1, 'ood_a1', 'r2')[0]:.2f}".replace("-", "−"),
    ),
    (
        C,
        "MSE/(1 − R²) = 0.0022 and the rest is a squared offset of 0.083",
        lambda: f"{g(ood_a1_constant()[0])} and the rest is a squared offset of {g(ood_a1_constant()[1])}",
    ),
    ((R, C), "P10 (0.052–0.13)", lambda: span(p_seeds("p10", A1, "ood_a1"), g)),
    (R, "about as well as xVal (0.0094)", lambda: g(p_cell("xval", A1, "ood_a1", "mse")["mean"])),
    # interpolation vs extrapolation
    (
        R,
        "xVal's MSE is 0.0049 in both; P10's is twice as high inside the gap (0.019) as beyond it (0.010)",
        lambda: (
            f"{g(p_cell('xval', DT, 'ood_stepsize:interp', 'mse')['mean'])} in both; P10's is twice as "
            f"high inside the gap ({g(p_cell('p10', DT, 'ood_stepsize:interp', 'mse')['mean'])}) as beyond "
            f"it ({p_cell('p10', DT, 'ood_stepsize:extrap', 'mse')['mean']:.3f})"
        ),
    ),
    (C, "P10's MSE is 0.019 against 0.010 beyond", lambda: g(p_cell("p10", DT, "ood_stepsize:interp", "mse")["mean"])),
    (C, "xVal's is 0.0049 in both", lambda: g(p_cell("xval", DT, "ood_stepsize:extrap", "mse")["mean"])),
    (
        R,
        "the truth clamped to [0.2, 0.8] scores 0.0042 on the same 54 extrapolation records",
        lambda: f"{int(p_seeds('xval', DT, 'ood_stepsize:extrap', 'n')[0])} extrapolation",
    ),
    # mixture head coverage
    (
        R,
        "cover 71 %/95 % of test Δt and 72 %/93 % of a₁ (mean over seeds), but only 0.6 %/7 % of Δt",
        lambda: (
            f"cover {pct(cov(DT, 'test', 68))}/{pct(cov(DT, 'test', 95))} of test Δt and "
            f"{pct(cov(A1, 'test', 68))}/{pct(cov(A1, 'test', 95))} of a₁ (mean over seeds), but only "
            f"{pct(cov(DT, 'ood_stepsize:extrap', 68), 1)}/{pct(cov(DT, 'ood_stepsize:extrap', 95))} of Δt"
        ),
    ),
    (C, "21 %/49 % of `ood_a1`'s a₁", lambda: f"{pct(cov(A1, 'ood_a1', 68))}/{pct(cov(A1, 'ood_a1', 95))}"),
    # paper-form BitTokens on a₁
    (
        R,
        "test MSE 5.0e115, 2.8e267 and 330 on seeds 0–2",
        lambda: ", ".join(f"{x:.1e}".replace("+", "") for x in p_seeds("bittokens", A1, "test")[:2]),
    ),
    (C, "is 5.0e115, 2.8e267 and 330 on seeds 0–2", lambda: f"{plain(p_seeds('bittokens', A1, 'test')[2])} on seeds 0–2"),
    ((R, C), "lies between 5.3e133 and 7.5e134", lambda: " and ".join(f"{x:.1e}".replace("+", "") for x in bittokens_a1())),
    (
        C,
        "learns Δt on every seed (R² 0.79–0.92) and a₁ on two of three (R² 0.87, 0.09, 0.80)",
        lambda: (
            f"(R² {span(p_seeds(TUNED, DT, 'test', 'r2'), lambda x: f'{x:.2f}')}) and a₁ on two of three "
            f"(R² {', '.join(f'{x:.2f}' for x in p_seeds(TUNED, A1, 'test', 'r2'))})"
        ),
    ),
    # cost
    ((R, C), "4.4–6.5×", lambda: span(time_ratios("fp15"), lambda x: f"{x:.1f}")),
    (R, "P10's 3.7–4.4×", lambda: span(time_ratios("p10"), lambda x: f"{x:.1f}")),
    (R, "**65 core-minutes of training and evaluation", lambda: f"{meta(PLANETS / 'meta.json')['core_seconds'] / 60:.0f} core-minutes"),
    (
        C,
        "One seed of the nine is 1 270–1 330 core-seconds",
        lambda: span(
            [
                sum(
                    v["train_seconds"] + v["eval_seconds"] for k, v in meta(PLANETS / "meta.json")["runs"].items() if k.endswith(f"seed{s}")
                )
                for s in range(3)
            ],
            lambda x: thousands(round(x, -1)),
        ),
    ),
    (
        C,
        "Evaluation (200 records × 3 splits × 4 fields) takes 2–9 s a model",
        lambda: span([v["eval_seconds"] for v in meta(PLANETS / "meta.json")["runs"].values()], lambda x: f"{x:.0f}"),
    ),
    (
        R,
        "P10 3.29×, P1000 2.15×, B1999 1.57×, FP15 1.00×",
        lambda: ", ".join(f"{m.upper()} {token_ratio(m):.2f}×" for m in ("p10", "p1000", "b1999", "fp15")),
    ),
    # ERA5 compare
    (
        C,
        "at equal tokens (P10 4.9×, P1000 4.1×, B1999 31×, FP15 20×)",
        lambda: ", ".join(f"{m.upper()} {e_ratio('equal tokens', m)}×" for m in TEXT),
    ),
    (
        C,
        "than P10 (6.5×), P1000 (4.3×) and B1999 (23×, on its 2 seeds that parse)",
        lambda: (
            f"P10 ({e_ratio('equal runtime', 'p10')}×), P1000 ({e_ratio('equal runtime', 'p1000')}×) and "
            f"B1999 ({e_ratio('equal runtime', 'b1999')}×, on its "
            f"{int(p_paired('b1999', '', ERA5 / 'equal-runtime' / 'paired.csv')['n_seeds'])} seeds"
        ),
    ),
    (C, "(39× on its one seed that parses", lambda: f"({e_ratio('equal runtime', 'fp15')}×"),
    (
        C,
        "only B1999 (15×) and FP15 (22×)",
        lambda: f"B1999 ({e_ratio('equal samples', 'b1999')}×) and FP15 ({e_ratio('equal samples', 'fp15')}×)",
    ),
    (
        C,
        "P10 (2.4× [0.78, 7.3]) and P1000 (2.1× [0.9, 4.8])",
        lambda: " and ".join(f"{m.upper()} ({ratio_ci(m, '', ERA5 / 'equal-samples' / 'paired.csv')})" for m in ("p10", "p1000")),
    ),
    (
        C,
        "errors 2.1–31× xVal's",  # paired ratios of the text encodings, cells with more than one seed
        lambda: span(
            [
                r
                for d in BUDGET_DIRS.values()
                for m, r, n in csv(ERA5 / d / "paired.csv")[["model", "ratio", "n_seeds"]].itertuples(index=False)
                if m in TEXT and n > 1
            ],
            g,
        ),
    ),
    (
        C,
        "(627 s for the equal-tokens run against xVal's 166)",
        lambda: (
            f"({e_mean_train_s('equal tokens', 'fp15'):.0f} s for the equal-tokens run against xVal's "
            f"{e_mean_train_s('equal tokens', 'xval'):.0f})"
        ),
    ),
    (
        C,
        "varied 1.9–2.7× between seeds",
        lambda: span(
            [
                max(e_steps("equal runtime", m)) / min(e_steps("equal runtime", m))
                for m in ("p10", "p1000", "b1999", "fp15", "xval", "fone", "bittokens", "xval+gmm")
            ],
            lambda x: f"{x:.1f}",
        ),
    ),
    (
        C,
        "P10 sees 2392–2424 samples (299–303 steps of 8), P1000 3872, B1999 5576–5584 and every one-token encoding 10 032",
        lambda: (
            f"P10 sees {span(e_steps('equal tokens', 'p10'), lambda s: str(8 * s))} samples "
            f"({span(e_steps('equal tokens', 'p10'), str)} steps of 8), P1000 {8 * e_steps('equal tokens', 'p1000')[0]}, "
            f"B1999 {span(e_steps('equal tokens', 'b1999'), lambda s: str(8 * s))} and every one-token encoding "
            f"{thousands(8 * e_steps('equal tokens', 'xval')[0])}"
        ),
    ),
    ((R, C), "150 core-minutes", lambda: f"{meta(ERA5 / 'meta.json')['core_seconds'] / 60:.0f} core-minutes"),
    (
        C,
        "cover 70.5 %/95.9 % (equal samples), 70.4 %/96.6 % (equal tokens) and 72.0 %/96.3 % (equal runtime)",
        lambda: "cover {} (equal samples), {} (equal tokens) and {} (equal runtime)".format(
            *(
                f"{pct(e_cell(b, 'xval+gmm', 'coverage68')['mean'], 1)}/{pct(e_cell(b, 'xval+gmm', 'coverage95')['mean'], 1)}"
                for b in BUDGET_DIRS
            )
        ),
    ),
    (
        C,
        "xVal 38 → 19 K², FoNE 440 → 83, xVal+GMM 66 → 9.3",
        lambda: "xVal {} → {} K², FoNE {} → {}, xVal+GMM {} → {}".format(
            *(plain(e_cell(b, m)["mean"]) for m in ("xval", "fone", "xval+gmm") for b in ("equal samples", "equal tokens"))
        ),
    ),
    (
        R,
        "about what P10 sees at equal samples: 1.256M–1.271M",
        lambda: span([v["tokens"] for k, v in e_runs("equal samples").items() if k.startswith("p10/")], lambda x: f"{x / 1e6:.3f}M"),
    ),
    (
        C,
        "(1 255 754 – 1 271 494 over its seeds)",
        lambda: " – ".join(
            thousands(f(v["tokens"] for k, v in e_runs("equal samples").items() if k.startswith("p10/"))) for f in (min, max)
        ),
    ),
    (
        C,
        "it took 637 s to the 64 × 2 trunk's 688 s",
        lambda: "{:.0f} s to the 64 × 2 trunk's {:.0f} s".format(
            *(
                meta(RESULTS / "planets-e1-curve" / "19k-samples" / "meta.json")["runs"][f"{m}/seed0"]["train_seconds"]
                for m in ("xval-128x4", "xval")
            )
        ),
    ),
    (
        C,
        "| training s, seeds 0 / 1 / 2 | 62 / 75 / 68 | 70 / 69 / 64 | 63 / 76 / 66 | 63 / 74 / 66 | 77 / 73 / 67 | "
        "131 / 124 / 117 | 159 / 164 / 157 | 270 / 277 / 271 | 401 / 329 / 362 |",
        lambda: " | ".join(
            " / ".join(f"{train_s(m, s):.0f}" for s in range(3))
            for m in ("xval", GMM, TUNED, "bittokens", "fone", "b1999", "p1000", "p10", "fp15")
        ),
    ),
    (C, "| a₁ | 0.0031 |", lambda: f"{quick('xval', A1, 'test', 'mse'):.3g}"),
    (C, "| a₁ ood_a1 | 0.00174 |", lambda: f"{quick('xval', A1, 'ood_a1', 'mse'):.3g}"),
    (
        C,
        "| e₁ (R²) | 0.309 (−0.01) |",
        lambda: f"{quick('xval', E1, 'test', 'mse'):.3g} ({quick('xval', E1, 'test', 'r2'):.1g})".replace("-", "−"),
    ),
    (C, "| Δt | 0.00053 |", lambda: g(quick("xval", DT, "test", "mse"))),
    (C, "| Δt ood_stepsize | 0.0047 |", lambda: g(quick("xval", DT, "ood_stepsize", "mse"))),
    (C, "| Δt ood_stepsize, extrapolation | 0.0047 |", lambda: g(quick("xval", DT, "ood_stepsize", "mse", "extrap"))),
    (C, "| m₁ | 1.19 |", lambda: f"{quick('xval', M1, 'test', 'mse'):.3g}"),
    (C, "(4.2× the samples)", lambda: f"{e_steps('equal tokens', 'xval')[0] / e_steps('equal samples', 'xval')[0]:.1f}×"),
    (
        R,
        "at equal tokens 12 % do not and the rest score 380 K², 20× xVal's",
        lambda: (
            f"{pct(e_cell('equal tokens', 'fp15', 'unparseable')['mean'])} do not and the rest score "
            f"{plain(e_cell('equal tokens', 'fp15')['mean'])} K², {e_ratio('equal tokens', 'fp15')}×"
        ),
    ),
    (
        (R, C),
        "89.5 % and 97.7 % of its predictions do not parse",
        lambda: (
            f"{pct(e_cell('equal samples', 'fp15', 'unparseable')['mean'], 1)} and "
            f"{pct(e_cell('equal runtime', 'fp15', 'unparseable')['mean'], 1)}"
        ),
    ),
    # e₁ curve and quick run
    (C, "| xVal 64 × 2 | 307 200 (38 400) | 2 271 | 0.31 | −0.015 |", lambda: e1_row("307k samples", "xval")),
    (C, "| xVal 64 × 2 | 76 800 (9 600) | 1 840 | 0.31 | −0.007 |", lambda: e1_row("77k samples", "xval")),
    (C, "| xVal 128 × 4 | 19 200 (2 400) | 637 | 0.31 | −0.025 |", lambda: e1_row("19k samples", "xval-128x4")),
    (
        R,
        "15 min 1 s for build, training, evaluation",
        lambda: "{} min {} s".format(*divmod(int(meta(RESULTS / "planets-quick" / "meta.json")["elapsed_s"]), 60)),
    ),
    (
        F,
        "xVal 0.989/0.993, FoNE 0.984/0.979, BitTokens 0.997/0.992, xVal+GMM 0.998/0.986",
        lambda: ", ".join(
            f"{n} {quick(m, DT, 'test', 'r2'):.3f}/{quick(m, A1, 'test', 'r2'):.3f}"
            for n, m in (("xVal", "xval"), ("FoNE", "fone"), ("BitTokens", "bittokens"), ("xVal+GMM", "xval+gmm"))
        ),
    ),
    (F, "0.0017 in the run at 9689bb4", lambda: f"{quick('xval', A1, 'ood_a1', 'mse'):.4f}"),
    # the structure trunk at 307 200 samples, seeds 1-3 (issue 36's budget curve)
    (
        "docs/parity.md",
        "| 307 200 | 3 | −0.015 [−0.026, −0.008] | 0.0016 [0.0011, 0.0021] | 0.0050 [0.0031, 0.0073] | "
        "1.0e-4 [3.7e-6, 2.1e-4] | 0.0072 [0.0069, 0.0075] |",
        lambda: " | ".join(
            f"{f(np.mean(v))} [{f(min(v))}, {f(max(v))}]"
            for v, f in (
                (s307("xval", E1, "test", "r2"), lambda x: f"{x:.3f}".replace("-", "−")),
                (s307("xval", A1, "test", "mse"), lambda x: f"{x:.2g}"),
                (s307("xval", A1, "ood_a1", "mse"), lambda x: f"{x:.4f}"),
                (s307("xval", DT, "test", "mse"), exp1),
                (s307("xval", DT, "ood_stepsize", "mse"), lambda x: f"{x:.2g}"),
            )
        ),
    ),
    (
        R,
        "on Δt in distribution (1.0e-4 vs 9.3e-5)",
        lambda: f"({exp1(np.mean(s307('xval', DT, 'test', 'mse')))} vs {exp1(s307('ridge', DT, 'test', 'mse')[0])})",
    ),
    # FoNE's budget curve on 6-digit addition (one seed)
    (
        R,
        "relative error from 2.4 % to 1.1 % to 0.11 % at 32k, 128k and 512k samples, exact match 0 at each (xVal 0.083 % at 512k)",
        lambda: (
            " to ".join(f"{g(100 * fone_curve(f'fone@{b}', 'median_rel_err'))} %" for b in ("32k", "128k", "512k"))
            if all(fone_curve(f"fone@{b}", "exact") == 0 for b in ("32k", "128k", "512k"))
            else "exact match is not 0"
        ),
    ),
    (R, "(xVal 0.083 % at 512k)", lambda: f"{g(100 * fone_curve('xval@512k', 'median_rel_err'))} %"),
    (R, "adds exactly (exact match 1.0)", lambda: f"(exact match {fone_curve('ridge', 'exact'):.1f})"),
]


def s307(model: str, field: str, split: str, metric: str) -> list[float]:
    """A cell of docs/results/planets-structure-307k, per seed 1-3 (subset "all")."""
    out = []
    for seed in (1, 2, 3):
        t = csv(RESULTS / "planets-structure-307k" / f"seed{seed}-table.csv")
        row = t[(t["model"] == model) & (t["field"] == field) & (t["split"] == split) & (t["subset"] == "all")]
        out.append(float(row.iloc[0][metric]))
    return out


def exp1(x: float) -> str:
    """Two significant digits in the docs' exponent form: 0.000102 -> 1.0e-4."""
    mantissa, exponent = f"{x:.1e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def fone_curve(model: str, column: str) -> float:
    """A cell of the fone-curve arithmetic run (task add6, test split)."""
    t = csv(RESULTS / "arithmetic-fone-curve" / "table.csv")
    return float(t[t["model"] == model].iloc[0][column])


@pytest.mark.parametrize("names,quote,compute", CLAIMS, ids=[f"{c[0]}:{c[1][:40]}" for c in CLAIMS])
def test_a_quoted_figure_is_what_the_published_runs_give(names, quote, compute):
    for name in (names,) if isinstance(names, str) else names:
        assert quote in doc(name), f"{name} no longer says: {quote}"
    figure = compute()
    assert figure in quote, f"recomputed {figure!r}, the text says {quote!r}"


def test_significance_claims_match_paired_csv():
    sig = lambda m, col, path=PLANETS / "paired.csv": bool(p_paired(m, col, path)["significant"])
    assert all(sig(m, "a₁") for m in ("p10", "p1000", "b1999", "fone", TUNED)) and not sig("fp15", "a₁")
    assert all(sig(m, "e₁") for m in ("p10", "p1000", "b1999", "fone")) and not sig("fp15", "e₁")
    assert all(sig(m, c) for m in ("p10", "p1000", "fone", "bittokens") for c in ("Δt", "Δt (OoD)"))
    assert sig("fp15", "Δt (OoD)") and not sig(TUNED, "Δt (OoD)")
    assert [m for m in csv(PLANETS / "paired.csv").model.unique() if sig(m, "a₁ (OoD)")] == ["fone"]
    assert not any(sig(GMM, c) for c in ("a₁", "a₁ (OoD)", "e₁", "Δt", "Δt (OoD)", "m₁"))
    assert len(csv(PLANETS / "paired.csv")) == 48  # "the 48 tests of the table"
    era5 = lambda b, m: sig(m, "", ERA5 / BUDGET_DIRS[b] / "paired.csv")
    assert all(era5("equal tokens", m) for m in TEXT)
    assert all(era5("equal runtime", m) for m in ("p10", "p1000", "b1999"))
    assert not era5("equal runtime", "fp15")  # one seed: no test
    assert not era5("equal samples", "p10") and not era5("equal samples", "p1000")
    assert era5("equal samples", "b1999") and era5("equal samples", "fp15")
    for budget in BUDGET_DIRS:  # "xVal is the best of the paper's five"
        means = {m: e_cell(budget, m)["mean"] for m in (*TEXT, "xval")}
        assert min(means, key=means.get) == "xval"


def test_the_ood_a1_constant_is_shared_by_exactly_the_models_the_docs_name():
    s = csv(PLANETS / "seeds.csv")
    r = s[(s.field == A1) & (s.split == "ood_a1")]
    constant = p_seeds("p1000", A1, "ood_a1")[0]
    same = sorted(zip(r[r.mse == constant].model, r[r.mse == constant].seed))
    assert same == [("b1999", 0), ("b1999", 1), ("b1999", 2), ("bittokens", 1), ("fp15", 0), ("p1000", 0), ("p1000", 1), ("p1000", 2)]


def test_cells_show_their_n():
    t = csv(PLANETS / "table.csv")
    headline = t[t.metric.isin(["mse", "r2"])]
    assert (headline.n_seeds == 3).all()  # README: "Every cell has n = 3 seeds"
    for budget, model, n in [("equal runtime", "b1999", 2), ("equal runtime", "fp15", 1)]:
        assert e_cell(budget, model)["n_seeds"] == n
    e = csv(ERA5 / "table.csv")
    rest = e[(e.metric == "mse_K2") & ~((e.budget == "equal runtime") & e.model.isin(["b1999", "fp15"]))]
    assert (rest.n_seeds == 3).all()
    for text in (doc(R), doc(C)):
        assert "(57 %; n = 2: seed 0 parses nothing)" in text and "(98 %; n = 1: seeds 0, 1 parse nothing)" in text


def test_e1_and_m1_are_not_learned_in_any_cell():
    t = csv(PLANETS / "table.csv")
    r2 = t[t.field.isin([E1, M1]) & (t.metric == "r2") & (t.split == "test")]
    assert (r2["mean"] <= 0).all()


def _readme_rows(section: str) -> dict[str, list[str]]:
    """The README table that follows ``section``, as {first cell: other cells}."""
    text = (ROOT / R).read_text(encoding="utf-8")
    lines = text[text.index(section) :].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| model"))
    rows = {}
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows[cells[0]] = cells[1:]
    return rows


def test_readme_planets_table_is_table_csv():
    rows = _readme_rows("### Every encoding at one budget, over seeds")
    columns = [
        (DT, "test", "r2", None),
        (DT, "ood_stepsize", "mse", "Δt (OoD)"),
        (A1, "test", "r2", None),
        (A1, "ood_a1", "mse", "a₁ (OoD)"),
        (E1, "test", "r2", None),
    ]
    assert len(rows) == 9
    for model, cells in rows.items():
        assert cells[0] == "3"
        for (field, split, metric, paired), cell in zip(columns, cells[1:]):
            c = p_cell(model, field, split, metric)
            expect = g(c["mean"]) if math.isnan(c["ci95_low"]) else f"{g(c['mean'])} [{g(c['ci95_low'])}, {g(c['ci95_high'])}]"
            assert cell.startswith(expect), (model, field, split, cell, expect)
            if paired and model != "xval":
                up = p_paired(model, paired)
                assert cell.endswith("↑") == bool(up["significant"] and up["ratio"] > 1), (model, paired)


def test_readme_era5_table_is_table_csv():
    rows = _readme_rows("### Temperature: the xVal paper's Table 4 at CPU scale")
    names = {
        "P10": "p10",
        "P1000": "p1000",
        "B1999": "b1999",
        "FP15": "fp15",
        "**xVal**": "xval",
        "FoNE": "fone",
        "BitTokens (paper form)": "bittokens",
        "xVal+GMM": "xval+gmm",
    }
    for label, model in names.items():
        for budget, cell in zip(BUDGET_DIRS, rows[label]):
            c = e_cell(budget, model)
            if math.isinf(c["mean"]):
                assert cell.startswith("inf"), (label, budget, cell)
                continue
            expect = (
                plain(c["mean"]) if math.isnan(c["ci95_low"]) else f"{plain(c['mean'])} [{plain(c['ci95_low'])}, {plain(c['ci95_high'])}]"
            )
            assert cell.strip("*").startswith(expect), (label, budget, cell, expect)
            share = e_cell(budget, model, "unparseable")["mean"]
            written = re.search(r"\((\d+(?:\.(\d))?) %", cell)
            if written:
                digits = 1 if written.group(2) else 0
                assert written.group(1) == f"{100 * share:.{digits}f}", (label, budget, cell, share)
