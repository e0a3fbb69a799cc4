"""Reading a hydrodynamic data file of either format: Capytaine's netCDF
(:mod:`frylinks_marine.capytaine_reader`) or WEC-Sim's BEMIO HDF5
(:mod:`frylinks_marine.bemio`), told apart by the file's suffix or content.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .bemio import read_bemio, read_bemio_bodies
from .capytaine_reader import read_capytaine, read_capytaine_bodies
from .hydrodb import HydroDatabase, MultiBodyDatabase

#: File suffixes read as BEMIO HDF5 (anything else is read as Capytaine netCDF unless
#: its content is a BEMIO file).
BEMIO_SUFFIXES = (".h5", ".hdf5")


def is_bemio(path: str | Path) -> bool:
    """Whether ``path`` is read as a BEMIO HDF5 file: its suffix (``.h5``, ``.hdf5``), or
    an HDF5 file holding BEMIO's ``simulation_parameters`` group (a netCDF4 file is
    HDF5 too, hence the look inside)."""
    path = Path(path)
    if path.suffix.lower() in BEMIO_SUFFIXES:
        return True
    try:
        with path.open("rb") as f:
            if f.read(8) != b"\x89HDF\r\n\x1a\n":
                return False
        import h5py

        with h5py.File(path, "r") as h5:
            return "simulation_parameters" in h5
    except OSError:
        return False


def read_hydrodynamics(path: str | Path, body: str | None = None,
                       cog: Any = None) -> HydroDatabase:
    """One body's database from a Capytaine netCDF dataset or a BEMIO HDF5 file
    (:func:`is_bemio` tells which):
    :func:`~frylinks_marine.capytaine_reader.read_capytaine` or
    :func:`~frylinks_marine.bemio.read_bemio`."""
    if is_bemio(path):
        return read_bemio(path, body=body, cog=cog)
    return read_capytaine(path, body=body, cog=cog)


def read_hydrodynamics_bodies(path: str | Path,
                              cog: Mapping[str, Any] | None = None) -> MultiBodyDatabase:
    """All bodies of a Capytaine or BEMIO file
    (:func:`~frylinks_marine.capytaine_reader.read_capytaine_bodies`,
    :func:`~frylinks_marine.bemio.read_bemio_bodies`)."""
    if is_bemio(path):
        return read_bemio_bodies(path, cog=cog)
    return read_capytaine_bodies(path, cog=cog)
