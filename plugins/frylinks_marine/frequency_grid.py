"""Checks of a dataset's frequency grid: whether the radiation damping it samples gives
a faithful impulse response (reaches far enough in frequency, finely enough).

The force types report what :func:`frequency_grid_problems` finds as warnings when they
read a dataset (:mod:`frylinks_marine.bem`); ``data/README.md`` lists what it finds in
the shipped data.
"""

from __future__ import annotations

import numpy as np

from .hydrodb import DOF_NAMES, HydroDatabase

#: Largest tolerated error of the added mass the impulse response implies below the last
#: frequency, estimated from the damping left above it (relative to the DOF's added mass).
TRUNCATION_LIMIT = 0.02
#: Largest tolerated midpoint error of the damping's linear interpolation between data
#: frequencies (relative to the DOF's peak damping).
COARSE_LIMIT = 0.02


def frequency_grid_problems(db: HydroDatabase) -> list[str]:
    """What the frequency grid of ``db`` does to the radiation impulse response: one
    message per DOF and problem, naming the dataset, body, DOF and frequency.

    Only the diagonal damping of DOFs whose peak is significant (above 1e-3 of the
    largest of their kind, translations or rotations) is looked at.

    * **Truncated**: :func:`~frylinks_marine.radiation.impulse_response` takes the
      damping as zero above the last frequency ``w_N``. The missing tail changes the
      added mass the kernel implies below ``w_N`` by ``(2/pi) int_{w_N}^inf B(v) /
      (v^2 - w^2) dv`` (Kramers-Kronig), about ``(2/pi) B(w_N) / w_N`` with the damping
      held at its last value (an upper bound for a damping that decreases). Reported
      when that exceeds :data:`TRUNCATION_LIMIT` of the DOF's added mass.
    * **Too coarse**: the kernel is the transform of the damping taken linear between
      frequencies; the midpoint error of that interpolation, ``h^2 |B''| / 8`` from the
      second divided differences, is reported when it exceeds :data:`COARSE_LIMIT` of the
      peak damping (a grid too coarse for the damping's shape there, or an outlier).
    """
    w = db.omega
    b = db.radiation_damping
    peaks = np.abs(np.diagonal(b, axis1=1, axis2=2)).max(axis=0)  # (6,)
    out: list[str] = []
    label = db.label or "the dataset"
    for group in (range(3), range(3, 6)):
        top = max(peaks[i] for i in group)
        for i in group:
            if top <= 0 or peaks[i] <= 1e-3 * top:
                continue
            bi = b[:, i, i]
            scale = max(np.abs(db.added_mass[:, i, i]).max(), abs(db.added_mass_inf[i, i]))
            tail = abs(bi[-1]) / peaks[i]
            missing = 2.0 / np.pi * abs(bi[-1]) / w[-1] / scale if scale > 0 else np.inf
            if missing > TRUNCATION_LIMIT:
                out.append(
                    f"{label}: the radiation damping of {DOF_NAMES[i]} is still "
                    f"{tail:.0%} of its peak at the last frequency, {w[-1]:g} rad/s: the "
                    "impulse response misses the damping above it, which would change the "
                    f"added mass below by up to {missing:.1%} (the damping held at its last "
                    "value); give frequencies up to where the damping is negligible")
            if w.size >= 3:
                h = np.diff(w)
                second = ((bi[2:] - bi[1:-1]) / h[1:] - (bi[1:-1] - bi[:-2]) / h[:-1]) \
                    / (h[1:] + h[:-1])  # B'' / 2
                step = np.maximum(h[1:], h[:-1])
                error = step**2 * np.abs(second) / 4.0 / peaks[i]
                k = int(np.argmax(error))
                if error[k] > COARSE_LIMIT:
                    out.append(
                        f"{label}: the radiation damping of {DOF_NAMES[i]} changes too fast "
                        f"between data frequencies near {w[k + 1]:g} rad/s for the impulse "
                        f"response's linear interpolation (a midpoint error up to "
                        f"{error[k]:.0%} of its peak): the frequency step, {step[k]:.3g} "
                        f"rad/s, is too coarse there, or the value at {w[k + 1]:g} rad/s "
                        "is an outlier")
    return out
