"""Make the pictures of docs/visualisation.md: one frame of each shipped case.

Run from the repository: ``python docs/_static/visualisation/make_frames.py RESULTS_DIR``,
where RESULTS_DIR holds ``<case>.nc`` from ``frylinks run cases/<case>.yaml --t-end T
-o RESULTS_DIR/<case>.nc`` (the times and views below). Writes ``<case>.png`` here.
"""

from __future__ import annotations

import sys
from pathlib import Path

from PIL import Image

from frylinks.views.animate import frame_images
from frylinks.views.reading import open_results

HERE = Path(__file__).parent
#: case -> (time drawn [s], camera)
VIEWS = {
    "pendulum": (0.6, "iso"), "heaving_buoy": (2.0, "iso"), "oswec_flap": (3.0, "iso"),
    "floater_lines": (20.0, "iso"), "crane_vessel": (20.0, "25,-50,2.2"), "chain": (5.0, "front"),
    "screw_jack": (3.0, "iso"), "point_absorber": (25.0, "iso"), "oswec_waves": (20.0, "iso"),
    "moored_buoy": (25.0, "20,-50,4"),
    "moored_buoy_dynamic": (8.0, "20,-50,4"), "rm3": (35.0, "iso"),
    "rm3_irregular": (35.0, "iso"), "power_matrix_sweep": (15.0, "iso"),
}


def main(results: Path) -> None:
    for case, (time, camera) in VIEWS.items():
        file = results / f"{case}.nc"
        if not file.exists():
            print(f"skipped {case}: no {file}")
            continue
        with open_results(file, 0 if case.endswith("_sweep") else None) as ds:
            (image,) = frame_images(ds, [time], camera=camera, size=(640, 480),
                                    source=str(file))
        Image.fromarray(image).save(HERE / f"{case}.png", optimize=True)
        print(f"{case}: t = {time} s -> {HERE / f'{case}.png'}")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
