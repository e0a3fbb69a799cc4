"""Benchmark: the speed-up of a load-case sweep from 1 to several dask workers.

Runs the power matrix of ``cases/power_matrix.yaml`` (12 cases: wave height x period,
the point absorber with radiation memory) on a LocalCluster of 1 worker, then of 2
(or ``--workers``), each time from a cold start (the cluster's start-up and the
workers' first import count, as a user sees them), checks that every case gives the
same numbers whatever the number of workers, and prints wall times and speed-ups.

Run from a clean clone::

    python benchmarks/sweep.py                   # 1 and 2 workers, 30 s per case
    python benchmarks/sweep.py --workers 1 2 4 --t-end 60
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

import frylinks

CASE = Path(__file__).resolve().parents[1] / "cases" / "power_matrix.yaml"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--t-end", type=float, default=30.0,
                        help="simulated seconds per case [s]")
    args = parser.parse_args()
    reference = None
    first = None
    print(f"{CASE.name}: 12 cases of {args.t_end:g} s simulated each")
    print(f"{'workers':>8} {'wall [s]':>9} {'speed-up':>9} {'per case [s]':>13}")
    for n in args.workers:
        start = time.perf_counter()
        ds = frylinks.sweep(CASE, workers=n, t_end=args.t_end)
        wall = time.perf_counter() - start
        assert all(str(s) == "completed" for s in ds["status"].values)
        if reference is None:
            reference = ds["body_position"].values
            first = wall
        else:
            # the same numbers whatever the number of workers
            assert np.array_equal(ds["body_position"].values, reference)
        assert first is not None
        print(f"{n:>8} {wall:>9.1f} {first / wall:>9.2f} "
              f"{float(np.mean(ds['wall_time'].values)):>13.2f}")


if __name__ == "__main__":
    main()
