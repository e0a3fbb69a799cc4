"""Benchmark: a chain of N thin rods on spherical links, released horizontal.

The model of the speed issue: rod i has mass m = 1/N, length l = 1/N,
Ixx = m l^2 / 1200, Iyy = Izz = m l^2 / 12 (axis along body x), joined end to end by
spherical links, the first to ground at the origin; gravity -z. Prints, for each N,
wall seconds per simulated second at dt = 1e-3 (rk4), the energy drift relative to
M g L (M = 1 kg, L = 1 m), the largest constraint violation, and how cost grows with N.

Run from a clean clone::

    python benchmarks/chain.py                 # N = 10, 100, 1000
    python benchmarks/chain.py -n 10 100 --t-end 0.5
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import frylinks
from frylinks.engine import assemble
from frylinks.engine.integrators import rk4


def build_chain(n: int, gravity: float = 9.81) -> frylinks.System:
    """The N-rod chain as a :class:`frylinks.System`."""
    m, length = 1.0 / n, 1.0 / n
    system = frylinks.System(gravity=[0.0, 0.0, -gravity], name=f"chain-{n}")
    system.ground.add_node("anchor")
    previous = "ground.anchor"
    for i in range(n):
        rod = system.add_body(f"rod{i}", mass=m,
                              inertia=[m * length**2 / 1200, m * length**2 / 12,
                                       m * length**2 / 12],
                              position=[(i + 0.5) * length, 0.0, 0.0])
        rod.add_node("a", position=[-0.5 * length, 0.0, 0.0])
        rod.add_node("b", position=[0.5 * length, 0.0, 0.0])
        system.add_link(f"joint{i}", "spherical", master=previous, slave=f"rod{i}.a")
        previous = f"rod{i}.b"
    return system


def energy(system: frylinks.System, state: frylinks.engine.State) -> float:
    """Kinetic plus potential energy [J] of a chain state."""
    model = assemble(system) if not hasattr(system, "_bench_model") else system._bench_model
    from frylinks.rotations import quat_to_matrix

    R = quat_to_matrix(state.q)
    Iw = R @ model.inertia @ np.swapaxes(R, 1, 2)
    kin = 0.5 * np.sum(model.mass * np.sum(state.v**2, axis=1))
    kin += 0.5 * np.einsum("ni,nij,nj->", state.w, Iw, state.w)
    pot = -np.sum(model.mass * (state.x @ model.gravity))
    return float(kin + pot)


def constraint_violation(system: frylinks.System, model: frylinks.engine.Model,
                         state: frylinks.engine.State) -> float:
    """Largest distance between joined node points [m]."""
    from frylinks.engine import body_states
    from frylinks.kinematics import relative

    b = body_states(model, state)
    return max(float(np.abs(relative(b, blk.master, blk.slave, False).d).max())
               for blk in model.link_blocks)


def run_one(n: int, t_end: float, dt: float = 1e-3) -> dict[str, float]:
    """Time ``t_end`` seconds of the N-rod chain; return the figures."""
    system = build_chain(n)
    model = assemble(system)
    state = model.initial.copy()
    e0 = energy(system, state)
    steps = rk4(model, state, t_end, dt, every=max(1, round(t_end / dt)))
    start = time.perf_counter()
    status = "ok"
    try:
        for _ in steps:
            pass
    except frylinks.SimulationError as exc:
        status = f"diverged at t={state.t:.3g} s: {exc}"
    wall = time.perf_counter() - start
    simulated = max(state.t, dt)
    finite = bool(np.isfinite(state.x).all())
    drift = abs(energy(system, state) - e0) / (1.0 * 9.81 * 1.0) if finite else float("nan")
    viol = constraint_violation(system, model, state) if finite else float("nan")
    return {"n": n, "simulated": simulated, "wall": wall, "per_second": wall / simulated,
            "per_step": wall / max(1, round(simulated / dt)), "drift": drift,
            "violation": viol, "status": status}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--t-end", type=float, default=None,
                        help="simulated seconds per N (default: 1 s for N <= 100, "
                             "0.1 s above, extrapolated to wall s per simulated s)")
    parser.add_argument("--dt", type=float, default=1e-3)
    args = parser.parse_args(argv)
    print(f"{'N':>6} {'sim [s]':>8} {'wall [s]':>9} {'wall/sim s':>11} {'ms/step':>9} "
          f"{'dE/(MgL)':>10} {'max gap [m]':>12}  status")
    rows = []
    for n in args.n:
        t_end = args.t_end if args.t_end is not None else (1.0 if n <= 100 else 0.1)
        r = run_one(n, t_end, args.dt)
        rows.append(r)
        print(f"{n:>6} {r['simulated']:>8.3g} {r['wall']:>9.3f} {r['per_second']:>11.3f} "
              f"{1e3 * r['per_step']:>9.3f} {r['drift']:>10.2e} {r['violation']:>12.2e}  "
              f"{r['status']}", flush=True)
    if len(rows) > 1:
        ns = np.array([r["n"] for r in rows], dtype=float)
        cost = np.array([r["per_step"] for r in rows])
        slope = np.polyfit(np.log(ns), np.log(cost), 1)[0]
        print(f"cost per step grows as N^{slope:.2f} over N = {', '.join(map(str, args.n))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
