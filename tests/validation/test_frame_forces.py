"""``force``, ``torque``, ``world_force`` and ``world_torque`` with each ``resolve_frame``:
exact statics.

Every loaded body is welded to ground by a ``fixed`` link whose master node coincides with
the body's node (turned and offset arbitrarily), so nothing moves and each link's
reaction (on the slave body, master-node axes, torque about the slave node) is minus the
load on its body, exactly (no gravity). With ``F`` the input resolved into world axes
(identity, the master node's, the slave node's or the loaded node's axes):

* ``force`` between nodes a (on body A) and b (on body B): B carries ``+F`` at b, so its
  reaction is ``-F``; A carries ``-F`` at a and the couple ``-(p_b - p_a) x F``, so its
  reaction is ``+F`` with torque ``+(p_b - p_a) x F`` about a: the pair is in equilibrium;
* ``torque``: reactions ``-T`` on B and ``+T`` on A;
* ``world_force`` / ``world_torque`` at a node: reaction ``-F`` / ``-T``.

One input component is a sine, so the reactions follow the load in time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import xarray as xr
from scipy.spatial.transform import Rotation

import frylinks

RNG = np.random.default_rng(2024)
AMPLITUDE, OMEGA, PHASE_DEG = 3.0, 40.0, 30.0
SINE = {"type": "sine", "amplitude": AMPLITUDE, "omega": OMEGA, "phase_deg": PHASE_DEG}
VECTOR: list[Any] = [1.5, -2.0, SINE]
PAIRS = [(kind, frame) for kind in ("force", "torque") for frame in ("world", "master", "slave")]
SINGLES = [(kind, frame) for kind in ("world_force", "world_torque") for frame in ("world", "node")]


def wxyz(r: Rotation) -> list[float]:
    q = r.as_quat()
    return [float(q[3]), float(q[0]), float(q[1]), float(q[2])]


def welded(s: frylinks.System, name: str, x: np.ndarray) -> tuple[np.ndarray, Rotation]:
    """A body ``name`` near ``x`` with a node ``n`` welded to ground; the node's world
    position and axes."""
    rb = Rotation.random(random_state=RNG)
    rn = Rotation.random(random_state=RNG)
    offset = RNG.normal(size=3)
    body = s.add_body(name, mass=1.0 + RNG.random(), inertia=[0.5, 0.6, 0.7], position=x,
                      orientation={"quaternion": wxyz(rb)})
    body.add_node("n", position=offset, orientation={"quaternion": wxyz(rn)})
    p, r = x + rb.apply(offset), rb * rn
    s.ground.add_node(f"at_{name}", position=p, orientation={"quaternion": wxyz(r)})
    s.add_link(f"hold_{name}", "fixed", master=f"ground.at_{name}", slave=f"{name}.n")
    return p, r


def build() -> tuple[frylinks.System, dict[str, Any]]:
    s = frylinks.System(gravity=[0.0, 0.0, 0.0], name="frame-forces-statics")
    nodes: dict[str, Any] = {}
    for i, (kind, frame) in enumerate(PAIRS):
        a, b = f"{kind}_{frame}_a", f"{kind}_{frame}_b"
        nodes[a] = welded(s, a, np.array([4.0 * i, 0.0, 0.0]))
        nodes[b] = welded(s, b, np.array([4.0 * i, 2.5, 1.0]))
        s.add_force(f"{kind}_{frame}", kind, master=f"{a}.n", slave=f"{b}.n",
                    resolve_frame=frame, **{kind: VECTOR})
    for i, (kind, frame) in enumerate(SINGLES):
        c = f"{kind}_{frame}_c"
        nodes[c] = welded(s, c, np.array([4.0 * i, -4.0, 0.0]))
        s.add_force(f"{kind}_{frame}", kind, node=f"{c}.n", resolve_frame=frame,
                    **{kind.split("_")[1]: VECTOR})
    return s, nodes


@pytest.fixture(scope="module")
def statics() -> tuple[xr.Dataset, dict[str, Any]]:
    """20 rk4 steps of 1 ms (the sine turns by 46 degrees)."""
    s, nodes = build()
    return s.run(t_end=0.02, dt=1e-3, every=2), nodes


def inputs(t: np.ndarray) -> np.ndarray:
    """The input vector at times ``t``: ``(nt, 3)``."""
    z = AMPLITUDE * np.sin(OMEGA * t + np.radians(PHASE_DEG))
    return np.column_stack([np.full_like(t, 1.5), np.full_like(t, -2.0), z])


def reaction(ds: xr.Dataset, body: str) -> tuple[np.ndarray, np.ndarray]:
    return (ds.link_reaction_force.sel(link=f"hold_{body}").values,
            ds.link_reaction_torque.sel(link=f"hold_{body}").values)


@pytest.mark.parametrize(("kind", "frame"), PAIRS)
def test_between_two_nodes(kind: str, frame: str, statics: tuple[xr.Dataset, dict[str, Any]],
                           record_property: Callable) -> None:
    ds, nodes = statics
    (pa, ra), (pb, rb) = nodes[f"{kind}_{frame}_a"], nodes[f"{kind}_{frame}_b"]
    local = inputs(ds.time.values)
    world = {"world": local, "master": ra.apply(local), "slave": rb.apply(local)}[frame]
    zero = np.zeros_like(world)
    if kind == "force":
        on_b = (-world, zero)
        on_a = (world, np.cross(np.asarray(pb - pa), world))
    else:
        on_b = (zero, -world)
        on_a = (zero, world)
    err = 0.0
    for (f_exact, t_exact), body, r in ((on_a, "a", ra), (on_b, "b", rb)):
        f_num, t_num = reaction(ds, f"{kind}_{frame}_{body}")
        err = max(err, float(np.abs(f_num - r.inv().apply(f_exact)).max()),
                  float(np.abs(t_num - r.inv().apply(t_exact)).max()))
    record_property("max_reaction_error", err)
    assert err < 1e-12
    for body in ("a", "b"):  # nothing moves
        v = ds.body_velocity.sel(body=f"{kind}_{frame}_{body}").values
        assert float(np.abs(v).max()) < 1e-13


@pytest.mark.parametrize(("kind", "frame"), SINGLES)
def test_on_one_node(kind: str, frame: str, statics: tuple[xr.Dataset, dict[str, Any]],
                     record_property: Callable) -> None:
    ds, nodes = statics
    _, rc = nodes[f"{kind}_{frame}_c"]
    local = inputs(ds.time.values)
    world = local if frame == "world" else rc.apply(local)
    f_num, t_num = reaction(ds, f"{kind}_{frame}_c")
    expected = rc.inv().apply(-world)
    applied, other = (f_num, t_num) if kind == "world_force" else (t_num, f_num)
    err = float(np.abs(applied - expected).max())
    record_property("max_reaction_error", err)
    assert err < 1e-12
    assert float(np.abs(other).max()) < 1e-12
