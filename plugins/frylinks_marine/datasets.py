"""The hydrodynamic dataset of a marine force type: the file read once per version
(:func:`load_database`, :func:`load_bodies`), its errors told in the type's parameters
(``hydrodynamics``, ``hydrodynamics_body``), and the one density rule
(:func:`in_environment`).

Every type reading a dataset (:mod:`frylinks_marine.bem`,
:mod:`frylinks_marine.body_forces`) goes through here, so a file is read once whichever
types name it, and all take it to the environment's water density the same way.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from frylinks.errors import ModelError
from frylinks.forces import ForceContext
from frylinks.params import as_path, shown

from .hydro_files import read_hydrodynamics, read_hydrodynamics_bodies
from .hydrodb import DatasetBodyError, HydroDatabase, MultiBodyDatabase


def dataset_path(value: Any) -> Path:
    """The file of a ``hydrodynamics`` parameter, absolute and resolved (one path per
    file, so elements naming it differently share it); ModelError when there is none."""
    path = as_path(value, "hydrodynamics")
    if not path.is_file():
        raise ModelError(f"no file '{path}'", "hydrodynamics")
    return path.resolve()


def _body_key(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
        return str(value)  # a body number: WAMIT's bodies have no names
    if not isinstance(value, str) or not value.strip():
        raise ModelError(f"expected the name of a body of the dataset, got {shown(value)}",
                         "hydrodynamics_body")
    return value


def load_database(value: Any, body: Any = None) -> HydroDatabase:
    """The database of ``body`` (a ``hydrodynamics_body``) in the file at path ``value``,
    read once per file version.

    Raises
    ------
    ModelError
        At ``hydrodynamics`` for a file that cannot be read, at ``hydrodynamics_body`` for
        a multi-body dataset without it (the message lists the dataset's bodies) or a
        body the dataset lacks.
    """
    path = dataset_path(value)
    try:
        return _cached(str(path), path.stat().st_mtime_ns, _body_key(body))
    except DatasetBodyError as exc:
        raise exc.keyed("hydrodynamics_body") from None
    except ModelError as exc:
        if exc.path == "hydrodynamics_body":
            raise
        raise ModelError(exc.message, "hydrodynamics") from None


@functools.lru_cache(maxsize=16)
def _cached(path: str, mtime: int, body: str | None) -> HydroDatabase:
    return read_hydrodynamics(path, body=body)


def load_bodies(value: Any) -> MultiBodyDatabase:
    """Every body of the dataset at path ``value``, cross-body terms included, read once
    per file version."""
    path = dataset_path(value)
    return _cached_bodies(str(path), path.stat().st_mtime_ns)


@functools.lru_cache(maxsize=8)
def _cached_bodies(path: str, mtime: int) -> MultiBodyDatabase:
    return read_hydrodynamics_bodies(path)


def water_density(ctx: ForceContext, db: HydroDatabase) -> float:
    """The environment's water density [kg/m^3]; the dataset's without an environment."""
    env = ctx.settings.get("environment")
    return float(db.rho) if env is None else float(env.rho)


def in_environment(db: HydroDatabase, ctx: ForceContext) -> HydroDatabase:
    """``db`` at the environment's water density: the one density rule of the marine
    types (:meth:`~frylinks_marine.hydrodb.HydroDatabase.at_density`)."""
    return db.at_density(water_density(ctx, db))
