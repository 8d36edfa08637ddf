"""experiments/planets-half-time steps 6 and 7: their presets are step 1's with the declared
changes alone, and the README quotes what anneal/scores.py reads from the published scores."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pandas as pd
from published import readme, script
from test_planets_record_line import _configs

HERE = Path(__file__).resolve().parents[1] / "planets-half-time"
A, E, DT = "description.planet0.a", "description.planet0.e", "description.stepsize"


def _scores() -> pd.DataFrame:
    return pd.read_csv(HERE / "anneal" / "scores.csv")


def _read() -> tuple[dict[str, bool], str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        chosen = script("planets-half-time/anneal", "scores").read(_scores())
    return chosen, out.getvalue()


def test_step_6_is_step_1_with_the_learning_rate_decayed_to_a_hundredth(tmp_path):
    _, ours = _configs(HERE / "presets.yaml", "half-time", tmp_path, "xval+gmm")
    _, anneal = _configs(HERE / "presets.yaml", "half-time-anneal", tmp_path, "xval+gmm")
    for a, b in zip(anneal, ours):
        assert a["optim"]["min_lr_ratio"] == 0.01 and b["optim"]["min_lr_ratio"] == 0.1
        assert {**a, "optim": {**a["optim"], "min_lr_ratio": 0.1}} == b


def test_the_scores_are_the_recipes_own_and_step_1s_published_ones():
    f = _scores()
    assert set(f.atoms[f.step == "step 1"]) == {"added"} and set(f.atoms[f.step != "step 1"]) == {"recorded"}
    for step, folder in (("step 6", "anneal"), ("step 1", "results")):
        published = pd.read_csv(HERE / folder / "seeds.csv")
        published = published[(published.kind == "model") & (published.split == "test")]
        for field in (E, DT) if step == "step 1" else (E, A, DT):  # step 1's a₁ was published without its atom
            ours = f[(f.step == step) & (f.split == "test") & (f.field == field)].sort_values("seed").mse.to_numpy()
            assert list(ours) == list(published[published.field == field].sort_values("seed").mse)
    atoms = pd.read_csv(HERE / "atoms.csv")
    step1 = atoms[(atoms.step == "step 1") & (atoms.atoms == "on")]
    per_seed = step1.assign(se=(step1.pred - step1.true) ** 2).groupby("seed").se.mean()
    ours = f[(f.step == "step 1") & (f.split == "test") & (f.field == A)].sort_values("seed").mse
    assert abs(per_seed.to_numpy() - ours.to_numpy()).max() < 1e-12  # step 5's a₁ with the atom


def test_step_6_is_not_chosen_and_the_readme_quotes_it():
    chosen, printed = _read()
    assert not chosen["step 6"] and "step 6 not chosen" in printed
    f = _scores()
    val = f[f.split == "val"].groupby(["step", "field"]).mse.mean()
    test = f[f.split == "test"].groupby(["step", "field"])[["mse", "r2"]].mean()
    text = readme("planets-half-time")
    r = {k: val[("step 6", k)] / val[("step 1", k)] for k in (A, DT, E)}
    assert f"| step 1 (decay to a tenth) | {val[('step 1', A)]:.3g} | {val[('step 1', DT)]:.3g} | {val[('step 1', E)]:.3g} |" in text
    assert (
        f"| step 6 (decay to a hundredth) | {val[('step 6', A)]:.3g} (**{r[A]:.3f}×**) | "
        f"{val[('step 6', DT)]:.3g} (**{r[DT]:.3f}×**) | {val[('step 6', E)]:.3g} (**{r[E]:.3f}×**) |"
    ) in text
    assert r[A] > 1 and r[DT] < 1 and r[E] <= 1.1
    s6 = f[(f.step == "step 6") & (f.split == "test")]
    assert f"| step 6 | {test.loc[('step 6', E), 'r2']:.3f} (every seed ≥ {s6[s6.field == E].r2.min():.3f}) |" in text
    assert f"{test.loc[('step 6', A), 'mse']:.3g} ({s6[s6.field == A].mse.min():.3g}–{s6[s6.field == A].mse.max():.3g})" in text
    assert test.loc[("step 6", DT), "mse"] < 2.7e-05 and s6[s6.field == DT].mse.max() < 1.6e-05
    assert test.loc[("step 6", A), "mse"] > 0.00091 and test.loc[("step 1", A), "mse"] > 0.00091


def test_step_7_is_step_6_with_a1_asked_too(tmp_path):
    _, anneal = _configs(HERE / "presets.yaml", "half-time-anneal", tmp_path, "xval+gmm")
    _, asked = _configs(HERE / "presets.yaml", "half-time-anneal-a1-asked", tmp_path, "xval+gmm, a1 asked")
    for a, b in zip(asked, anneal):
        assert a["data"]["mask_fields"] == [E, A] and b["data"]["mask_fields"] == [E]
        assert {**a, "data": {**a["data"], "mask_fields": [E]}} == b


def test_step_7_is_not_chosen_and_the_readme_quotes_it():
    chosen, printed = _read()
    assert not chosen["step 7"] and "step 7 not chosen" in printed
    f = _scores()
    s7 = f[f.step == "step 7"]
    val = s7[s7.split == "val"].groupby("field")[["mse", "r2"]].mean()
    test = s7[s7.split == "test"]
    text = readme("planets-half-time")
    e1 = s7[(s7.split == "val") & (s7.field == E)].r2
    row = f"| **step 7** | **{val.loc[E, 'r2']:.3f}** ({e1.min():.3f}–{e1.max():.3f}) | "
    assert row + f"**{val.loc[A, 'mse']:.3g}** | **{val.loc[DT, 'mse']:.3g}** |" in text
    assert val.loc[E, "r2"] < 0.95 and val.loc[A, "mse"] <= 0.00091 and val.loc[DT, "mse"] <= 2.7e-05
    assert "three seeds of five above it" in text and (e1 >= 0.95).sum() == 3
    mean = test.groupby("field")[["mse", "r2"]].mean()
    te = test[test.field == E].r2
    assert f"e₁ R² **{mean.loc[E, 'r2']:.3f}** ({te.min():.3f}–{te.max():.3f}), a₁ **{mean.loc[A, 'mse']:.3g}**" in text
    assert f"Δt **{mean.loc[DT, 'mse']:.3g}**" in text
    assert mean.loc[E, "r2"] < 0.95 and mean.loc[A, "mse"] <= 0.00091 and mean.loc[DT, "mse"] <= 2.7e-05


def test_step_8_is_step_7_with_a1_asked_less_often(tmp_path):
    _, step7 = _configs(HERE / "presets.yaml", "half-time-anneal-a1-asked", tmp_path, "xval+gmm, a1 asked")
    for q in (0.25, 0.35):
        _, ours = _configs(HERE / "presets.yaml", f"half-time-anneal-a1-{int(q * 100)}", tmp_path, f"xval+gmm, a1 at {q}")
        for a, b in zip(ours, step7):
            assert a["data"]["mask_fields_prob"] == {E: 0.5, A: q} and b["data"]["mask_fields_prob"] == 0.5
            assert {**a, "data": {**a["data"], "mask_fields_prob": 0.5}} == b


def test_step_8_chooses_neither_and_the_readme_quotes_its_figures():
    chosen, printed = _read()
    assert not chosen["step 8, a₁ at 0.25"] and not chosen["step 8, a₁ at 0.35"] and "step 8: neither chosen" in printed
    f = _scores()
    text = readme("planets-half-time")
    val = f[f.split == "val"].groupby(["step", "field"])[["mse", "r2"]].mean()
    module = script("planets-half-time/anneal", "scores")
    for q, hidden in (("0.25", "40 %"), ("0.35", "48 %")):
        step = f"step 8, a₁ at {q}"
        e1 = f[(f.step == step) & (f.split == "val") & (f.field == E)].r2
        ratio = module.worst_ratio(f, step, "val")
        assert ratio > 1 and f"{ratio:.3f}" in printed
        row = f"| **{step}** | {hidden} | **{val.loc[(step, E), 'r2']:.3f}** ({e1.min():.3f}–{e1.max():.3f}) | "
        assert row + f"**{val.loc[(step, A), 'mse']:.3g}** | **{val.loc[(step, DT), 'mse']:.3g}** | {ratio:.3f} |" in text
        test = f[(f.step == step) & (f.split == "test")]
        mean = test.groupby("field")[["mse", "r2"]].mean()
        te, ta = test[test.field == E].r2, test[test.field == A].mse
        cells = f"| {step} | {mean.loc[E, 'r2']:.3f} ({te.min():.3f}–{te.max():.3f}) | "
        assert cells + f"{mean.loc[A, 'mse']:.3g} ({ta.min():.3g}–{ta.max():.3g}) | {mean.loc[DT, 'mse']:.3g} |" in text
    # a₁ misses by 3 % at both rates on the validation split; the straight line between steps 6 and 7 at 48 %
    assert all(round(val.loc[(f"step 8, a₁ at {q}", A), "mse"] / 0.00091 - 1, 2) == 0.03 for q in ("0.25", "0.35"))
    line = lambda field, m: val.loc[("step 6", field), m] + 0.7 * (val.loc[("step 7", field), m] - val.loc[("step 6", field), m])  # noqa: E731
    assert f"the validation e₁ R² is {val.loc[('step 8, a₁ at 0.35', E), 'r2']:.3f} where the line gives {line(E, 'r2'):.3f}" in text
    assert f"a₁ is {val.loc[('step 8, a₁ at 0.35', A), 'mse']:.3g} where it gives {line(A, 'mse'):.3g}" in text
    t25 = f[(f.step == "step 8, a₁ at 0.25") & (f.split == "test")].groupby("field")[["mse", "r2"]].mean()
    assert t25.loc[E, "r2"] >= 0.95 and t25.loc[A, "mse"] <= 0.00091 and t25.loc[DT, "mse"] <= 2.7e-05  # met on test, not chosen
    probe = (HERE / "probe-a1-25.txt").read_text()
    assert "ratio b/a: 0.931" in probe and "ratio b/a: 0.950" in probe
    assert f"so {0.472 / 0.931:.3f}× and {0.472 / 0.950:.3f}× the old preset's time" in text


def test_step_9_is_step_6_with_a1_on_a_line(tmp_path):
    _, anneal = _configs(HERE / "presets.yaml", "half-time-anneal", tmp_path, "xval+gmm")
    _, line = _configs(HERE / "presets.yaml", "half-time-anneal-a1-line", tmp_path, "xval+gmm, a1 on a line")
    for a, b in zip(line, anneal):
        assert a["line"] == [A] and not b.get("line")
        assert {k: v for k, v in a.items() if k != "line"} == {k: v for k, v in b.items() if k != "line"}


def test_step_9_is_not_chosen_and_the_readme_quotes_it():
    chosen, printed = _read()
    assert not chosen["step 9"] and "step 9 not chosen" in printed
    f = _scores()
    text = readme("planets-half-time")
    val = f[f.split == "val"].groupby(["step", "field"])[["mse", "r2"]].mean()
    e1 = f[(f.step == "step 9") & (f.split == "val") & (f.field == E)].r2
    ratio = script("planets-half-time/anneal", "scores").worst_ratio(f, "step 9", "val")
    row = f"| **step 9** | **{val.loc[('step 9', E), 'r2']:.3f}** ({e1.min():.3f}–{e1.max():.3f}) | "
    assert row + f"**{val.loc[('step 9', A), 'mse']:.3g}** | **{val.loc[('step 9', DT), 'mse']:.3g}** | {ratio:.3f} |" in text
    assert val.loc[("step 9", E), "r2"] < 0.95 and val.loc[("step 9", A), "mse"] <= 0.00091 and val.loc[("step 9", DT), "mse"] > 2.7e-05
    r = {k: val.loc[("step 9", k), "mse"] / val.loc[("step 6", k), "mse"] for k in (A, E)}
    assert f"{r[A]:.3f}× step 6's" in text and f"grows {r[E]:.2f}×" in text and r[E] > 2.5
    test = f[(f.step == "step 9") & (f.split == "test")]
    mean = test.groupby("field")[["mse", "r2"]].mean()
    te, ta = test[test.field == E].r2, test[test.field == A].mse
    cells = f"| step 9 | {mean.loc[E, 'r2']:.3f} ({te.min():.3f}–{te.max():.3f}) | "
    assert cells + f"{mean.loc[A, 'mse']:.3g} ({ta.min():.3g}–{ta.max():.3g}) | {mean.loc[DT, 'mse']:.3g} |" in text
    assert (te < 0.95).sum() == 4 and mean.loc[A, "mse"] <= 0.00091 and mean.loc[DT, "mse"] <= 2.7e-05
    published = pd.read_csv(HERE / "anneal-a1-line" / "seeds.csv")
    published = published[(published.kind == "model") & (published.split == "test") & (published.field == E)]
    assert list(published.sort_values("seed").mse) == list(test[test.field == E].sort_values("seed").mse)
