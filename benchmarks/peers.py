"""Peer half of the benchmark suite: the same models in Exudyn and MuJoCo.

Models (SI units, gravity 9.81 m/s^2 along -z):

* ``pendulum``: one body, m = 1 kg, I = diag(1e-3) kg m^2 about its COG, COG at
  (1, 0, 0), at rest, on a revolute joint at the origin about world y; 10 s at
  dt = 1e-3. Accuracy: the swing angle phi = atan2(x, -z) of the COG against
  :func:`exact.pendulum_angle` (I_pivot = Iyy + m L^2), every 0.01 s.
* ``spring_damper``: one body, m = 1 kg, I = diag(0.1), COG at the origin, on a
  prismatic joint along world x; a linear spring-damper along x (k = 100 N/m,
  c = 2 N s/m, force zero at x = 0) and a constant force F = 10 N along +x from
  t = 0; 10 s at dt = 1e-3. Accuracy: max |x - x_exact| / (F / k) every 0.01 s
  against :func:`exact.oscillator_step`.
* ``chain``: N thin rods, m = 1/N, l = 1/N, Ixx = m l^2/1200, Iyy = Izz = m l^2/12
  (body x along the rod), COG at ((i + 0.5) l, 0, 0), at rest, joined end to end by
  spherical joints, the first to the origin. Energy drift (E(t) - E(0)) / (M g L),
  M = 1 kg, L = 1 m, from the bodies' COG positions and velocities and body-frame
  angular velocities (:func:`exact.rigid_energy`), every 0.01 s.

Engines:

* Exudyn (``exudyn_*``): ``mbs.CreateRigidBody`` with Euler-parameter nodes (its
  default), ``CreateRevoluteJoint`` / ``CreatePrismaticJoint`` /
  ``CreateSphericalJoint``; the spring-damper is an
  ``ObjectConnectorLinearSpringDamper`` along x of a ground-fixed rigid marker; the
  force a ``CreateForce`` load. Solved with ``exu.SolveDynamic``: generalized-alpha
  (the default implicit solver, spectral radius ``rho_inf`` = 0.9, Exudyn 1.13's
  default; 1.0 fails on these index-3 constraints), fixed ``numberOfSteps`` =
  t_end / dt with Exudyn's default adaptive step reduction on Newton failure (counted
  and reported in ``status``), modified Newton with default tolerances, the
  EigenSparse linear solver, one thread, no solution file, no output. States are
  sampled by node sensors (Position, Velocity, AngularVelocityLocal) stored in memory
  (``storeInternal=True``, ``writeToFile=False``) every 0.01 s; they run inside the
  timed solve (their cost, measured on the chain with N = 10 and 100, is within the
  run-to-run noise of about 10 %).
* MuJoCo (``mujoco_*``): a kinematic tree of bodies built with ``MjSpec`` (explicit
  mass, COG and diagonal inertia as above), hinge / slide / ball joints; the spring-damper
  is the slide joint's ``stiffness`` / ``damping`` (``springref`` = 0), the force
  ``xfrc_applied``; contacts disabled, no geoms. ``mj_step(m, d, nstep=10)`` between
  samples; only those calls are timed. Samples recompute the kinematics
  (``mj_kinematics``, ``mj_comPos``, ``mj_comVel``) outside the timing. A MuJoCo
  divergence (a bad-qacc/qvel/qpos warning, after which MuJoCo resets the state) stops
  the run and is reported in ``status``. The integrator is a parameter (default RK4:
  explicit in the joint damping; Euler and implicit* treat joint damping implicitly).

Each function returns a plain dict: ``engine, model, n, dt, t_end, wall, per_second,
status`` and the accuracy figures (``nan`` after a divergence); ``per_second`` is the
wall time over the simulated time the solver ran, ``t_end`` unless it failed first.
Run ``python benchmarks/peers.py`` for the table.
"""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path

import numpy as np

G = 9.81
SAMPLE = 0.01  # seconds between accuracy samples
RHO_INF = 0.9  # Exudyn generalized-alpha spectral radius (its default in 1.13)


def _load_exact():
    """``benchmarks/exact.py`` as a module (``benchmarks`` is not a package)."""
    name = "frylinks_bench_exact"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name("exact.py"))
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


exact = _load_exact()


def _require(name: str):
    """Import ``name`` or raise an ImportError saying how to install it."""
    try:
        return importlib.import_module(name)
    except ImportError as err:
        raise ImportError(f"{name} is needed for the peer benchmarks: "
                          "pip install -e '.[bench]'") from err


def _steps(t_end: float, dt: float) -> int:
    """Whole number of steps of ``dt`` in ``t_end``."""
    n = round(t_end / dt)
    if n < 1 or abs(n * dt - t_end) > 1e-9 * max(t_end, 1.0):
        raise ValueError(f"t_end = {t_end} is not a whole number of steps of {dt}")
    return n


def _result(engine, model, n, dt, t_end, wall, status, **figures) -> dict:
    """The common result dict; ``wall`` is (seconds, simulated seconds they ran)."""
    seconds, simulated = wall
    return dict(engine=engine, model=model, n=n, dt=dt, t_end=t_end, wall=seconds,
                per_second=seconds / simulated, status=status, **figures)


def _pendulum_figures(t, pos, energy) -> dict:
    """Angle errors against the exact pendulum and the energy drift."""
    iyy, m, length = 1e-3, 1.0, 1.0
    omega0 = np.sqrt(m * G * length / (iyy + m * length**2))
    phi = np.arctan2(pos[:, 0], -pos[:, 2])
    err = np.abs(phi - exact.pendulum_angle(t, np.pi / 2, omega0))
    de = (np.asarray(energy) - energy[0]) / (m * G * length)
    return dict(angle_error_max=float(err.max()), angle_error_end=float(err[-1]),
                energy_drift=float(de[-1]), energy_drift_max=float(np.abs(de).max()))


def _spring_figures(t, x) -> dict:
    """Largest step-response error relative to the static deflection F / k."""
    m, k, c, force = 1.0, 100.0, 2.0, 10.0
    err = np.abs(x - exact.oscillator_step(t, m, k, c, force)) / (force / k)
    return dict(rel_error_max=float(err.max()), rel_error_end=float(err[-1]))


def _drift(energy) -> dict:
    """Energy drift relative to M g L = 9.81 J (M = 1 kg, L = 1 m)."""
    de = (np.asarray(energy) - energy[0]) / (1.0 * G * 1.0)
    return dict(energy_drift=float(de[-1]), energy_drift_max=float(np.abs(de).max()))


def _chain_bodies(n: int):
    """Mass, principal inertia (n, 3) and COG positions (n, 3) of the N-rod chain."""
    m = length = 1.0 / n
    inertia = np.tile([m * length**2 / 1200, m * length**2 / 12, m * length**2 / 12], (n, 1))
    cog = np.zeros((n, 3))
    cog[:, 0] = (np.arange(n) + 0.5) * length
    return np.full(n, m), inertia, cog


# --------------------------------------------------------------------------- Exudyn


class _Exudyn:
    """One Exudyn system: bodies with in-memory sensors, solved by generalized-alpha."""

    def __init__(self):
        self.exu = _require("exudyn")
        self.SC = self.exu.SystemContainer()
        self.mbs = self.SC.AddSystem()
        self.ground = self.mbs.CreateGround()
        self.sensors = []  # (position, velocity, angular velocity local) per body
        self.mass, self.inertia = [], []

    def body(self, mass, inertia, position):
        """A rigid body with its COG at ``position`` and node sensors; its object index."""
        exu = self.exu
        from exudyn.utilities import RigidBodyInertia

        b = self.mbs.CreateRigidBody(
            inertia=RigidBodyInertia(mass=mass, inertiaTensor=np.diag(inertia)),
            referencePosition=list(position), gravity=[0.0, 0.0, -G], returnDict=True)
        ovt = exu.OutputVariableType
        self.sensors.append([
            self.mbs.AddSensor(exu.itemInterface.SensorNode(
                nodeNumber=b["nodeNumber"], outputVariableType=kind, storeInternal=True,
                writeToFile=False))
            for kind in (ovt.Position, ovt.Velocity, ovt.AngularVelocityLocal)])
        self.mass.append(mass)
        self.inertia.append(inertia)
        return b["bodyNumber"]

    @property
    def engine(self) -> str:
        return (f"exudyn {self.exu.__version__} (generalized-alpha, rho_inf={RHO_INF}, "
                "EigenSparse, modified Newton, Euler parameters)")

    def solve(self, t_end: float, dt: float):
        """Run; returns ((wall seconds, simulated seconds), status)."""
        exu = self.exu
        self.mbs.Assemble()
        s = exu.SimulationSettings()
        ti = s.timeIntegration
        ti.numberOfSteps = n_steps = _steps(t_end, dt)
        ti.endTime = t_end
        ti.verboseMode = 0
        ti.generalizedAlpha.spectralRadius = RHO_INF
        s.linearSolver.solverType = exu.LinearSolverType.EigenSparse
        s.solution.file.write = False
        s.solution.sensors.writePeriod = SAMPLE
        s.parallel.numberOfThreads = 1
        status = "ok"
        start = time.perf_counter()
        try:
            exu.SolveDynamic(self.mbs, s)
        except exu.SolverError:
            status = "failed"
        wall = time.perf_counter() - start
        it = self.mbs.sys["dynamicSolver"].it
        if status != "ok":
            status = f"solver failed at t={it.currentTime:.4g} s"
        taken = it.currentStepIndex - 1
        if taken > n_steps:
            status = f"Newton failures: step reduced ({taken} steps for {n_steps})"
        return (wall, it.currentTime if status.startswith("solver failed") else t_end), status

    def samples(self):
        """Times (k,) and per-body position, velocity, local angular velocity (k, n, 3)."""
        data = [[self.mbs.GetSensorStoredData(s) for s in body] for body in self.sensors]
        k = min(d.shape[0] for body in data for d in body)
        t = data[0][0][:k, 0]
        pos, vel, omega = (np.stack([body[j][:k, 1:4] for body in data], axis=1)
                           for j in range(3))
        return t, pos, vel, omega

    def energies(self):
        """Times and total energies at the samples."""
        t, pos, vel, omega = self.samples()
        energy = [exact.rigid_energy(self.mass, self.inertia, p, v, w)
                  for p, v, w in zip(pos, vel, omega, strict=True)]
        return t, pos, np.array(energy)


def exudyn_pendulum(t_end: float = 10.0, dt: float = 1e-3) -> dict:
    """The pendulum in Exudyn.

    Parameters
    ----------
    t_end : float
        Simulated time [s].
    dt : float
        Time step [s].

    Returns
    -------
    dict
        Timing, status, ``angle_error_max``, ``angle_error_end`` [rad],
        ``energy_drift``, ``energy_drift_max`` (relative to m g L).
    """
    sim = _Exudyn()
    body = sim.body(1.0, [1e-3, 1e-3, 1e-3], [1.0, 0.0, 0.0])
    sim.mbs.CreateRevoluteJoint(itemNumbers=[sim.ground, body], position=[0.0, 0.0, 0.0],
                                axis=[0.0, 1.0, 0.0], useGlobalFrame=True)
    wall, status = sim.solve(t_end, dt)
    t, pos, energy = sim.energies()
    return _result(sim.engine, "pendulum", 1, dt, t_end, wall, status,
                   **_pendulum_figures(t, pos[:, 0], energy))


def exudyn_spring_damper(t_end: float = 10.0, dt: float = 1e-3) -> dict:
    """The spring-damper on a prismatic joint in Exudyn.

    Uses ``ObjectConnectorLinearSpringDamper`` between a rigid marker on ground and one
    on the body, acting along x of the ground marker's frame.

    Parameters
    ----------
    t_end : float
        Simulated time [s].
    dt : float
        Time step [s].

    Returns
    -------
    dict
        Timing, status, ``rel_error_max`` and ``rel_error_end`` (relative to F / k).
    """
    sim = _Exudyn()
    ii = sim.exu.itemInterface
    body = sim.body(1.0, [0.1, 0.1, 0.1], [0.0, 0.0, 0.0])
    sim.mbs.CreatePrismaticJoint(itemNumbers=[sim.ground, body], position=[0.0, 0.0, 0.0],
                                 axis=[1.0, 0.0, 0.0], useGlobalFrame=True)
    markers = [sim.mbs.AddMarker(ii.MarkerBodyRigid(bodyNumber=b, localPosition=[0, 0, 0]))
               for b in (sim.ground, body)]
    sim.mbs.AddObject(ii.ObjectConnectorLinearSpringDamper(
        markerNumbers=markers, stiffness=100.0, damping=2.0, axisMarker0=[1.0, 0.0, 0.0]))
    sim.mbs.CreateForce(itemNumber=body, loadVector=[10.0, 0.0, 0.0])
    wall, status = sim.solve(t_end, dt)
    t, pos, _, _ = sim.samples()
    return _result(sim.engine + ", LinearSpringDamper", "spring_damper", 1, dt, t_end, wall,
                   status, **_spring_figures(t, pos[:, 0, 0]))


def exudyn_chain(n: int, t_end: float = 1.0, dt: float = 1e-3) -> dict:
    """The chain of ``n`` rods on spherical joints in Exudyn.

    Parameters
    ----------
    n : int
        Number of rods.
    t_end : float
        Simulated time [s] (the N = 1000 run of the table uses 0.1 s).
    dt : float
        Time step [s].

    Returns
    -------
    dict
        Timing, status, ``energy_drift`` and ``energy_drift_max`` (relative to M g L).
    """
    sim = _Exudyn()
    mass, inertia, cog = _chain_bodies(n)
    previous, length = sim.ground, 1.0 / n
    for i in range(n):
        body = sim.body(mass[i], inertia[i], cog[i])
        sim.mbs.CreateSphericalJoint(itemNumbers=[previous, body],
                                     position=[i * length, 0.0, 0.0], useGlobalFrame=True)
        previous = body
    wall, status = sim.solve(t_end, dt)
    _, _, energy = sim.energies()
    figures = _drift(energy) if status.startswith(("ok", "Newton")) else _drift([np.nan])
    return _result(sim.engine, "chain", n, dt, t_end, wall, status, **figures)


# --------------------------------------------------------------------------- MuJoCo


def _mujoco_spec(integrator: str, dt: float):
    """An empty ``MjSpec`` with the options of every case; returns (mujoco, spec).

    Models are built through ``MjSpec`` rather than XML: the N = 1000 chain nests deeper
    than MuJoCo's XML parser allows.
    """
    mujoco = _require("mujoco")
    spec = mujoco.MjSpec()
    spec.option.timestep = dt
    spec.option.integrator = getattr(mujoco.mjtIntegrator, f"mjINT_{integrator.upper()}")
    spec.option.gravity = [0.0, 0.0, -G]
    spec.option.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONTACT
    return mujoco, spec


def _mujoco_body(parent, pos, mass, inertia, cog):
    """A body at ``pos`` in ``parent`` with explicit mass, diagonal inertia and COG."""
    return parent.add_body(pos=list(pos), mass=float(mass), inertia=list(inertia),
                           ipos=list(cog), explicitinertial=True)


def _mujoco_run(mujoco, model, data, t_end, dt, sample):
    """Step to ``t_end``, calling ``sample(data)`` (untimed) every 0.01 s.

    Returns
    -------
    tuple
        ((wall seconds, simulated seconds they ran), status, sample times, list of sample
        values); a divergence ends the run, the steps up to the batch that diverged count.
    """
    n_steps = _steps(t_end, dt)
    every = max(1, round(SAMPLE / dt))
    bad = [int(w) for w in (mujoco.mjtWarning.mjWARN_BADQACC, mujoco.mjtWarning.mjWARN_BADQVEL,
                            mujoco.mjtWarning.mjWARN_BADQPOS)]
    times, values = [0.0], [sample(data)]
    wall, done, status = 0.0, 0, "ok"
    while done < n_steps:
        k = min(every, n_steps - done)
        start = time.perf_counter()
        mujoco.mj_step(model, data, nstep=k)
        wall += time.perf_counter() - start
        if any(data.warning[w].number for w in bad) or not np.all(np.isfinite(data.qvel)):
            status = f"diverged between t={done * dt:.4g} and {(done + k) * dt:.4g} s"
            done += k
            break
        done += k
        times.append(done * dt)
        values.append(sample(data))
    return (wall, done * dt), status, np.array(times), values


def _mujoco_bodies_state(mujoco, model, data):
    """COG positions, COG velocities and inertial-frame angular velocities of all bodies."""
    mujoco.mj_kinematics(model, data)
    mujoco.mj_comPos(model, data)
    mujoco.mj_comVel(model, data)
    res = np.zeros(6)
    vel, omega = np.zeros((model.nbody - 1, 3)), np.zeros((model.nbody - 1, 3))
    for i in range(1, model.nbody):
        mujoco.mj_objectVelocity(model, data, mujoco.mjtObj.mjOBJ_BODY, i, res, 0)
        vel[i - 1] = res[3:]
        omega[i - 1] = data.ximat[i].reshape(3, 3).T @ res[:3]
    return data.xipos[1:].copy(), vel, omega


def _mujoco_engine(mujoco, integrator: str) -> str:
    return f"mujoco {mujoco.__version__} ({integrator}, contacts off)"


def mujoco_pendulum(t_end: float = 10.0, dt: float = 1e-3, integrator: str = "RK4") -> dict:
    """The pendulum in MuJoCo: a hinge about world y at the origin.

    Parameters
    ----------
    t_end : float
        Simulated time [s].
    dt : float
        Time step [s].
    integrator : str
        MuJoCo integrator: ``Euler``, ``RK4``, ``implicit`` or ``implicitfast``.

    Returns
    -------
    dict
        As :func:`exudyn_pendulum`.
    """
    mujoco, spec = _mujoco_spec(integrator, dt)
    body = _mujoco_body(spec.worldbody, [0.0, 0.0, 0.0], 1.0, [1e-3] * 3, [1.0, 0.0, 0.0])
    body.add_joint(type=mujoco.mjtJoint.mjJNT_HINGE, axis=[0.0, 1.0, 0.0], pos=[0.0, 0.0, 0.0])
    model = spec.compile()
    data = mujoco.MjData(model)
    mass, inertia = model.body_mass[1:], model.body_inertia[1:]

    def sample(d):
        pos, vel, omega = _mujoco_bodies_state(mujoco, model, d)
        return pos[0], exact.rigid_energy(mass, inertia, pos, vel, omega)

    wall, status, t, values = _mujoco_run(mujoco, model, data, t_end, dt, sample)
    pos = np.array([v[0] for v in values])
    energy = np.array([v[1] for v in values])
    return _result(_mujoco_engine(mujoco, integrator), "pendulum", 1, dt, t_end, wall, status,
                   **_pendulum_figures(t, pos, energy))


def mujoco_spring_damper(t_end: float = 10.0, dt: float = 1e-3,
                         integrator: str = "RK4") -> dict:
    """The spring-damper in MuJoCo: a slide joint with stiffness and damping.

    The force is ``xfrc_applied`` (at the COG, here the body origin) from t = 0.

    Parameters
    ----------
    t_end : float
        Simulated time [s].
    dt : float
        Time step [s].
    integrator : str
        MuJoCo integrator; with Euler / implicit* the joint damping is implicit.

    Returns
    -------
    dict
        As :func:`exudyn_spring_damper`.
    """
    mujoco, spec = _mujoco_spec(integrator, dt)
    body = _mujoco_body(spec.worldbody, [0.0, 0.0, 0.0], 1.0, [0.1] * 3, [0.0, 0.0, 0.0])
    body.add_joint(type=mujoco.mjtJoint.mjJNT_SLIDE, axis=[1.0, 0.0, 0.0], stiffness=100.0,
                   damping=2.0, springref=0.0)
    model = spec.compile()
    data = mujoco.MjData(model)
    data.xfrc_applied[1, 0] = 10.0
    wall, status, t, x = _mujoco_run(mujoco, model, data, t_end, dt,
                                     lambda d: float(d.qpos[0]))
    return _result(_mujoco_engine(mujoco, integrator) + ", joint stiffness/damping",
                   "spring_damper", 1, dt, t_end, wall, status,
                   **_spring_figures(t, np.array(x)))


def mujoco_chain(n: int, t_end: float = 1.0, dt: float = 1e-3, integrator: str = "RK4") -> dict:
    """The chain of ``n`` rods in MuJoCo: nested bodies on ball joints.

    Parameters
    ----------
    n : int
        Number of rods.
    t_end : float
        Simulated time [s] (the N = 1000 run of the table uses 0.02 s).
    dt : float
        Time step [s].
    integrator : str
        MuJoCo integrator.

    Returns
    -------
    dict
        As :func:`exudyn_chain`.
    """
    mass, inertia, _ = _chain_bodies(n)
    length = 1.0 / n
    mujoco, spec = _mujoco_spec(integrator, dt)
    parent = spec.worldbody
    for i in range(n):
        parent = _mujoco_body(parent, [0.0 if i == 0 else length, 0.0, 0.0], mass[i],
                              inertia[i], [0.5 * length, 0.0, 0.0])
        parent.add_joint(type=mujoco.mjtJoint.mjJNT_BALL, pos=[0.0, 0.0, 0.0])
    model = spec.compile()
    data = mujoco.MjData(model)
    def sample(d):
        return exact.rigid_energy(mass, inertia, *_mujoco_bodies_state(mujoco, model, d))

    wall, status, _, energy = _mujoco_run(mujoco, model, data, t_end, dt, sample)
    figures = _drift(energy) if status == "ok" else _drift([np.nan])
    return _result(_mujoco_engine(mujoco, integrator), "chain", n, dt, t_end, wall, status,
                   **figures)


# --------------------------------------------------------------------------- table


def _row(r: dict) -> str:
    def g(key):
        v = r.get(key)
        return f"{v:.3g}" if isinstance(v, float) else "-"

    acc = {"pendulum": f"angle err max {g('angle_error_max')} end {g('angle_error_end')} rad, "
                       f"dE {g('energy_drift')} max {g('energy_drift_max')}",
           "spring_damper": f"rel err max {g('rel_error_max')} end {g('rel_error_end')}",
           "chain": f"dE {g('energy_drift')} max {g('energy_drift_max')}"}[r["model"]]
    name, settings = r["engine"].split(" (", 1)
    label = f"{name} {settings.split(',')[0]}"
    return (f"{label:32s} {r['model']:13s} {r['n']:5d} {r['t_end']:6.3g} "
            f"{r['wall']:9.4g} {r['per_second']:10.4g}  {acc}  [{r['status']}]")


def main() -> None:
    """Run every peer case and print the table."""
    cases = [
        (exudyn_pendulum, {}), (mujoco_pendulum, {}),
        (exudyn_spring_damper, {}), (mujoco_spring_damper, {}),
        *[(exudyn_chain, {"n": n}) for n in (1, 10, 100)],
        (exudyn_chain, {"n": 1000, "t_end": 0.1}),
        *[(mujoco_chain, {"n": n}) for n in (1, 10, 100)],
        (mujoco_chain, {"n": 100, "integrator": "Euler"}),
        (mujoco_chain, {"n": 1000, "t_end": 0.02}),
        (mujoco_chain, {"n": 1000, "t_end": 0.02, "integrator": "Euler"}),
    ]
    print(f"{'engine':32s} {'model':13s} {'N':>5s} {'t_end':>6s} {'wall [s]':>9s} "
          f"{'wall/sim s':>10s}  accuracy  [status]")
    engines = {}
    for func, kwargs in cases:
        result = func(**kwargs)
        engines[result["engine"]] = None
        print(_row(result), flush=True)
    print("engines:", *engines, sep="\n  ")


if __name__ == "__main__":
    main()
