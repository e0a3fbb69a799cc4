"""The animations' orthographic camera: world points to pixels, checked on exact values."""

from __future__ import annotations

import numpy as np
import pytest

from frylinks.views.camera import Camera, view_axes


def test_front_view_puts_a_point_at_its_pixel() -> None:
    # looking along +y (front): world x to the right, z up the picture
    camera = Camera(0.0, -90.0, np.array([1.0, 2.0, 3.0]), np.array([400.0, 300.0]),
                    np.array([10.0, 10.0]))
    assert camera.project(np.array([4.0, 7.0, 5.0])) == pytest.approx([430.0, 320.0],
                                                                      abs=1e-12)
    # nearer the viewer (-y) is deeper in front
    assert camera.depth(np.array([1.0, -3.0, 3.0])) == pytest.approx(5.0)


def test_top_view_and_a_turned_view() -> None:
    top = Camera(90.0, -90.0, np.zeros(3), np.array([50.0, 60.0]), np.array([2.0, 3.0]))
    # from above, x to the right and y up the picture; z does not move a point
    assert top.project(np.array([[1.0, 1.0, 0.0], [1.0, 1.0, -7.0]])) == pytest.approx(
        np.array([[52.0, 63.0], [52.0, 63.0]]), abs=1e-12)
    assert top.depth(np.array([0.0, 0.0, -7.0])) == pytest.approx(-7.0)
    # azimuth 0: looking along -x, so +y runs to the right
    side = Camera(0.0, 0.0, np.zeros(3), np.zeros(2), np.ones(2))
    assert side.project(np.array([5.0, 1.0, 2.0])) == pytest.approx([1.0, 2.0], abs=1e-12)


def test_view_axes_are_a_right_handed_frame_towards_the_viewer() -> None:
    for elevation, azimuth in [(22.0, -50.0), (-30.0, 120.0), (89.0, 10.0)]:
        axes = view_axes(elevation, azimuth)
        assert axes @ axes.T == pytest.approx(np.eye(3), abs=1e-12)
        assert np.linalg.det(axes) == pytest.approx(1.0)
        e, a = np.deg2rad([elevation, azimuth])
        assert axes[2] == pytest.approx([np.cos(e) * np.cos(a), np.cos(e) * np.sin(a),
                                         np.sin(e)])
        assert axes[0][2] == pytest.approx(0.0, abs=1e-12), "no roll: u stays level"
    # over the top the picture's up turns over, as matplotlib's
    assert view_axes(120.0, 0.0)[1][2] < 0.0 < view_axes(60.0, 0.0)[1][2]
