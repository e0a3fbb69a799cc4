"""Forces from a Capytaine hydrodynamic dataset: wave excitation and radiation (Cummins).

``wave_excitation``
    ``F(t) = r(t) sum_i Re(a_i exp(1j phi_i) X(w_i, b_i) exp(1j k_i . x_0) exp(-1j w_i t))``
    over the environment's wave components (:mod:`frylinks_marine.waves`), with ``X`` the
    dataset's diffraction + Froude-Krylov force per unit amplitude (linear in frequency,
    zero outside the data) and ``x_0`` the horizontal offset of the body's initial COG
    from the dataset's centre of mass (the mesh is taken at the body's initial place).
    Zero in statics. The phasors are computed at ``prepare``; the sum is the compiled
    kernel :func:`~frylinks_marine.wave_kernels.excitation_force`.

``radiation``
    Cummins' equation: ``F = -A_inf u' - int_0^t K(t - s) u(s) ds``, ``u = xi'`` the body's
    6-DOF velocity. ``A_inf`` enters the mass matrix (no algebraic loop); the convolution
    with the impulse response ``K(t) = 2/pi int_0^inf B(w) cos(w t) dw`` of the radiation
    damping is integrated as a state-space system ``z' = A_s z + B_s u``, ``conv = C_s z``,
    realised from ``K`` (Hankel SVD, :class:`~frylinks_marine.radiation.RadiationStateSpace`).
    Its states are integrated with the bodies, so every integrator, adaptive ones
    included, and checkpoints handle the memory exactly.

Coefficients are about the COG in world-aligned axes (linear theory: small motions) and
scaled by the environment's water density over the dataset's. Each body radiates alone
(no coupling between bodies).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from frylinks.errors import ModelError
from frylinks.forces import ForceContext, ForceKernels, ForceType, Output
from frylinks.kinematics import NodeFrames
from frylinks.params import Param, as_path

from .body_forces import BODY
from .hydrodb import HydroDatabase, read_capytaine
from .radiation import RadiationMemory, RadiationStateSpace
from .wave_kernels import excitation_force, wave_params

Array = np.ndarray

#: The Capytaine sphere of the IEA OES Task 10 decay test, for the types' examples.
EXAMPLE_DATA = str(Path(__file__).resolve().parent / "data" / "sphere_capytaine.nc")

HYDRO = Param("path", "", "Capytaine hydrodynamic dataset (netCDF): absolute, or relative "
              "to the case file (to the working directory in Python)")


def _path(value: Any) -> Path:
    path = as_path(value, "hydrodynamics")
    if not path.is_file():
        raise ModelError(f"no file '{path}'", "hydrodynamics")
    return path.resolve()


def load_database(value: Any) -> HydroDatabase:
    """The dataset at path ``value``, read once per file version."""
    path = _path(value)
    try:
        return _cached(str(path), path.stat().st_mtime_ns)
    except ModelError as exc:
        raise ModelError(exc.message, "hydrodynamics") from None


@functools.lru_cache(maxsize=16)
def _cached(path: str, mtime: int) -> HydroDatabase:
    return read_capytaine(path)


@functools.lru_cache(maxsize=16)
def _state_space(path: str, mtime: int, tol: float) -> RadiationStateSpace:
    return RadiationStateSpace.from_database(_cached(path, mtime), tol=tol)


def _density_ratio(ctx: ForceContext, db: HydroDatabase) -> float:
    env = ctx.settings.get("environment")
    return 1.0 if env is None else float(env.rho) / float(db.rho)


class DatasetForce(ForceType):
    """Base of forces on a body from a Capytaine dataset (``hydrodynamics``)."""

    attachments = ("body",)
    examples = [{"hydrodynamics": EXAMPLE_DATA}]

    @classmethod
    def validate(cls, params: Mapping[str, Any]) -> None:
        load_database(params["hydrodynamics"])

    def __init__(self, instances: Sequence[Mapping[str, Any]], signal_specs: list[Any]) -> None:
        super().__init__(instances, signal_specs)
        self._dbs = [load_database(p["hydrodynamics"]) for p in instances]


class WaveExcitation(DatasetForce):
    """Linear wave excitation from a Capytaine dataset, in the environment's waves."""

    name = "wave_excitation"
    parameters = {"body": BODY, "hydrodynamics": HYDRO}
    description = "linear wave excitation force from a Capytaine dataset"

    def __init__(self, instances: Sequence[Mapping[str, Any]], signal_specs: list[Any]) -> None:
        super().__init__(instances, signal_specs)
        self.amplitude = np.zeros((self.nb_forces, 0, 6), dtype=complex)
        self.omega = np.zeros(0)
        self._waves: Any = None

    def prepare(self, frames: Sequence[NodeFrames], ctx: ForceContext) -> None:
        self.__dict__.pop("_kernel_data", None)  # (built again from what is set here)
        env = ctx.settings.get("environment")
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
        for i, db in enumerate(self._dbs):
            X = np.zeros((nc, 6), dtype=complex)
            for b in np.unique(heading):
                pick = heading == b
                X[pick] = db.excitation_at(self.omega[pick], float(b))
            centre = np.zeros(2) if db.center_of_mass is None else db.center_of_mass[:2]
            offset = frames[0].p[i, :2] - centre
            shift = np.exp(1j * k * (direction @ offset))
            self.amplitude[i] = (base * shift)[:, None] * X * _density_ratio(ctx, db)

    def kernel_data(self) -> tuple[Any, ...]:
        # (n, 6, nc): the sum over components runs along contiguous memory
        phasors = np.transpose(self.amplitude, (0, 2, 1))
        params = (wave_params(math.inf, 0.0, np.zeros(3)) if self._waves is None
                  else self._waves.kernel_data()[1])
        return (np.ascontiguousarray(phasors.real), np.ascontiguousarray(phasors.imag),
                np.ascontiguousarray(self.omega, dtype=float), params)


WaveExcitation.kernels = ForceKernels(excitation_force)


class Radiation(RadiationMemory, DatasetForce):
    """Cummins radiation force: infinite-frequency added mass and the memory convolution."""

    name = "radiation"
    parameters = {
        "body": BODY,
        "hydrodynamics": HYDRO,
        "fit_tolerance": Param("float", "1", "largest relative error of the state-space fit "
                               "of each impulse-response entry", default=0.02, positive=True),
    }
    outputs = {"radiation_memory_force": Output(
        "N", "convolution (memory) part of the radiation force on the DOFs", ("dof",), "N m")}
    description = "Cummins radiation force (A_inf + state-space convolution) from Capytaine"

    def __init__(self, instances: Sequence[Mapping[str, Any]], signal_specs: list[Any]) -> None:
        super().__init__(instances, signal_specs)
        systems = []
        for p in instances:
            path = _path(p["hydrodynamics"])
            systems.append(_state_space(str(path), path.stat().st_mtime_ns,
                                        float(p["fit_tolerance"])))
        self.realisations = systems
        n = self.nb_forces
        nz = sum(s.nb_states for s in systems)
        # block-diagonal over elements: one matrix product per evaluation for all bodies
        self.A, self.B, self.C = np.zeros((nz, nz)), np.zeros((nz, 6 * n)), np.zeros((6 * n, nz))
        start = 0
        for i, s in enumerate(systems):
            z = slice(start, start + s.nb_states)
            self.A[z, z], self.B[z, 6 * i: 6 * i + 6], self.C[6 * i: 6 * i + 6, z] = s.A, s.B, s.C
            start += s.nb_states
        self.nb_states = int(self.A.shape[0])
        self._ratio = np.ones(n)

    def prepare(self, frames: Sequence[NodeFrames], ctx: ForceContext) -> None:
        self._ratio = np.array([_density_ratio(ctx, db) for db in self._dbs])

    def added_mass(self) -> Array | None:
        return np.array([db.added_mass_inf * r for db, r in zip(self._dbs, self._ratio,
                                                                 strict=True)]).reshape(-1, 6, 6)

    def output_values(self, frames: Sequence[NodeFrames], ctx: ForceContext
                      ) -> dict[str, Array]:
        return {"radiation_memory_force": -self.memory_force(ctx)}
