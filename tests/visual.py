"""A small results Dataset made by hand for the drawing tests (no run needed): one box
body that translates along x and turns about z, on a revolute link to the ground."""

from __future__ import annotations

import json

import numpy as np
import xarray as xr

from frylinks.rotations import axis_angle_to_quat

BOX = [2.0, 1.0, 0.5]
SPEED = 3.0  # m s-1 along x
SPIN = 0.4  # rad s-1 about z


def moving_box(nb_times: int = 11, dt: float = 0.5) -> xr.Dataset:
    """``body_position`` x = SPEED t, orientation SPIN t about z, with the velocities."""
    t = np.arange(nb_times) * dt
    pos = np.zeros((nb_times, 1, 3))
    pos[:, 0, 0] = SPEED * t
    quat = np.array([axis_angle_to_quat([0, 0, 1], SPIN * ti) for ti in t])[:, None, :]
    vel = np.zeros((nb_times, 1, 3))
    vel[:, 0, 0] = SPEED
    omega = np.zeros((nb_times, 1, 3))
    omega[:, 0, 2] = SPIN
    scene = {
        "version": 1,
        "bodies": {"box": {"shape": "box", "size": BOX, "position": [0.0, 0.0, 0.0],
                           "orientation": [1.0, 0.0, 0.0, 0.0]}},
        "nodes": {"ground.pivot": {"body": "ground", "position": [0.0, 0.0, -3.0],
                                   "orientation": [1.0, 0.0, 0.0, 0.0]},
                  "box.top": {"body": "box", "position": [0.0, 0.0, 0.25],
                              "orientation": [1.0, 0.0, 0.0, 0.0]}},
        "links": {"hinge": {"type": "revolute", "master": "ground.pivot",
                            "slave": "box.top"}},
        "forces": {}, "settings": {}}
    xyz = ["x", "y", "z"]
    return xr.Dataset(
        {"body_position": (("time", "body", "xyz"), pos, {"units": "m"}),
         "body_orientation": (("time", "body", "quat"), quat, {"units": "1"}),
         "body_velocity": (("time", "body", "xyz"), vel, {"units": "m s-1"}),
         "body_angular_velocity": (("time", "body", "xyz"), omega, {"units": "rad s-1"}),
         "link_power": (("time", "link"), np.full((nb_times, 1), 5.0), {"units": "W"})},
        coords={"time": t, "body": ["box"], "link": ["hinge"], "xyz": xyz,
                "quat": ["w", "x", "y", "z"]},
        attrs={"title": "moving-box", "scene": json.dumps(scene), "status": "completed"})
