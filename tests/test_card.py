"""The model card's prose on the head reads what the head declares (HeadOutputs), never its name:
a plug-in head that declares a predictive distribution gets the same prose as the mixture head."""

import pytest
import yaml

from scinum.share import card
from scinum import heads
from scinum.heads import HeadOutputs, ScalarHead


class Bands(ScalarHead):
    """A plug-in-like head declaring quantile intervals and two evaluation columns."""

    outputs = HeadOutputs(point="median of the bands", uncertainty="quantiles", columns=("lo68", "hi68"), label="bands")


class Plain(ScalarHead):
    """A plug-in-like head declaring no uncertainty."""

    outputs = HeadOutputs(point="value", label="plain")


@pytest.fixture
def installed(monkeypatch):
    """``bands`` and ``plain`` in the head registry for one test (as an entry point would add them)."""
    monkeypatch.setitem(heads.REGISTRY._items, "bands", Bands)
    monkeypatch.setitem(heads.REGISTRY._items, "plain", Plain)


def _config(head: dict, calibration: dict | None = None) -> dict:
    return {
        "encoding": {"name": "xval"},
        "head": head,
        "calibration": calibration or {},
        "model": {"n_layers": 1, "d_model": 8, "n_heads": 2},
        "normalizer": {"method": "minmax"},
        "vocab": {"fields": ["x"], "tokens": ["{", "}"]},
        "context_length": 16,
    }


def _front(text: str) -> dict:
    return yaml.safe_load(text.split("---\n")[1])


def _section(text: str, title: str) -> str:
    return text.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0] if f"## {title}\n" in text else ""


def test_a_plugin_head_declaring_quantiles_gets_the_uncertainty_prose(installed):
    text = card.render(_config({"kind": "bands"}, {"x": {"scale": 1.2}}))
    assert (
        "and the `bands` head (`{\"kind\": \"bands\"}`; point prediction: median of the bands; "
        "a predictive distribution per number with 68 %/95 % intervals)."
    ) in text
    assert _section(text, "Uncertainty").strip() == (
        "The `bands` head gives a predictive distribution per number with 68 %/95 % intervals "
        "(`model.predict(...)`; evaluation columns `lo68`, `hi68`). Its intervals were "
        "recalibrated on the validation split for `x`."
    )
    assert _front(text)["tags"][-2:] == ["bands", "uncertainty"]
    assert "no uncertainty" not in _section(text, "Known limits")


def test_a_head_declaring_no_uncertainty_gets_none(installed):
    text = card.render(_config({"kind": "plain"}))
    assert "and the `plain` head (`{\"kind\": \"plain\"}`; point prediction: value)." in text
    assert _section(text, "Uncertainty") == "" and "uncertainty" not in _front(text)["tags"]
    assert "plain" in _front(text)["tags"]
    limits = _section(text, "Known limits")
    assert "training range leave the range it saw." in limits and "* its head gives a point, no uncertainty." in limits


def test_native_and_mixture_heads_read_their_declarations():
    native = card.render(_config({"kind": "native"}))
    assert "and its native head (`{\"kind\": \"native\"}`)." in native
    assert _section(native, "Uncertainty") == ""
    mixture = card.render(_config({"kind": "mixture", "n_components": 3}))
    assert (
        "the `mixture` head (`{\"kind\": \"mixture\", \"n_components\": 3}`; point prediction: "
        "mean (or mode) of the mixture; a predictive distribution per number with 68 %/95 % "
        "intervals)."
    ) in mixture
    assert "Its intervals were not recalibrated." in _section(mixture, "Uncertainty")
    assert _front(mixture)["tags"][-2:] == ["gmm", "uncertainty"]


def test_a_head_kind_not_installed_here_is_described_without_a_declaration():
    text = card.render(_config({"kind": "absent"}))
    assert "the `absent` head (`{\"kind\": \"absent\"}`; point prediction: value)." in text
    assert _section(text, "Uncertainty") == ""


def test_the_card_and_info_name_a_linear_value_path():
    """A trunk whose attention values and number head read the residual stream says so in its
    card and in ``scinum info``'s description; the paper's trunk (and configs without the key)
    say nothing of it."""
    linear = _config({"kind": "native"})
    linear["model"] = {**linear["model"], "value_path": "linear"}
    assert "positions, linear value path," in card.render(linear)
    assert "positions, linear value path," in "\n".join(card.describe(linear))
    plain = card.render(_config({"kind": "native"}))
    assert "value path" not in plain and "value path" not in "\n".join(card.describe(_config({"kind": "native"})))


def test_the_card_says_when_the_fill_fields_were_asked_alone():
    """``data.mask_fields_alone`` reaches the card's training line (from the run's provenance)."""
    config = _config({"kind": "native"})
    training = {"max_steps": 10, "batch_size": 4, "lr": 1e-3, "mask_prob": 0.2, "mask_fields": ["y"]}
    config["run"] = {"training": training}
    assert "trained to fill ['y']" in card.render(config) and "asked alone" not in card.render(config)
    config["run"] = {"training": {**training, "mask_fields_alone": True}}
    assert "trained to fill ['y'] (asked alone)" in card.render(config)


def test_the_card_names_a_fields_atom():
    """A field with a recorded atom (scinum.fill.atoms) says in the card's fill table that a
    prediction next to it is filled as that value; a field without one says nothing of it."""
    config = _config({"kind": "native"})
    config["vocab"]["fields"] = ["x", "y"]
    atom = {"value": 1.0, "count": 1426, "gap": 0.168}
    config["run"] = {
        "train_ranges": {"x": {"count": 4000, "min": 1.0, "max": 3.0, "atom": atom}, "y": {"count": 4000, "min": 0.0, "max": 1.0}},
        "dataset": {"evaluation": {"fields": ["x", "y"]}},
    }
    text = card.render(config)
    assert "| `x` | – | 1 – 3 (exactly 1 in 1426 of 4000: a prediction next to it is filled as 1) |" in text
    assert "| `y` | – | 0 – 1 |" in text
