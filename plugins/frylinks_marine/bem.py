"""Forces from a hydrodynamic dataset (Capytaine netCDF, WEC-Sim BEMIO HDF5 or WAMIT
output): wave
excitation and radiation (Cummins).

``wave_excitation``
    ``F(t) = r(t) sum_i Re(a_i exp(1j phi_i) X(w_i, b_i) exp(1j k_i . x_0) exp(-1j w_i t))``
    over the environment's wave components (:mod:`frylinks_marine.waves`), with ``X`` the
    dataset's diffraction + Froude-Krylov force per unit amplitude (linear in frequency,
    zero outside the data) and ``x_0`` the horizontal offset of the body's initial COG
    from the dataset's centre of mass (the mesh is taken at the body's initial place).
    Zero in statics. The phasors are computed at ``prepare``, and the sum's record over
    the run's span (:mod:`frylinks_marine.force_records`, within 1e-6 of the sum of the
    phasors' moduli); the compiled kernel
    :func:`~frylinks_marine.wave_kernels.excitation_force` interpolates it (sums the
    components where no record covers the time).

``radiation``
    Cummins' equation: ``F = -A_inf u' - int_0^t K(t - s) u(s) ds``, ``u = xi'`` the body's
    6-DOF velocity. ``A_inf`` enters the mass matrix (no algebraic loop), symmetrised by
    the rule of :func:`~frylinks_marine.dofs.symmetric_added_mass`; the convolution
    with the impulse response ``K(t) = 2/pi int_0^inf B(w) cos(w t) dw`` of the radiation
    damping is integrated as a state-space system ``z' = A_s z + B_s u``, ``conv = C_s z``,
    realised from ``K`` (Hankel SVD, :class:`~frylinks_marine.radiation.RadiationStateSpace`)
    and kept on disk (:func:`~frylinks_marine.radiation.cached_state_space`), or BEMIO's
    own realisation (``state_space: dataset``). Its states are integrated with the bodies,
    so every integrator, adaptive ones included, and checkpoints handle the memory
    exactly.

Coefficients are about the COG in world-aligned axes (linear theory: small motions) and
taken to the environment's water density by
:meth:`~frylinks_marine.hydrodb.HydroDatabase.at_density`
(:func:`~frylinks_marine.datasets.in_environment`), the
one density rule of every type reading a dataset (``linear_hydrostatics`` too). A body
of a multi-body dataset is named by ``hydrodynamics_body``. The ``radiation`` forces
read from one multi-body dataset interact (``interaction: true``, the default; WEC-Sim's
b2b): the force on each body includes the added mass, damping and memory of the other
bodies' motion, from the dataset's full ``6 N x 6 N`` coefficients. The cross terms of
``A_inf`` couple the bodies' mass matrix
(:meth:`~frylinks.forces.ForceType.coupled_added_mass`); the cross-body impulse responses
are realised in one state space with the bodies' own.
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from frylinks.errors import ElementError, ModelError, Notice
from frylinks.forces import ForceContext, ForceKernels, ForceType, Output
from frylinks.jit import kernel
from frylinks.kinematics import NodeFrames
from frylinks.params import Param, shown

from .body_forces import BODY
from .datasets import (
    HYDRO_COG,
    dataset_of,
    dataset_path,
    in_environment,
    load_bodies,
    water_density,
)
from .dofs import symmetric_added_mass
from .force_records import ForceRecord, harmonic, without_noise
from .frequency_grid import frequency_grid_problems
from .hydrodb import DOF_NAMES, HydroDatabase
from .radiation import (
    MAX_ORDER,
    RadiationStateSpace,
    cached_state_space,
    convolution_tables,
    dof_labels,
    modal_form,
)
from .radiation_kernels import (
    RadiationMemory,
    radiation_accept,
    radiation_evaluate,
    radiation_memory,
    radiation_state_derivative,
)
from .wave_kernels import excitation_force, wave_params
from .waves import wavenumber

Array = np.ndarray

#: The Capytaine sphere of the IEA OES Task 10 decay test, for the types' examples.
EXAMPLE_DATA = str(Path(__file__).resolve().parent / "data" / "sphere_capytaine.nc")

HYDRO = Param("path", "", "hydrodynamic data: a Capytaine dataset (netCDF, .nc), a "
              "WEC-Sim BEMIO file (HDF5, .h5) or a file of a WAMIT run (.1, .3, .hst, ..., "
              "also gzipped); absolute, or relative to the case file (to the working "
              "directory in Python)")
HYDRO_BODY = Param("any", "", "the body of a multi-body dataset: Capytaine's body name "
                   "(<name>__Heave), BEMIO's body name or group (body2), or WAMIT's body "
                   "number (2, or body2); not needed for a dataset of one body", default=None)


class DatasetForce(ForceType):
    """Base of forces on a body from a hydrodynamic dataset (``hydrodynamics``, and
    ``hydrodynamics_body`` for a body of a multi-body dataset)."""

    attachments = ("body",)
    examples = [{"hydrodynamics": EXAMPLE_DATA}]

    @classmethod
    def validate(cls, params: Mapping[str, Any]) -> None:
        dataset_of(params)

    def __init__(self, instances: Sequence[Mapping[str, Any]], signal_specs: list[Any]) -> None:
        super().__init__(instances, signal_specs)
        self._dbs = [dataset_of(p)
                     for p in instances]


class WaveExcitation(DatasetForce):
    """Linear wave excitation from a hydrodynamic dataset, in the environment's waves."""

    name = "wave_excitation"
    parameters = {"body": BODY, "hydrodynamics": HYDRO, "hydrodynamics_body": HYDRO_BODY,
                  "hydrodynamics_cog": HYDRO_COG,
                  "part": Param("choice", "", "total: diffraction and Froude-Krylov; "
                                "diffraction: without the incident wave's Froude-Krylov "
                                "force, when nonlinear_hydrostatics (froude_krylov: true) "
                                "supplies it on the body's wetted surface",
                                default="total", choices=("total", "diffraction"))}
    description = "linear wave excitation force from a Capytaine, BEMIO or WAMIT dataset"

    @classmethod
    def validate(cls, params: Mapping[str, Any]) -> None:
        db = dataset_of(params)
        try:
            db.require_excitation()  # a WAMIT run without its .3 file
        except ModelError as exc:
            raise ModelError(exc.message, "hydrodynamics") from None
        db.excitation_part(params["part"])  # (its error names the key 'part')

    @classmethod
    def supplies(cls, params: Mapping[str, Any]) -> tuple[str, ...]:
        if params["part"] == "diffraction":
            return ("diffraction force",)
        return ("Froude-Krylov force", "diffraction force")

    def __init__(self, instances: Sequence[Mapping[str, Any]], signal_specs: list[Any]) -> None:
        super().__init__(instances, signal_specs)
        self.amplitude = np.zeros((self.nb_forces, 0, 6), dtype=complex)
        self.omega = np.zeros(0)
        self._waves: Any = None
        # for wave_excitation (a linear analysis): density, dispersion, the bodies' places
        self._rho: list[float] = [float(db.rho) for db in self._dbs]
        self._depth, self._g = math.inf, 9.81
        self._offset = np.zeros((self.nb_forces, 2))
        self.record = ForceRecord.empty(6 * self.nb_forces)
        self._parts = [str(p["part"]) for p in instances]

    def prepare(self, frames: Sequence[NodeFrames], ctx: ForceContext) -> None:
        self.__dict__.pop("_kernel_data", None)  # (built again from what is set here)
        self.record = ForceRecord.empty(6 * self.nb_forces)
        env = ctx.settings.get("environment")
        self._rho = [water_density(ctx, db) for db in self._dbs]
        self._g = float(np.linalg.norm(ctx.gravity)) or 9.81
        self._depth = math.inf if env is None else float(env.depth)
        for i, db in enumerate(self._dbs):
            centre = np.zeros(2) if db.center_of_mass is None else db.center_of_mass[:2]
            self._offset[i] = frames[0].p[i, :2] - centre
        if env is None:
            return
        waves = self._waves = env.waves
        self.omega = np.asarray(waves.omega, dtype=float)
        nc = len(self.omega)
        self.amplitude = np.zeros((self.nb_forces, nc, 6), dtype=complex)
        if nc == 0:
            return
        heading = np.asarray(waves.heading, dtype=float) * np.ones(nc)
        base = np.asarray(waves.amplitude) * np.exp(1j * np.asarray(waves.phase))
        k = np.asarray(waves.k, dtype=float)
        direction = np.stack([np.cos(heading), np.sin(heading)], axis=1)
        for i, data in enumerate(self._dbs):
            db = in_environment(data, ctx)
            X = np.zeros((nc, 6), dtype=complex)
            for b in np.unique(heading):
                pick = heading == b
                try:
                    X[pick] = db.excitation_at(self.omega[pick], float(b),
                                               part=self._parts[i])
                except ModelError:  # (a spread sea's heading beyond the data's)
                    shown_h = np.degrees(np.angle(np.exp(1j * heading)))
                    listed = ", ".join(f"{h:g}" for h in np.degrees(db.headings))
                    raise ElementError(
                        f"{db.label}: the data's headings are {listed} deg; the sea's "
                        f"components travel towards {shown_h.min():.4g} to "
                        f"{shown_h.max():.4g} deg (environment.waves: its headings and "
                        "spreading), beyond their span; accepted: data whose headings "
                        "cover the sea's, or a sea within them",
                        "hydrodynamics", i) from None
            centre = np.zeros(2) if db.center_of_mass is None else db.center_of_mass[:2]
            offset = frames[0].p[i, :2] - centre
            shift = np.exp(1j * k * (direction @ offset))
            self.amplitude[i] = (base * shift)[:, None] * X
        # the sum over components, once for the run (frylinks_marine.force_records)
        phasors = np.transpose(self.amplitude, (0, 2, 1)).reshape(6 * self.nb_forces, nc)
        self.record = harmonic(without_noise(phasors), self.omega, ctx.span,
                               label="wave_excitation")

    def wave_excitation(self, omega: Array, heading: float) -> Array | None:
        """Per element, the dataset's excitation per unit amplitude of a regular wave
        (``(n, nw, 6)``), at the environment's density, shifted to the body's place as
        in the time domain (:meth:`prepare`)."""
        w = np.asarray(omega, dtype=float).reshape(-1)
        k = wavenumber(w, self._depth, self._g)
        direction = np.array([math.cos(heading), math.sin(heading)])
        out = np.zeros((self.nb_forces, w.size, 6), dtype=complex)
        for i, db in enumerate(self._dbs):
            shift = np.exp(1j * k * float(direction @ self._offset[i]))
            out[i] = db.at_density(self._rho[i]).excitation_at(
                w, heading, part=self._parts[i]) * shift[:, None]
        return out

    def kernel_data(self) -> tuple[Any, ...]:
        # (n, 6, nc): the sum over components runs along contiguous memory
        phasors = np.transpose(self.amplitude, (0, 2, 1))
        params = (wave_params(math.inf, 0.0, np.zeros(3)) if self._waves is None
                  else self._waves.kernel_data()[1])
        return (np.ascontiguousarray(phasors.real), np.ascontiguousarray(phasors.imag),
                np.ascontiguousarray(self.omega, dtype=float), params,
                *self.record.kernel_data())


WaveExcitation.kernels = ForceKernels(excitation_force)


class Radiation(RadiationMemory, DatasetForce):
    """Cummins radiation force: infinite-frequency added mass and the memory convolution."""

    name = "radiation"
    parameters = {
        "body": BODY,
        "hydrodynamics": HYDRO,
        "hydrodynamics_body": HYDRO_BODY,
        "hydrodynamics_cog": HYDRO_COG,
        "method": Param("choice", "", "how the memory convolution is computed: "
                        "'state_space' (a fit of each kernel entry integrated with the "
                        "bodies; an entry the fit cannot bring within fit_tolerance is "
                        "convolved directly) or 'convolution' (every entry convolved "
                        "directly over the velocity history, exact to the data and the "
                        "time step; costs kernel length / dt per entry and step)",
                        default="state_space", choices=("state_space", "convolution")),
        "fit_tolerance": Param("float", "1", "largest error of the memory force of each "
                               "fitted kernel entry, relative to the peak radiation damping "
                               "force of the same velocity amplitude (docs/marine.md)",
                               default=0.02, positive=True),
        "state_space": Param("choice", "", "realisation of the memory: 'fit' (from the "
                             "radiation damping, to fit_tolerance, kept on disk) or "
                             "'dataset' (a BEMIO file's own, as WEC-Sim uses it)",
                             default="fit", choices=("fit", "dataset")),
        "interaction": Param("any", "", "hydrodynamic interaction with the other bodies of "
                             "the same dataset that have a radiation force: the added mass, "
                             "damping and memory between bodies (WEC-Sim's b2b); true or "
                             "false, alike on all of them", default=True),
    }
    outputs = {"radiation_memory_force": Output(
        "N", "convolution (memory) part of the radiation force on the DOFs", ("dof",), "N m")}
    description = ("Cummins radiation force (A_inf + memory: state space or direct "
                   "convolution) from a dataset")

    @classmethod
    def validate(cls, params: Mapping[str, Any]) -> None:
        db = dataset_of(params)
        # said here, once, when the force is added (a case read, frylinks check)
        symmetric_added_mass(db.added_mass_inf, _infinite(db), "hydrodynamics", stacklevel=3)
        for problem in frequency_grid_problems(db):
            warnings.warn(problem, UserWarning, stacklevel=3)
        if not isinstance(params.get("interaction", True), bool):
            raise ModelError(f"expected true or false, got {shown(params['interaction'])}",
                             "interaction")
        if params.get("state_space") == "dataset" and db.state_space is None:
            raise ModelError(f"{db.label} holds no state-space realisation of the radiation "
                             "memory (BEMIO files may: radiation_damping/state_space); "
                             "accepted: state_space: fit", "state_space")

    def __init__(self, instances: Sequence[Mapping[str, Any]], signal_specs: list[Any]) -> None:
        super().__init__(instances, signal_specs)
        n = self.nb_forces
        self._a_inf: list[Array] = [np.zeros((6, 6))] * n
        self._coupled = np.zeros((6 * n, 6 * n))
        self.units = []
        grouped: set[int] = set()
        for members in _interacting(self._dbs, instances):
            self.units.append((members, self._group(members, instances)))
            grouped.update(members)
        for i, (db, p) in enumerate(zip(self._dbs, instances, strict=True)):
            if i not in grouped:
                self.units.append(([i], _realisation(db, p)))
                self._a_inf[i] = symmetric_added_mass(db.added_mass_inf, _infinite(db),
                                                      "hydrodynamics", warn=False)
        #: per unit, the entries convolved directly ((d, d) bool over its DOFs) and why
        self._convolved: list[tuple[Array, str]] = []
        for k, (members, ss) in enumerate(self.units):
            first = instances[members[0]]
            convolved, why = _convolved_entries(ss, first)
            if convolved.any() and first.get("method") != "convolution":
                bodies = [str(instances[i]["body"]) for i in members]
                labels = dof_labels(6 * len(members), bodies if len(members) > 1 else None)
                names = ", ".join(f"{labels[i]}-{labels[j]} ({ss.fit_error[i, j]:.1%})"
                                  if np.isfinite(ss.fit_error[i, j]) else
                                  f"{labels[i]}-{labels[j]} (no stable fit)"
                                  for i, j in np.argwhere(convolved))
                where = ", ".join(repr(b) for b in bodies)
                warnings.warn(Notice(
                    f"radiation of {where}: the state-space fit of {names} misses "
                    f"fit_tolerance {float(first['fit_tolerance']):g} with up to "
                    f"{MAX_ORDER} states; these entries are convolved directly (exact to "
                    "the data)"), stacklevel=2)
            self.units[k] = (members, ss.without(convolved))
            self._convolved.append((convolved, why))
        if not any(convolved.any() for convolved, _ in self._convolved):
            # nothing convolved: no history to keep, so no accept at every step (its
            # call, with the body states it needs, cost a quarter of a state-space run)
            self.kernels = STATE_SPACE_ONLY
        self._bodies = [str(p["body"]) for p in instances]
        nz = sum(ss.nb_states for _, ss in self.units)
        # block diagonal over units: one matrix product per evaluation for all bodies
        self.A, self.B, self.C = np.zeros((nz, nz)), np.zeros((nz, 6 * n)), np.zeros((6 * n, nz))
        start = 0
        for members, ss in self.units:
            z = slice(start, start + ss.nb_states)
            self.A[z, z] = ss.A
            for k, i in enumerate(members):
                self.B[z, 6 * i: 6 * i + 6] = ss.B[:, 6 * k: 6 * k + 6]
                self.C[6 * i: 6 * i + 6, z] = ss.C[6 * k: 6 * k + 6]
            start += ss.nb_states
        self.A, self.B, self.C = modal_form(self.A, self.B, self.C)
        self.nb_states = int(self.A.shape[0])
        self._ratio = np.ones(n)
        #: per unit: its elements, the data's frequencies, A(w) and B(w) over their DOFs
        self._frequency = [self._coefficients(members, instances) for members, _ in self.units]

    def _coefficients(self, members: list[int], instances: Sequence[Mapping[str, Any]]
                      ) -> tuple[list[int], Array, Array, Array]:
        if len(members) == 1:
            db = self._dbs[members[0]]
            return members, db.omega, db.added_mass, db.radiation_damping
        mdb = load_bodies(instances[members[0]]["hydrodynamics"], self._cogs(members, instances))
        dofs = np.concatenate([6 * mdb.bodies.index(str(self._dbs[i].body)) + np.arange(6)
                               for i in members])
        return (members, mdb.omega, mdb.added_mass[:, dofs][:, :, dofs],
                mdb.radiation_damping[:, dofs][:, :, dofs])

    def _cogs(self, members: list[int], instances: Sequence[Mapping[str, Any]]
              ) -> dict[str, Any]:
        """The ``hydrodynamics_cog`` of each interacting element's dataset body."""
        return {str(self._dbs[i].body): instances[i].get("hydrodynamics_cog")
                for i in members}

    def frequency_coefficients(self, omega: float) -> tuple[Array, Array] | None:
        """``A(omega)`` and ``B(omega)`` of the data (interacting bodies' cross terms
        included), linear in frequency between the data's frequencies and held at the
        nearest one outside them (said in a warning), at the environment's density."""
        n = self.nb_forces
        added, damping = np.zeros((6 * n, 6 * n)), np.zeros((6 * n, 6 * n))
        for members, w, a, b in self._frequency:
            if not w[0] <= omega <= w[-1]:
                warnings.warn(
                    f"radiation: {omega:.4g} rad/s lies outside the hydrodynamic data "
                    f"({w[0]:.4g} to {w[-1]:.4g} rad/s): A(w) and B(w) are held at the "
                    "nearest frequency of the data", UserWarning, stacklevel=2)
            k = int(np.clip(np.searchsorted(w, omega), 1, w.size - 1)) if w.size > 1 else 0
            s = 0.0 if w.size == 1 else float(np.clip((omega - w[k - 1]) / (w[k] - w[k - 1]),
                                                      0.0, 1.0))
            lo = max(k - 1, 0)
            cols = np.concatenate([6 * i + np.arange(6) for i in members])
            added[np.ix_(cols, cols)] = (1.0 - s) * a[lo] + s * a[k]
            damping[np.ix_(cols, cols)] = (1.0 - s) * b[lo] + s * b[k]
        ratio = np.repeat(self._ratio, 6)[:, None]
        return added * ratio, damping * ratio

    def _group(self, members: list[int], instances: Sequence[Mapping[str, Any]]
               ) -> RadiationStateSpace:
        """The state space of interacting elements over all their DOFs; their own and
        cross-body added masses are kept (``_a_inf``, ``_coupled``)."""
        first = instances[members[0]]
        mdb = load_bodies(first["hydrodynamics"], self._cogs(members, instances))
        dofs = np.concatenate([6 * mdb.bodies.index(str(self._dbs[i].body)) + np.arange(6)
                               for i in members])
        bodies = [str(self._dbs[i].body) for i in members]
        where = f"{mdb.source} bodies {', '.join(map(repr, bodies))}"
        labels = [f"{b} {d}" for b in bodies for d in DOF_NAMES]
        a_inf = symmetric_added_mass(mdb.added_mass_inf[np.ix_(dofs, dofs)],
                                     f"{where}: the infinite-frequency added mass",
                                     "hydrodynamics", stacklevel=4)
        for k, i in enumerate(members):
            self._a_inf[i] = a_inf[6 * k: 6 * k + 6, 6 * k: 6 * k + 6]
            for m, j in enumerate(members):
                if m != k:
                    self._coupled[6 * i: 6 * i + 6, 6 * j: 6 * j + 6] = \
                        a_inf[6 * k: 6 * k + 6, 6 * m: 6 * m + 6]
        if first.get("state_space", "fit") == "dataset":
            if mdb.state_space is None:
                raise ModelError(f"{mdb.source} holds no state-space realisation",
                                 "state_space")
            return mdb.state_space.restricted(dofs)
        if first.get("method") == "convolution":
            return _no_state_space(dofs.size)
        return cached_state_space(mdb.omega, mdb.radiation_damping[:, dofs][:, :, dofs],
                                  tol=float(first["fit_tolerance"]), where=where, labels=labels,
                                  warn=False)

    def prepare(self, frames: Sequence[NodeFrames], ctx: ForceContext) -> None:
        # the realisations are of the dataset's kernel: the memory force scales as every
        # other coefficient does (HydroDatabase.at_density)
        self._ratio = np.array([water_density(ctx, db) / db.rho for db in self._dbs])
        # the convolution's grid: the run's step, else (no run: a check, an analysis)
        # eight samples a period of the data's highest frequency
        top = max((float(w[-1]) for _, w, _, _ in self._frequency), default=1.0)
        delta = float(ctx.step) if ctx.step else np.pi / (4 * top)
        if getattr(self, "_delta", None) != delta:
            rows: list[Array] = []
            cols: list[Array] = []
            tables: list[Array] = []
            for (members, w, _, b), (convolved, _) in zip(self._frequency, self._convolved,
                                                         strict=True):
                if not convolved.any():
                    continue
                pairs, entry_tables = convolution_tables(w, b, delta, entries=convolved)
                dofs = np.concatenate([6 * i + np.arange(6) for i in members])
                rows.append(dofs[pairs[:, 0]])
                cols.append(dofs[pairs[:, 1]])
                tables += entry_tables
            self.set_convolution(np.concatenate(rows) if rows else np.zeros(0),
                                 np.concatenate(cols) if cols else np.zeros(0), tables, delta)
            self._delta = delta
        else:
            self.reset_convolution()

    def linearisable(self) -> str | None:
        return None  # (frequency_coefficients stand for the memory, however computed)

    def report(self) -> dict[str, str]:
        """``radiation_memory``: per kernel entry of each element, how its memory is
        computed (``state_space`` with its states and fit error, or ``convolution``
        with the kernel's length [s]), as JSON."""
        entries = []
        delta = float(self.conv_delta[0])
        start = self.conv_phase_start
        lengths = {(int(r), int(c)): (start[2 * e + 2] - start[2 * e] - 1) * delta / 2
                   for e, (r, c) in enumerate(zip(self.conv_rows, self.conv_cols,
                                                  strict=True))}
        for (members, ss), (convolved, why) in zip(self.units, self._convolved, strict=True):
            labels = dof_labels(6 * len(members), [self._bodies[i] for i in members])
            dofs = np.concatenate([6 * i + np.arange(6) for i in members])
            for a, b in zip(*np.nonzero((ss.order > 0) | convolved), strict=True):
                key = (int(dofs[a]), int(dofs[b]))
                if convolved[a, b] and key not in lengths:
                    continue  # (insignificant: numerical noise, left out)
                item: dict[str, Any] = {"row": labels[a], "column": labels[b]}
                if convolved[a, b]:
                    item.update(method="convolution", why=why,
                                kernel_length=round(lengths[key], 6))
                    if np.isfinite(ss.fit_error[a, b]):
                        item["fit_error"] = round(float(ss.fit_error[a, b]), 6)
                else:
                    item.update(method="state_space", states=int(ss.order[a, b]),
                                fit_error=round(float(ss.fit_error[a, b]), 6))
                entries.append(item)
        return {"radiation_memory": json.dumps(entries)}

    def added_mass(self) -> Array | None:
        return np.array([a * r for a, r in zip(self._a_inf, self._ratio,
                                               strict=True)]).reshape(-1, 6, 6)

    def coupled_added_mass(self) -> Array | None:
        if not np.any(self._coupled):
            return None
        return self._coupled * np.repeat(self._ratio, 6)[:, None]


@kernel(allocates=True)
def radiation_outputs(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], t: float,
                      signals: Array, gravity: Array, states: Array, out: Array) -> None:
    """``radiation_memory_force`` into ``out (n, 6)``: the memory force of each element
    (:func:`~frylinks_marine.radiation_kernels.radiation_memory`)."""
    n = len(data[3]) // 6
    memory = np.empty((n, 6))
    radiation_memory(data, frames, t, states, memory)
    for i in range(n):
        for k in range(6):
            out[i, k] = -memory[i, k]


Radiation.kernels = ForceKernels(radiation_evaluate, radiation_state_derivative,
                                 accept=radiation_accept, outputs=radiation_outputs)
#: The kernels of a block whose memory is all state space (no history to accept).
STATE_SPACE_ONLY = ForceKernels(radiation_evaluate, radiation_state_derivative,
                                outputs=radiation_outputs)


def _convolved_entries(ss: RadiationStateSpace, params: Mapping[str, Any]
                       ) -> tuple[Array, str]:
    """The entries of a unit convolved directly, ``(d, d)`` bool, and why: all of them
    with ``method: convolution``; with the state space fitted here, those whose fit
    misses ``fit_tolerance`` or has no stable realisation; none with a dataset's own
    realisation (used as it is, as WEC-Sim does)."""
    n = ss.order.shape[0]
    if params.get("method") == "convolution":
        return np.ones((n, n), dtype=bool), "method: convolution"
    if params.get("state_space", "fit") == "dataset":
        return np.zeros((n, n), dtype=bool), ""
    with np.errstate(invalid="ignore"):
        missed = ss.fit_error > float(params["fit_tolerance"])
    if ss.unstable.shape == (n, n):
        missed |= ss.unstable
    return missed, "the fit misses fit_tolerance"


def _infinite(db: HydroDatabase) -> str:
    return f"{db.label}: the infinite-frequency added mass" if db.label else \
        "the infinite-frequency added mass"


def _interacting(dbs: Sequence[HydroDatabase], instances: Sequence[Mapping[str, Any]]
                 ) -> list[list[int]]:
    """The groups of elements (two or more) that interact: ``interaction`` on, bodies of
    one multi-body dataset.

    Raises
    ------
    ModelError
        Two elements reading the same body of a dataset, or elements of one dataset
        that differ in ``interaction``, ``state_space`` or ``fit_tolerance``.
    """
    by_file: dict[str, list[int]] = {}
    for i, p in enumerate(instances):
        by_file.setdefault(str(dataset_path(p["hydrodynamics"])), []).append(i)
    groups = []
    for path, members in by_file.items():
        if len(members) < 2 or load_bodies(path).nb_bodies < 2:
            continue
        for key in ("interaction", "state_space", "fit_tolerance", "method"):
            values = [instances[i].get(key) for i in members]
            other = next((i for i, v in zip(members, values, strict=True) if v != values[0]),
                         None)
            if other is not None:
                raise ElementError(
                    f"the radiation forces of the bodies of {Path(path).name} differ in "
                    f"{key} ({values[0]} and {instances[other].get(key)}): they are one "
                    "system; give them the same value", key, other)
        if not instances[members[0]].get("interaction", True):
            continue
        bodies = [str(dbs[i].body) for i in members]
        for k, b in enumerate(bodies):
            if b in bodies[:k]:
                raise ElementError(f"two radiation forces read body {b!r} of "
                                   f"{Path(path).name}: one per dataset body",
                                   "hydrodynamics_body", members[k])
        groups.append(members)
    return groups


def _realisation(db: HydroDatabase, params: Mapping[str, Any]) -> RadiationStateSpace:
    """The element's state space: the dataset's own, or the fit of its damping, read
    from the disk cache when the same data were fitted before."""
    if params.get("state_space", "fit") == "dataset":
        if db.state_space is None:
            raise ModelError(f"{db.label} holds no state-space realisation", "state_space")
        return db.state_space
    if params.get("method") == "convolution":
        return _no_state_space(6)
    return cached_state_space(db.omega, db.radiation_damping, tol=float(params["fit_tolerance"]),
                              where=db.label, warn=False)


def _no_state_space(n: int) -> RadiationStateSpace:
    """A system without states over ``n`` DOFs (every entry convolved directly)."""
    return RadiationStateSpace(A=np.zeros((0, 0)), B=np.zeros((0, n)), C=np.zeros((n, 0)),
                               fit_error=np.full((n, n), np.nan),
                               order=np.zeros((n, n), dtype=int), dt=0.0,
                               unstable=np.zeros((n, n), dtype=bool))
