"""The ``environment`` setting: water, waves and current, shared by the marine forces.

A case file's top-level section (``System.configure("environment", ...)`` in Python)::

    environment:
      water_density: 1025          # kg m-3
      depth: 50                    # m, or 'infinite' (the default)
      waves: {type: irregular, spectrum: jonswap, hs: 2.5, tp: 8.0, gamma: 3.3,
              nb_frequencies: 200, seed: 1, heading_deg: 0, ramp: 20}
      current: {speed: 0.5, heading_deg: 90}   # flows towards +y
      wave_probes: {bow: [50, 0], origin: [0, 0]}

An irregular sea may be short-crested (``spreading: {type: cos2s, s: 15}``), drawn from a
spectrum table (``spectrum: table, table: {file: s.csv}``) with a chosen frequency
discretisation (``frequencies: random | equal | equal_energy``); ``{type: systems,
systems: [{...}, {...}], seed: 1, ramp: 20}`` is a sea of several such systems (swell and
wind sea): :mod:`frylinks_marine.sea_states`.

Other seas: ``{type: components, amplitude: [...], period: [...], phase_deg: [...],
heading_deg: ...}`` (explicit Airy components, to reproduce another code's sea), and
``{type: record, file: eta.csv, omega_max: 3}`` (a measured or computed elevation record
at the origin, split into components by a Fourier transform:
:meth:`~frylinks_marine.waves.WaveField.from_record`). Every sea but still water takes a
start-up ``ramp`` [s] of ``ramp_shape`` ``half_cosine`` (the default, WEC-Sim's) or
``linear``.

Without ``waves`` the water is still. Headings are the directions waves and current go
**towards**, in degrees from +x about +z. The wave elevation at each probe is written
as ``environment_wave_elevation`` (dims time, wave_probe).
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from frylinks.errors import ModelError
from frylinks.forces import Output
from frylinks.params import Param, as_path, parse_params, shown
from frylinks.series import read_series
from frylinks.settings import SettingType

from .sea_states import FREQUENCIES, WaveSystem, irregular_sea
from .spectrum_tables import SpectrumTable
from .spreading import Spreading, typed_mapping
from .wave_kernels import RAMP_SHAPES
from .waves import SPECTRA, WaveField

Array = np.ndarray

_HEADING = Param("float", "degree", "direction the waves travel towards, from +x about +z",
                 default=0.0)
_RAMP = Param("float", "s", "start-up ramp duration; 0 for none", default=0.0,
              minimum=0.0)
_RAMP_SHAPE = Param("choice", "", "shape of the start-up ramp: half_cosine (1 - cos(pi t / "
                    "ramp)) / 2, WEC-Sim's; linear t / ramp", default="half_cosine",
                    choices=RAMP_SHAPES)

#: Parameters of each kind of sea, as given under ``waves`` beside ``type``.
WAVES: dict[str, dict[str, Param]] = {
    "still": {},
    "regular": {
        "height": Param("float", "m", "wave height, crest to trough", minimum=0.0),
        "period": Param("float", "s", "wave period", positive=True),
        "heading_deg": _HEADING,
        "phase_deg": Param("float", "degree", "phase of the elevation at the origin at t = 0 "
                           "(0: a crest)", default=0.0),
        "ramp": _RAMP,
        "ramp_shape": _RAMP_SHAPE,
    },
    "irregular": {
        "spectrum": Param("choice", "", "sea spectrum; table: S(f) or S(f, theta) given in "
                          "table", default="jonswap", choices=(*SPECTRA, "table")),
        "hs": Param("float", "m", "significant wave height (not for a table)", default=None,
                    positive=True),
        "tp": Param("float", "s", "peak period (not for a table)", default=None, positive=True),
        "gamma": Param("float", "1", "JONSWAP peak enhancement", default=3.3, minimum=1.0),
        "nb_frequencies": Param("any", "1", "number of wave components (whole number)",
                                default=200),
        "omega_range": Param("any", "rad s-1", "[w_min, w_max] of the components (default: "
                             "the range holding 99.5 % of m0; a table's own range)",
                             default=None),
        "frequencies": Param("choice", "", "frequency discretisation: random (one random "
                             "frequency in each equal bin), equal (bin centres) or "
                             "equal_energy (bins of equal m0)", default="random",
                             choices=FREQUENCIES),
        "seed": Param("any", "1", "seed of the random frequencies, phases and directions "
                      "(whole number)", default=0),
        "heading_deg": _HEADING,
        "spreading": Param("any", "", "directional spreading about heading_deg: {type: cos2s, "
                           "s} | {type: cosn, n} | {type: wrapped_normal, sigma_deg}; none: "
                           "long-crested", default=None),
        "table": Param("any", "", "the spectrum of spectrum: table: {file[, variable]} (CSV "
                       "or netCDF) or {frequency_hz, density[, direction_deg]}", default=None),
        "ramp": _RAMP,
        "ramp_shape": _RAMP_SHAPE,
    },
    "components": {
        "amplitude": Param("any", "m", "amplitude of each component, a list"),
        "period": Param("any", "s", "period of each component, a list as long"),
        "phase_deg": Param("any", "degree", "phase of each component's elevation at the origin "
                           "at t = 0 (0: a crest), a list or one number", default=0.0),
        "heading_deg": Param("any", "degree", "direction each component travels towards, a "
                             "list or one number", default=0.0),
        "ramp": _RAMP,
        "ramp_shape": _RAMP_SHAPE,
    },
    "record": {
        "file": Param("path", "", "elevation record at the origin, equally spaced in time: "
                      "CSV (time [s] in the first column) or netCDF, absolute or relative to "
                      "the case file"),
        "column": Param("any", "", "CSV column of the elevation [m]: header name or 0-based "
                        "index", default=1),
        "variable": Param("any", "", "netCDF variable of the elevation [m] (optional if the "
                          "file holds one)", default=None),
        "heading_deg": _HEADING,
        "omega_max": Param("float", "rad s-1", "components above this frequency are left out "
                           "(default: none, up to the record's Nyquist frequency)",
                           default=None, positive=True),
        "ramp": _RAMP,
        "ramp_shape": _RAMP_SHAPE,
    },
}
#: Parameters of one wave system of ``{type: systems, systems: [...]}``: an irregular
#: sea's but the seed and the ramp, which are the whole sea's.
SYSTEM: dict[str, Param] = {k: p for k, p in WAVES["irregular"].items()
                            if k not in ("seed", "ramp", "ramp_shape")}
WAVES["systems"] = {
    "systems": Param("any", "", "the wave systems (swell, wind sea, ...): a list of "
                     "mappings with the keys of an irregular sea but seed and ramp"),
    "seed": Param("any", "1", "seed of the sea: system i draws from the i-th stream "
                  "SeedSequence(seed).spawn (whole number)", default=0),
    "ramp": _RAMP,
    "ramp_shape": _RAMP_SHAPE,
}
#: A record's components may leave out at most this fraction of its variance silently.
RECORD_LEFT_OUT = 0.01

CURRENT: dict[str, Param] = {
    "speed": Param("float", "m s-1", "current speed, uniform over depth", minimum=0.0),
    "heading_deg": Param("float", "degree", "direction the current flows towards, from +x",
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
    kind = typed_mapping(value, WAVES, "waves", "kind of waves")
    given = {k: v for k, v in value.items() if k != "type"}
    params = parse_params(WAVES[kind], given, "waves")
    if kind in ("irregular", "systems"):
        params["seed"] = _whole(params["seed"], "waves.seed", 0)
    if kind == "irregular":
        params["nb_frequencies"] = _whole(params["nb_frequencies"], "waves.nb_frequencies", 1)
        params["systems"] = [_system(params, given, "waves")]
    if kind == "systems":
        items = params["systems"]
        if isinstance(items, Mapping | str) or not isinstance(items, Sequence) or not items:
            raise ModelError(f"expected a list of one or more wave systems {{spectrum, hs, "
                             f"tp, ...}}, got {shown(items)}", "waves.systems")
        params["systems"] = [_system_of(item, f"waves.systems[{i}]")
                             for i, item in enumerate(items)]
    if kind == "components":
        n = len(_numbers(params["amplitude"], "waves.amplitude", None, minimum=0.0))
        _numbers(params["period"], "waves.period", n, positive=True)
        for key in ("phase_deg", "heading_deg"):
            _numbers(params[key], f"waves.{key}", n, scalar=True)
    if kind == "record":
        _record(params)
    return kind, params


def _system_of(item: Any, path: str) -> WaveSystem:
    """The wave system of one item of ``systems``."""
    if not isinstance(item, Mapping):
        raise ModelError(f"expected a mapping {{spectrum, hs, tp, heading_deg, spreading, "
                         f"...}}, got {shown(item)}", path)
    params = parse_params(SYSTEM, item, path)
    params["nb_frequencies"] = _whole(params["nb_frequencies"], f"{path}.nb_frequencies", 1)
    return _system(params, item, path)


def _system(params: Mapping[str, Any], given: Mapping[str, Any], path: str) -> WaveSystem:
    """The :class:`WaveSystem` of an irregular sea's or a system's parsed ``params``
    (``given``: the keys as written, to tell a default from a value given)."""
    try:
        table = params["spectrum"] == "table"
        if table != (params["table"] is not None):
            raise ModelError("spectrum: table needs table: {file: ...} or {frequency_hz: "
                             "[...], density: [...]}" if table else "a table is the spectrum "
                             "of spectrum: table only: add spectrum: table or leave table "
                             "out", "table")
        if table and "gamma" in given:
            raise ModelError("gamma shapes a JONSWAP spectrum, not a table: leave it out",
                             "gamma")
        spectrum = SpectrumTable.from_mapping(params["table"]) if table else params["spectrum"]
        if table and spectrum.direction is not None and "heading_deg" in given:
            raise ModelError("a directional table's directions are absolute: leave "
                             "heading_deg out", "heading_deg")
        return WaveSystem(spectrum, params["hs"], params["tp"], gamma=params["gamma"],
                          heading=math.radians(params["heading_deg"]),
                          spreading=Spreading.from_mapping(params["spreading"]),
                          nb_frequencies=params["nb_frequencies"],
                          frequencies=params["frequencies"],
                          omega_range=params.get("omega_range"))
    except ModelError as exc:
        raise exc.under(path) from None


def _numbers(value: Any, path: str, n: int | None, *, minimum: float | None = None,
             positive: bool = False, scalar: bool = False) -> Array:
    """A list of ``n`` numbers (any length >= 1 when ``n`` is None; with ``scalar``, one
    number stands for all ``n``)."""
    if scalar and isinstance(value, int | float) and not isinstance(value, bool):
        value = [value] * (n or 1)
    try:
        out = np.array(value, dtype=float)
    except (TypeError, ValueError, OverflowError):
        out = np.zeros((0, 0))
    bad = (out.ndim != 1 or out.size < 1 or (n is not None and out.size != n)
           or not np.isfinite(out).all() or (minimum is not None and (out < minimum).any())
           or (positive and (out <= 0).any()))
    if bad:
        size = "a list of numbers" if n is None else f"a list of {n} numbers (one per component)"
        sign = " > 0" if positive else f" >= {minimum:g}" if minimum is not None else ""
        raise ModelError(f"expected {size}{sign}, got {shown(value)}", path)
    return out


def _record(params: Mapping[str, Any]) -> tuple[Array, Array]:
    """Times and elevations of a ``record`` sea's file (:func:`frylinks.series.read_series`,
    the ``table`` signal's reader too), read once per version of the file: configuring,
    checking and assembling a case (and every case of a sweep in one process) ask for it."""
    column, variable = params.get("column", 1), params.get("variable")
    try:
        path = as_path(params["file"], "file")
        if not (isinstance(column, int | str) and isinstance(variable, str | None)
                and path.is_file()):
            return read_series(params)  # (it says what is wrong)
        return _read_record(str(path), path.stat().st_mtime_ns, column, variable)
    except ModelError as exc:
        raise exc.under("waves") from None


@functools.lru_cache(maxsize=8)
def _read_record(path: str, stamp: int, column: int | str, variable: str | None
                 ) -> tuple[Array, Array]:
    times, values = read_series({"file": path, "column": column, "variable": variable})
    times.setflags(write=False)
    values.setflags(write=False)
    return times, values


def _absolute_tables(waves: Mapping[str, Any]) -> Mapping[str, Any]:
    """``waves`` with the files of its spectrum tables made absolute (what is not a file
    path is left for :func:`_waves` to report)."""
    def absolute(system: Any) -> Any:
        table = system.get("table") if isinstance(system, Mapping) else None
        if not isinstance(table, Mapping) or "file" not in table:
            return system
        try:
            path = as_path(table["file"], "file")
        except ModelError:
            return system
        return {**system, "table": {**table, "file": str(path)}}

    if waves.get("type") == "irregular":
        return absolute(waves)
    items = waves.get("systems")
    if waves.get("type") == "systems" and isinstance(items, list):
        return {**waves, "systems": [absolute(item) for item in items]}
    return waves


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
        "waves": Param("any", "", "the sea: {type: still | regular | irregular | systems | "
                       "components | record, ...} (still water if absent)", default=None),
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
        {"waves": {"type": "systems", "seed": 1, "ramp": 20.0, "systems": [
            {"spectrum": "jonswap", "hs": 1.5, "tp": 14.0, "gamma": 5.0, "heading_deg": -20.0,
             "spreading": {"type": "cos2s", "s": 40.0}, "nb_frequencies": 60},
            {"spectrum": "pierson_moskowitz", "hs": 2.5, "tp": 7.0, "heading_deg": 45.0,
             "spreading": {"type": "wrapped_normal", "sigma_deg": 25.0},
             "nb_frequencies": 100, "frequencies": "equal_energy"}]}},
    ]
    description = ("the sea: water density and depth, waves (regular, irregular and "
                   "short-crested, "
                   "several systems, given components or a measured record) and a uniform current")

    @classmethod
    def normalise(cls, params: dict[str, Any]) -> dict[str, Any]:
        # a record's or a spectrum table's file is made absolute here, where the case
        # file is read
        if isinstance(params["waves"], Mapping) and params["waves"].get("type") == "record":
            kind, waves = _waves(params["waves"])
            params = {**params, "waves": {"type": kind, **waves}}
        elif isinstance(params["waves"], Mapping):
            params = {**params, "waves": _absolute_tables(params["waves"])}
        return params

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
        if kind != "still":
            common.update(ramp=p["ramp"], ramp_shape=p["ramp_shape"])
        if kind == "regular":
            self.waves = WaveField.regular(
                p["height"], p["period"], heading=math.radians(p["heading_deg"]),
                phase=math.radians(p["phase_deg"]), **common)
        elif kind in ("irregular", "systems"):
            # (one long-crested system is WaveField.irregular's sea bit for bit)
            self.waves = irregular_sea(p["systems"], p["seed"], **common)
        elif kind == "components":
            amplitude = _numbers(p["amplitude"], "waves.amplitude", None)
            n = len(amplitude)
            self.waves = WaveField(
                amplitude, 2.0 * math.pi / _numbers(p["period"], "waves.period", n),
                np.radians(_numbers(p["heading_deg"], "waves.heading_deg", n, scalar=True)),
                np.radians(_numbers(p["phase_deg"], "waves.phase_deg", n, scalar=True)),
                **common)
        elif kind == "record":
            times, eta = _record(p)
            self.waves = WaveField.from_record(
                times, eta, heading=math.radians(p["heading_deg"]), omega_max=p["omega_max"],
                **common)
            if self.waves.record_error > RECORD_LEFT_OUT:
                warnings.warn(
                    f"environment.waves.omega_max: the {self.waves.nb_components} wave "
                    f"components kept of the record '{p['file']}' leave out "
                    f"{100 * self.waves.record_error:.3g} % of its variance", stacklevel=2)
        else:
            self.waves = WaveField.still(**common)

    def coordinates(self) -> dict[str, list[str]]:
        return {"wave_probe": list(self.probe_names)}

    def output_values(self, t: float) -> dict[str, Array]:
        return {"environment_wave_elevation": self.waves.elevation(self.probes, t)}

    def output_series(self, times: Array) -> dict[str, Array]:
        m, n = len(times), len(self.probes)
        # every probe at every time in one call: one time per point
        eta = self.waves.elevation(np.tile(self.probes, (m, 1)), np.repeat(times, n))
        return {"environment_wave_elevation": eta.reshape(m, n)}


__all__ = ["CURRENT", "WAVES", "Environment"]
