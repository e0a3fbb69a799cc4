"""The ``environment`` setting: water, waves and current, shared by the marine forces.

A case file's top-level section (``System.configure("environment", ...)`` in Python)::

    environment:
      water_density: 1025          # kg m-3
      depth: 50                    # m, or 'infinite' (the default)
      waves: {type: irregular, spectrum: jonswap, hs: 2.5, tp: 8.0, gamma: 3.3,
              nb_frequencies: 200, seed: 1, heading_deg: 0, ramp: 20}
      current: {speed: 0.5, heading_deg: 90}   # flows towards +y
      wave_probes: {bow: [50, 0], origin: [0, 0]}

Without ``waves`` the water is still. Headings are the directions waves and current go
**towards**, in degrees from +x about +z. The wave elevation at each probe is written
as ``environment_wave_elevation`` (dims time, wave_probe).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from frylinks.errors import ModelError
from frylinks.forces import Output
from frylinks.params import Param, parse_params, shown
from frylinks.settings import SettingType

from .waves import SPECTRA, WaveField

Array = np.ndarray

_HEADING = Param("float", "deg", "direction the waves travel towards, from +x about +z",
                 default=0.0)
_RAMP = Param("float", "s", "start-up ramp duration (half cosine); 0 for none", default=0.0,
              minimum=0.0)

#: Parameters of each kind of sea, as given under ``waves`` beside ``type``.
WAVES: dict[str, dict[str, Param]] = {
    "still": {},
    "regular": {
        "height": Param("float", "m", "wave height, crest to trough", minimum=0.0),
        "period": Param("float", "s", "wave period", positive=True),
        "heading_deg": _HEADING,
        "phase_deg": Param("float", "deg", "phase of the elevation at the origin at t = 0 "
                           "(0: a crest)", default=0.0),
        "ramp": _RAMP,
    },
    "irregular": {
        "spectrum": Param("choice", "", "sea spectrum", default="jonswap", choices=SPECTRA),
        "hs": Param("float", "m", "significant wave height", positive=True),
        "tp": Param("float", "s", "peak period", positive=True),
        "gamma": Param("float", "1", "JONSWAP peak enhancement", default=3.3, minimum=1.0),
        "nb_frequencies": Param("any", "1", "number of wave components (whole number)",
                                default=200),
        "seed": Param("any", "1", "seed of the random frequencies and phases (whole number)",
                      default=0),
        "heading_deg": _HEADING,
        "ramp": _RAMP,
    },
}

CURRENT: dict[str, Param] = {
    "speed": Param("float", "m s-1", "current speed, uniform over depth", minimum=0.0),
    "heading_deg": Param("float", "deg", "direction the current flows towards, from +x",
                         default=0.0),
}


def _whole(value: Any, path: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < low:
        raise ModelError(f"expected a whole number >= {low}, got {shown(value)}", path)
    return int(value)


def _depth(value: Any) -> float:
    if value in ("infinite", "inf"):
        return math.inf
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0 \
            or not math.isfinite(value):
        raise ModelError(f"expected a positive number of metres or 'infinite', got "
                         f"{shown(value)}", "depth")
    return float(value)


def _waves(value: Any) -> tuple[str, dict[str, Any]]:
    if value is None:
        return "still", {}
    if not isinstance(value, Mapping):
        raise ModelError(f"expected a mapping {{type: {' | '.join(WAVES)}, ...}}, got "
                         f"{shown(value)}", "waves")
    kind = value.get("type")
    if kind not in WAVES:
        raise ModelError(f"unknown kind of waves {shown(kind)}; accepted: "
                         f"{', '.join(WAVES)}", "waves.type")
    given = {k: v for k, v in value.items() if k != "type"}
    params = parse_params(WAVES[kind], given, "waves")
    if kind == "irregular":
        params["nb_frequencies"] = _whole(params["nb_frequencies"], "waves.nb_frequencies", 1)
        params["seed"] = _whole(params["seed"], "waves.seed", 0)
    return kind, params


def _current(value: Any) -> Array:
    if value is None:
        return np.zeros(3)
    if not isinstance(value, Mapping):
        raise ModelError(f"expected {{speed: ..., heading_deg: ...}}, got {shown(value)}",
                         "current")
    p = parse_params(CURRENT, value, "current")
    a = math.radians(p["heading_deg"])
    return p["speed"] * np.array([math.cos(a), math.sin(a), 0.0])


def _probes(value: Any) -> tuple[list[str], Array]:
    if value is None:
        return [], np.zeros((0, 2))
    if not isinstance(value, Mapping):
        raise ModelError(f"expected {{name: [x, y], ...}}, got {shown(value)}", "wave_probes")
    names, points = [], []
    for name, xy in value.items():
        try:
            p = np.array(xy, dtype=float)
        except (TypeError, ValueError, OverflowError):  # (an integer of 400 digits)
            p = np.zeros(0)
        if not isinstance(name, str) or p.shape != (2,) or not np.isfinite(p).all():
            raise ModelError(f"expected a name and [x, y] in m, got {shown(name)}: "
                             f"{shown(xy)}", f"wave_probes.{name}")
        names.append(name)
        points.append(p)
    return names, np.array(points)


class Environment(SettingType):
    """Water density and depth, waves (still, regular Airy, irregular from a spectrum)
    and a uniform current; the wave elevation at chosen points is an output."""

    name = "environment"
    parameters = {
        "water_density": Param("float", "kg m-3", "density of the water", default=1025.0,
                               positive=True),
        "depth": Param("any", "m", "water depth, a positive number or 'infinite'",
                       default="infinite"),
        "waves": Param("any", "", "the sea: {type: still | regular | irregular, ...} (still "
                       "water if absent)", default=None),
        "current": Param("any", "", "uniform current {speed [m s-1], heading_deg} (none if "
                         "absent)", default=None),
        "wave_probes": Param("any", "m", "points {name: [x, y]} where the wave elevation "
                             "is written", default=None),
    }
    outputs = {"environment_wave_elevation": Output("m", "wave elevation at the probe",
                                                    ("wave_probe",))}
    dimensions = ("wave_probe",)
    nested_parameters = {"waves": {k: p for kind in WAVES.values() for k, p in kind.items()},
                         "current": CURRENT}
    examples = [
        {"depth": 30.0, "waves": {"type": "regular", "height": 2.0, "period": 8.0,
                                  "heading_deg": 30.0, "ramp": 10.0},
         "current": {"speed": 0.5, "heading_deg": 90.0},
         "wave_probes": {"a": [0.0, 0.0], "b": [25.0, -3.0]}},
        {"waves": {"type": "irregular", "spectrum": "pierson_moskowitz", "hs": 3.0, "tp": 9.0,
                   "nb_frequencies": 50, "seed": 2}, "wave_probes": {"p": [1.0, 2.0]}},
    ]
    description = "water density and depth, regular or irregular waves, uniform current"

    @classmethod
    def validate(cls, params: Mapping[str, Any]) -> None:
        _depth(params["depth"])
        _waves(params["waves"])
        _current(params["current"])
        _probes(params["wave_probes"])

    def __init__(self, params: Mapping[str, Any], gravity: Array) -> None:
        super().__init__(params, gravity)
        self.rho = float(params["water_density"])
        self.depth = _depth(params["depth"])
        self.g = float(np.linalg.norm(gravity)) or 9.81
        self.current = _current(params["current"])
        self.probe_names, self.probes = _probes(params["wave_probes"])
        kind, p = _waves(params["waves"])
        common: dict[str, Any] = {"depth": self.depth, "g": self.g, "current": self.current}
        if kind == "regular":
            self.waves = WaveField.regular(
                p["height"], p["period"], heading=math.radians(p["heading_deg"]),
                phase=math.radians(p["phase_deg"]), ramp=p["ramp"], **common)
        elif kind == "irregular":
            self.waves = WaveField.irregular(
                p["spectrum"], p["hs"], p["tp"], gamma=p["gamma"],
                nb_frequencies=p["nb_frequencies"], seed=p["seed"],
                heading=math.radians(p["heading_deg"]), ramp=p["ramp"], **common)
        else:
            self.waves = WaveField.still(**common)

    def coordinates(self) -> dict[str, list[str]]:
        return {"wave_probe": list(self.probe_names)}

    def output_values(self, t: float) -> dict[str, Array]:
        return {"environment_wave_elevation": self.waves.elevation(self.probes, t)}


__all__ = ["CURRENT", "WAVES", "Environment"]
