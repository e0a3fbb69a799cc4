"""Forces on a whole body from constant 6-DOF coefficients (:mod:`frylinks_marine.dofs`).

* ``linear_hydrostatics``: ``F = W - K xi``, ``xi`` the pose from the equilibrium, ``W``
  the buoyancy that balances the body's weight there (``-m g``).
* ``added_mass``: a constant 6x6 matrix that enters the body's mass matrix; the force
  ``-A u'`` is reported as the element's wrench.
* ``linear_damping``: ``F = -B xi'``.
* ``quadratic_damping``: ``F_i = -sum_j D_ij r_j |r_j|``, ``r`` the body's velocity
  relative to the current (translations; rotations as they are).

Every force acts at the COG, world axes (the torque about the COG). Each type's
evaluation is a compiled kernel (:mod:`frylinks.jit`) at the end of the module.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from frylinks.errors import ElementError, ModelError
from frylinks.forces import ForceContext, ForceKernels, ForceType
from frylinks.jit import kernel, scratch
from frylinks.kinematics import NodeFrames
from frylinks.params import Param

from . import dofs
from .datasets import HYDRO_COG, dataset_of, in_environment
from .dofs import MATRIX_DOC, displacement6, matvec6, put_wrench
from .hydrostatics import hydrostatics
from .mesh_checks import mesh_arrays
from .wetted import posed_points

Array = np.ndarray

#: Relative difference above which ``stiffness: geometry`` warns: the mesh's displaced
#: mass against the body's, and its heave, roll and pitch stiffness against the
#: dataset's (5 %: a coarse mesh of a smooth hull stays well inside it; a different
#: draft or hull does not).
GEOMETRY_TOLERANCE = 0.05

BODY = Param("body", "", "the body (the force acts at its COG)")
HYDRO_FILE = Param("path", "", "hydrodynamic data holding a hydrostatic stiffness: a "
                   "Capytaine dataset (netCDF, .nc), a WEC-Sim BEMIO file (HDF5, .h5) or a "
                   "file of a WAMIT run with its .hst; absolute, or relative to the case "
                   "file (to the working directory in Python)", default=None)
HYDRO_FILE_BODY = Param("any", "", "the body of a multi-body dataset: Capytaine's body name, "
                        "BEMIO's body name or group (body2), or WAMIT's body number (2, or "
                        "body2); not needed for a dataset of one body", default=None)


class BodyCoefficients(ForceType):
    """Base of forces on a body from a 6x6 matrix parameter (``_key``)."""

    attachments = ("body",)
    _key = "damping"

    @classmethod
    def validate(cls, params: Mapping[str, Any]) -> None:
        dofs.matrix6(params[cls._key], cls._key)

    def __init__(self, instances: Sequence[Mapping[str, Any]], signal_specs: list[Any]) -> None:
        super().__init__(instances, signal_specs)
        self.matrix = np.array([dofs.matrix6(p[self._key]) for p in instances]).reshape(-1, 6, 6)


class LinearDamping(BodyCoefficients):
    """``F = -B xi'``: linear damping of the body's motion."""

    name = "linear_damping"
    parameters = {"body": BODY,
                  "damping": Param("any", "N s m-1, N m s rad-1", "damping B, " + MATRIX_DOC)}
    description = "linear damping of a body's 6 DOFs: -B times its velocity, about the COG"
    examples = [{"damping": {"heave": 1.0e4, "pitch": 2.0e5}},
                {"damping": (np.eye(6) * 3.0 + 0.5).tolist()}]

    def kernel_data(self) -> tuple[Any, ...]:
        return (self.matrix,)


class QuadraticDamping(BodyCoefficients):
    """``F_i = -sum_j D_ij r_j |r_j|`` with ``r`` the velocity relative to the current."""

    name = "quadratic_damping"
    parameters = {"body": BODY,
                  "damping": Param("any", "N s2 m-2, N m s2 rad-2",
                                   "quadratic damping D, " + MATRIX_DOC)}
    description = "quadratic (viscous drag) damping of a body's 6 DOFs, relative to the current"
    examples = [{"damping": {"surge": 5.0e3, "heave": 1.0e4, "yaw": 1.0e5}}]

    def __init__(self, instances: Sequence[Mapping[str, Any]], signal_specs: list[Any]) -> None:
        super().__init__(instances, signal_specs)
        #: The environment's uniform current [m s-1] (zero without one), from prepare().
        self.current = np.zeros(3)

    def prepare(self, frames: Sequence[NodeFrames], ctx: ForceContext) -> None:
        env = ctx.settings.get("environment")
        self.current[:] = 0.0 if env is None else np.asarray(env.current, dtype=float)

    def kernel_data(self) -> tuple[Any, ...]:
        return (self.matrix, self.current)

    def equivalent_damping(self, omega: float, heading: float, amplitude: float,
                           velocity: Array) -> tuple[Array, Array] | None:
        """Harmonic linearisation: each term ``D_ij r_j |r_j|`` of a harmonic ``r_j`` of
        amplitude ``|V_j|`` is, in the least-squares sense over a period (the first
        harmonic of its Fourier series), ``(8 / (3 pi)) D_ij |V_j| r_j``. A DOF with a
        current component keeps its tangent about the current (``2 D_ij |c_j|``, from
        the linearisation) and gets nothing more here."""
        speed = (8.0 / (3.0 * np.pi)) * np.abs(np.asarray(velocity))
        speed[:, :3] *= (self.current == 0.0)[None, :]
        return (self.matrix * speed[:, None, :],
                np.zeros((self.nb_forces, 6), dtype=complex))


class AddedMass(BodyCoefficients):
    """A constant added-mass matrix, part of the body's mass matrix (no algebraic loop)."""

    name = "added_mass"
    parameters = {"body": BODY,
                  "matrix": Param("any", "kg, kg m, kg m2", "added mass A, " + MATRIX_DOC)}
    description = "constant hydrodynamic added mass (6x6 about the COG), in the body's mass matrix"
    examples = [{"matrix": {"surge": 1.0e4, "heave": 5.0e4, "pitch": 1.0e6}}]
    _key = "matrix"

    @classmethod
    def validate(cls, params: Mapping[str, Any]) -> None:
        dofs.symmetric_added_mass(dofs.matrix6(params["matrix"], "matrix"),
                                  "the added-mass matrix", "matrix", stacklevel=3)

    def __init__(self, instances: Sequence[Mapping[str, Any]], signal_specs: list[Any]) -> None:
        super().__init__(instances, signal_specs)
        # the rule of every type adding mass (warned about at validation)
        self.matrix = np.array([dofs.symmetric_added_mass(m, "the added-mass matrix",
                                                          "matrix", warn=False)
                                for m in self.matrix]).reshape(-1, 6, 6)

    def added_mass(self) -> Array | None:
        return self.matrix


class LinearHydrostatics(ForceType):
    """``F = W - K xi``: linear restoring about an equilibrium where buoyancy ``W``
    balances the body's weight."""

    name = "linear_hydrostatics"
    attachments = ("body",)
    parameters = {
        "body": BODY,
        "stiffness": Param("any", "N m-1, N m rad-1", "hydrostatic stiffness K, " + MATRIX_DOC
                           + " (default: the dataset's, from 'hydrodynamics'); or 'geometry': "
                           "from the body's mesh at its initial pose (waterplane, centre of "
                           "buoyancy, COG), checked against the dataset's if one is given",
                           default=None),
        "mesh": Param("any", "", "the mesh for stiffness: geometry (points (nv, 3) in body "
                      "axes about the COG, faces); default: the body's geometry",
                      default=None),
        "mesh_resolution": Param("float", "1", "points around a shape's mesh (stiffness: "
                                 "geometry)", default=48, positive=True),
        "hydrodynamics": HYDRO_FILE,
        "hydrodynamics_body": HYDRO_FILE_BODY,
        "hydrodynamics_cog": HYDRO_COG,
        "equilibrium": Param("vector", "m", "COG position where buoyancy balances weight "
                             "(default: the initial position; orientation: the initial one)",
                             default=None),
    }
    description = "linear hydrostatic restoring of a floating body about its equilibrium"
    examples = [{"stiffness": {"heave": 7.7e5, "roll": 5.0e6, "pitch": 5.0e6}},
                {"stiffness": {"heave": 1.0e5}, "equilibrium": [0.0, 0.0, -0.5]}]
    memory = ("p_ref", "q_ref", "buoyancy")
    body_mesh = "mesh"

    @classmethod
    def needs_body_mesh(cls, params: Mapping[str, Any]) -> bool:
        return bool(params["stiffness"] == "geometry")

    @classmethod
    def supplies(cls, params: Mapping[str, Any]) -> tuple[str, ...]:
        return ("buoyancy and hydrostatic restoring",)

    @classmethod
    def validate(cls, params: Mapping[str, Any]) -> None:
        if params["stiffness"] == "geometry":
            if params["mesh"] is not None:
                mesh_arrays(params["mesh"], "mesh")
            if params["hydrodynamics"] is not None:
                dataset_of(params)
        elif params["stiffness"] is not None:
            dofs.matrix6(params["stiffness"], "stiffness")
        elif params["hydrodynamics"] is None:
            raise ModelError("give a 'stiffness' or a dataset 'hydrodynamics' holding one",
                             "stiffness")
        else:
            db = dataset_of(params)
            if db.hydrostatic_stiffness is None:
                raise ModelError(f"{db.label} has no hydrostatic stiffness; give "
                                 "'stiffness'", "hydrodynamics")

    def __init__(self, instances: Sequence[Mapping[str, Any]], signal_specs: list[Any]) -> None:
        super().__init__(instances, signal_specs)
        mats = []
        #: per element, the dataset the stiffness comes from (None: given by the user)
        self._dbs: list[Any] = []
        #: per element, the mesh its stiffness comes from (stiffness: geometry) or None
        self._meshes: list[tuple[Array, Array] | None] = []
        for i, p in enumerate(instances):
            self._meshes.append(None)
            if p["stiffness"] == "geometry":
                if p["mesh"] is None:
                    raise ElementError("stiffness: geometry, but the body has no geometry",
                                       "stiffness", i)
                self._meshes[-1] = mesh_arrays(p["mesh"], "mesh")
                mats.append(np.zeros((6, 6)))
                self._dbs.append(dataset_of(p) if p["hydrodynamics"] is not None else None)
            elif p["stiffness"] is not None:
                mats.append(dofs.matrix6(p["stiffness"]))
                self._dbs.append(None)
            else:
                db = dataset_of(p)
                mats.append(np.asarray(db.hydrostatic_stiffness, dtype=float))
                self._dbs.append(db)
        self.stiffness = np.array(mats).reshape(-1, 6, 6)
        self._given = [p["equilibrium"] for p in instances]
        n = self.nb_forces
        self.p_ref, self.q_ref, self.buoyancy = np.zeros((n, 3)), np.zeros((n, 4)), np.zeros((n, 3))

    def prepare(self, frames: Sequence[NodeFrames], ctx: ForceContext) -> None:
        # in place: the kernel data holds these arrays
        f = frames[0]
        for i, db in enumerate(self._dbs):
            mesh = self._meshes[i]
            if mesh is not None:
                self.stiffness[i] = self._from_geometry(i, mesh, f, ctx)
            elif db is not None:  # a dataset's stiffness follows the density rule
                self.stiffness[i] = in_environment(db, ctx).hydrostatic_stiffness
        for i, g in enumerate(self._given):
            self.p_ref[i] = f.p[i] if g is None else np.asarray(g, dtype=float)
        self.q_ref[...] = f.q
        self.buoyancy[...] = -ctx.masses[0][:, None] * ctx.gravity[None, :]

    def kernel_data(self) -> tuple[Any, ...]:
        return (self.stiffness, self.p_ref, self.q_ref, self.buoyancy)

    def _from_geometry(self, i: int, mesh: tuple[Array, Array], f: NodeFrames,
                       ctx: ForceContext) -> Array:
        """Element ``i``'s stiffness about its COG from its mesh posed at the initial
        state (:func:`frylinks_marine.hydrostatics.hydrostatics`), with a warning where
        the mesh's buoyancy is not the weight, or the dataset's stiffness differs by
        more than :data:`GEOMETRY_TOLERANCE`."""
        env = ctx.settings.get("environment")
        rho = 1025.0 if env is None else float(env.rho)
        g = float(np.linalg.norm(ctx.gravity)) or 9.81
        mass = float(ctx.masses[0][i])
        local, faces = mesh
        points = np.empty_like(local)
        posed_points(local, f.R[i], f.p[i], points)
        hs = hydrostatics(points, faces, mass, f.p[i], rho, g)
        k = np.asarray(hs.stiffness, dtype=float)
        where = f"linear_hydrostatics element {i} (stiffness: geometry)"
        displaced = rho * hs.wetted.volume
        if abs(displaced - mass) > GEOMETRY_TOLERANCE * mass:
            warnings.warn(f"{where}: the body's mesh displaces {displaced / 1e3:.6g} t at its "
                          f"initial pose, its mass is {mass / 1e3:.6g} t: the force balances "
                          "the weight there all the same (give the pose where they agree)",
                          UserWarning, stacklevel=2)
        db = self._dbs[i]
        if db is not None:
            given = np.asarray(in_environment(db, ctx).hydrostatic_stiffness, dtype=float)
            for d, name in ((2, "heave"), (3, "roll"), (4, "pitch")):
                ref = abs(given[d, d])
                if abs(k[d, d] - given[d, d]) > GEOMETRY_TOLERANCE * max(ref, 1e-12):
                    warnings.warn(
                        f"{where}: the {name} stiffness from the geometry, {k[d, d]:.6g}, "
                        f"differs from the dataset's ({db.label}), {given[d, d]:.6g}, by "
                        f"more than {GEOMETRY_TOLERANCE:.0%}; the geometry's is used",
                        UserWarning, stacklevel=2)
        return k


# ---------------------------------------------------------------------------- kernels

@kernel
def linear_damping(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], t: float,
                   signals: Array, gravity: Array, states: Array, static: bool, force: Array,
                   torque: Array) -> None:
    """``F = -B xi'`` on each body."""
    (matrix,) = data
    f = frames[0]
    u = scratch(6)
    gen = scratch(6)
    for i in range(len(matrix)):
        for k in range(3):
            u[k] = f.v[i, k]
            u[3 + k] = f.w[i, k]
        gen[:] = 0.0
        matvec6(matrix[i], u, -1.0, gen)
        put_wrench(gen, force[i, 0], torque[i, 0])


@kernel
def quadratic_damping(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], t: float,
                      signals: Array, gravity: Array, states: Array, static: bool,
                      force: Array, torque: Array) -> None:
    """``F_i = -sum_j D_ij r_j |r_j|``, ``r`` the body's velocity relative to the current."""
    matrix, current = data
    f = frames[0]
    r = scratch(6)
    gen = scratch(6)
    for i in range(len(matrix)):
        for k in range(3):
            r[k] = f.v[i, k] - current[k]
            r[3 + k] = f.w[i, k]
        for k in range(6):
            r[k] = r[k] * abs(r[k])
        gen[:] = 0.0
        matvec6(matrix[i], r, -1.0, gen)
        put_wrench(gen, force[i, 0], torque[i, 0])


@kernel
def added_mass(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], t: float,
               signals: Array, gravity: Array, states: Array, static: bool, force: Array,
               torque: Array) -> None:
    """No wrench of its own: the matrix is in the body's mass matrix (its ``-A u'`` is
    reported by the engine)."""


@kernel
def linear_hydrostatics(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], t: float,
                        signals: Array, gravity: Array, states: Array, static: bool,
                        force: Array, torque: Array) -> None:
    """``F = W - K xi`` on each body, ``xi`` from the equilibrium pose."""
    stiffness, p_ref, q_ref, buoyancy = data
    f = frames[0]
    xi = scratch(6)
    gen = scratch(6)
    work = scratch(4)
    for i in range(len(stiffness)):
        displacement6(f.p[i], f.q[i], p_ref[i], q_ref[i], work, xi)
        gen[:] = 0.0
        matvec6(stiffness[i], xi, -1.0, gen)
        for k in range(3):
            gen[k] += buoyancy[i, k]
        put_wrench(gen, force[i, 0], torque[i, 0])


LinearDamping.kernels = ForceKernels(linear_damping)
QuadraticDamping.kernels = ForceKernels(quadratic_damping)
AddedMass.kernels = ForceKernels(added_mass)
LinearHydrostatics.kernels = ForceKernels(linear_hydrostatics)
