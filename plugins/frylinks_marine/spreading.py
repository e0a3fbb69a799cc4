"""Directional spreading of a short-crested sea: the distributions ``D(theta)`` and the
draw of one direction per wave component from them.

A short-crested sea's directional spectrum is ``S(w, theta) = S(w) D(theta - theta_m)``
with ``int D = 1`` over the circle, so that it integrates over direction to the 1-D
spectrum ``S(w)``. Three shapes, each with its one parameter:

``cos2s``
    ``D = C(s) cos^(2 s)(d / 2)`` on ``-pi < d <= pi``, ``C(s) = Gamma(s + 1) /
    (2 sqrt(pi) Gamma(s + 1/2))`` (Longuet-Higgins et al. 1963; Mitsuyasu's, Goda's).
    Mean resultant length ``s / (s + 1)``.
``cosn``
    ``D = C(n) cos^n(d)`` on ``|d| < pi / 2``, zero behind, ``C(n) = Gamma(n / 2 + 1) /
    (sqrt(pi) Gamma(n / 2 + 1/2))`` (DNV-RP-C205's ``cos^n``). Mean resultant length
    ``Gamma(n / 2 + 1)^2 / (Gamma(n / 2 + 1/2) Gamma(n / 2 + 3/2))``.
``wrapped_normal``
    The normal law of standard deviation ``sigma`` wrapped round the circle. Mean
    resultant length ``exp(-sigma^2 / 2)``.

Their width is compared through the **directional spread** ``sigma_c = sqrt(2 (1 - m1))``
[rad] (Kuik et al. 1988), ``m1 = E[cos d]`` the mean resultant length: ``sqrt(2 / (s +
1))`` for cos-2s; close to ``sigma`` for a narrow wrapped normal (whose
``sqrt(-2 ln m1)`` is ``sigma`` exactly).

A direction is drawn by the inverse of the cumulative distribution, tabulated on 2049
points over the support (cut where the density is below ``1e-30`` of its peak), from a
uniform number: the sea's one random stream gives one uniform number per component.
"""

from __future__ import annotations

import math
import reprlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from frylinks.errors import ModelError

FloatArray = npt.NDArray[np.float64]

#: Spreading shapes and the name and accepted range of each one's parameter. The upper
#: limits leave out what is in effect long-crested (a directional spread under about
#: 2.6 degrees): leave ``spreading`` out for that.
PARAMETERS: dict[str, tuple[str, float, str]] = {
    "cos2s": ("s", 1000.0, "spreading exponent s of cos^(2 s)(d / 2)"),
    "cosn": ("n", 1000.0, "exponent n of cos^n(d)"),
    "wrapped_normal": ("sigma_deg", 90.0, "standard deviation [deg] of the wrapped normal"),
}
SPREADINGS = tuple(PARAMETERS)

#: Points of the tabulated cumulative distribution that directions are drawn from.
NB_TABLE = 2049


@dataclass(frozen=True)
class Spreading:
    """A directional spreading distribution about a sea's mean heading.

    Parameters
    ----------
    kind
        ``"cos2s"``, ``"cosn"`` or ``"wrapped_normal"`` (:data:`SPREADINGS`).
    parameter
        ``s`` (``0 < s <= 1000``), ``n`` (``0 < n <= 1000``) or ``sigma_deg`` [deg]
        (``0 < sigma_deg <= 90``) respectively.

    Raises
    ------
    ModelError
        For an unknown kind (path ``spreading.type``) or a parameter out of range
        (path ``spreading.<parameter name>``).
    """

    kind: str
    parameter: float
    _cdf: tuple[FloatArray, FloatArray] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.kind not in PARAMETERS:
            raise ModelError(f"unknown spreading {reprlib.repr(self.kind)}; accepted: "
                             f"{', '.join(SPREADINGS)}", "spreading.type")
        name, top, doc = PARAMETERS[self.kind]
        try:
            x = float(self.parameter)
        except (TypeError, ValueError, OverflowError):
            x = math.nan
        if isinstance(self.parameter, bool | str) or not 0.0 < x <= top:
            raise ModelError(f"expected the {doc}, a number > 0 and <= {top:g} (larger is in "
                             f"effect long-crested: leave spreading out), got "
                             f"{reprlib.repr(self.parameter)}", f"spreading.{name}")
        object.__setattr__(self, "parameter", x)
        object.__setattr__(self, "_cdf", self._table())

    @classmethod
    def from_mapping(cls, value: Any) -> Spreading | None:
        """The spreading of a case file's ``spreading`` mapping (None: long-crested).

        ``{type: cos2s, s: 10}``, ``{type: cosn, n: 4}``, ``{type: wrapped_normal,
        sigma_deg: 20}``. Errors have paths under ``spreading``.
        """
        if value is None:
            return None
        kind = typed_mapping(value, SPREADINGS, "spreading", "spreading")
        name = PARAMETERS[kind][0]
        for key in value:
            if key not in ("type", name):
                raise ModelError(f"unknown key {key!r} for spreading {kind} (accepted: type, "
                                 f"{name})", f"spreading.{key}")
        if name not in value:
            raise ModelError(f"missing required parameter ({PARAMETERS[kind][2]})",
                             f"spreading.{name}")
        return cls(kind, value[name])

    # ------------------------------------------------------------------ the law

    @property
    def half_width(self) -> float:
        """Half the support [rad] outside which the density is under 1e-30 of its peak."""
        p = self.parameter
        if self.kind == "cos2s":
            # cos^(2s)(d/2) < 1e-30: d > 2 acos(1e-30^(1/(2s)))
            return min(math.pi, 2.0 * math.acos(math.exp(math.log(1e-30) / (2.0 * p))))
        if self.kind == "cosn":
            return min(0.5 * math.pi, math.acos(math.exp(math.log(1e-30) / p)))
        return min(math.pi, 12.0 * math.radians(p))

    @property
    def normalisation(self) -> float:
        """``C`` [1/rad] of the closed forms of the module docstring (wrapped normal: its
        peak density ``1 / (sigma sqrt(2 pi))`` before wrapping)."""
        p = self.parameter
        if self.kind == "cos2s":
            return math.exp(math.lgamma(p + 1.0) - math.lgamma(p + 0.5)) \
                / (2.0 * math.sqrt(math.pi))
        if self.kind == "cosn":
            return math.exp(math.lgamma(0.5 * p + 1.0) - math.lgamma(0.5 * p + 0.5)) \
                / math.sqrt(math.pi)
        return 1.0 / (math.radians(p) * math.sqrt(2.0 * math.pi))

    def density(self, d: npt.ArrayLike) -> FloatArray:
        """``D(d)`` [1/rad] at angles ``d`` [rad] from the mean heading (any shape)."""
        x = np.angle(np.exp(1j * np.asarray(d, dtype=float)))  # to (-pi, pi]
        p, c = self.parameter, self.normalisation
        if self.kind == "cos2s":
            out: FloatArray = c * np.abs(np.cos(0.5 * x)) ** (2.0 * p)
        elif self.kind == "cosn":
            out = np.where(np.abs(x) < 0.5 * math.pi, c * np.abs(np.cos(x)) ** p, 0.0)
        else:
            sigma = math.radians(p)
            wraps = range(-3, 4) if 12.0 * sigma > math.pi else range(1)
            out = sum((c * np.exp(-0.5 * ((x + 2.0 * math.pi * k) / sigma) ** 2)
                       for k in wraps), np.zeros_like(x))
        return out

    @property
    def mean_resultant_length(self) -> float:
        """``m1 = E[cos d]``, closed form (module docstring)."""
        p = self.parameter
        if self.kind == "cos2s":
            return p / (p + 1.0)
        if self.kind == "cosn":
            h = 0.5 * p
            return math.exp(2.0 * math.lgamma(h + 1.0) - math.lgamma(h + 0.5)
                            - math.lgamma(h + 1.5))
        return math.exp(-0.5 * math.radians(p) ** 2)

    @property
    def directional_spread(self) -> float:
        """``sigma_c = sqrt(2 (1 - m1))`` [rad] (Kuik et al. 1988)."""
        return math.sqrt(2.0 * (1.0 - self.mean_resultant_length))

    # ------------------------------------------------------------------ drawing

    def _table(self) -> tuple[FloatArray, FloatArray]:
        # the cumulative distribution of the piecewise-linear density on a grid over the
        # support, scaled to end at exactly 1 (so the draw is a true distribution)
        h = self.half_width
        d = np.linspace(-h, h, NB_TABLE)
        f = self.density(d)
        cdf = np.concatenate(([0.0], np.cumsum(0.5 * (f[1:] + f[:-1]) * np.diff(d))))
        return cdf / cdf[-1], d

    def sample(self, u: npt.ArrayLike) -> FloatArray:
        """Angles [rad] from the mean heading whose cumulative probability is ``u``.

        Parameters
        ----------
        u
            Numbers in ``[0, 1]``, any shape (uniform ones give draws of ``D``).

        Returns
        -------
        numpy.ndarray
            The shape of ``u``, within the support (``|d| <= pi``).
        """
        cdf, d = self._cdf
        out: FloatArray = np.interp(np.asarray(u, dtype=float), cdf, d)
        return out


__all__ = ["SPREADINGS", "Spreading"]


def typed_mapping(value: Any, kinds: Any, path: str, what: str) -> str:
    """The ``type`` of a case file's mapping ``{type: <kind>, ...}`` at ``path``, one of
    ``kinds`` (a ModelError otherwise, ``what`` naming the thing in the message)."""
    listed = " | ".join(kinds)
    if not isinstance(value, Mapping):
        raise ModelError(f"expected a mapping {{type: {listed}, ...}}, got "
                         f"{reprlib.repr(value)}", path)
    kind = value.get("type")
    if kind not in kinds:
        raise ModelError(f"unknown {what} {reprlib.repr(kind)}; accepted: "
                         f"{', '.join(kinds)}", f"{path}.type")
    return str(kind)

