"""The figures README.md, experiments/comparisons.md and experiments/fidelity.md quote from the published runs,
recomputed from ``experiments/**`` (issue 38): a sentence with a number nobody recomputes rots.
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

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "experiments"
PLANETS = RESULTS / "planets-compare"
ERA5 = RESULTS / "era5-compare"
BUDGET_DIRS = {"equal samples": "equal-samples", "equal tokens": "equal-tokens", "equal runtime": "equal-runtime"}
DT, A1, E1, M1 = (f"description.{k}" for k in ("stepsize", "planet0.a", "planet0.e", "planet0.m"))
TUNED, GMM = "bittokens-tuned(16bit,binade,mean,mse30)", "xval+gmm(mse1)"
CLAMP = "oracle: truth clamped to training range"
TEXT = ("p10", "p1000", "b1999", "fp15")
#: the cost-cap presets at LR 1.4e-3 (experiments/planets-<preset>)
LR14 = "parity-b64-30min-lr1.4e-3"
MLP14 = "parity-b64-30min-lr1.4e-3-linear-mlp"  # the same, --set model.value_path=linear_mlp
CMP64 = RESULTS / "planets-compare-b64-30min"  # every encoding on that trunk at that cap
#: its table in experiments/parity.md (*Every encoding at the cap*), row by model
CMP64_ROWS = {
    "xval": (
        "| xval | 0.837 [0.758, 0.913] | 0.0017 [0.0016, 0.0020] |"
        " 0.0013 [0.00049, 0.0022] | 1.2e-4 [4.9e-5, 1.7e-4] | 0.0050 [0.0026, 0.0063] | 23–35 |"
    ),
    "fone": (
        "| fone | -1.224 [-1.955, -0.771] | 0.0024 [0.0018, 0.0029] |"
        " 0.0053 [0.0038, 0.0077] | 7.0e-4 [2.5e-4, 1.2e-3] | 0.0057 [0.0054, 0.0059] | 26–32 |"
    ),
    "bittokens-tuned(16bit,binade,mean,mse30)": (
        "| bittokens-tuned(16bit,binade,mean,mse30) | 0.303 [-0.008, 0.504] |"
        " 0.0020 [0.0016, 0.0027] | 0.0064 [0.0047, 0.0087] | 6.8e-5 [2.6e-5, 9.1e-5] | 0.0064 [0.0055, 0.0078] | 25–28 |"
    ),
    "xval+gmm(mse1)": (
        "| xval+gmm(mse1) | 0.869 [0.817, 0.900] | 0.0018 [0.0013, 0.0021] |"
        " 0.0040 [0.0031, 0.0057] | 5.3e-5 [3.4e-5, 7.5e-5] | 0.0058 [0.0041, 0.0070] | 27–32 |"
    ),
    "train mean": "| train mean | -0.022 | 0.43 | 0.30 | 5.3e-2 | 0.058 | |",
    "ridge": "| ridge | 0.841 | 0.0013 | 0.0060 | 9.3e-5 | 0.0013 | |",
    "boosted trees": "| boosted trees | 0.806 | 0.00026 | 0.0054 | 4.5e-4 | 0.0072 | |",
}


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


def pm(model: str, field: str, split: str) -> float:
    """A planets model's mean MSE in a cell."""
    return float(p_cell(model, field, split, "mse")["mean"])


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
    lo, hi = fmt(min(values)), fmt(max(values))
    return lo if lo == hi else f"{lo}–{hi}"


def train_s(model: str, seed: int, path: Path = PLANETS / "meta.json") -> float:
    return meta(path)["runs"][f"{model}/seed{seed}"]["train_seconds"]


def planets_runs() -> dict:
    return meta(PLANETS / "meta.json")["runs"]


def planets_seeds() -> list[int]:
    return meta(PLANETS / "meta.json")["seeds"]


def tokens_per_number(name: str) -> int:
    from scinum import encodings

    return encodings.from_config({"name": name}).tokens_per_number


def time_ratios(model: str) -> list[float]:
    return [train_s(model, s) / train_s("xval", s) for s in planets_seeds()]


def ref(model: str, field: str, split: str, metric: str = "mse") -> float:
    """A standard reference's cell (``kind`` regressor / reference / oracle) of the planets table."""
    t = csv(PLANETS / "table.csv")
    r = t[(t.model == model) & (t.kind != "model") & (t.field == field) & (t.split == split) & (t.metric == metric)]
    assert len(r) == 1, (model, field, split, metric)
    return float(r.iloc[0]["mean"])


def best_model(field: str, split: str, metric: str) -> str:
    """The scinum model with the highest mean R² (or lowest mean MSE) in a cell."""
    t = csv(PLANETS / "table.csv")
    r = t[(t.kind == "model") & (t.field == field) & (t.split == split) & (t.metric == metric)].dropna(subset=["mean"])
    return r.loc[r["mean"].idxmax() if metric == "r2" else r["mean"].idxmin(), "model"]


def best_model_cell(field: str, split: str, metric: str) -> float:
    return float(p_cell(best_model(field, split, metric), field, split, metric)["mean"])


def n_div(model: str, field: str, split: str) -> int:
    return int(p_cell(model, field, split, "mse")["n_diverged"])


def planets_predictions() -> pd.DataFrame:
    return csv(PLANETS / "predictions.csv.gz")


def constant_predictions() -> dict[tuple[str, int], float]:
    """(model, seed) -> the one a₁ value it predicts for every ``ood_a1`` record, where it does."""
    p = planets_predictions()
    q = p[(p.split == "ood_a1") & (p.field == A1)].groupby(["model", "seed"])["prediction"].agg(["min", "max"])
    return {k: float(r["min"]) for k, r in q.iterrows() if r["min"] == r["max"]}


def constant_seeds(model: str) -> int:
    return sum(1 for m, _ in constant_predictions() if m == model)


def _bittokens_a1(seed: int) -> pd.Series:
    p = planets_predictions()
    return p[(p.model == "bittokens") & (p.seed == seed) & (p.split == "test") & (p.field == A1)]["prediction"]


def largest_bittokens_a1(seed: int) -> float:
    v = _bittokens_a1(seed)
    return float(v[np.isfinite(v)].abs().max())


def n_inf_bittokens_a1(seed: int) -> int:
    return int(np.isinf(_bittokens_a1(seed)).sum())


def cov(field: str, split: str, level: int) -> float:
    return p_cell(GMM, field, split, f"coverage{level}")["mean"]


# -- ERA5 compare ----------------------------------------------------------------------------


def e_ref(model: str) -> float:
    """A standard reference's next-step MSE (K²) in the ERA5 comparison (the same records under every budget)."""
    t = csv(ERA5 / "equal-samples" / "table.csv")
    r = t[(t.model == model) & (t.kind != "model") & (t.metric == "mse_K2")]
    assert len(r) == 1, model
    return float(r.iloc[0]["mean"])


def e_span(model: str) -> str:
    """The paired MSE ratio to xVal over the three budgets, min–max."""
    return span([p_paired(model, "", ERA5 / d / "paired.csv")["ratio"] for d in BUDGET_DIRS.values()], g)


def names_era5() -> list[str]:
    return ["p10", "p1000", "b1999", "fp15", "xval", "fone", "bittokens", "xval+gmm"]


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


R, C, F = "experiments/overview.md", "experiments/comparisons.md", "experiments/fidelity.md"

CLAIMS = [
    # planets compare (5 seeds): the standard references against the encodings
    (
        R,
        "Δt R² 0.998 and a₁ R² 0.997",
        lambda: f"Δt R² {ref('ridge', DT, 'test', 'r2'):.3f} and a₁ R² {ref('ridge', A1, 'test', 'r2'):.3f}",
    ),
    ((R, C), "e₁ R² 0.841", lambda: f"e₁ R² {ref('ridge', E1, 'test', 'r2'):.3f}"),
    (
        C,
        "Δt R² 0.998, a₁ R² 0.997",
        lambda: f"Δt R² {ref('ridge', DT, 'test', 'r2'):.3f}, a₁ R² {ref('ridge', A1, 'test', 'r2'):.3f}",
    ),
    (
        R,
        "the best encoding cells are xVal+GMM's Δt 0.985 and a₁ 0.971",
        lambda: (
            "xVal+GMM's Δt {:.3f} and a₁ {:.3f}".format(*(best_model_cell(f, "test", "r2") for f in (DT, A1)))
            if all(best_model(f, "test", "r2") == GMM for f in (DT, A1))
            else "another model is best"
        ),
    ),
    (
        R,
        "ridge's Δt MSE (0.0013) is 3.8× below xVal's (0.0051)",
        lambda: (
            f"({g(ref('ridge', DT, 'ood_stepsize'))}) is "
            f"{pm('xval', DT, 'ood_stepsize') / ref('ridge', DT, 'ood_stepsize'):.1f}× below xVal's ({g(pm('xval', DT, 'ood_stepsize'))})"
        ),
    ),
    (
        R,
        "boosted trees (0.0054) and ridge (0.0060) are below xVal's mean (0.009) and xVal+GMM's (0.0081)",
        lambda: (
            f"boosted trees ({g(ref('boosted trees', A1, 'ood_a1'))}) and ridge ({ref('ridge', A1, 'ood_a1'):.4f}) are below xVal's "
            f"mean ({g(pm('xval', A1, 'ood_a1'))}) and xVal+GMM's ({g(pm(GMM, A1, 'ood_a1'))})"
        ),
    ),
    (
        R,
        "ridge scores 0.0016, xVal 0.0046 and xVal+GMM 0.0044, where the truth clamped to [0.2, 0.8]",
        lambda: (
            f"ridge scores {g(ref('ridge', DT, 'ood_stepsize:extrap'))}, xVal "
            f"{g(pm('xval', DT, 'ood_stepsize:extrap'))} and xVal+GMM {g(pm(GMM, DT, 'ood_stepsize:extrap'))}"
        ),
    ),
    ((R, C), "scores 0.0042", lambda: f"scores {g(ref(CLAMP, DT, 'ood_stepsize:extrap'))}"),
    (R, "the 54", lambda: f"the {int(p_seeds('xval', DT, 'ood_stepsize:extrap', 'n')[0])}"),
    (
        C,
        "on these 54 records, and ridge 0.0016",
        lambda: (
            f"{int(p_seeds('xval', DT, 'ood_stepsize:extrap', 'n')[0])} records, and ridge {g(ref('ridge', DT, 'ood_stepsize:extrap'))}"
        ),
    ),
    (
        C,
        "Δt MSE 0.0013 out of distribution (xVal 0.0051); boosted trees a₁ MSE 0.00026 in distribution (xVal 0.016)",
        lambda: (
            f"Δt MSE {g(ref('ridge', DT, 'ood_stepsize'))} out of distribution (xVal {g(pm('xval', DT, 'ood_stepsize'))}); "
            f"boosted trees a₁ MSE {g(ref('boosted trees', A1, 'test'))} in distribution (xVal {g(pm('xval', A1, 'test'))})"
        ),
    ),
    # planets compare: paired against xVal, Holm
    (R, "33 of 48", lambda: f"{int(csv(PLANETS / 'paired.csv')['survives_holm'].sum())} of {len(csv(PLANETS / 'paired.csv'))}"),
    ((R, C), "34–49×", lambda: span([p_paired(m, "a₁")["ratio"] for m in ("p10", "p1000", "b1999")], lambda x: f"{x:.0f}")),
    (
        R,
        "FoNE 23× by both tests; tuned BitTokens' 6.5×",
        lambda: f"FoNE {ratio('fone', 'a₁')}× by both tests; tuned BitTokens' {ratio(TUNED, 'a₁')}×",
    ),
    ((R, C), "3.8× [1.3, 14]", lambda: ratio_ci("fp15", "a₁")),
    (
        (R, C),
        "P10 and P1000 (3.6×), FP15 (2.4×), FoNE (2.2×) and paper-form BitTokens (19×)",
        lambda: "P10 and P1000 ({}×), FP15 ({}×), FoNE ({}×) and paper-form BitTokens ({}×)".format(
            ratio("p10", "Δt (OoD)") if ratio("p10", "Δt (OoD)") == ratio("p1000", "Δt (OoD)") else "differ",
            *(ratio(m, "Δt (OoD)") for m in ("fp15", "fone", "bittokens")),
        ),
    ),
    (
        R,
        "B1999 diverged there on 1 of 5 seeds",
        lambda: f"B1999 diverged there on {n_div('b1999', DT, 'ood_stepsize')} of 5 seeds",
    ),
    (
        C,
        "B1999 diverged on 1 of 5 seeds",
        lambda: f"B1999 diverged on {n_div('b1999', DT, 'ood_stepsize')} of 5 seeds",
    ),
    ((R, C), "the bootstrap's 62×", lambda: f"the bootstrap's {ratio('b1999', 'Δt (OoD)')}×"),
    (R, "Tuned BitTokens (1.5× [0.99, 2.4])", lambda: f"({ratio_ci(TUNED, 'Δt (OoD)')})"),
    ((R, C), "0.31× [0.14, 0.73]", lambda: ratio_ci(GMM, "Δt")),
    (C, "only P10 (8.2×) and FoNE (28×)", lambda: f"P10 ({ratio('p10', 'a₁ (OoD)')}×) and FoNE ({ratio('fone', 'a₁ (OoD)')}×)"),
    (
        C,
        "1.6–2.3× worse (by",
        lambda: span([p_paired(m, "e₁")["ratio"] for m in (*TEXT, "fone", "bittokens")], lambda x: f"{x:.1f}"),
    ),
    # ood_a1: one constant prediction, read off the predictions
    (
        (R, C),
        "P1000 predicts a₁ = 1",
        lambda: "P1000 predicts a₁ = {:g}".format(*{v for (m, _), v in constant_predictions().items() if m == "p1000"}),
    ),
    (
        R,
        "on 5 of 5 seeds, B1999 on 4, FP15 and paper-form BitTokens on 2",
        lambda: "on {} of 5 seeds, B1999 on {}, FP15 and paper-form BitTokens on {}".format(
            *(constant_seeds(m) for m in ("p1000", "b1999", "fp15"))
        ),
    ),
    (
        C,
        "on every seed, B1999 on 4 of 5 seeds, FP15 and paper-form BitTokens on 2",
        lambda: "B1999 on {} of 5 seeds, FP15 and paper-form BitTokens on {}".format(constant_seeds("b1999"), constant_seeds("bittokens")),
    ),
    (R, "scores MSE 0.0090, about xVal's mean there", lambda: f"MSE {p_seeds('p1000', A1, 'ood_a1')[0]:.4f}"),
    (
        C,
        "the identical MSE 0.009003 (R² −3.16)",
        lambda: f"{p_seeds('p1000', A1, 'ood_a1')[0]:.6f} (R² {p_seeds('p1000', A1, 'ood_a1', 'r2')[0]:.2f}".replace("-", "−"),
    ),
    ((R, C), "P10 (0.048–0.13)", lambda: span(p_seeds("p10", A1, "ood_a1"), g)),
    (
        C,
        "P10's MSE is 0.020 against 0.012 beyond the training range (`:extrap`); xVal's is 0.0053 and 0.0046",
        lambda: (
            f"P10's MSE is {pm('p10', DT, 'ood_stepsize:interp'):.3f} against {pm('p10', DT, 'ood_stepsize:extrap'):.3f} "
            "beyond the training range (`:extrap`); "
            f"xVal's is {g(pm('xval', DT, 'ood_stepsize:interp'))} and {g(pm('xval', DT, 'ood_stepsize:extrap'))}"
        ),
    ),
    # paper-form BitTokens on a₁
    (
        (R, C),
        "on all 5 seeds",
        lambda: f"on all {n_div('bittokens', A1, 'test')} seeds" if n_div("bittokens", A1, "test") == 5 else "not all",
    ),
    (R, "its largest finite prediction is 7.5e134 on seed 1", lambda: f"{largest_bittokens_a1(1):.1e}".replace("+", "") + " on seed 1"),
    (
        R,
        "near float64's maximum on seeds 3 and 4, which also predict inf",
        lambda: (
            "near float64's maximum on seeds 3 and 4, which also predict inf"
            if all(largest_bittokens_a1(s) > 1e307 and n_inf_bittokens_a1(s) > 0 for s in (3, 4))
            else "not near"
        ),
    ),
    (
        C,
        "5.0e115, 2.8e267 and 330 on seeds 0–2 and not finite on seeds 3 and 4",
        lambda: (
            ", ".join(f"{x:.1e}".replace("+", "") for x in p_seeds("bittokens", A1, "test")[:2])
            + f" and {plain(p_seeds('bittokens', A1, 'test')[2])} on seeds 0–2 and "
            + ("not finite on seeds 3 and 4" if not any(map(math.isfinite, p_seeds("bittokens", A1, "test")[3:])) else "finite")
        ),
    ),
    (
        C,
        "Δt on every seed (R² 0.68–0.92) and a₁ on four of five (R² 0.87, 0.09, 0.80, 0.81, 0.83)",
        lambda: (
            f"Δt on every seed (R² {span(p_seeds(TUNED, DT, 'test', 'r2'), lambda x: f'{x:.2f}')}) and a₁ on four of five "
            f"(R² {', '.join(f'{x:.2f}' for x in p_seeds(TUNED, A1, 'test', 'r2'))})"
        ),
    ),
    # mixture head coverage
    (
        (R, C),
        "cover 70 %/95 % of test Δt and 72 %/94 % of a₁",
        lambda: (
            f"cover {pct(cov(DT, 'test', 68))}/{pct(cov(DT, 'test', 95))} of test Δt and "
            f"{pct(cov(A1, 'test', 68))}/{pct(cov(A1, 'test', 95))} of a₁"
        ),
    ),
    ((R, C), "0.4 %/7 % of", lambda: f"{pct(cov(DT, 'ood_stepsize:extrap', 68), 1)}/{pct(cov(DT, 'ood_stepsize:extrap', 95))} of"),
    (C, "28 %/58 % of `ood_a1`'s a₁", lambda: f"{pct(cov(A1, 'ood_a1', 68))}/{pct(cov(A1, 'ood_a1', 95))} of `ood_a1`'s a₁"),
    # cost
    ((R, C), "4.2–6.2×", lambda: span(time_ratios("fp15"), lambda x: f"{x:.1f}")),
    (
        "experiments/parity.md",
        "spell a number in 5, 3 and 2 tokens, and in the compare preset FP15's training took 4.2–6.2× xVal's",
        lambda: "spell a number in {}, {} and {} tokens, and in the compare preset FP15's training took {}× xVal's".format(
            *(tokens_per_number(n) for n in ("p10", "p1000", "b1999")), span(time_ratios("fp15"), lambda x: f"{x:.1f}")
        ),
    ),
    ((R, C), "136 core-minutes", lambda: f"{meta(PLANETS / 'meta.json')['core_seconds'] / 60:.0f} core-minutes"),
    (
        C,
        "One seed of the nine is 1 500–1 810 core-seconds",
        lambda: span(
            [
                sum(v["train_seconds"] + v["eval_seconds"] for k, v in planets_runs().items() if k.endswith(f"seed{s}"))
                for s in planets_seeds()
            ],
            lambda x: thousands(round(x, -1)),
        ),
    ),
    (C, "takes 2–17 s a model", lambda: span([v["eval_seconds"] for v in planets_runs().values()], lambda x: f"{x:.0f}")),
    (
        C,
        "(xVal's seed 1: 135 s, its other seeds 73–86 s)",
        lambda: f"{train_s('xval', 1):.0f} s, its other seeds {span([train_s('xval', s) for s in (0, 2, 3, 4)], lambda x: f'{x:.0f}')} s",
    ),
    (
        C,
        "| training s, seeds 0 / 1 / 2 / 3 / 4 | 86 / 135 / 86 / 73 / 79 | 84 / 80 / 87 / 68 / 84 | 86 / 85 / 85 / 69 / 88 | "
        "82 / 85 / 75 / 69 / 88 | 82 / 125 / 78 / 69 / 91 | 155 / 150 / 168 / 138 / 156 | 190 / 202 / 230 / 200 / 198 | "
        "342 / 334 / 351 / 320 / 358 | 412 / 567 / 454 / 451 / 402 |",
        lambda: " | ".join(
            " / ".join(f"{train_s(m, s):.0f}" for s in planets_seeds())
            for m in ("xval", GMM, TUNED, "bittokens", "fone", "b1999", "p1000", "p10", "fp15")
        ),
    ),
    (
        C,
        "| the planets comparison's xVal, 5 seeds (0c794d7, shared machine) | 19 200 (2 400) | 73–135 | 0.31 [0.31, 0.31] "
        "| −0.016 [−0.023, −0.010] |",
        lambda: "| {} | 0.31 [0.31, 0.31] | {} |".format(
            span([train_s("xval", s) for s in planets_seeds()], lambda x: f"{x:.0f}"),
            "{:.3f} [{:.3f}, {:.3f}]".format(*(p_cell("xval", E1, "test", "r2")[k] for k in ("mean", "ci95_low", "ci95_high"))).replace(
                "-", "−"
            ),
        ),
    ),
    # ERA5 compare (3 seeds, current statistics, the standard references)
    (
        R,
        "ridge on the same records scores 4.3 K² and boosted trees 4.7, below the station's own diurnal climatology (6.9)",
        lambda: "ridge on the same records scores {} K² and boosted trees {}, below the station's own diurnal climatology ({})".format(
            *(plain(e_ref(m)) for m in ("ridge", "boosted trees", "climatology"))
        ),
    ),
    (
        C,
        "ridge 4.3 K² and boosted trees 4.7",
        lambda: f"ridge {plain(e_ref('ridge'))} K² and boosted trees {plain(e_ref('boosted trees'))}",
    ),
    (C, "and persistence (18)", lambda: f"({plain(e_ref('persistence'))})"),
    (
        R,
        "xVal+GMM at equal tokens (9.3), is 2.2× ridge's",
        lambda: (
            f"({plain(e_cell('equal tokens', 'xval+gmm')['mean'])}), is {e_cell('equal tokens', 'xval+gmm')['mean'] / e_ref('ridge'):.1f}×"
        ),
    ),
    (
        C,
        "(xVal+GMM at equal tokens, 9.3) by 2.2×",
        lambda: (
            f"{plain(e_cell('equal tokens', 'xval+gmm')['mean'])}) by {e_cell('equal tokens', 'xval+gmm')['mean'] / e_ref('ridge'):.1f}×"
        ),
    ),
    ((R, C), "P10 2.7–7.5×", lambda: f"P10 {e_span('p10')}×"),
    ((R, C), "FP15 11–26×", lambda: f"FP15 {e_span('fp15')}×"),
    (C, "P1000 5.4–7.6×, B1999 12–34×", lambda: f"P1000 {e_span('p1000')}×, B1999 {e_span('b1999')}×"),
    (
        (R, C),
        "worse than xVal at equal samples (1.8×) and better at equal tokens (0.51×) and equal runtime (0.64×)",
        lambda: "worse than xVal at equal samples ({}×) and better at equal tokens ({}×) and equal runtime ({}×)".format(
            *(e_ratio(b, "xval+gmm") for b in BUDGET_DIRS)
        ),
    ),
    (
        (R, C),
        "89.5 %, 11.8 % and 98.5 % of its predictions do not parse",
        lambda: (
            ", ".join(pct(e_cell(b, "fp15", "unparseable")["mean"], 1) for b in ("equal samples", "equal tokens"))
            + f" and {pct(e_cell('equal runtime', 'fp15', 'unparseable')['mean'], 1)}"
        ),
    ),
    (
        R,
        "72 runs, 66 core-minutes",
        lambda: f"{sum(len(e_runs(b)) for b in BUDGET_DIRS)} runs, {meta(ERA5 / 'meta.json')['core_seconds'] / 60:.0f} core-minutes",
    ),
    (C, "66 core-minutes of training", lambda: f"{meta(ERA5 / 'meta.json')['core_seconds'] / 60:.0f} core-minutes"),
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
        "P10 takes 299–303 steps of 8, P1000 484, B1999 697–698 and every one-token encoding 1254 (4.2× the samples)",
        lambda: "P10 takes {} steps of 8, P1000 {}, B1999 {} and every one-token encoding {} ({:.1f}× the samples)".format(
            *(span(e_steps("equal tokens", m), str) for m in ("p10", "p1000", "b1999")),
            span([s for m in ("fp15", "xval", "fone", "bittokens", "xval+gmm") for s in e_steps("equal tokens", m)], str),
            e_steps("equal tokens", "xval")[0] / e_steps("equal samples", "xval")[0],
        ),
    ),
    (
        C,
        "varied up to 1.4× between seeds: FP15 295–416, xVal 1396–1756",
        lambda: "up to {:.1f}× between seeds: FP15 {}, xVal {}".format(
            max(max(e_steps("equal runtime", m)) / min(e_steps("equal runtime", m)) for m in names_era5()),
            span(e_steps("equal runtime", "fp15"), str),
            span(e_steps("equal runtime", "xval"), str),
        ),
    ),
    (
        C,
        "(226, 254 and 181 s for the equal-tokens runs against xVal's 40–42)",
        lambda: "({} s for the equal-tokens runs against xVal's {})".format(
            ", ".join(f"{e_runs('equal tokens')[f'fp15/seed{s}']['train_seconds']:.0f}" for s in (0, 1)).replace(", ", ", ")
            + f" and {e_runs('equal tokens')['fp15/seed2']['train_seconds']:.0f}",
            span([e_runs("equal tokens")[f"xval/seed{s}"]["train_seconds"] for s in range(3)], lambda x: f"{x:.0f}"),
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
        C,
        "cover 70.5 %/95.9 % (equal samples), 70.4 %/96.6 % (equal tokens) and 69.9 %/96.4 % (equal runtime)",
        lambda: "cover {} (equal samples), {} (equal tokens) and {} (equal runtime)".format(
            *(
                f"{pct(e_cell(b, 'xval+gmm', 'coverage68')['mean'], 1)}/{pct(e_cell(b, 'xval+gmm', 'coverage95')['mean'], 1)}"
                for b in BUDGET_DIRS
            )
        ),
    ),
    # e₁ curve and quick run
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
        "experiments/parity.md",
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
    # batches of 64 on one H100 (issue 36: e₁ learnt), seeds 1-3
    (
        ("experiments/overview.md", "experiments/parity.md"),
        "0.929, 0.911",
        lambda: ", ".join(f"{x:.3f}" for x in b64("840k", "xval", E1, "test", "r2")[:2]),
    ),
    (R, "R² 0.929, 0.911 and 0.903", lambda: "R² {}, {} and {}".format(*(f"{x:.3f}" for x in b64("840k", "xval", E1, "test", "r2")))),
    (R, "(mean 3.7e-5)", lambda: f"(mean {exp1(np.mean(b64('840k', 'xval', DT, 'test', 'mse')))})"),
    (R, "a₁ below ridge's (0.00064;", lambda: f"a₁ below ridge's ({sig2(np.mean(b64('840k', 'xval', A1, 'test', 'mse')))};"),
    (
        "experiments/parity.md",
        "| compare data | 64 | 444 096–446 464 | 3 | **0.829, 0.806, 0.805** | 0.0015 [0.0010, 0.0022] | "
        "0.00064 [0.00049, 0.00085] | 1.8e-4 [8.4e-5, 2.6e-4] | 0.0038 [0.0019, 0.0060] |",
        lambda: f"| {span_samples('445k')} | 3 | **{e1_seeds('445k')}** | {b64_cells('445k')} |",
    ),
    (
        "experiments/parity.md",
        "| compare data | 64 | 837 632–845 696 | 3 | **0.929, 0.911, 0.903** | 0.00064 [0.00059, 0.00071] | "
        "0.0011 [0.00093, 0.0012] | 3.7e-5 [2.2e-5, 4.7e-5] | 0.0042 [0.0021, 0.0053] |",
        lambda: f"| {span_samples('840k')} | 3 | **{e1_seeds('840k')}** | {b64_cells('840k')} |",
    ),
    (
        "experiments/parity.md",
        "| 2 planets (one layout) | 64 | 456 832–459 904 | 3 | 0.948, 0.625, 0.890 | 0.0017 [0.00093, 0.0022] | "
        "0.0035 [0.0024, 0.0056] | 1.1e-4 [2.7e-5, 2.0e-4] | 0.0059 [0.0052, 0.0063] |",
        lambda: f"| {span_samples('one-layout-460k')} | 3 | {e1_seeds('one-layout-460k')} | {b64_cells('one-layout-460k')} |",
    ),
    (
        "experiments/parity.md",
        "seed 1 scores 0.0029, below the oracle that clamps the truth into the range (0.0042)",
        lambda: "{:.4f}, below the oracle that clamps the truth into the range ({:.4f})".format(
            b64("840k", "xval", DT, "ood_stepsize", "mse", "extrap")[0], b64("840k", CLAMP, DT, "ood_stepsize", "mse", "extrap")[0]
        ),
    ),
    (
        "experiments/parity.md",
        "Seeds 2 and 3 score 0.0063 and 0.0044 there, ridge 0.0016.",
        lambda: "{1:.4f} and {2:.4f} there, ridge {3:.4f}".format(
            *b64("840k", "xval", DT, "ood_stepsize", "mse", "extrap"), b64("840k", "ridge", DT, "ood_stepsize", "mse", "extrap")[0]
        ),
    ),
    (
        "experiments/parity.md",
        "| 64 | 307 200 | 1 | 0.828 | 0.0019 | 0.00096 | 2.8e-4 | 0.014 |",
        lambda: cpu64_row("307k"),
    ),
    ("experiments/parity.md", "| 64 | 460 800 | 1 | 0.840 | 0.00075 | 0.00052 | 1.8e-4 | 0.012 |", lambda: cpu64_row("461k")),
    (
        "experiments/parity.md",
        "beyond [0.2, 0.8] 0.027–0.039, where clamping into the range scores 0.0042",
        lambda: "{:.3f}–{:.3f}, where clamping into the range scores {:.4f}".format(
            *sorted(cpu64(p, "xval", DT, "ood_stepsize", "mse", "extrap") for p in ("307k", "461k")),
            cpu64("461k", CLAMP, DT, "ood_stepsize", "mse", "extrap"),
        ),
    ),
    *(
        ("experiments/parity.md", quote, lambda run=run: cpu_ablation_row(run))
        for run, quote in (
            ("461k", "| 460 800 (7 258) | 3.1e-5 | 0.840 | 0.00075 | 1.8e-4 | 0.012 |"),
            ("lr4e-3-461k", "| 460 800 (7 258) | 6.3e-5 | 0.095 | 0.0019 | 2.3e-4 | 0.0060 |"),
            ("batch128-461k", "| 460 800 (3 687) | 1.6e-5 | 0.710 | 0.0018 | 2.8e-4 | 0.0048 |"),
            ("batch8-lr2.5e-4-307k", "| 307 200 (38 400) | 3.1e-5 | 0.672 | 0.0014 | 3.8e-4 | 0.0041 |"),
        )
    ),
    (
        R,
        "LR 2.5e-4 learn e₁ too (R² 0.672 at 307 200 samples, one seed), batches of 64 at 4e-3 barely (0.095, one seed)",
        lambda: "(R² {:.3f} at 307 200 samples, one seed), batches of 64 at 4e-3 barely ({:.3f}, one seed)".format(
            cpu64("batch8-lr2.5e-4-307k", "xval", E1, "test", "r2"), cpu64("lr4e-3-461k", "xval", E1, "test", "r2")
        ),
    ),
    (
        "experiments/parity.md",
        "differed by at most 0.026 (0.903–0.929 at 840 000 samples)",
        lambda: "{:.3f} ({:.3f}–{:.3f}".format(
            max(
                b64(p, "xval", E1, "test", "r2")[i] - b64(p, "xval", E1, "test", "r2")[j]
                for p in ("445k", "840k")
                for i in range(3)
                for j in range(3)
            ),
            min(b64("840k", "xval", E1, "test", "r2")),
            max(b64("840k", "xval", E1, "test", "r2")),
        ),
    ),
    ("experiments/parity.md", "the mean is 0.914", lambda: f"the mean is {np.mean(b64('840k', 'xval', E1, 'test', 'r2')):.3f}"),
    # parity-b64-30min, the recipe at the issue's cost cap (experiments/planets-parity-b64-30min)
    *(
        ("experiments/parity.md", quote, lambda seed=seed: r30_row(seed))
        for seed, quote in (
            (0, "| 0 | 0.017 | 0.0020 | 0.00091 | 9.3e-5 | 0.0062 | 1 792 |"),
            (1, "| 1 | 0.840 | 0.00075 | 0.00052 | 1.8e-4 | 0.012 | 1 797 |"),
            (2, "| 2 | 0.727 | 0.0018 | 0.0031 | 1.0e-4 | 0.0032 | 1 812 |"),
            ("mean", "| mean | 0.528 | 0.0015 | 0.0015 | 1.3e-4 | 0.0070 | |"),
            ("ridge", "| ridge | 0.841 | 0.0013 | 0.0060 | 9.3e-5 | 0.0013 | |"),
            ("boosted trees", "| boosted trees | 0.806 | 0.00026 | 0.0054 | 4.5e-4 | 0.0072 | |"),
        )
    ),
    (
        "experiments/parity.md",
        "0.528 (0.017, 0.840, 0.727)",
        lambda: "{:.3f} ({:.3f}, {:.3f}, {:.3f})".format(*(r30(s, E1, "test", "r2") for s in ("mean", 0, 1, 2))),
    ),
    (
        R,
        "0.017, 0.840 and 0.727",
        lambda: "{:.3f}, {:.3f} and {:.3f}".format(*(r30(s, E1, "test", "r2") for s in (0, 1, 2))),
    ),
    (
        "experiments/parity.md",
        "0.528, not 0.9, because seed 0 learns none of it (0.017) and seed 2 only part (0.727); "
        "a₁ is 5.7× the trees' error, Δt in distribution 1.3× ridge's and out of distribution 5.2×",
        lambda: (
            "{:.3f}, not 0.9, because seed 0 learns none of it ({:.3f}) and seed 2 only part ({:.3f}); "
            "a₁ is {:.1f}× the trees' error, Δt in distribution {:.1f}× ridge's and out of distribution {:.1f}×"
        ).format(
            r30("mean", E1, "test", "r2"),
            r30(0, E1, "test", "r2"),
            r30(2, E1, "test", "r2"),
            r30("mean", A1, "test", "mse") / r30("boosted trees", A1, "test", "mse"),
            r30("mean", DT, "test", "mse") / r30("ridge", DT, "test", "mse"),
            r30("mean", DT, "ood_stepsize", "mse") / r30("ridge", DT, "ood_stepsize", "mse"),
        ),
    ),
    (
        R,
        "with a₁ 5.7× the trees' error and Δt out of distribution 5.2× ridge's",
        lambda: "a₁ {:.1f}× the trees' error and Δt out of distribution {:.1f}× ridge's".format(
            r30("mean", A1, "test", "mse") / r30("boosted trees", A1, "test", "mse"),
            r30("mean", DT, "ood_stepsize", "mse") / r30("ridge", DT, "ood_stepsize", "mse"),
        ),
    ),
    (
        "experiments/parity.md",
        "(0.0015 against 0.0054 and 0.0060), though seed 2's 0.0031 is half of theirs",
        lambda: "({} against {} and {}), though seed 2's {} is".format(
            *(sig2(r30(m, A1, "ood_a1", "mse")) for m in ("mean", "boosted trees", "ridge", 2))
        ),
    ),
    (
        "experiments/parity.md",
        "(R² 0.840, a₁ 0.00075, Δt OoD 0.012)",
        lambda: (
            "(R² {:.3f}, a₁ {}, Δt OoD {})".format(
                r30(1, E1, "test", "r2"), sig2(r30(1, A1, "test", "mse")), sig2(r30(1, DT, "ood_stepsize", "mse"))
            )
            if all(
                r30(1, f, sp, "mse") == cpu64("461k", "xval", f, sp, "mse")
                for f in (E1, A1, DT)
                for sp in ("test", "ood_a1", "ood_stepsize")
            )
            else "the recipe's seed 1 is not the scratch run's"
        ),
    ),
    (
        "experiments/parity.md",
        "1.3e-4 (1.3×; seed 0 9.3e-5)",
        lambda: "{} ({:.1f}×; seed 0 {})".format(
            exp1(r30("mean", DT, "test", "mse")),
            r30("mean", DT, "test", "mse") / r30("ridge", DT, "test", "mse"),
            exp1(r30(0, DT, "test", "mse")),
        ),
    ),
    (
        "experiments/parity.md",
        "on the CPU, 0.0015, 5.7×;",
        lambda: "{}, {:.1f}×;".format(
            sig2(r30("mean", A1, "test", "mse")), r30("mean", A1, "test", "mse") / r30("boosted trees", A1, "test", "mse")
        ),
    ),
    ("experiments/parity.md", "seeds 0–2 on the CPU, 0.0070;", lambda: f"{sig2(r30('mean', DT, 'ood_stepsize', 'mse'))};"),
    (
        "experiments/parity.md",
        "learns e₁: R² 0.801 against 0.017, with a₁ 0.0015, Δt 1.4e-4 and Δt OoD 0.0049",
        lambda: "R² {:.3f} against {:.3f}, with a₁ {}, Δt {} and Δt OoD {}".format(
            cpu64("lr1.4e-3-461k", "xval", E1, "test", "r2", seed=0),
            r30(0, E1, "test", "r2"),
            sig2(cpu64("lr1.4e-3-461k", "xval", A1, "test", "mse", seed=0)),
            exp1(cpu64("lr1.4e-3-461k", "xval", DT, "test", "mse", seed=0)),
            sig2(cpu64("lr1.4e-3-461k", "xval", DT, "ood_stepsize", "mse", seed=0)),
        ),
    ),
    (
        "experiments/parity.md",
        "(2.2e-5 per record of a batch, not 3.1e-5; `scinum fit seed=0 budget.samples=460800 optim.lr=1.4e-3`",
        lambda: "({} per record of a batch, not {}; `scinum fit seed={} budget.samples={} optim.lr={}`".format(
            exp1(lr_per_record("lr1.4e-3-461k", seed=0)),
            exp1(lr_per_record("461k")),
            cfg64("lr1.4e-3-461k", seed=0)["seed"],
            cfg64("lr1.4e-3-461k", seed=0)["budget"]["samples"],
            exp1(cfg64("lr1.4e-3-461k", seed=0)["optim"]["lr"]),
        ),
    ),
    # the same cap at LR 1.4e-3 (experiments/planets-parity-b64-30min-lr1.4e-3), and that with
    # --set model.value_path=linear_mlp (experiments/planets-parity-b64-30min-lr1.4e-3-linear-mlp)
    *(
        ("experiments/parity.md", quote, lambda seed=seed, preset=preset: r30_row(seed, preset))
        for preset, seed, quote in (
            (LR14, 0, "| 0 | 0.758 | 0.0016 | 0.00049 | 1.7e-4 | 0.0063 | 2 073 |"),
            (LR14, 1, "| 1 | 0.842 | 0.0016 | 0.0022 | 1.4e-4 | 0.0060 | 2 059 |"),
            (LR14, 2, "| 2 | 0.913 | 0.0020 | 0.0013 | 4.9e-5 | 0.0026 | 1 395 |"),
            (LR14, "mean", "| mean | 0.837 | 0.0017 | 0.0013 | 1.2e-4 | 0.0050 | |"),
            (LR14, "ridge", "| ridge | 0.841 | 0.0013 | 0.0060 | 9.3e-5 | 0.0013 | |"),
            (LR14, "boosted trees", "| boosted trees | 0.806 | 0.00026 | 0.0054 | 4.5e-4 | 0.0072 | |"),
            (MLP14, 0, "| 0 | 0.249 | 0.0023 | 0.0011 | 2.1e-4 | 0.0041 | 1 284 |"),
            (MLP14, 1, "| 1 | 0.595 | 0.0052 | 0.0030 | 2.9e-4 | 0.0042 | 1 292 |"),
            (MLP14, 2, "| 2 | 0.180 | 0.0015 | 0.0015 | 2.2e-4 | 0.0036 | 1 224 |"),
            (MLP14, "mean", "| mean | 0.341 | 0.0030 | 0.0019 | 2.4e-4 | 0.0040 | |"),
        )
    ),
    # every encoding on the parity trunk at the cap (experiments/planets-compare-b64-30min)
    (
        "experiments/parity.md",
        "xVal+GMM 0.869, the highest mean there, not 0.9",
        lambda: (
            "xVal+GMM {:.3f}, the highest mean there, not 0.9".format(np.mean(cmp64(GMM, E1, "test", "r2")))
            if max(CMP64_ROWS, key=lambda m: np.mean(cmp64(m, E1, "test", "r2"))) == GMM
            else "not the highest"
        ),
    ),
    (
        "experiments/parity.md",
        "xVal+GMM 5.3e-5, every seed below ridge** (tuned BitTokens 6.8e-5, every seed too;",
        lambda: (
            "xVal+GMM {}, every seed below ridge** (tuned BitTokens {}, every seed too;".format(
                exp1(np.mean(cmp64(GMM, DT, "test"))), exp1(np.mean(cmp64(TUNED, DT, "test")))
            )
            if max(cmp64(GMM, DT, "test") + cmp64(TUNED, DT, "test")) < cmp64("ridge", DT, "test")[0]
            else "not every seed"
        ),
    ),
    *(("experiments/parity.md", quote, lambda model=model: cmp64_row(model)) for model, quote in CMP64_ROWS.items()),
    (
        ("experiments/overview.md", "experiments/parity.md"),
        "xVal+GMM's e₁ R² 0.869 (0.817–0.900; xVal 0.837, ridge 0.841) and Δt 5.3e-5, every seed below ridge's 9.3e-5 (the most 7.5e-5)",
        lambda: (
            "xVal+GMM's e₁ R² {:.3f} ({:.3f}–{:.3f}; xVal {:.3f}, ridge {:.3f}) and Δt {}, every seed below ridge's {} (the most {})"
        ).format(
            np.mean(cmp64(GMM, E1, "test", "r2")),
            min(cmp64(GMM, E1, "test", "r2")),
            max(cmp64(GMM, E1, "test", "r2")),
            np.mean(cmp64("xval", E1, "test", "r2")),
            cmp64("ridge", E1, "test", "r2")[0],
            exp1(np.mean(cmp64(GMM, DT, "test"))),
            exp1(cmp64("ridge", DT, "test")[0]),
            exp1(max(cmp64(GMM, DT, "test"))) if max(cmp64(GMM, DT, "test")) < cmp64("ridge", DT, "test")[0] else "not every seed",
        ),
    ),
    (
        "experiments/parity.md",
        "every seed's Δt below ridge's (6.8e-5, the most 9.1e-5) but learns little e₁ (0.303)",
        lambda: "every seed's Δt below ridge's ({}, the most {}) but learns little e₁ ({:.3f})".format(
            exp1(np.mean(cmp64(TUNED, DT, "test"))),
            exp1(max(cmp64(TUNED, DT, "test"))) if max(cmp64(TUNED, DT, "test")) < cmp64("ridge", DT, "test")[0] else "not every seed",
            np.mean(cmp64(TUNED, E1, "test", "r2")),
        ),
    ),
    (
        "experiments/parity.md",
        "(ratios 0.84 and 0.48 for the mixture head, intervals spanning 1)",
        lambda: (
            "(ratios {:.2f} and {:.2f} for the mixture head, intervals spanning 1)".format(
                cmp64_paired(GMM, "e₁")["ratio"], cmp64_paired(GMM, "Δt")["ratio"]
            )
            if all(cmp64_paired(GMM, k)["ratio_low"] < 1 < cmp64_paired(GMM, k)["ratio_high"] for k in ("e₁", "Δt"))
            else "an interval excludes 1"
        ),
    ),
    (
        "experiments/parity.md",
        "(R² −1.224: worse than predicting the mean; 14.5× xVal's MSE, surviving Holm by the bootstrap; a paired t-test over the three"
        " seeds gives p = 0.006, 0.12 after Holm: not significant over seeds) and has Δt in distribution 7.0e-4",
        lambda: (
            "(R² {}: worse than predicting the mean; {:.1f}× xVal's MSE, surviving Holm{} by the bootstrap; a paired t-test over the three"
            " seeds gives p = 0.006, 0.12 after Holm: not significant over seeds) and has Δt in distribution {}"
        ).format(
            f"{np.mean(cmp64('fone', E1, 'test', 'r2')):.3f}".replace("-", "−"),
            cmp64_paired("fone", "e₁")["ratio"],
            "" if cmp64_paired("fone", "e₁")["survives_holm"] else " NOT",
            exp1(np.mean(cmp64("fone", DT, "test"))),
        ),
    ),
    (
        ("experiments/overview.md", "experiments/parity.md"),
        "(0.0017–0.0024, 6.6–9.0× the trees' 0.00026) and Δt out of distribution (0.0050–0.0064, 3.7–4.8× ridge's 0.0013)",
        lambda: "({}–{}, {:.1f}–{:.1f}× the trees' {}) and Δt out of distribution ({}–{}, {:.1f}–{:.1f}× ridge's {})".format(
            *(sig2(f(a1)) for f, a1 in ((min, cmp64_means(A1, "test")), (max, cmp64_means(A1, "test")))),
            min(cmp64_means(A1, "test")) / cmp64("boosted trees", A1, "test")[0],
            max(cmp64_means(A1, "test")) / cmp64("boosted trees", A1, "test")[0],
            sig2(cmp64("boosted trees", A1, "test")[0]),
            *(sig2(f(d)) for f, d in ((min, cmp64_means(DT, "ood_stepsize")), (max, cmp64_means(DT, "ood_stepsize")))),
            min(cmp64_means(DT, "ood_stepsize")) / cmp64("ridge", DT, "ood_stepsize")[0],
            max(cmp64_means(DT, "ood_stepsize")) / cmp64("ridge", DT, "ood_stepsize")[0],
            sig2(cmp64("ridge", DT, "ood_stepsize")[0]),
        ),
    ),
    (
        "experiments/parity.md",
        (
            "xVal (0.0013) and the mixture head (0.0040) are below both regressors (0.0054, 0.0060);"
            " FoNE and tuned BitTokens are 4.5× and 5.6× xVal's there (both surviving Holm by the bootstrap, neither by the t-test over the"
            " three seeds)"
        ),
        lambda: (
            "xVal ({}) and the mixture head ({}) are below both regressors ({}, {}); FoNE and tuned"
            " BitTokens are {:.1f}× and {:.1f}× xVal's there (both surviving Holm{} by the bootstrap"
        ).format(
            sig2(np.mean(cmp64("xval", A1, "ood_a1"))),
            sig2(np.mean(cmp64(GMM, A1, "ood_a1"))),
            sig2(cmp64("boosted trees", A1, "ood_a1")[0]),
            sig2(cmp64("ridge", A1, "ood_a1")[0]),
            cmp64_paired("fone", "a₁ (OoD)")["ratio"],
            cmp64_paired(TUNED, "a₁ (OoD)")["ratio"],
            "" if all(cmp64_paired(m, "a₁ (OoD)")["survives_holm"] for m in ("fone", TUNED)) else " NOT",
        ),
    ),
    (
        "experiments/parity.md",
        "Cost: 348 core-minutes of training and evaluation; a run took 23–35 minutes",
        lambda: "Cost: {:.0f} core-minutes of training and evaluation; a run took {:.0f}–{:.0f} minutes".format(
            meta(CMP64 / "meta.json")["core_seconds"] / 60,
            min(r["train_seconds"] for r in meta(CMP64 / "meta.json")["runs"].values()) / 60,
            max(r["train_seconds"] for r in meta(CMP64 / "meta.json")["runs"].values()) / 60,
        ),
    ),
    (
        "experiments/parity.md",
        "| the linear path (above) | 0.837 | 0.0017 | 0.0013 | 1.2e-4 | 0.0050 | |",
        lambda: r30_row("mean", LR14).replace("| mean |", "| the linear path (above) |"),
    ),
    (
        "experiments/parity.md",
        "e₁ R² 0.341 against 0.837 (every seed lower)",
        lambda: (
            "e₁ R² {:.3f} against {:.3f} (every seed lower)".format(
                r30("mean", E1, "test", "r2", MLP14), r30("mean", E1, "test", "r2", LR14)
            )
            if all(r30(k, E1, "test", "r2", MLP14) < r30(k, E1, "test", "r2", LR14) for k in (0, 1, 2))
            else "not every seed lower"
        ),
    ),
    (
        "experiments/parity.md",
        "(0.0040 against 0.0050, every seed at or below 0.0042), still 3× ridge's 0.0013",
        lambda: "({} against {}, every seed at or below {}), still {:.0f}× ridge's {}".format(
            sig2(r30("mean", DT, "ood_stepsize", "mse", MLP14)),
            sig2(r30("mean", DT, "ood_stepsize", "mse", LR14)),
            sig2(max(r30(k, DT, "ood_stepsize", "mse", MLP14) for k in (0, 1, 2))),
            r30_ratio(DT, "ood_stepsize", "ridge", MLP14),
            sig2(r30("ridge", DT, "ood_stepsize", "mse", MLP14)),
        ),
    ),
    (
        "experiments/parity.md",
        "the same with the MLPs on the residual stream 0.0040,",
        lambda: "the same with the MLPs on the residual stream {},".format(sig2(r30("mean", DT, "ood_stepsize", "mse", MLP14))),
    ),
    (
        R,
        "default) e₁ falls to 0.341 and only Δt out of distribution gains (0.0040)",
        lambda: "default) e₁ falls to {:.3f} and only Δt out of distribution gains ({})".format(
            r30("mean", E1, "test", "r2", MLP14), sig2(r30("mean", DT, "ood_stepsize", "mse", MLP14))
        ),
    ),
    (
        "experiments/parity.md",
        "where e₁ falls to 0.341)",
        lambda: "where e₁ falls to {:.3f})".format(r30("mean", E1, "test", "r2", MLP14)),
    ),
    (
        "experiments/parity.md",
        "(0.758, 0.842, 0.913; at 2e-3: 0.017, 0.840, 0.727), and the mean, 0.837, is ridge's (0.841) and above the trees' (0.806)",
        lambda: (
            "({:.3f}, {:.3f}, {:.3f}; at 2e-3: {:.3f}, {:.3f}, {:.3f}), and the mean, {:.3f}, is ridge's ({:.3f}) "
            "and above the trees' ({:.3f})".format(
                *(r30(s, E1, "test", "r2", LR14) for s in (0, 1, 2)),
                *(r30(s, E1, "test", "r2") for s in (0, 1, 2)),
                *(r30(s, E1, "test", "r2", LR14) for s in ("mean", "ridge", "boosted trees")),
            )
        ),
    ),
    (
        "experiments/parity.md",
        "seed 0 is the one that changes (0.017 → 0.758), seed 1 does not (0.840 → 0.842)",
        lambda: "({:.3f} → {:.3f}), seed 1 does not ({:.3f} → {:.3f})".format(
            r30(0, E1, "test", "r2"), r30(0, E1, "test", "r2", LR14), r30(1, E1, "test", "r2"), r30(1, E1, "test", "r2", LR14)
        ),
    ),
    (
        "experiments/parity.md",
        "a₁ 6.6× the trees' error, Δt in distribution 1.3× ridge's (seed 2, 4.9e-5, is below it) and out of distribution "
        "3.7× (0.0050 against 0.0013; at 2e-3: 0.0070)",
        lambda: (
            "a₁ {:.1f}× the trees' error, Δt in distribution {:.1f}× ridge's (seed 2, {}, is below it) and out of distribution "
            "{:.1f}× ({} against {}; at 2e-3: {})".format(
                r30_ratio(A1, "test", "boosted trees", LR14),
                r30_ratio(DT, "test", "ridge", LR14),
                exp1(r30(2, DT, "test", "mse", LR14)),
                r30_ratio(DT, "ood_stepsize", "ridge", LR14),
                sig2(r30("mean", DT, "ood_stepsize", "mse", LR14)),
                sig2(r30("ridge", DT, "ood_stepsize", "mse", LR14)),
                sig2(r30("mean", DT, "ood_stepsize", "mse")),
            )
        ),
    ),
    (
        "experiments/parity.md",
        "better than both regressors (0.0013 against 0.0054 and 0.0060)",
        lambda: "({} against {} and {})".format(*(sig2(r30(m, A1, "ood_a1", "mse", LR14)) for m in ("mean", "boosted trees", "ridge"))),
    ),
    (
        "experiments/parity.md",
        "the two give R² 0.758 and 0.801",
        lambda: "R² {:.3f} and {:.3f}".format(r30(0, E1, "test", "r2", LR14), cpu64("lr1.4e-3-461k", "xval", E1, "test", "r2", seed=0)),
    ),
    (
        "experiments/parity.md",
        "Training took 23 minutes for the seed beside one other job and 34–35 for the two beside two",
        lambda: "took {} minutes for the seed beside one other job and {}–{} for".format(*lr14_minutes()),
    ),
    (
        "experiments/parity.md",
        "0.837 (0.758, 0.842, 0.913), every seed, ridge's level",
        lambda: "{:.3f} ({:.3f}, {:.3f}, {:.3f})".format(*(r30(s, E1, "test", "r2", LR14) for s in ("mean", 0, 1, 2))),
    ),
    (
        "experiments/parity.md",
        "at LR 1.4e-3 0.0017, 6.6×;",
        lambda: "{}, {:.1f}×;".format(sig2(r30("mean", A1, "test", "mse", LR14)), r30_ratio(A1, "test", "boosted trees", LR14)),
    ),
    (
        "experiments/parity.md",
        "at LR 1.4e-3 1.2e-4 (1.3×; seed 2 4.9e-5)",
        lambda: "{} ({:.1f}×; seed 2 {})".format(
            exp1(r30("mean", DT, "test", "mse", LR14)),
            r30_ratio(DT, "test", "ridge", LR14),
            exp1(r30(2, DT, "test", "mse", LR14)),
        ),
    ),
    ("experiments/parity.md", "at LR 1.4e-3 0.0050;", lambda: sig2(r30("mean", DT, "ood_stepsize", "mse", LR14)) + ";"),
    (
        R,
        "every seed learns it: 0.758, 0.842 and 0.913, mean 0.837, ridge's level, not yet 0.9; a₁ 6.6× the trees' error, "
        "Δt out of distribution 3.7× ridge's",
        lambda: (
            "{:.3f}, {:.3f} and {:.3f}, mean {:.3f}, ridge's level, not yet 0.9; a₁ {:.1f}× the trees' error, "
            "Δt out of distribution {:.1f}× ridge's".format(
                *(r30(s, E1, "test", "r2", LR14) for s in (0, 1, 2, "mean")),
                r30_ratio(A1, "test", "boosted trees", LR14),
                r30_ratio(DT, "ood_stepsize", "ridge", LR14),
            )
        ),
    ),
    # seven one-seed runs at 153 600 samples, one setting changed each (experiments/planets-batch64-cpu)
    *(
        ("experiments/parity.md", f"{change} {quote}", lambda run=run: cpu_ablation_row(run).replace("| -", "| −"))
        for run, change, quote in (
            ("154k", "| none", "| 153 600 (2 420) | 3.1e-5 | 0.430 | 0.0032 | 2.5e-4 | 0.011 |"),
            (
                "maske1.0-154k",
                "| e₁ hidden in every record (`data.mask_fields_prob=1.0`)",
                "| 153 600 (2 420) | 3.1e-5 | 0.381 | 0.0018 | 3.9e-4 | 0.0055 |",
            ),
            (
                "mask0.35-154k",
                "| MLM probability 0.35 (`data.mask_prob=0.35`)",
                "| 153 600 (2 420) | 3.1e-5 | 0.484 | 0.0040 | 5.0e-4 | 0.013 |",
            ),
            ("lr1.4e-3-154k", "| LR 1.4e-3", "| 153 600 (2 420) | 2.2e-5 | 0.485 | 0.0027 | 5.5e-4 | 0.0076 |"),
            (
                "nlw0.5-154k",
                "| number loss ×0.5 (`optim.number_loss_weight=0.5`)",
                "| 153 600 (2 420) | 3.1e-5 | 0.358 | 0.0031 | 6.9e-4 | 0.0057 |",
            ),
            (
                "nlw3-154k",
                "| number loss ×3 (`optim.number_loss_weight=3.0`)",
                "| 153 600 (2 420) | 3.1e-5 | 0.063 | 0.0014 | 2.0e-4 | 0.0038 |",
            ),
            (
                "fields-154k",
                "| number loss averaged per field, not per number (`optim.number_loss_mean=fields`)",
                "| 153 600 (2 420) | 3.1e-5 | −0.013 | 0.0016 | 6.0e-5 | 0.0059 |",
            ),
        )
    ),
    (
        "experiments/parity.md",
        "move e₁ within 0.36–0.48 of the unchanged run's 0.430",
        lambda: "within {:.2f}–{:.2f} of the unchanged run's {:.3f}".format(
            min(cpu64(p, "xval", E1, "test", "r2") for p in CHANGED_154K),
            max(cpu64(p, "xval", E1, "test", "r2") for p in CHANGED_154K),
            cpu64("154k", "xval", E1, "test", "r2"),
        ),
    ),
    (
        "experiments/parity.md",
        "none near the 0.828 the unchanged config reaches with twice the samples (307 200)",
        lambda: (
            f"the {cpu64('307k', 'xval', E1, 'test', 'r2'):.3f} the unchanged config reaches with twice the samples (307 200)"
            if cpu64("154k", "xval", E1, "test", "r2") < cpu64("307k", "xval", E1, "test", "r2")
            else "more samples did not help"
        ),
    ),
    (
        "experiments/parity.md",
        "(6.0e-5, below ridge's 9.3e-5; one seed)",
        lambda: "({}, below ridge's {}".format(
            exp1(cpu64("fields-154k", "xval", DT, "test", "mse")), exp1(cpu64("fields-154k", "ridge", DT, "test", "mse"))
        ),
    ),
    (
        "experiments/parity.md",
        "Δt 6.8e-5 and 2.7e-4 (seed 1: 6.0e-5), two of three below ridge's 9.3e-5 but a mean of 1.3e-4 above it, "
        "Δt out of distribution 0.0062 and 0.0078, and e₁ lost on every seed (R² −0.014, −0.022)",
        lambda: (
            (
                "Δt {} and {} (seed 1: {}), two of three below ridge's {} but a mean of {} above it, "
                "Δt out of distribution {} and {}, and e₁ lost on every seed (R² {:.3f}, {:.3f})"
            )
            .format(
                *(exp1(cpu64("fields-154k", "xval", DT, "test", "mse", seed=s)) for s in (0, 2, 1)),
                exp1(cpu64("fields-154k", "ridge", DT, "test", "mse")),
                exp1(np.mean([cpu64("fields-154k", "xval", DT, "test", "mse", seed=s) for s in (0, 1, 2)])),
                *(sig2(cpu64("fields-154k", "xval", DT, "ood_stepsize", "mse", seed=s)) for s in (0, 2)),
                *(cpu64("fields-154k", "xval", E1, "test", "r2", seed=s) for s in (0, 2)),
            )
            .replace("-", "−")
            .replace("e−", "e-")
        ),
    ),
    # the paper preset's throughput on one H100 and on one H200 (experiments/paper-throughput-h100,
    # -h200; the H200's rows also time every step)
    *(
        ("experiments/training-on-gpus.md", quote, lambda card=card, call=call, model=model: throughput_row(call, model, card))
        for card, call, model, quote in (
            ("h100", "call2", "xval", "| 7.5 | 480 | 211 000 | 59 | 7.4 % | 6.0 % | 18.5 h |"),
            ("h100", "call1", "fone", "| 7.1 | 452 | 200 000 | 56 | 7.0 % | 5.7 % | 19.7 h |"),
            ("h100", "call1", "bittokens", "| 14.8 | 945 | 415 000 | 116 | 14.4 % | 11.7 % | 9.4 h |"),
            ("h100", "call1", "xval+gmm", "| 23.0 | 1 469 | 643 000 | 180 | 22.3 % | 18.2 % | 6.0 h |"),
            ("h100", "call1", "p1000", "| 6.3 | 403 | 404 000 | 125 | 15.6 % | 12.7 % | 22.1 h |"),
            ("h100", "call1", "fp15", "| 18.0 | 1 152 | 514 000 | 144 | 17.9 % | 14.5 % | 7.7 h |"),
            ("h200", "call1", "xval", "| 7.5 | 478 | 210 000 | 59 | 7.4 % | 5.9 % | 18.6 h | 176 (67) | 36 |"),
            ("h200", "call1", "fone", "| 24.2 | 1 552 | 683 000 | 191 | 24.1 % | 19.3 % | 5.7 h | – (0) | 35 |"),
            ("h200", "call1", "bittokens", "| 21.5 | 1 377 | 606 000 | 170 | 21.4 % | 17.2 % | 6.5 h | – (0) | 35 |"),
            ("h200", "call1", "xval+gmm", "| 25.2 | 1 611 | 709 000 | 198 | 25.0 % | 20.0 % | 5.5 h | – (0) | 34 |"),
            ("h200", "call1", "p1000", "| 6.3 | 406 | 406 000 | 126 | 15.9 % | 12.7 % | 21.9 h | 223 (68) | 76 |"),
            ("h200", "call1", "fp15", "| 20.1 | 1 286 | 566 000 | 158 | 20.0 % | 16.0 % | 6.9 h | – (0) | 44 |"),
            ("h200", "call1", "xval (again)", "| 26.9 | 1 723 | 759 000 | 212 | 26.7 % | 21.4 % | 5.2 h | – (0) | 32 |"),
            ("h200", "call2", "xval", "| 21.8 | 1 394 | 614 000 | 171 | 21.6 % | 17.3 % | 6.4 h | 185 (9) | 38 |"),
            ("h200", "call2", "xval (again)", "| 24.7 | 1 581 | 696 000 | 194 | 24.5 % | 19.7 % | 5.6 h | – (0) | 34 |"),
        )
    ),
    (
        "experiments/training-on-gpus.md",
        "bf16 8192³ product 792 TFLOP/s measured",
        lambda: " and ".join(sorted({f"{throughput(c, 'h200')['peak_bf16_measured'] / 1e12:.0f} TFLOP/s" for c in ("call1", "call2")})),
    ),
    (
        "experiments/training-on-gpus.md",
        "at the 0.36 s a new-length step took on average",
        lambda: "{:.2f} s".format(np.mean([s["gpu_ms"] / 1e3 for s in throughput("call1", "h200")["per_step"]["xval"] if s["new"]])),
    ),
    (
        "experiments/training-on-gpus.md",
        "are 20.1–26.9 steps a second (20–27 % of the measured bf16 peak)",
        lambda: "{:.1f}–{:.1f} steps a second ({:.0f}–{:.0f} %".format(
            *steady_h200("steps_per_s"), *(100 * x for x in steady_h200("mfu_measured"))
        ),
    ),
    (
        "experiments/training-on-gpus.md",
        "5.2–6.9 hours for the paper's 500 000 steps on one H200",
        lambda: "{:.1f}–{:.1f} hours".format(*steady_h200("hours_500k_steps")),
    ),
    (
        "experiments/training-on-gpus.md",
        "leaves 9 lengths instead of 67",
        lambda: "{} lengths instead of {}".format(
            *(len({s["length"] for s in throughput(c, "h200")["per_step"]["xval"]}) for c in ("call2", "call1"))
        ),
    ),
    (
        "experiments/training-on-gpus.md",
        "under 1.3 s in all for batches in every row",
        lambda: "under {:.1f} s".format(
            math.ceil(10 * max(r["wait_s"] for c in ("call1", "call2") for r in throughput(c, "h200")["rows"])) / 10
        ),
    ),
    (
        "experiments/training-on-gpus.md",
        "bf16 8192³ product 804 and 794 TFLOP/s in the two calls",
        lambda: "{:.0f} and {:.0f} TFLOP/s".format(*(throughput(c)["peak_bf16_measured"] / 1e12 for c in ("call1", "call2"))),
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


def run_cell(table: Path, model: str, field: str, split: str, metric: str, subset: str = "all") -> float:
    """One cell of a ``scinum evaluate`` table.csv of a published run."""
    t = csv(table)
    row = t[(t["model"] == model) & (t["field"] == field) & (t["split"] == split) & (t["subset"] == subset)]
    return float(row.iloc[0][metric])


def s307(model: str, field: str, split: str, metric: str) -> list[float]:
    """A cell of experiments/planets-structure-307k, per seed 1-3 (subset "all")."""
    return [run_cell(RESULTS / "planets-structure-307k" / f"seed{seed}-table.csv", model, field, split, metric) for seed in (1, 2, 3)]


def b64(prefix: str, model: str, field: str, split: str, metric: str, subset: str = "all") -> list[float]:
    """A cell of experiments/planets-batch64-gpu, per seed 1-3."""
    tables = (RESULTS / "planets-batch64-gpu" / f"{prefix}-seed{seed}-table.csv" for seed in (1, 2, 3))
    return [run_cell(t, model, field, split, metric, subset) for t in tables]


def cpu64(prefix: str, model: str, field: str, split: str, metric: str, subset: str = "all", seed: int = 1) -> float:
    """A cell of experiments/planets-batch64-cpu (seed 1 unless said)."""
    return run_cell(RESULTS / "planets-batch64-cpu" / f"{prefix}-seed{seed}-table.csv", model, field, split, metric, subset)


def cfg64(prefix: str, seed: int = 1) -> dict:
    """The config of a run in experiments/planets-batch64-cpu."""
    return json.loads((RESULTS / "planets-batch64-cpu" / f"{prefix}-seed{seed}-config.json").read_text())


def lr_per_record(prefix: str, seed: int = 1) -> float:
    """The run's learning rate divided by its batch size."""
    c = cfg64(prefix, seed)
    return c["optim"]["lr"] / c["data"]["batch_size"]


def cpu64_row(prefix: str) -> str:
    """``| 64 | samples | 1 | e₁ R² | a₁ | a₁ OoD | Δt | Δt OoD |`` of a CPU batch-64 run."""
    budget = json.loads((RESULTS / "planets-batch64-cpu" / f"{prefix}-seed1-training.json").read_text())["budget"]["samples"]
    cells = [f"{cpu64(prefix, 'xval', E1, 'test', 'r2'):.3f}"]
    for field, split, fmt in ((A1, "test", sig2), (A1, "ood_a1", sig2), (DT, "test", exp1), (DT, "ood_stepsize", sig2)):
        cells.append(fmt(cpu64(prefix, "xval", field, split, "mse")))
    return f"| 64 | {budget:,} | 1 | ".replace(",", " ") + " | ".join(cells) + " |"


def cpu_ablation_row(prefix: str) -> str:
    """``| samples (steps) | LR ÷ batch | e₁ R² | a₁ | Δt | Δt OoD |`` of a CPU run, from its files."""
    steps = json.loads((RESULTS / "planets-batch64-cpu" / f"{prefix}-seed1-training.json").read_text())["steps"]
    head = f"| {cfg64(prefix)['budget']['samples']:,} ({steps:,}) | ".replace(",", " ")
    cells = [exp1(lr_per_record(prefix)), f"{cpu64(prefix, 'xval', E1, 'test', 'r2'):.3f}"]
    cells += [sig2(cpu64(prefix, "xval", A1, "test", "mse")), exp1(cpu64(prefix, "xval", DT, "test", "mse"))]
    cells.append(sig2(cpu64(prefix, "xval", DT, "ood_stepsize", "mse")))
    return head + " | ".join(cells) + " |"


CHANGED_154K = ("maske1.0-154k", "mask0.35-154k", "lr1.4e-3-154k", "nlw0.5-154k")  # the four that keep e₁


def r30(seed: int | str, field: str, split: str, metric: str, preset: str = "parity-b64-30min") -> float:
    """A cell of experiments/planets-<preset> (a cost-cap recipe run): xVal's per seed (0-2) or
    its "mean" over them, or a reference's ("ridge", "boosted trees") from the same table."""
    results = RESULTS / f"planets-{preset}"
    if seed == "mean":
        return float(np.mean([r30(s, field, split, metric, preset) for s in (0, 1, 2)]))
    if isinstance(seed, str):
        t = csv(results / "table.csv")
        row = t[(t.model == seed) & (t.field == field) & (t.split == split) & (t.metric == metric)]
        return float(row.iloc[0]["mean"])
    t = csv(results / "seeds.csv")
    return float(t[(t.model == "xval") & (t.seed == seed) & (t.field == field) & (t.split == split)].iloc[0][metric])


def lr14_minutes() -> tuple[int, int, int]:
    """Training minutes of the LR 1.4e-3 cost-cap run: seed 2's, then seeds 0-1's least and most."""
    runs = meta(RESULTS / f"planets-{LR14}" / "meta.json")["runs"]
    m = [round(runs[f"xval/seed{s}"]["train_seconds"] / 60) for s in (0, 1, 2)]
    return m[2], min(m[:2]), max(m[:2])


def test_the_lr14_cost_cap_runs_are_the_one_seed_run_but_for_validation_and_where_they_ran():
    """experiments/parity.md: the recipe's seed 0 and the one-seed scratch run differ only in how often they
    validate and save, where their files live and the accelerator's name (both on the CPU)."""

    def flat(d, prefix=""):
        out = {}
        for k, v in d.items():
            out.update(flat(v, f"{prefix}{k}.") if isinstance(v, dict) else {f"{prefix}{k}": v})
        return out

    a = flat(json.loads((RESULTS / f"planets-{LR14}" / "xval-seed0-config.json").read_text()))
    b = flat(cfg64("lr1.4e-3-461k", seed=0))
    differ = {k for k in a.keys() | b.keys() if a.get(k) != b.get(k)}
    assert differ == {"data.path", "out_dir", "trainer.accelerator", "trainer.val_check_interval", "trainer.checkpoint_every_n_steps"}
    assert (a["trainer.accelerator"], b["trainer.accelerator"]) == ("auto", "cpu") and a["optim.lr"] == 1.4e-3


def r30_ratio(field: str, split: str, reference: str, preset: str = "parity-b64-30min") -> float:
    """xVal's mean MSE over the seeds of a cost-cap run ÷ a reference's on the same cells."""
    return r30("mean", field, split, "mse", preset) / r30(reference, field, split, "mse", preset)


def r30_row(seed: int | str, preset: str = "parity-b64-30min") -> str:
    """``| seed | e₁ R² | a₁ | a₁ OoD | Δt | Δt OoD | training s |`` of parity.md's cost-cap tables."""
    cells = [f"{r30(seed, E1, 'test', 'r2', preset):.3f}"]
    for field, split, fmt in ((A1, "test", sig2), (A1, "ood_a1", sig2), (DT, "test", exp1), (DT, "ood_stepsize", sig2)):
        cells.append(fmt(r30(seed, field, split, "mse", preset)))
    runs = meta(RESULTS / f"planets-{preset}" / "meta.json")["runs"]
    cells.append(thousands(runs[f"xval/seed{seed}"]["train_seconds"]) if isinstance(seed, int) else "")  # references: none
    return f"| {seed} | " + " | ".join(cells).rstrip() + " |"


def cmp64(model: str, field: str, split: str, metric: str = "mse") -> list[float]:
    """Per-seed values (seeds 0-2) of a model in the compare-b64-30min run (a reference: its one value)."""
    if model in csv(CMP64 / "seeds.csv").model.unique():
        t = csv(CMP64 / "seeds.csv")
        return t[(t.model == model) & (t.field == field) & (t.split == split)].sort_values("seed")[metric].tolist()
    t = csv(CMP64 / "table.csv")
    return [float(t[(t.model == model) & (t.field == field) & (t.split == split) & (t.metric == metric)].iloc[0]["mean"])]


def cmp64_paired(model: str, column: str) -> pd.Series:
    """A model's paired test against xVal in the compare-b64-30min run."""
    return p_paired(model, column, CMP64 / "paired.csv")


def cmp64_means(field: str, split: str) -> list[float]:
    """Each encoding's mean MSE over its seeds in the compare-b64-30min run."""
    return [float(np.mean(cmp64(m, field, split))) for m in CMP64_ROWS if m in csv(CMP64 / "seeds.csv").model.unique()]


def cmp64_row(model: str) -> str:
    """``| model | e₁ test R² | a₁ test | a₁ OoD | Δt test | Δt OoD | training min |`` of
    parity.md's every-encoding table: the mean over seeds and [least, most] (a reference: its value)."""

    def cell(values: list[float], fmt) -> str:
        mean = fmt(float(np.mean(values)))
        return mean if len(values) == 1 else f"{mean} [{fmt(min(values))}, {fmt(max(values))}]"

    cells = [cell(cmp64(model, E1, "test", "r2"), lambda x: f"{x:.3f}")]
    for field, split, fmt in ((A1, "test", sig2), (A1, "ood_a1", sig2), (DT, "test", exp1), (DT, "ood_stepsize", sig2)):
        cells.append(cell(cmp64(model, field, split), fmt))
    runs = meta(CMP64 / "meta.json")["runs"]
    minutes = [r["train_seconds"] / 60 for k, r in runs.items() if k.rsplit("/seed", 1)[0] == model]
    cells.append(f"{min(minutes):.0f}–{max(minutes):.0f}" if minutes else "")
    return f"| {model} | " + " | ".join(cells).rstrip() + " |"


def throughput(call: str, card: str = "h100") -> dict:
    return json.loads((RESULTS / f"paper-throughput-{card}" / f"{call}.json").read_text())


def steady_h200(key: str) -> tuple[float, float]:
    """Least and greatest ``key`` over the H200 rows whose steps met no new batch length."""
    values = [r[key] for c in ("call1", "call2") for r in throughput(c, "h200")["rows"] if r["new_steps"] == 0]
    return min(values), max(values)


def throughput_row(call: str, model: str, card: str) -> str:
    """A row of training-on-gpus.md's table for ``card``, from the benchmark's JSON; the H200's
    rows also carry the steps on new and on seen batch lengths."""
    r = next(r for r in throughput(call, card)["rows"] if r["model"] == model)
    cells = [
        f"{r['steps_per_s']:.1f}",
        f"{r['samples_per_s']:,.0f}",
        f"{round(r['tokens_per_s'], -3):,.0f}",
        f"{r['model_tflops']:.0f}",
        f"{100 * r['mfu_measured']:.1f} %",
        f"{100 * r['mfu_datasheet']:.1f} %",
        f"{r['hours_500k_steps']:.1f} h",
    ]
    if card == "h200":
        new = "–" if r["new_median_ms"] is None else f"{r['new_median_ms']:.0f}"
        cells += [f"{new} ({r['new_steps']})", f"{r['seen_median_ms']:.0f}"]
    return ("| " + " | ".join(cells) + " |").replace(",", " ")


def e1_seeds(prefix: str) -> str:
    return ", ".join(f"{x:.3f}" for x in b64(prefix, "xval", E1, "test", "r2"))


def span_samples(prefix: str) -> str:
    """The range of samples the three runs saw (steps × batch 64), as the docs write it."""
    seen = [json.loads((RESULTS / "planets-batch64-gpu" / f"{prefix}-seed{s}-training.json").read_text())["steps"] * 64 for s in (1, 2, 3)]
    return f"{min(seen):,}–{max(seen):,}".replace(",", " ")


def b64_cells(prefix: str) -> str:
    """a₁, a₁ OoD, Δt, Δt OoD of parity.md's batch-64 rows: mean [min, max] over seeds 1-3."""
    cells = []
    for field, split, fmt in ((A1, "test", sig2), (A1, "ood_a1", sig2), (DT, "test", exp1), (DT, "ood_stepsize", sig2)):
        v = b64(prefix, "xval", field, split, "mse")
        cells.append(f"{fmt(np.mean(v))} [{fmt(min(v))}, {fmt(max(v))}]")
    return " | ".join(cells)


def sig2(x: float) -> str:
    """Two significant digits in fixed notation, trailing zero kept: 0.001032 -> 0.0010."""
    return f"{x:.{max(0, 1 - math.floor(math.log10(abs(x))))}f}"


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
    holm = lambda m, col: bool(p_paired(m, col)["survives_holm"])
    alone = lambda m, col: bool(p_paired(m, col)["significant"])
    assert len(csv(PLANETS / "paired.csv")) == 48  # "the table's 48 tests"
    assert all(holm(m, "a₁") for m in ("p10", "p1000", "b1999", "fone", TUNED))
    assert alone("fp15", "a₁") and not holm("fp15", "a₁")  # "significant alone but does not survive"
    assert all(holm(m, "Δt (OoD)") for m in (*TEXT, "fone", "bittokens"))
    assert not holm(TUNED, "Δt (OoD)") and not holm(GMM, "Δt (OoD)")
    assert alone(GMM, "Δt") and not holm(GMM, "Δt")
    assert not any(holm(GMM, c) for c in ("a₁", "a₁ (OoD)", "e₁", "Δt", "Δt (OoD)", "m₁"))
    assert [m for m in csv(PLANETS / "paired.csv").model.unique() if holm(m, "a₁ (OoD)")] == ["p10", "fone"]
    assert all(holm(m, "e₁") for m in (*TEXT, "fone", "bittokens")) and not holm(TUNED, "e₁")
    assert all(p_paired(m, c)["ratio"] > 1 for m in (*TEXT, "fone", "bittokens") for c in ("a₁", "Δt (OoD)", "e₁"))
    # ERA5: every paired test of every budget survives Holm; xVal+GMM worse at equal samples only
    for budget, d in BUDGET_DIRS.items():
        e = csv(ERA5 / d / "paired.csv")
        assert len(e) == 7 and e["survives_holm"].all(), budget
        assert all(p_paired(m, "", ERA5 / d / "paired.csv")["ratio"] > 1 for m in (*TEXT, "fone", "bittokens"))
        assert (p_paired("xval+gmm", "", ERA5 / d / "paired.csv")["ratio"] > 1) == (budget == "equal samples")
        for m in names_era5():  # "every model under every budget is above ridge"
            c = e_cell(budget, m)
            assert (c["median"] if c["n_diverged"] > 0 else c["mean"]) > e_ref("ridge") < e_ref("climatology")
    for budget in BUDGET_DIRS:  # "xVal is the best of the paper's five"
        means = {m: e_cell(budget, m)["mean"] for m in (*TEXT, "xval")}
        assert min(means, key=means.get) == "xval"


def test_every_encoding_loses_to_ridge_on_every_column_but_m1():
    """comparisons.md: "Every encoding's mean MSE is above ridge's in every column of the table
    but m₁"; the README: "no encoding's e₁ R² is above 0"."""
    t = csv(PLANETS / "table.csv")
    models = t[t.kind == "model"].model.unique()
    columns = [(A1, "test"), (A1, "ood_a1"), (E1, "test"), (DT, "test"), (DT, "ood_stepsize")]
    for m in models:
        for field, split in columns:
            c = p_cell(m, field, split, "mse")
            centre = c["median"] if c["n_diverged"] > 0 else c["mean"]
            assert centre > ref("ridge", field, split), (m, field, split)
    assert (t[(t.kind == "model") & (t.field == E1) & (t.split == "test") & (t.metric == "r2")]["mean"] < 0).all()


def test_only_ridge_leaves_the_training_range():
    """README: beyond the training range every model and boosted trees score no better than the
    truth clamped to it; ridge does."""
    clamp = ref(CLAMP, DT, "ood_stepsize:extrap")
    t = csv(PLANETS / "table.csv")
    for m in t[t.kind == "model"].model.unique():
        c = p_cell(m, DT, "ood_stepsize:extrap", "mse")
        assert (c["median"] if c["n_diverged"] > 0 else c["mean"]) > clamp, m
    assert ref("boosted trees", DT, "ood_stepsize:extrap") > clamp > ref("ridge", DT, "ood_stepsize:extrap")


def test_the_ood_a1_constant_is_shared_by_exactly_the_models_the_docs_name():
    const = constant_predictions()
    assert set(const.values()) == {1.0}
    assert sorted({m for m, _ in const}) == ["b1999", "bittokens", "fp15", "p1000"]
    s = csv(PLANETS / "seeds.csv")
    r = s[(s.field == A1) & (s.split == "ood_a1")]
    same = r[r.mse == p_seeds("p1000", A1, "ood_a1")[0]]
    assert sorted(zip(same.model, same.seed)) == sorted(const)  # the same MSE, exactly those runs


def test_cells_show_their_n():
    t = csv(PLANETS / "table.csv")
    headline = t[(t.kind == "model") & t.metric.isin(["mse", "r2"])]
    assert (headline.n_seeds == 5).all() and (headline.n_records > 0).all()  # README: 5 seeds in every cell
    e = csv(ERA5 / "table.csv")
    assert (e[(e.metric == "mse_K2")].n_seeds == 3).all()  # every ERA5 cell: 3 seeds, unparsed ones scored
    assert sorted(zip(*[e[(e.metric == "mse_K2") & (e.n_diverged > 0)][k] for k in ("budget", "model")])) == [
        ("equal runtime", "bittokens"),
        ("equal tokens", "bittokens"),
    ]  # comparisons.md: "diverges on one seed of three at equal tokens and at equal runtime"


def test_e1_and_m1_are_not_learned_in_any_cell():
    t = csv(PLANETS / "table.csv")
    r2 = t[(t.kind == "model") & t.field.isin([E1, M1]) & (t.metric == "r2") & (t.split == "test")]
    assert (r2["n_diverged"] == 0).all() and (r2["mean"] <= 0).all()


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
    from scinum.analysis.report_cells import fmt_ci, value_text

    rows = _readme_rows("### Every encoding at one budget, over seeds")
    columns = [
        (DT, "test", "r2", "Δt"),
        (DT, "ood_stepsize", "mse", "Δt (OoD)"),
        (A1, "test", "r2", "a₁"),
        (A1, "ood_a1", "mse", "a₁ (OoD)"),
        (E1, "test", "r2", "e₁"),
    ]
    t = csv(PLANETS / "table.csv")
    models = list(t[t.kind == "model"].model.unique())
    references = list(t[t.kind != "model"].model.unique())
    assert list(rows) == models + [f"*{r}*" for r in references]
    for model in models:
        assert rows[model][0] == "5"
        for (field, split, metric, column), cell in zip(columns, rows[model][1:]):
            expect = value_text(p_cell(model, field, split, metric), 3 if metric == "r2" else 2)
            q = p_paired(model, column) if model != "xval" else None
            if q is not None and q["survives_holm"]:
                expect += " **worse**" if q["ratio"] > 1 else " **better**"
            assert cell == expect, (model, column, cell, expect)
    for name in references:
        for (field, split, metric, _), cell in zip(columns, rows[f"*{name}*"][1:]):
            r = t[(t.model == name) & (t.field == field) & (t.split == split) & (t.metric == metric)]
            expect = (
                "–" if r.empty else fmt_ci(*(float(r.iloc[0][k]) for k in ("mean", "ci95_low", "ci95_high")), 3 if metric == "r2" else 2)
            )
            assert cell == expect, (name, field, split, cell, expect)


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
            if c["n_diverged"] > 0:
                expect = f"median {plain(c['median'])} (diverged {int(c['n_diverged'])}/{int(c['n_seeds'])})"
            else:
                expect = f"{plain(c['mean'])} [{plain(c['ci95_low'])}, {plain(c['ci95_high'])}]"
            assert cell.startswith(expect), (label, budget, cell, expect)
            share = e_cell(budget, model, "unparseable")["mean"]
            written = re.search(r"\((\d+) % unparsed\)", cell)
            assert (written is not None) == (share > 1e-4), (label, budget, cell)
            if written:
                assert written.group(1) == f"{100 * share:.0f}", (label, budget, cell, share)
            q = p_paired(model, "", ERA5 / BUDGET_DIRS[budget] / "paired.csv") if model != "xval" else None
            mark = "" if q is None or not q["survives_holm"] else (" **worse**" if q["ratio"] > 1 else " **better**")
            assert cell.endswith(mark), (label, budget, cell, mark)
    for label, model in (("*persistence*", "persistence"), ("*ridge*", "ridge"), ("*boosted trees*", "boosted trees")):
        assert rows[label][0].startswith(plain(e_ref(model))), (label, rows[label])


PARITY = RESULTS / "planets-parity"


def _numbers(cell: str) -> list[float]:
    """The numbers a README cell writes (typographic minus, exponents), in order."""
    return [float(x.replace("−", "-")) for x in re.findall(r"[−-]?\d+(?:\.\d+)?(?:e[−-]?\d+)?", cell)]


def test_readme_parity_table_is_the_published_parity_run():
    """Each README cell's figures are the published cell's mean [and interval] to the digits
    written (every figure 2 significant digits, e₁ R² 3 decimals)."""
    rows = _readme_rows("### Beside a plain regressor: the parity preset")
    names = {
        "xVal, flat learned positions": "xval",
        "**xVal, structure positions**": "xval(structure)",
        "xVal, structure positions, linear value path": "xval(structure, linear)",
        "ridge (regressor)": "ridge",
        "boosted trees (regressor)": "boosted trees",
        "train mean": "train mean",
        "oracle: nearest training value": "oracle: nearest training value",
    }
    columns = [(A1, "test", "mse"), (A1, "ood_a1", "mse"), (E1, "test", "r2"), (DT, "test", "mse"), (DT, "ood_stepsize", "mse")]
    t = csv(PARITY / "table.csv")
    assert set(rows) == set(names)
    for label, model in names.items():
        for (field, split, metric), cell in zip(columns, rows[label]):
            r = t[(t.model == model) & (t.field == field) & (t.split == split) & (t.metric == metric)]
            if cell == "–":
                assert r.empty, (label, field, split)
                continue
            expect = [float(r.iloc[0][k]) for k in ("mean", "ci95_low", "ci95_high")]
            written = _numbers(cell)
            assert 1 <= len(written) <= 3, (label, cell)
            for x, e in zip(written, expect):
                assert x == pytest.approx(e, rel=0.051, abs=1e-12) or abs(x - round(e, 3)) < 1e-9, (label, field, split, cell, expect)


def par(model: str, field: str, split: str, metric: str = "mse") -> float:
    t = csv(PARITY / "table.csv")
    return float(t[(t.model == model) & (t.field == field) & (t.split == split) & (t.metric == metric)].iloc[0]["mean"])


PARITY_CLAIMS = [
    (
        "its a₁ is 1.6× structure positions' alone",
        lambda: f"{par('xval(structure, linear)', A1, 'test') / par('xval(structure)', A1, 'test'):.1f}×",
    ),
    ("Structure positions cut xVal's a₁ error 3×", lambda: f"{par('xval', A1, 'test') / par('xval(structure)', A1, 'test'):.0f}×"),
    (
        "is 4× better on a₁ (boosted trees 19×) and 6× on Δt",
        lambda: "{:.0f}× better on a₁ (boosted trees {:.0f}×) and {:.0f}× on Δt".format(
            par("xval(structure)", A1, "test") / par("ridge", A1, "test"),
            par("xval(structure)", A1, "test") / par("boosted trees", A1, "test"),
            par("xval(structure)", DT, "test") / par("ridge", DT, "test"),
        ),
    ),
    (
        "all three xVal models score 0.0047–0.0049, ridge 0.0016, and the oracle that clamps the truth into the range 0.0042",
        lambda: "{}, ridge {}, and the oracle that clamps the truth into the range {}".format(
            span([par(m, DT, "ood_stepsize:extrap") for m in ("xval", "xval(structure)", "xval(structure, linear)")], g),
            g(par("ridge", DT, "ood_stepsize:extrap")),
            g(par(CLAMP, DT, "ood_stepsize:extrap")),
        ),
    ),
]


@pytest.mark.parametrize("quote,compute", PARITY_CLAIMS, ids=[c[0][:40] for c in PARITY_CLAIMS])
def test_the_readme_parity_figures_are_what_the_parity_run_gives(quote, compute):
    assert quote in doc(R), f"README no longer says: {quote}"
    assert compute() in quote, (compute(), quote)


# -- tables held out by range (experiments/tabular.md, README) ------------------------------------------

TABLES = RESULTS / "tables-by-range"


def _ratio(model: str, table: str, split: str, results: Path = TABLES) -> float:
    """A model's mean MSE over the seeds ÷ the better standard model's, from a published run."""
    from recipes.tables_by_range import STANDARD

    mean = csv(results / "scores.csv").groupby(["table", "model", "split"])["mse"].mean()
    return mean[table, model, split] / min(mean[table, m, split] for m in STANDARD)


def test_the_tables_by_range_table_is_its_scores_and_is_quoted_whole():
    from recipes.tables_by_range import table

    text = (TABLES / "table.md").read_text()
    assert table(csv(TABLES / "scores.csv")) == text
    body = text.split("\n\n", 1)[1].strip()
    assert re.sub(r"\s+", " ", body) in doc("experiments/tabular.md")


DEFAULT, XVAL_HEAD = "scinum.Regressor", "scinum.Regressor, xVal's head"
FREE = "scinum.Regressor, free mixture means"
NOT_ALONE, PRE_LN = f"{FREE}, target not asked alone", f"{FREE}, pre-LN trunk, target not asked alone"
ALL4, THREE = ("engel", "macrodata", "diabetes", "stackloss"), ("engel", "macrodata", "diabetes")


def _span(model: str, tables, split: str = "extrap", fmt: str = "{:.2f}–{:.2f}×") -> str:
    ratios = [_ratio(model, t, split) for t in tables]
    return fmt.format(min(ratios), max(ratios))


def _seed_mse(model: str, table: str, seed: int) -> float:
    s = csv(TABLES / "scores.csv")
    return float(s[(s.model == model) & (s.table == table) & (s.split == "extrap") & (s.seed == seed)]["mse"].iloc[0])


def _each(model: str, tables=ALL4, split: str = "extrap") -> list[float]:
    return [_ratio(model, t, split) for t in tables]


TABLES_CLAIMS = [
    (
        "0.76× on Engel, 1.29× on `macrodata`",
        lambda: "{:.2f}× on Engel, {:.2f}× on `macrodata`".format(*_each(DEFAULT, ("engel", "macrodata"))),
    ),
    (
        "1.20× on `diabetes` and 1.17× on `stackloss`",
        lambda: "{:.2f}× on `diabetes` and {:.2f}× on `stackloss`".format(*_each(DEFAULT, ("diabetes", "stackloss"))),
    ),
    (
        "inside the range 1.06–1.34× on the first three and 1.75× on",
        lambda: _span(DEFAULT, THREE, "test") + " on the first three and {:.2f}×".format(_ratio(DEFAULT, "stackloss", "test")),
    ),
    ("1.54×, 4.52×, 1.15× and 7.57×", lambda: "{:.2f}×, {:.2f}×, {:.2f}× and {:.2f}×".format(*_each(FREE))),
    (
        "(`stackloss`: seed 0 MSE 151, seeds 1 and 2: 12; OLS 7–9)",
        lambda: "seed 0 MSE {:.0f}, seeds 1 and 2: {:.0f}; OLS {:.0f}–{:.0f}".format(
            _seed_mse(FREE, "stackloss", 0),
            _seed_mse(FREE, "stackloss", 1),
            min(_seed_mse("linear (OLS)", "stackloss", k) for k in range(3)),
            max(_seed_mse("linear (OLS)", "stackloss", k) for k in range(3)),
        ),
    ),
    ("With xVal's own head: 0.72–0.99× above the range on three", lambda: _span(XVAL_HEAD, THREE)),
    ("and 1.9× on `stackloss`;", lambda: "{:.1f}×".format(_ratio(XVAL_HEAD, "stackloss", "extrap"))),
    ("inside the range 1.06–1.39× on those three", lambda: _span(XVAL_HEAD, THREE, "test")),
    (
        "6.1× in range, 11.5× above it; alone: 2.4× and 4.5×",
        lambda: "{:.1f}× in range, {:.1f}× above it; alone: {:.1f}× and {:.1f}×".format(
            _ratio(NOT_ALONE, "macrodata", "test"),
            _ratio(NOT_ALONE, "macrodata", "extrap"),
            _ratio(FREE, "macrodata", "test"),
            _ratio(FREE, "macrodata", "extrap"),
        ),
    ),
    ("are 1.4–76× worse than OLS above it", lambda: _span("boosted trees", ALL4, fmt="{:.1f}–{:.0f}×")),
    (
        "| free means, offsets over [−5, 5], no MSE term (the head before) | 1.54× | 4.52× | 1.15× | 7.57× |",
        lambda: "| {:.2f}× | {:.2f}× | {:.2f}× | {:.2f}× |".format(*_each(FREE)),
    ),
]


@pytest.mark.parametrize("quote,compute", TABLES_CLAIMS, ids=[c[0][:40] for c in TABLES_CLAIMS])
def test_the_tabular_doc_figures_are_what_the_tables_run_gives(quote, compute):
    assert quote in doc("experiments/tabular.md"), f"experiments/tabular.md no longer says: {quote}"
    assert compute() in quote, (compute(), quote)


UNSEEN = RESULTS / "tables-by-range-unseen"


def _unseen(model: str, table: str, split: str = "extrap") -> float:
    return _ratio(model, table, split, UNSEEN)


def test_the_unseen_tables_figures_are_their_scores():
    from recipes.tables_by_range import STANDARD, table
    from recipes.tables_by_range import UNSEEN as NAMES

    text = (UNSEEN / "table.md").read_text()
    assert table(csv(UNSEEN / "scores.csv")) == text
    tabular = doc("experiments/tabular.md")
    assert re.sub(r"\s+", " ", text.split("\n\n", 1)[1].strip()) in tabular
    d = [_unseen(DEFAULT, t) for t in NAMES]
    assert "{:.2f}× on Grunfeld, {:.2f}× on the crime rates, {:.2f}× on the card spending, {:.2f}× on Longley".format(*d) in tabular
    trees = [_unseen("boosted trees", t) for t in ("grunfeld", "statecrime", "longley")]
    assert "(boosted trees: {:.2f}×, {:.2f}×, {:.2f}×)".format(*trees) in tabular
    assert "on four more, run only after, {:.1f}–{:.0f}×, between the two standard models".format(min(d), max(d)) in doc(R)
    assert "where a line is {:.2f}×".format(_unseen("linear (OLS)", "ccard")) in tabular
    for t in NAMES:  # between the two standard models on each
        assert min(_unseen(m, t) for m in STANDARD) < _unseen(DEFAULT, t) < max(_unseen(m, t) for m in STANDARD)
    tuned = [_ratio(DEFAULT, t, "extrap") for t in ALL4]
    assert "| defaults (the recipes' runs) | " + " | ".join(f"{r:.2f}×" for r in tuned + d) + " |" in tabular
    assert (
        "{:.2f}–{:.2f}× the better standard model on the first two tables".format(
            *sorted(_unseen(DEFAULT, t, "test") for t in ("grunfeld", "statecrime"))
        )
        in tabular
    )


def test_the_engel_figures_quoted_are_the_published_engel_table():
    text = (RESULTS / "tabular-engel" / "table.md").read_text()
    one, linear = "scinum.Regressor, one member", "scinum.Regressor, linear value path"
    free = f"{one}, linear value path, free mixture means"
    for row, split, ratio in (
        (DEFAULT, "extrap", "0.58×"),
        (DEFAULT, "test", "1.11×"),
        (one, "extrap", "0.65×"),
        (one, "test", "1.12×"),
        (linear, "extrap", "0.75×"),
        (f"{one}, linear value path", "extrap", "0.65×"),
        (f"{one}, linear value path, xVal's head", "extrap", "0.70×"),
        (free, "extrap", "1.35×"),
        (free, "test", "1.17×"),
        (f"{free}, target not asked alone", "extrap", "1.43×"),
        (f"{free}, target not asked alone", "test", "1.11×"),
        (f"{one}, free mixture means, pre-LN trunk, target not asked alone", "extrap", "1.71×"),
        ("boosted trees", "extrap", "1.41×"),
        ("boosted trees", "test", "1.21×"),
    ):
        line = next(x for x in text.splitlines() if x.startswith(f"| {row} | {split} |"))
        assert f"| {ratio} |" in line, (row, split, line)
        assert ratio in doc("experiments/tabular.md")
    cover = next(x for x in text.splitlines() if x.startswith(f"| {DEFAULT} | extrap |")).split("|")[-2].strip()
    assert cover.replace("%", " %") in doc("experiments/tabular.md"), cover
    r2 = next(x for x in text.splitlines() if x.startswith(f"| {DEFAULT} | extrap |")).split("|")[3].split()[0]
    assert f"R² {float(r2):.2f} against OLS's" in doc("experiments/tabular.md")
    seconds = meta(RESULTS / "tabular-engel" / "meta.json")["fit_seconds"]
    assert f"three models each, took {min(seconds):.0f}–{max(seconds):.0f} s" in doc("experiments/tabular.md")
    readme = doc("experiments/overview.md")
    assert (
        "its MSE is 0.58× a straight line's (one member: 0.65×; boosted trees: 1.41×; the ensemble before, on the linear value path: 0.75×;"
        in readme
    )
    assert "which gives no intervals: 0.70×" in readme
    assert f"one model was {_span(DEFAULT, ALL4, fmt='{:.2f}–{:.2f}×')} the best standard model above the range" in readme


ENSEMBLE, FRESH_RUN = RESULTS / "tables-by-range-ensemble", RESULTS / "tables-by-range-fresh"
ONE = "scinum.Regressor, one member"


def test_the_ensemble_tables_are_their_scores_and_their_claims_hold():
    """experiments/tabular.md *An ensemble of three* and the README: every figure from the two published runs."""
    from recipes.tables_by_range import FRESH, TUNED, table
    from recipes.tables_by_range import UNSEEN as UNSEEN_NAMES

    tabular = doc("experiments/tabular.md")
    for results in (ENSEMBLE, FRESH_RUN):
        text = (results / "table.md").read_text()
        assert table(csv(results / "scores.csv")) == text
        assert re.sub(r"\s+", " ", text.split("\n\n", 1)[1].strip()) in tabular
    eight = {t: (_ratio(DEFAULT, t, "extrap", ENSEMBLE), _ratio(ONE, t, "extrap", ENSEMBLE)) for t in (*TUNED, *UNSEEN_NAMES)}
    four = {t: (_ratio(DEFAULT, t, "extrap", FRESH_RUN), _ratio(ONE, t, "extrap", FRESH_RUN)) for t in FRESH}
    within = lambda d, i: [t for t, r in d.items() if r[i] <= 1.5]  # noqa: E731
    assert (
        within(eight, 0) == ["engel", "macrodata", "diabetes", "longley"]
        and "on four of the\n  eight" in (ROOT / "experiments/tabular.md").read_text()
    )
    assert within(eight, 1) == ["engel", "macrodata", "diabetes"]
    assert (
        "(Engel {:.2f}×, `macrodata` {:.2f}×, `diabetes` {:.2f}×, Longley {:.2f}×; `stackloss` {:.2f}×".format(
            *(eight[t][0] for t in ("engel", "macrodata", "diabetes", "longley", "stackloss"))
        )
        in tabular
    )
    assert "the card spending ({1:.2f}× → {0:.2f}×), Longley ({3:.2f}× → {2:.2f}×".format(*eight["ccard"], *eight["longley"]) in tabular
    mt = (_ratio(ONE, "macrodata", "test", ENSEMBLE), _ratio(DEFAULT, "macrodata", "test", ENSEMBLE))
    assert "`macrodata` in range ({:.2f}× → {:.2f}×)".format(*mt) in tabular
    assert (
        "Grunfeld {1:.2f}× →\n  {0:.2f}×, the crime rates {3:.2f}× → {2:.2f}×".format(*eight["grunfeld"], *eight["statecrime"]).replace(
            "\n  ", " "
        )
        in tabular
    )
    for t in ("engel", "diabetes", "grunfeld"):  # the one-member rerun gives the published one-model ratios
        old = TABLES if t in TUNED else UNSEEN
        assert f"{_ratio(ONE, t, 'extrap', ENSEMBLE):.2f}" == f"{_ratio(DEFAULT, t, 'extrap', old):.2f}"
    assert (
        "(`stackloss` {:.2f}× against {:.2f}×, `macrodata` {:.2f}× against {:.2f}×, card spending {:.2f}× against {:.2f}×)".format(
            eight["stackloss"][1],
            _ratio(DEFAULT, "stackloss", "extrap"),
            eight["macrodata"][1],
            _ratio(DEFAULT, "macrodata", "extrap"),
            eight["ccard"][1],
            _unseen(DEFAULT, "ccard"),
        )
        in tabular
    )
    assert within(four, 0) == ["danish_data", "scotland", "star98"] and within(four, 1) == ["danish_data", "scotland", "star98"]
    assert (
        "(Danish money {:.2f}×, the devolution vote {:.2f}×, the schools {:.2f}×) and not on copper ({:.2f}×".format(
            *(four[t][0] for t in ("danish_data", "scotland", "star98", "copper"))
        )
        in tabular
    )
    assert (
        "One member: {:.2f}×, {:.2f}×, {:.2f}× and {:.2f}×".format(*(four[t][1] for t in ("danish_data", "scotland", "star98", "copper")))
        in tabular
    )
    assert "the trees, {:.2f}×)".format(_ratio("boosted trees", "copper", "extrap", FRESH_RUN)) in tabular
    ft = sorted(_ratio(DEFAULT, t, "test", FRESH_RUN) for t in ("danish_data", "scotland", "star98"))
    assert (
        "is {:.2f}–{:.2f}× on the three larger tables and {:.2f}× on copper".format(
            ft[0], ft[-1], _ratio(DEFAULT, "copper", "test", FRESH_RUN)
        )
        in tabular
    )
    both = {**eight, **four}
    n_ens, n_one = len(within(both, 0)), len(within(both, 1))
    assert (n_ens, n_one) == (7, 6)
    assert "on seven, one member on\n  six" in (ROOT / "experiments/tabular.md").read_text()
    rest = [r[0] for r in both.values() if r[0] > 1.5]
    assert f"on seven of twelve (one model: six) and {min(rest):.1f}–{max(rest):.0f}× on the other five" in doc(R)
    assert (
        f"within 1.5× on {n_ens} of 12 tables ({len(within(eight, 0))} of those 8, {len(within(four, 0))} of 4 chosen after it), "
        f"{min(rest):.1f}–{max(rest):.0f}× on the other five" in doc("experiments/parity.md")
    )


def test_the_readme_co2_rows_are_the_published_co2_table():
    t = csv(RESULTS / "co2" / "table.csv").set_index(["model", "split"])
    rows = {"xVal, trained for `co2[6]` (`mask_fields`)": "xval, fill-task", "xVal, MLM masking only": "xval, MLM only"}
    for label, model in rows.items():
        test, late = t.loc[(model, "test")], t.loc[(model, "ood_late")]
        row = f"| {label} | {test.mse:.4f} | {test.r2:.4f} | {late.mse:.3f} | {late.r2:.3f} |"
        assert row in doc(R), row
    interp = t.loc[("linear interpolation", "ood_late")]
    assert f"| {interp.mse:.3f} | {interp.r2:.3f} |" in doc(R)
    for model, label in (("ridge", "ridge (regressor)"), ("boosted trees", "boosted trees (regressor)"), ("train mean", "train mean")):
        test, late = t.loc[(model, "test")], t.loc[(model, "ood_late")]
        digits = 3 if model == "train mean" else 4
        row = f"| {label} | {test.mse:.4g} | {test.r2:.{digits}f} | {late.mse:.3g} | {late.r2:.{1 if model == 'train mean' else 3}f} |"
        assert row.replace("-", "−") in doc(R), row


MLP_RUN, BLIND_RUN = RESULTS / "tables-by-range-mlp-path", RESULTS / "tables-by-range-blind"
MLP = "scinum.Regressor, MLPs on the residual stream"


def test_the_mlp_path_tables_are_their_scores_and_their_claims_hold():
    """experiments/tabular.md *The MLPs on the residual stream*: the linear_mlp ensemble (the default
    since) against the linear path's (the ensemble runs' ``scinum.Regressor`` row, and the blind
    run's), every figure from the published runs."""
    from recipes.tables_by_range import BLIND, FRESH, TUNED, UNSEEN, table

    tabular = doc("experiments/tabular.md").replace("**", "")
    for results in (MLP_RUN, BLIND_RUN):
        text = (results / "table.md").read_text()
        assert table(csv(results / "scores.csv")) == text
        assert re.sub(r"\s+", " ", text.split("\n\n", 1)[1].strip()) in tabular
        assert meta(results / "meta.json")["commit"].startswith("d0a0a8b")
    linear_run = {**{t: ENSEMBLE for t in (*TUNED, *UNSEEN)}, **{t: FRESH_RUN for t in FRESH}, **{t: BLIND_RUN for t in BLIND}}
    mlp_run = {**{t: MLP_RUN for t in (*TUNED, *UNSEEN, *FRESH)}, **{t: BLIND_RUN for t in BLIND}}
    r = {
        (t, split): (_ratio(DEFAULT, t, split, linear_run[t]), _ratio(MLP, t, split, mlp_run[t]))
        for t in linear_run
        for split in ("test", "extrap")
    }

    def count(split, i, cut=1.5):
        return sum(v[i] <= cut for (t, s), v in r.items() if s == split)

    def gmean(split, i):
        return float(np.exp(np.mean([np.log(v[i]) for (t, s), v in r.items() if s == split])))

    def better(split):
        return sum(v[1] < v[0] for (t, s), v in r.items() if s == split)

    words = {8: "eight", 9: "nine", 10: "ten", 12: "twelve", 13: "thirteen"}
    assert (count("extrap", 1), count("extrap", 0), better("extrap")) == (10, 8, 10)
    assert (
        f"within 1.5× of the better standard model on {words[10]}, the linear path's on {words[8]}, and better than it on "
        f"{words[10]} of sixteen; geometric mean of the ratios {gmean('extrap', 1):.2f}× against {gmean('extrap', 0):.2f}×" in tabular
    )
    for name, t in (("copper", "copper"), ("the El Niño December", "elnino"), ("Grunfeld", "grunfeld"), ("the committees", "committee")):
        assert "{} {:.2f}× → {:.2f}×".format(name, *r[t, "extrap"]) in tabular, t
    assert "`macrodata` {:.2f}× → {:.2f}×".format(*r["macrodata", "extrap"]) in tabular
    line_best = [t for t in ("copper", "elnino", "grunfeld", "macrodata") if _ratio("linear (OLS)", t, "extrap", mlp_run[t]) == 1.0]
    assert len(line_best) == 4 and _ratio("boosted trees", "committee", "extrap", BLIND_RUN) == 1.0
    assert "(there the trees are the better one, OLS {:.2f}×)".format(_ratio("linear (OLS)", "committee", "extrap", BLIND_RUN)) in tabular
    assert "cancer deaths {:.2f}× → {:.2f}×".format(*r["cancer", "extrap"]) in tabular
    assert "Linnerud's ({1:.2f}× against {0:.2f}×".format(*r["linnerud", "extrap"]) in tabular
    assert [t for t in BLIND if r[t, "extrap"][0] <= 1.5] == [t for t in BLIND if r[t, "extrap"][1] <= 1.5] == ["committee"]
    assert sum(r[t, "extrap"][1] < r[t, "extrap"][0] for t in BLIND) == 3
    assert "card spending ({1:.2f}×, linear path {0:.2f}×)".format(*r["ccard", "extrap"]) in tabular
    assert "crime rates ({1:.2f}×, {0:.2f}×)".format(*r["statecrime", "extrap"]) in tabular
    assert "(OLS {:.2f}×, the trees best)".format(_ratio("linear (OLS)", "ccard", "extrap", ENSEMBLE)) in tabular
    assert _ratio("boosted trees", "ccard", "extrap", ENSEMBLE) == 1.0 and _ratio("linear (OLS)", "statecrime", "extrap", ENSEMBLE) == 1.0
    assert (count("test", 1), count("test", 0), better("test")) == (12, 13, 9)
    assert f"geometric mean {gmean('test', 1):.2f}× against {gmean('test', 0):.2f}×; better on {words[9]}" in tabular
    assert (
        "4 test rows go from {:.2f}× to {:.2f}×, Longley's 3 from {:.2f}× to {:.2f}×".format(*r["committee", "test"], *r["longley", "test"])
        in tabular
    )
    rest = [v[1] for (t, s), v in r.items() if s == "extrap" and v[1] > 1.5]
    twelve = sum(r[t, "extrap"][1] <= 1.5 for t in (*TUNED, *UNSEEN, *FRESH))
    assert len(rest) == 6 and (
        f"within 1.5× on {count('extrap', 1)} of 16 tables ({twelve} of those 12; "
        f"1 of 4 more, committed before any model ran on them; the linear path: {count('extrap', 0)} of 16), "
        f"{min(rest):.1f}–{max(rest):.1f}× on the other {len(rest)}".replace(f"other {len(rest)}", "other six")
        in doc("experiments/parity.md")
    )


CURVATURE_RUN, CURVATURE_SWEEP = RESULTS / "tables-by-range-curvature", RESULTS / "tables-curvature-sweep"
CURVATURE = "scinum.Regressor, curvature penalty"


def _curvature_ratios() -> dict[tuple[str, str], tuple[float, float]]:
    """(table, split) -> (the ensemble before, with the penalty): MSE ÷ the better standard model's."""
    from recipes.tables_by_range import BLIND, HELD_OUT_BY

    return {
        (t, s): (_ratio(MLP, t, s, BLIND_RUN if t in BLIND else MLP_RUN), _ratio(CURVATURE, t, s, CURVATURE_RUN))
        for t in HELD_OUT_BY
        for s in ("test", "extrap")
    }


def test_the_curvature_table_is_its_scores_and_its_claims_hold():
    """experiments/tabular.md *A curvature penalty*: the sixteen-table table rebuilt from the published
    runs, and every count, mean and figure of its bullets."""
    from recipes.tables_by_range import HELD_OUT_BY, STANDARD, table

    tabular = doc("experiments/tabular.md").replace("**", "")
    assert table(csv(CURVATURE_RUN / "scores.csv")) == (CURVATURE_RUN / "table.md").read_text()
    m = meta(CURVATURE_RUN / "meta.json")
    assert m["commit"].startswith("8b42ebf") and not m["dirty"] and m["rows"] == [CURVATURE] and m["tables"] == list(HELD_OUT_BY)
    r = _curvature_ratios()
    n = csv(CURVATURE_RUN / "scores.csv").groupby(["table", "split"])["n"].first()
    for t in HELD_OUT_BY:
        o, tr = (_ratio(x, t, "extrap", CURVATURE_RUN) for x in STANDARD)
        best = f"OLS (trees {tr:.2f}×)" if o == 1.0 else f"trees (OLS {o:.2f}×)"
        cells = [f"{n[t, s]} | {r[t, s][0]:.2f}× | {r[t, s][1]:.2f}×" for s in ("test", "extrap")]
        assert f"| {t} ({HELD_OUT_BY[t]}) | {cells[0]} | {cells[1]} | {best} |" in tabular, t

    def split(s):
        return [v for (t, x), v in r.items() if x == s]

    def gmean(vs, i):
        return float(np.exp(np.mean([np.log(v[i]) for v in vs])))

    words = {9: "nine", 10: "ten", 11: "eleven", 12: "twelve", 14: "fourteen"}
    up, inside = split("extrap"), split("test")
    within = [words[sum(v[i] <= 1.5 for v in up)] for i in (1, 0)] + [words[sum(v[1] < v[0] for v in up)]]
    claim = f"within 1.5× of the better standard model on {within[0]} of sixteen tables (before: {within[1]}), better on {within[2]}"
    assert claim in tabular
    assert f"geometric mean of the ratios {gmean(up, 1):.2f}× against {gmean(up, 0):.2f}×" in tabular
    for name, t in (("cancer deaths", "cancer"), ("Linnerud", "linnerud"), ("copper", "copper"), ("the El Niño December", "elnino")):
        assert "{} {:.2f}× → {:.2f}×".format(name, *r[t, "extrap"]) in tabular, t
        assert _ratio("linear (OLS)", t, "extrap", CURVATURE_RUN) == 1.0
    assert "the card spending {:.2f}× → {:.2f}×".format(*r["ccard", "extrap"]) in tabular
    assert "the committees {:.2f}× → {:.2f}×".format(*r["committee", "extrap"]) in tabular
    assert _ratio("boosted trees", "committee", "extrap", CURVATURE_RUN) == 1.0
    assert "stack loss {:.2f}× → {:.2f}×".format(*r["stackloss", "extrap"]) in tabular
    assert "Engel {:.2f}× → {:.2f}× (still within)".format(*r["engel", "extrap"]) in tabular and r["engel", "extrap"][1] <= 1.5
    scores = csv(CURVATURE_RUN / "scores.csv")

    def per_seed(t):
        d = scores[(scores.table == t) & (scores.split == "extrap")].pivot(index="seed", columns="model", values="mse")
        return (d[CURVATURE] / d[list(STANDARD)].min(axis=1)).tolist()

    assert "(2 rows; seeds {:.2f}×, {:.2f}×, {:.2f}×)".format(*per_seed("stackloss")) in tabular
    lin = per_seed("linnerud")
    assert f"Linnerud (one seed of three at {lin[2]:.2f}×, the other two {lin[0]:.2f}×, {lin[1]:.2f}×)" in tabular
    above = [t for t in HELD_OUT_BY if r[t, "extrap"][1] > 1.5]
    assert above == ["stackloss", "statecrime", "ccard", "committee", "linnerud"]
    assert "the crime rates ({:.2f}×)".format(r["statecrime", "extrap"][1]) in tabular
    within_in = [words[sum(v[i] <= 1.5 for v in inside)] for i in (1, 0)]
    better_in = words[sum(v[1] < v[0] for v in inside)]
    assert f"better on {better_in} of sixteen: within 1.5× on {within_in[0]} (before: {within_in[1]})" in tabular
    assert f"geometric mean {gmean(inside, 1):.2f}× against {gmean(inside, 0):.2f}×" in tabular
    readme = doc("experiments/overview.md")  # the product's docstrings carry no measured figure since
    assert f"on {sum(v[1] <= 1.5 for v in up)} of 16 tables ({sum(v[0] <= 1.5 for v in up)} without)" in readme
    rest = [v[1] for v in up if v[1] > 1.5]
    assert (
        f"on {sum(v[1] <= 1.5 for v in inside)} inside it ({sum(v[0] <= 1.5 for v in inside)} without), "
        f"{min(rest):.1f}–{max(rest):.1f}× on the other five" in readme
    )
    assert (
        f"within 1.5× on {sum(v[1] <= 1.5 for v in up)} of 16 above the range (inside it on {sum(v[1] <= 1.5 for v in inside)}), "
        f"{min(rest):.1f}–{max(rest):.1f}× on the other five" in doc("experiments/parity.md")
    )
    assert f"`scinum.Regressor`: {sum(v[1] <= 1.5 for v in up)} of 16 above the range" in doc("experiments/parity.md")  # its summary table


def test_the_curvature_sweep_is_its_file():
    """experiments/tabular.md *A curvature penalty*, the weight sweep: every cell and claim from sweep.jsonl."""
    rows: dict = {}
    for line in (CURVATURE_SWEEP / "sweep.jsonl").read_text().splitlines():
        d = json.loads(line)
        o = d["opts"]["optim"]
        rows.setdefault((o["curvature_weight"], o.get("curvature_share", 1)), {})[d["table"], d["seed"]] = d
    tabular = doc("experiments/tabular.md")
    tables = ["cancer", "statecrime", "ccard", "copper", "elnino", "linnerud"]
    for (w, share), v in rows.items():
        cells = [" / ".join(f"{v[t, s]['extrap']:.2f}" for s in (0, 1) if (t, s) in v) or "—" for t in tables]
        label = "0 (before) | —" if w == 0 else f"{w:g} | {share:g}"
        assert f"| {label} | " + " | ".join(cells) + " |" in tabular, (w, share)
    base, ten, quarter = rows[0, 1], rows[10, 1], rows[10, 0.25]
    below = [k for k in base if ten[k]["extrap"] < base[k]["extrap"]]
    assert len(below) == 10 and sorted(set(base) - set(below)) == [("copper", 1), ("elnino", 0)]
    thirty = rows[30, 1]
    assert sum(all(thirty[t, s]["extrap"] < ten[t, s]["extrap"] for s in (0, 1)) for t in tables) == 4

    def mean(v, t):
        return (v[t, 0]["extrap"] + v[t, 1]["extrap"]) / 2

    assert sum(mean(quarter, t) > mean(ten, t) for t in tables) == 5
    seconds = [sum(d["s"] for d in v.values()) for v in (ten, base)]
    assert f"took {seconds[0]} s with it against {seconds[1]} s" in tabular and f"({seconds[0] / seconds[1]:.2f}×" in tabular


def test_the_planets_curvature_probe_is_its_runs():
    """experiments/parity.md *A curvature penalty on planets*: every MSE from the probe's seeds.csv files."""
    probe = RESULTS / "planets-curvature-probe"
    seeds = pd.concat([csv(probe / "seeds.csv"), csv(probe / "weight1" / "seeds.csv")])
    mse = seeds[seeds.kind == "model"].set_index(["model", "field", "split"])["mse"]
    cols = [("planet0.a", "test"), ("planet0.a", "ood_a1"), ("planet0.e", "test"), ("stepsize", "test"), ("stepsize", "ood_stepsize")]
    parity = doc("experiments/parity.md")
    for label, model in (("xVal+GMM", "none"), ("+ penalty, weight 10", "curv10"), ("+ penalty, weight 1", "curv1")):
        cells = " | ".join(f"{mse[model, 'description.' + f, s]:.2g}" for f, s in cols)
        assert f"| {label} | {cells} |" in parity, (label, cells)
    trees_a1_ood = 0.0054  # the better regressor's a₁ OoD MSE on these records (the probe's table.md)
    assert set(seeds.seed) == {0} and all(mse[m, "description.planet0.a", "ood_a1"] < trees_a1_ood for m in ("curv1", "curv10"))
    assert "| *boosted trees* (standard regressor" in (probe / "table.md").read_text()
    dt = [(m, "description.stepsize", s) for m in ("curv1", "curv10") for s in ("test", "ood_stepsize")]
    assert all(mse[k] > mse[("none",) + k[1:]] for k in dt)  # Δt worse in and out of distribution at both weights


def test_the_engel_figures_with_the_curvature_penalty_are_its_run():
    """experiments/tabular.md and the README on Engel's table with the penalty: the new run's default row,
    and its row without the penalty equal to the published run's default row."""
    new, old = (RESULTS / "tabular-engel-curvature" / "table.md").read_text(), (RESULTS / "tabular-engel" / "table.md").read_text()

    def row(text, model, split):
        return next(x for x in text.splitlines() if x.startswith(f"| {model} | {split} |")).split(" | ")

    tabular, readme = doc("experiments/tabular.md"), doc("experiments/overview.md")
    cur = {s: row(new, DEFAULT, s) for s in ("test", "extrap")}
    before = {s: row(new, "scinum.Regressor, no curvature penalty", s) for s in ("test", "extrap")}
    for s in ("test", "extrap"):
        assert before[s][2:] == row(old, DEFAULT, s)[2:]  # the same figures as the published defaults
    assert (
        f"the ensemble is {cur['test'][4]} the better standard model inside the range and {cur['extrap'][4]} above it "
        f"(R² {cur['extrap'][2].split()[0]} there); without the penalty {before['test'][4]} and {before['extrap'][4]} "
        f"(R² {before['extrap'][2].split()[0]})" in tabular
    )
    claim = f"it is {cur['test'][4]} the better standard model inside that range ({before['test'][4]} before)"
    assert f"{claim} and {cur['extrap'][4]} a straight line's" in readme
    assert row(new, "linear (OLS)", "extrap")[4] == "1.00×"
    m = meta(RESULTS / "tabular-engel-curvature" / "meta.json")
    assert m["commit"].startswith("2b70c71") and not m["dirty"]
    s_new, s_old = m["fit_seconds"], meta(RESULTS / "tabular-engel" / "meta.json")["fit_seconds"]
    assert (
        f"took {min(s_new):.0f}–{max(s_new):.0f} s per seed (the published run without it: {min(s_old):.0f}–{max(s_old):.0f} s" in tabular
    )


def _mixup_row(seeds: pd.DataFrame, model: str, label: str) -> str:
    """experiments/parity.md *Mixup of records*: a model's row, mean [least, most] over its seeds."""
    cols = [("planet0.e", "test", "r2"), ("planet0.a", "test", "mse"), ("planet0.a", "ood_a1", "mse"), ("stepsize", "test", "mse")]
    cols += [("stepsize", s, "mse") for s in ("ood_stepsize", "ood_stepsize:interp", "ood_stepsize:extrap")]
    s = seeds[(seeds.model == model) & (seeds.kind == "model")]
    cells = []
    for field, split, metric in cols:
        v = s[(s.field == "description." + field) & (s.split == split)][metric]
        f = (lambda x: f"{x:.3f}") if metric == "r2" else g
        cells.append(f"{f(v.mean())} [{f(v.min())}, {f(v.max())}]")
    return f"| {label} | " + " | ".join(cells) + " |"


def test_the_planets_mixup_probe_is_its_runs():
    """experiments/parity.md *Mixup of records* and the README: every row from the probes' seeds.csv, and
    the sentences' claims."""
    probe = RESULTS / "planets-mixup-probe"
    seeds, reach = csv(probe / "seeds.csv"), csv(probe / "reach0.5" / "seeds.csv")
    parity, readme = doc("experiments/parity.md"), doc("experiments/overview.md")
    for frame, model, label in ((seeds, "none", "xVal+GMM"), (seeds, "mixup", "+ mixup"), (reach, "mixup-reach0.5", "+ mixup, reach 0.5")):
        assert set(frame[frame.model == model].seed) == {0, 1, 2}
        assert _mixup_row(frame, model, label) in parity, label
    mse = seeds[seeds.kind == "model"].set_index(["model", "field", "split", "seed"])["mse"].sort_index()
    dt = "description.stepsize"
    per_seed = [mse["mixup", dt, "ood_stepsize", s] for s in (0, 1, 2)]
    assert [round(x, 4) for x in per_seed] == [0.0019, 0.0040, 0.0017] and sum(x < 0.0021 for x in per_seed) == 2
    table = csv(probe / "table.csv").set_index(["model", "field", "split", "metric"])["mean"]
    ridge = {s: table["ridge", dt, s, "mse"] for s in ("ood_stepsize", "ood_stepsize:interp", "ood_stepsize:extrap")}
    assert min(per_seed) > ridge["ood_stepsize"] and [g(v) for v in ridge.values()] == ["0.0013", "0.0012", "0.0016"]
    means = {m: mse[m, dt, "ood_stepsize"].mean() for m in ("none", "mixup")}
    assert f"xVal+GMM {g(means['none'])} → {g(means['mixup'])} over seeds 0–2" in readme
    assert g(mse["none", dt, "ood_stepsize:extrap"].mean()) == g(mse["mixup", dt, "ood_stepsize:extrap"].mean()) == "0.0039"
    nearest = table["oracle: nearest training value", dt, "ood_stepsize:interp", "mse"]
    assert f"(0.0053 against {g(nearest)}; ridge {g(ridge['ood_stepsize:interp'])})" in parity
    for run in (probe, probe / "reach0.5", probe / "weight4-quarter"):
        assert meta(run / "meta.json")["commit"][:7] in {"821b280", "6b7ff71"}


def test_the_reach_and_mixup_sweep_is_its_file():
    """experiments/tables-reach-mixup-sweep and experiments/tabular.md: the geometric means and counts
    from the sweep (the default's six tables from tables-curvature-sweep)."""
    lines = [json.loads(x) for x in (RESULTS / "tables-reach-mixup-sweep" / "sweep.jsonl").read_text().splitlines()]
    before = [json.loads(x) for x in (RESULTS / "tables-curvature-sweep" / "sweep.jsonl").read_text().splitlines() if x.startswith("{")]
    groups: dict[str, list] = {}
    for d in lines + [d for d in before if d["opts"] == {"members": 1, "optim": {"curvature_weight": 10}}]:
        groups.setdefault(json.dumps(d["opts"]["optim"], sort_keys=True), []).append(d)
    readme, tabular = (RESULTS / "tables-reach-mixup-sweep" / "README.md").read_text(), doc("experiments/tabular.md")
    labels = {
        '{"curvature_weight": 10}': "`curvature_weight: 10` (the default)",
        '{"curvature_reach": 2, "curvature_weight": 10}': "+ `curvature_reach: 2`",
        '{"curvature_reach": 5, "curvature_weight": 10}': "+ `curvature_reach: 5`",
        '{"curvature_reach": 2, "curvature_weight": 10, "weight_decay": 0}': "+ `curvature_reach: 2, weight_decay: 0`",
        '{"curvature_weight": 10, "mixup_weight": 1}': "+ `mixup_weight: 1`",
        '{"curvature_weight": 10, "mixup_reach": 0.5, "mixup_weight": 1}': "+ `mixup_weight: 1, mixup_reach: 0.5`",
    }
    assert set(groups) == set(labels)
    gm = {}
    for key, rows in groups.items():
        assert len(rows) == 16 and {(d["table"], d["seed"]) for d in rows} == {(d["table"], d["seed"]) for d in groups[key]}
        e, t = (math.exp(np.mean(np.log([d[s] for d in rows]))) for s in ("extrap", "test"))
        within = sum(d["extrap"] <= 1.5 for d in rows)
        assert f"| {labels[key]} | {e:.2f} | {t:.2f} | {within} |" in readme, key
        gm[key] = e
    assert min(gm, key=gm.get) == '{"curvature_weight": 10}'  # none better above the range than the default
    assert "Against the default's geometric mean of 1.57× above the range (8 of the 16 table-seeds within 1.5×)" in tabular
    assert "mixup 2.34× (4), mixup with reach 0.5 1.97× (6), the card spending once at 63×" in tabular


def test_the_mixup_run_at_the_cap_is_its_runs():
    """experiments/parity.md *Mixup of records*: the two seeds at the cap beside compare-b64-30min's
    xVal+GMM of the same seeds, every figure from the two seeds.csv."""
    new, old = csv(RESULTS / "planets-mixup-probe" / "cap" / "seeds.csv"), csv(RESULTS / "planets-compare-b64-30min" / "seeds.csv")

    def at(frame, model, field, split, metric="mse"):
        s = frame[(frame.model == model) & (frame.kind == "model") & (frame.field == "description." + field) & (frame.split == split)]
        return [float(s[s.seed == seed][metric].iloc[0]) for seed in (0, 1)]

    parity = doc("experiments/parity.md")
    e1 = [", ".join(f"{x:.3f}" for x in at(f, m, "planet0.e", "test", "r2")) for f, m in ((new, "mixup"), (old, "xval+gmm(mse1)"))]
    assert f"e₁ stays learnable — R² {e1[0]} (without mixup" in parity and f"compare-b64-30min/table.md): {e1[1]})" in parity
    dt = [", ".join(g(x) for x in at(f, m, "stepsize", "ood_stepsize")) for f, m in ((new, "mixup"), (old, "xval+gmm(mse1)"))]
    assert f"Δt OoD is {dt[0]} (without {dt[1]})" in parity
    assert f"at the cap, two seeds, {dt[0].replace(', ', ' and ')} (43 one-core minutes" in parity  # the targets table
    a1 = [", ".join(g(x) for x in at(f, m, "planet0.a", "ood_a1")) for f, m in ((new, "mixup"), (old, "xval+gmm(mse1)"))]
    assert f"a₁ OoD {a1[0]} (without {a1[1]})" in parity
    assert meta(RESULTS / "planets-mixup-probe" / "cap" / "meta.json")["commit"].startswith("7128910")


def test_the_weight_average_sweep_on_tables_is_its_file():
    """experiments/tables-weight-average-sweep and experiments/tabular.md: the geometric means, counts
    and the card-spending ratios from the sweep (the default's lines from the two sweeps before)."""
    lines = [json.loads(x) for x in (RESULTS / "tables-weight-average-sweep" / "sweep.jsonl").read_text().splitlines()]
    before = [json.loads(x) for x in (RESULTS / "tables-curvature-sweep" / "sweep.jsonl").read_text().splitlines() if x.startswith("{")]
    before += [json.loads(x) for x in (RESULTS / "tables-reach-mixup-sweep" / "sweep.jsonl").read_text().splitlines()]
    default = [d for d in before if d["opts"] == {"members": 1, "optim": {"curvature_weight": 10}}]
    groups = {"the default": default}
    for d in lines:
        assert d["opts"]["optim"]["curvature_weight"] == 10 and d["opts"]["members"] == 1
        groups.setdefault(f"+ `weight_average: {d['opts']['optim']['weight_average']:g}`", []).append(d)
    readme, tabular = (RESULTS / "tables-weight-average-sweep" / "README.md").read_text(), doc("experiments/tabular.md")
    assert list(groups) == ["the default", "+ `weight_average: 0.99`", "+ `weight_average: 0.98`"]
    keys = {(d["table"], d["seed"]) for d in default}
    gm = {}
    for label, rows in groups.items():
        assert len(rows) == 16 and {(d["table"], d["seed"]) for d in rows} == keys
        e, t = (math.exp(np.mean(np.log([d[s] for d in rows]))) for s in ("extrap", "test"))
        within = sum(d["extrap"] <= 1.5 for d in rows)
        shown = "`curvature_weight: 10` (the default)" if label == "the default" else label
        assert f"| {shown} | {e:.2f} | {t:.2f} | {within} |" in readme, label
        gm[label] = (e, t, within)
    (e99, t99, w99), (e98, t98, w98) = gm["+ `weight_average: 0.99`"], gm["+ `weight_average: 0.98`"]
    assert f"decay 0.99 gives a geometric mean of {e99:.2f}× above the range ({w99} of 16 within 1.5×), 0.98 {e98:.2f}× ({w98})" in tabular
    (e0, t0, w0) = gm["the default"]
    assert f"against the default's {e0:.2f}× ({w0}); inside the range {t99:.2f}× and {t98:.2f}× against {t0:.2f}×" in tabular
    card = [d["extrap"] for d in lines + default if d["table"] == "ccard" and d["seed"] == 0]
    assert f"goes from {card[-1]:.2f}× to {card[0]:.0f}× and {card[1]:.0f}× above the range" in tabular
    assert min(v[0] for v in gm.values()) == gm["the default"][0]  # neither better above the range


def _average_row(frame: pd.DataFrame, val: pd.DataFrame, model: str, label: str) -> str:
    """experiments/parity.md *A moving average of the weights*: a row, mean [least, most] over seeds 0-2,
    then e₁'s validation MSE (mean of seeds 0 and 1)."""
    cols = [("planet0.e", "test", "r2"), ("planet0.a", "test", "mse"), ("planet0.a", "ood_a1", "mse")]
    cols += [("stepsize", "test", "mse"), ("stepsize", "ood_stepsize", "mse")]
    cells = []
    for field, split, metric in cols:
        rows = frame[(frame.model == model) & (frame.field == "description." + field)]
        v = rows[(rows.split == split) & (rows.subset == "all")][metric]
        assert len(v) == 3
        f = (lambda x: f"{x:.3f}") if metric == "r2" else g
        cells.append(f"{f(v.mean())} [{f(v.min())}, {f(v.max())}]")
    e = val[(val.model == model) & (val.field == "description.planet0.e") & (val.subset == "all")].mse
    cells.append(f"{e.mean():.3f}")
    return f"| {label} | " + " | ".join(cells) + " |"


def test_the_weight_average_runs_are_their_tables():
    """experiments/parity.md and the README: every row and figure of the weight-average section from the
    three seeds' evaluations; the last weights are compare-b64-30min's runs, decay 0.999 the
    recipe's run, and the decay chosen is the one of lowest validation e₁ error."""
    runs = RESULTS / "planets-weight-average"
    frame = pd.concat([csv(runs / f"seed{s}" / "table.csv").assign(seed=s) for s in (0, 1, 2)])
    val = pd.concat([csv(runs / f"seed{s}" / "val" / "table.csv").assign(seed=s) for s in (0, 1)])
    parity, readme = doc("experiments/parity.md"), doc("experiments/overview.md")
    labels = {
        "raw": "the last step's (compare-b64-30min's xVal+GMM)",
        "avg0.99": "**average, decay 0.99 (parity-b64-30min-avg)**",
        "avg0.995": "average, decay 0.995",
        "avg0.998": "average, decay 0.998",
        "avg0.999": "average, decay 0.999 (0.9995: the same weights)",
    }
    for model, label in labels.items():
        assert _average_row(frame, val, model, label) in parity, model
    e_val = val[(val.field == "description.planet0.e") & (val.subset == "all")].groupby("model").mse.mean()
    assert e_val.idxmin() == "avg0.99"  # the decay of the preset: lowest validation e₁ error

    def per_seed(model, field, split, metric="mse"):
        s = frame[(frame.model == model) & (frame.field == "description." + field) & (frame.split == split) & (frame.subset == "all")]
        return s.sort_values("seed")[metric].tolist()

    old = csv(CMP64 / "seeds.csv")
    for field, split, metric in (("planet0.e", "test", "r2"), ("planet0.a", "ood_a1", "mse"), ("stepsize", "ood_stepsize", "mse")):
        published = old[(old.model == "xval+gmm(mse1)") & (old.kind == "model")]
        published = published[(published.field == "description." + field) & (published.split == split)]
        assert per_seed("raw", field, split, metric) == published.sort_values("seed")[metric].tolist()
        recipe = csv(runs / "recipe-0.999" / "seeds.csv")
        r = recipe[(recipe.kind == "model") & (recipe.field == "description." + field) & (recipe.split == split)].sort_values("seed")
        assert r[metric].tolist() == per_seed("avg0.999", field, split, metric)[:2]
    assert per_seed("avg0.999", "planet0.e", "test", "r2") == per_seed("avg0.9995", "planet0.e", "test", "r2")
    e1 = per_seed("avg0.99", "planet0.e", "test", "r2")
    raw = per_seed("raw", "planet0.e", "test", "r2")
    mean = float(np.mean(e1))
    from scipy import stats

    lo, hi = stats.t.interval(0.95, 2, loc=mean, scale=np.std(e1, ddof=1) / np.sqrt(3))
    seeds = ", ".join(f"{x:.3f}" for x in e1)
    assert mean >= 0.9 and f"0.903 ({seeds}), seeds 0–2, 24–25 one-core minutes a run" in parity and f"{mean:.3f}" == "0.903"
    assert f"three seeds give a 95 % t interval of [{lo:.3f}, {min(hi, 1):.1f}] for the mean" in parity
    assert f"(0.817 → {e1[0]:.3f}, 0.900 → {e1[1]:.3f}), the third level ({raw[2]:.3f} → {e1[2]:.3f})" in parity
    assert f"R² to {mean:.3f} over the same seeds ({seeds}; the last weights {np.mean(raw):.3f})" in readme
    dt = {m: g(np.mean(per_seed(m, "stepsize", "test"))).replace("e-0", "e-") for m in ("avg0.99", "avg0.999")}
    assert f"Δt to {dt['avg0.99']}" in readme and f"({dt['avg0.99']} at 0.99, {dt['avg0.999']} at 0.999" in parity
    assert max(max(per_seed(m, "stepsize", "test")) for m in labels if m != "raw") < 9.3e-5  # every seed below ridge
    trees = csv(CMP64 / "table.csv").set_index(["model", "field", "split", "metric"])["mean"][
        "boosted trees", "description.planet0.a", "test", "mse"
    ]
    a1 = np.mean(per_seed("avg0.99", "planet0.a", "test"))
    assert f"xVal+GMM with the weights averaged, decay 0.99, {g(a1)}, {a1 / trees:.1f}×;" in parity
    ratios = [np.mean(per_seed(m, "planet0.a", "test")) / trees for m in ("avg0.99", "avg0.995", "avg0.998", "avg0.999")]
    assert f"still {min(ratios):.1f}–{max(ratios):.1f}× the trees'" in parity
    secs = [json.loads((runs / f"seed{s}" / "training.json").read_text())["train_seconds"] for s in (0, 1, 2)]
    assert 24 * 60 <= min(secs) and max(secs) < 26 * 60 and f"({min(secs):,.0f}–{max(secs):,.0f} s of training".replace(",", " ") in parity
    for s in (0, 1, 2):
        config = json.loads((runs / f"seed{s}" / "config.json").read_text())
        assert config["seed"] == s and config["budget"] == {"samples": 460800} and config["trainer"]["max_steps"] == 7258
    assert meta(runs / "recipe-0.999" / "meta.json")["commit"].startswith("e576221")
    # two more seeds, trained after the decay was chosen: they undo the three-seed mean
    more = pd.concat([csv(runs / f"seed{s}" / "table.csv").assign(seed=s) for s in (3, 4)])
    five = pd.concat([frame, more])
    e = five[(five.field == "description.planet0.e") & (five.split == "test") & (five.subset == "all")]
    avg, last = (e[e.model == m].sort_values("seed").r2.tolist() for m in ("avg0.99", "raw"))
    assert len(avg) == len(last) == 5 and np.mean(avg) < 0.9
    assert f"give {avg[3]:.3f} and {avg[4]:.3f} with the average (last weights {last[3]:.3f}, {last[4]:.3f})" in parity
    assert f"the mean over seeds 0–4 is {np.mean(avg):.3f} (last weights {np.mean(last):.3f})" in parity
    gains = sorted(a - b for a, b in zip(avg, last))
    assert gains[0] < 0 < gains[1] and f"adds {gains[1]:.2f}–{gains[-1]:.2f} of R² on four seeds of five" in parity
    assert f"undone by two more ({avg[3]:.3f}, {avg[4]:.3f}: {np.mean(avg):.3f} over seeds 0–4)" in readme
    dt = five[(five.field == "description.stepsize") & (five.split == "test") & (five.subset == "all")]
    late = [dt[(dt.model == m) & (dt.seed == s)].mse.iloc[0] for m in ("avg0.99", "raw") for s in (3, 4)]
    shown = [g(x) for x in late]
    assert f"is {shown[0]} and {shown[1]}, above ridge's (last weights {shown[2]}, {shown[3]})" in parity
    for s in (3, 4):
        assert json.loads((runs / f"seed{s}" / "config.json").read_text())["seed"] == s
        assert round(json.loads((runs / f"seed{s}" / "training.json").read_text())["train_seconds"]) == 2253
