"""Text number encodings (Charton's notation, xVal paper Table 1): P10, P1000, B1999, FP15.

A number is first written ``±ddd E±k`` — ``digits`` significant digits (default 3) as an integer
mantissa, times ``10^k`` — then split into tokens:

Schemes (:data:`SCHEMES`): ``p10`` ``[-, 6, 0, 2, E-1]`` (5 tokens), ``p1000`` ``[-, 602, E-1]``
(3), ``b1999`` ``[-602, E-1]`` (2), ``fp15`` ``[-602E-1]`` (1).

Exponents run over ``[emin, emax]`` (default -8…8: the paper's 1E-8…1E+8). Zero is
``+000E+0``; magnitudes below the smallest representable one round to 0 or to it, whichever is
nearer; magnitudes above ``(10^digits - 1)·10^emax`` raise :class:`ValueOutOfRange`. Vocabulary
sizes differ slightly from the paper's Table 1 (28/918/1816/28800), which counts 16 exponents
and no zero; here P10 has ``2 + 10 + 17 = 29`` tokens, P1000 ``2 + 901 + 17 = 920``, B1999
``1801 + 17 = 1818`` and FP15 ``2·900·17 + 1 = 30601``.

As :class:`~scinum.encodings.base.NumberEncoding` s they spell each number in
``tokens_per_number`` vocabulary tokens and give the trunk no features (``dim == 0``,
``combine == "none"``); their native head is the token head (:class:`scinum.heads.TokenHead`),
trained by the token cross-entropy. Values are never normalized (the tokens write the raw value).
A predicted token sequence that does not parse is *unparseable* (:meth:`parse` returns None),
never silently replaced.
"""

from __future__ import annotations

import math
import re
from typing import Any

import torch

from ..errors import ValueOutOfRange
from .base import NumberEncoding, register

__all__ = ["TextEncoding", "SCHEMES", "P10", "P1000", "B1999", "FP15"]

#: scheme -> how the pieces (sign, mantissa digits, exponent) group into tokens
SCHEMES = {
    "p10": "sign|digit*|exp",
    "p1000": "sign|mantissa|exp",
    "b1999": "signed_mantissa|exp",
    "fp15": "whole",
}


class TextEncoding(NumberEncoding):
    """One text scheme (a subclass per scheme sets ``name``).
    ``tokens(x) -> list[str]``, ``parse(tokens) -> float | None``."""

    combine = "none"
    normalizable = False
    value_in_tokens = True

    def __init__(self, digits: int = 3, emin: int = -8, emax: int = 8):
        scheme = self.name
        if not 1 <= digits <= 6:
            raise ValueError(f"{scheme}: digits must be in 1..6, got {digits}")
        if emin > emax:
            raise ValueError(f"{scheme}: emin {emin} > emax {emax}")
        self.digits, self.emin, self.emax = int(digits), int(emin), int(emax)
        self._mant = re.compile(rf"(\d{{{self.digits}}})")
        self._slot_sets = [set(s) for s in self._slots()]
        self.tokens_per_number = len(self._slot_sets)

    # -- canonical pieces ------------------------------------------------------------------
    def _exp(self, k: int) -> str:
        return f"E{k:+d}"

    def _mantissas(self) -> list[str]:
        lo = 10 ** (self.digits - 1)
        return [f"{m:0{self.digits}d}" for m in [0, *range(lo, 10 * lo)]]

    def pieces(self, value: float) -> tuple[str, str, int]:
        """``value -> (sign, mantissa digits, exponent)``, correctly rounded to ``digits``."""
        x = float(value)
        if x != x or x in (float("inf"), float("-inf")):
            raise ValueOutOfRange(f"{self.name}: non-finite value {x!r}")
        sign = "-" if str(x).startswith("-") and x != 0 else "+"
        if x == 0:
            return "+", "0" * self.digits, 0
        m_text, e_text = f"{abs(x):.{self.digits - 1}e}".split("e")
        mant, k = m_text.replace(".", ""), int(e_text) - (self.digits - 1)
        if k > self.emax:
            raise ValueOutOfRange(f"{self.name}: |{x!r}| exceeds the largest representable magnitude {'9' * self.digits}E{self.emax:+d}")
        if k < self.emin:
            smallest = 10.0 ** (self.digits - 1 + self.emin)
            if abs(x) < smallest / 2:
                return "+", "0" * self.digits, 0
            return sign, "1" + "0" * (self.digits - 1), self.emin
        return sign, mant, k

    def round(self, value: float) -> float:
        """The value this encoding represents for ``value`` (what a perfect model predicts)."""
        s, m, k = self.pieces(value)
        return float(f"{s}{m}e{k}")

    # -- tokens ------------------------------------------------------------------------------
    def _slots(self) -> list[list[str]]:
        signs, mants = ["+", "-"], self._mantissas()
        exps = [self._exp(k) for k in range(self.emin, self.emax + 1)]
        if self.name == "p10":
            return [signs] + [[str(d) for d in range(10)]] * self.digits + [exps]
        if self.name == "p1000":
            return [signs, mants, exps]
        signed = ["+" + mants[0]] + [s + m for s in signs for m in mants[1:]]
        if self.name == "b1999":
            return [signed, exps]
        return [["+" + mants[0] + self._exp(0)] + [sm + e for sm in signed[1:] for e in exps]]

    def vocabulary(self) -> list[str]:
        """Every number token of the scheme, in a fixed order."""
        seen: dict[str, None] = {}
        for slot in self._slots():
            for t in slot:
                seen.setdefault(t, None)
        return list(seen)

    def tokens(self, value: float) -> list[str]:
        """``-60.2 -> ['-', '6', '0', '2', 'E-1']`` (p10) and so on."""
        s, m, k = self.pieces(value)
        e = self._exp(k)
        if self.name == "p10":
            return [s, *m, e]
        if self.name == "p1000":
            return [s, m, e]
        if self.name == "b1999":
            return [s + m, e]
        return [s + m + e]

    def starts(self) -> set[str]:
        """Tokens that can begin a number (the first slot)."""
        return set(self._slot_sets[0])

    def parse(self, tokens: list[str], value: float = math.nan) -> float | None:
        """The number written by ``tokens`` (``value`` is not read), or None if they are not a
        well-formed number."""
        if len(tokens) != len(self._slot_sets):
            return None
        if any(t not in slot for t, slot in zip(tokens, self._slot_sets)):
            return None
        text = "".join(tokens)
        m = re.fullmatch(rf"([+-])(\d{{{self.digits}}})E([+-]\d+)", text)
        if m is None:
            return None
        mantissa = int(m.group(2))
        if mantissa == 0 and text != "+" + m.group(2) + "E+0":
            return None  # zero has one spelling
        if 0 < mantissa < 10 ** (self.digits - 1):
            return None  # a leading zero is not a canonical mantissa
        return float(f"{m.group(1)}{m.group(2)}e{m.group(3)}")

    # -- no features: the tokens carry the number -------------------------------------------
    @property
    def dim(self) -> int:
        return 0

    def encode(self, values: torch.Tensor) -> torch.Tensor:
        """No features: float32[..., 0]."""
        return torch.zeros(torch.as_tensor(values).shape + (0,), dtype=torch.float32)

    def decode(self, features: torch.Tensor) -> torch.Tensor:
        raise TypeError(f"{self.name} numbers are read from their tokens (parse), not from features")

    def representable(self, values: torch.Tensor) -> torch.Tensor:
        """Finite values up to the largest writable magnitude (smaller ones round, see above)."""
        values = torch.as_tensor(values, dtype=torch.float64)
        return values.isfinite() & (values.abs() < (10**self.digits - 0.5) * 10.0**self.emax)

    def range_text(self) -> str:
        return f"finite, |x| <= {'9' * self.digits}E{self.emax:+d}"

    def make_head(self, d_model: int, vocab: Any = None):
        from ..heads import TokenHead

        return TokenHead(self, vocab)

    def options(self) -> dict[str, Any]:
        return {"digits": self.digits, "emin": self.emin, "emax": self.emax}

    def limits_text(self) -> str:
        return (
            f"a text encoding: {self.digits} significant digits, and it tends to predict only values it "
            "saw; tokens that do not form a number give `null`."
        )


@register
class P10(TextEncoding):
    name = "p10"


@register
class P1000(TextEncoding):
    name = "p1000"


@register
class B1999(TextEncoding):
    name = "b1999"


@register
class FP15(TextEncoding):
    name = "fp15"
