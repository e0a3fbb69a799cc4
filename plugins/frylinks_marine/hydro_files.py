"""Reading a hydrodynamic data file of any format: Capytaine's netCDF
(:mod:`frylinks_marine.capytaine_reader`), WEC-Sim's BEMIO HDF5
(:mod:`frylinks_marine.bemio`) or a WAMIT run's numeric output
(:mod:`frylinks_marine.wamit_reader`), told apart by the file's suffix or content.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .bemio import read_bemio, read_bemio_bodies
from .capytaine_reader import read_capytaine, read_capytaine_bodies
from .hydrodb import HydroDatabase, MultiBodyDatabase
from .wamit_files import wamit_suffix
from .wamit_reader import read_wamit, read_wamit_bodies

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


def is_wamit(path: str | Path) -> bool:
    """Whether ``path`` is read as a file of a WAMIT run: its suffix is one of WAMIT's
    numeric output (``.1``, ``.3``, ``.hst``, ``.12d``, ..., each also with ``.gz``)."""
    return wamit_suffix(path) is not None


def read_hydrodynamics(path: str | Path, body: str | None = None,
                       cog: Any = None) -> HydroDatabase:
    """One body's database from a Capytaine netCDF dataset, a BEMIO HDF5 file or a
    WAMIT run (:func:`is_wamit`, :func:`is_bemio` tell which):
    :func:`~frylinks_marine.capytaine_reader.read_capytaine`,
    :func:`~frylinks_marine.bemio.read_bemio` or
    :func:`~frylinks_marine.wamit_reader.read_wamit` (with OpenFAST's ``rho``, ``g`` and
    ``ULEN = 1``)."""
    if is_wamit(path):
        return read_wamit(path, body=body, cog=cog)
    if is_bemio(path):
        return read_bemio(path, body=body, cog=cog)
    return read_capytaine(path, body=body, cog=cog)


def read_hydrodynamics_bodies(path: str | Path,
                              cog: Mapping[str, Any] | None = None) -> MultiBodyDatabase:
    """All bodies of a Capytaine or BEMIO file or a WAMIT run
    (:func:`~frylinks_marine.capytaine_reader.read_capytaine_bodies`,
    :func:`~frylinks_marine.bemio.read_bemio_bodies`,
    :func:`~frylinks_marine.wamit_reader.read_wamit_bodies`)."""
    if is_wamit(path):
        return read_wamit_bodies(path, cog=cog)
    if is_bemio(path):
        return read_bemio_bodies(path, cog=cog)
    return read_capytaine_bodies(path, cog=cog)
