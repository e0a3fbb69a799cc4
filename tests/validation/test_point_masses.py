"""Point masses carried by force elements couple bodies exactly (Woodbury in the solver).

A body of mass M on a vertical prismatic link with a link spring k carries, through a
force element, a point mass m at the fraction f of the line from a ground node to the
body's node. The point moves with ``f z``, so the exact motion is the oscillator of
effective mass ``M + f^2 m`` about ``z_eq = r0 - (M + f m) g / k``.
"""

from __future__ import annotations

import frylinks_forces
import frylinks_links
import frylinks_signals
import numpy as np
import pytest

import frylinks
from frylinks.forces import ForceType
from frylinks.model.registry import Registry
from frylinks.params import Param

M, K, R0, G, F, MS = 3.0, 400.0, 0.0, 9.81, 0.3, 2.0


class PointMass(ForceType):
    """A point mass on the line between two nodes (no force of its own)."""

    name = "test_point_mass"
    attachments = ("master", "slave")
    parameters = {"master": Param("node", "", "first node"),
                  "slave": Param("node", "", "second node"),
                  "mass": Param("float", "kg", "point mass"),
                  "fraction": Param("float", "1", "position on the line from master")}

    def __init__(self, instances, signal_specs):  # type: ignore[no-untyped-def]
        super().__init__(instances, signal_specs)
        self.m = np.array([p["mass"] for p in instances])
        self.f = np.array([p["fraction"] for p in instances])

    def evaluate(self, frames, ctx):  # type: ignore[no-untyped-def]
        z = np.zeros((self.nb_forces, 2, 3))
        return z, z.copy()

    def point_masses(self, frames, ctx):  # type: ignore[no-untyped-def]
        return self.m, np.stack([1.0 - self.f, self.f], axis=1)


class Plugin:
    @staticmethod
    @frylinks.hookimpl
    def frylinks_force_types() -> list[type]:
        return [PointMass]


def system(copies: int) -> frylinks.System:
    reg = Registry(autoload=False)
    for name, mod in (("links", frylinks_links), ("forces", frylinks_forces),
                      ("signals", frylinks_signals)):
        reg.register(mod, name=name, distribution="frylinks")
    reg.register(Plugin, name="pm", distribution="test")
    s = frylinks.System(gravity=[0, 0, -G], registry=reg)
    for i in range(copies):
        x = 2.0 * i
        s.ground.add_node(f"g{i}", position=[x, 0, 0])
        b = s.add_body(f"b{i}", mass=M, inertia=[1.0, 1.0, 1.0], position=[x, 0, 0.1])
        b.add_node("n", position=[0, 0, 0])
        s.add_link(f"l{i}", "prismatic", master=f"ground.g{i}", slave=f"b{i}.n",
                   spring_damper={"stiffness": K, "rest": R0})
        s.add_force(f"p{i}", "test_point_mass", master=f"ground.g{i}", slave=f"b{i}.n",
                    mass=MS, fraction=F)
    return s


def exact(t: np.ndarray, ms: float = MS) -> np.ndarray:
    meff = M + F**2 * ms
    w = np.sqrt(K / meff)
    zeq = R0 - (M + F * ms) * G / K
    return zeq + (0.1 - zeq) * np.cos(w * t)


@pytest.mark.parametrize("copies", [1, 25], ids=["dense", "sparse"])
def test_effective_mass_oscillator(copies: int) -> None:
    """z(t) of every copy equals the exact oscillator of mass M + f^2 m (dense and
    sparse constraint paths)."""
    t_end = 1.0 if copies == 1 else 0.2
    ds = system(copies).run(t_end=t_end, dt=1e-3, every=20)
    z = ds.body_position.sel(xyz="z").values
    err = np.abs(z - exact(ds.time.values)[:, None]).max()
    assert err < 1e-9, err
    # the point mass matters: without it the motion differs by far more than the error
    assert np.abs(exact(ds.time.values, ms=0.0) - z[:, 0]).max() > 1e-3


@pytest.mark.parametrize("copies", [1, 25], ids=["dense", "sparse"])
def test_effective_mass_oscillator_implicit(copies: int) -> None:
    """generalized_alpha carries the point masses in its residual and in its Newton
    matrix (dense and sparse): second order towards the exact oscillator."""
    errors = []
    for dt in (2e-3, 1e-3):
        ds = system(copies).run(t_end=0.5, dt=dt, every=round(0.02 / dt),
                                integrator="generalized_alpha", rho_inf=1.0)
        z = ds.body_position.sel(xyz="z").values
        errors.append(np.abs(z - exact(ds.time.values)[:, None]).max())
    assert errors[1] < 2e-5, errors
    assert 3.0 < errors[0] / errors[1] < 5.0, errors  # second order
    assert np.abs(exact(ds.time.values, ms=0.0) - z[:, 0]).max() > 1e-3
