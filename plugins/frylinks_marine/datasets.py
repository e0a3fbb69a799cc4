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
from frylinks.params import Param, as_path, shown

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


#: The ``hydrodynamics_cog`` parameter of every type reading a dataset.
HYDRO_COG = Param("vector", "m", "the body's COG in the dataset's coordinates, where the "
                  "dataset does not record it (a WAMIT run: in its body's coordinates, "
                  "e.g. [0, 0, -13.46] for a COG 13.46 m below the body's origin); the "
                  "coefficients are moved to it. Default: the dataset's own centre of mass "
                  "(none in a WAMIT run: its coefficients are taken as about the COG)",
                  default=None)


def dataset_of(params: Any) -> HydroDatabase:
    """The database a type's parameters name (``hydrodynamics``, ``hydrodynamics_body``,
    ``hydrodynamics_cog``): :func:`load_database`."""
    return load_database(params["hydrodynamics"], params.get("hydrodynamics_body"),
                         params.get("hydrodynamics_cog"))


def _cog_key(value: Any) -> tuple[float, float, float] | None:
    if value is None:
        return None
    try:
        x, y, z = (float(v) for v in value)
    except (TypeError, ValueError):
        raise ModelError(f"expected [x, y, z] in m, got {shown(value)}",
                         "hydrodynamics_cog") from None
    return x, y, z


def load_database(value: Any, body: Any = None, cog: Any = None) -> HydroDatabase:
    """The database of ``body`` (a ``hydrodynamics_body``) in the file at path ``value``,
    its coefficients about ``cog`` (a ``hydrodynamics_cog``; default the dataset's
    centre of mass), read once per file version.

    Raises
    ------
    ModelError
        At ``hydrodynamics`` for a file that cannot be read, at ``hydrodynamics_body`` for
        a multi-body dataset without it (the message lists the dataset's bodies) or a
        body the dataset lacks.
    """
    path = dataset_path(value)
    try:
        return _cached(str(path), path.stat().st_mtime_ns, _body_key(body), _cog_key(cog))
    except DatasetBodyError as exc:
        raise exc.keyed("hydrodynamics_body") from None
    except ModelError as exc:
        if exc.path in ("hydrodynamics_body", "hydrodynamics_cog"):
            raise
        raise ModelError(exc.message, "hydrodynamics") from None


@functools.lru_cache(maxsize=16)
def _cached(path: str, mtime: int, body: str | None,
            cog: tuple[float, float, float] | None) -> HydroDatabase:
    return read_hydrodynamics(path, body=body, cog=cog)


def load_bodies(value: Any, cogs: Any = None) -> MultiBodyDatabase:
    """Every body of the dataset at path ``value``, cross-body terms included, each
    body's about its ``cogs[name]`` where given (its centre of mass in the dataset
    otherwise), read once per file version."""
    path = dataset_path(value)
    key = None if not cogs else tuple(sorted((str(k), _cog_key(v)) for k, v in cogs.items()
                                             if v is not None)) or None
    return _cached_bodies(str(path), path.stat().st_mtime_ns, key)


@functools.lru_cache(maxsize=8)
def _cached_bodies(path: str, mtime: int, cogs: tuple[tuple[str, Any], ...] | None
                   ) -> MultiBodyDatabase:
    return read_hydrodynamics_bodies(path, cog=None if cogs is None else dict(cogs))


def water_density(ctx: ForceContext, db: HydroDatabase) -> float:
    """The environment's water density [kg/m^3]; the dataset's without an environment."""
    env = ctx.settings.get("environment")
    return float(db.rho) if env is None else float(env.rho)


def in_environment(db: HydroDatabase, ctx: ForceContext) -> HydroDatabase:
    """``db`` at the environment's water density: the one density rule of the marine
    types (:meth:`~frylinks_marine.hydrodb.HydroDatabase.at_density`)."""
    return db.at_density(water_density(ctx, db))
