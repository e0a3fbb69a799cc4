"""A writer of VTKHDF files (ParaView's HDF5 format) holding one unstructured grid that
moves: the cells written once, the points and data of each time step appended.

The format (VTKHDF 2.x, https://docs.vtk.org/en/latest/vtk_file_formats/vtkhdf_file_format/)
keeps every step's arrays end to end in one HDF5 dataset each, and the group ``Steps``
says where each step's part starts (``PointOffsets``, ``CellOffsets``,
``ConnectivityIdOffsets``, ``PointDataOffsets/<name>``, ``CellDataOffsets/<name>``). An
offset may point back at data already written, so what does not change is written once:

* the cells (``Connectivity``, ``Offsets``, ``Types``): every step's cell and connectivity
  offsets are 0;
* an array (the points too) equal to the step before it: the step gets the earlier
  offset instead of a copy (a ``kind`` array is written once, a body at rest adds
  nothing).

Beyond the points and the data that change, only ``Steps`` grows (a few integers a step).
The growing datasets are chunked a few steps at a time and compressed losslessly (gzip
after HDF5's byte shuffle, which every HDF5 library reads): float coordinates of a mesh
shrink to about 40 % of their size. :func:`quantised` rounds values to a power of two
first, for smaller files at a stated precision (RM3: 0.61 times the lossless size rounded
to 1e-4 m, 0.41 times to 1e-3 m).
"""

from __future__ import annotations

import math
from pathlib import Path
from types import TracebackType
from typing import Any

import numpy as np

#: VTK's cell type codes (vtkCellType.h) of the cells frylinks writes.
VTK_LINE = 3
VTK_QUAD = 9
#: The format's version this writer follows: temporal unstructured grids are 2.0's.
VERSION = (2, 0)
#: Uncompressed size of a chunk of the growing datasets, about: large enough for gzip to
#: find the repeats between steps, small enough that ParaView reading one step
#: decompresses little more than it.
CHUNK_BYTES = 1 << 19
GZIP_LEVEL = 4  # 9 saved 3 % more on RM3's points for 40 % more time


def quantised(values: np.ndarray, precision: float) -> np.ndarray:
    """``values`` rounded to a multiple of the largest power of two not above
    ``precision`` (NaN stays NaN), as float32.

    A power of two, not ``precision`` itself: a multiple of 2^-k has its low mantissa
    bits zero in float32, which the shuffle and gzip filters then remove (rounded to
    multiples of 1e-4, RM3's points compressed no better than unrounded ones). The error
    is at most half that power of two, so at most ``precision / 2``.
    """
    step = 2.0 ** math.floor(math.log2(precision))
    return (np.round(np.asarray(values, dtype=float) / step) * step).astype(np.float32)


class TemporalGridWriter:
    """Write a VTKHDF ``UnstructuredGrid`` whose points and data change with time.

    Parameters
    ----------
    path
        The ``.vtkhdf`` file, replaced if it exists.
    connectivity, offsets, types
        The cells, in VTK's layout: ``connectivity`` (nc,) the point indices of every
        cell end to end, ``offsets`` (nb_cells + 1,) where each cell starts in it,
        ``types`` (nb_cells,) VTK cell type codes.
    nb_points
        Points at every step.
    attrs
        Attributes of the file's root group (outside ``/VTKHDF``: ParaView ignores them),
        to say where the file came from.

    Use as a context manager; :meth:`append` adds steps, many at once.
    """

    def __init__(self, path: str | Path, connectivity: np.ndarray, offsets: np.ndarray,
                 types: np.ndarray, nb_points: int,
                 attrs: dict[str, Any] | None = None) -> None:
        import h5py

        self.path = Path(path)
        self.nb_points = int(nb_points)
        self.nb_cells = len(types)
        self.nb_steps = 0
        self._file = h5py.File(self.path, "w")
        for key, value in (attrs or {}).items():
            self._file.attrs[key] = value
        root = self._file.create_group("VTKHDF")
        root.attrs["Version"] = np.array(VERSION, dtype=np.int64)
        # a fixed-length ASCII string: the reader does not take h5py's default
        # variable-length one
        root.attrs.create("Type", np.bytes_("UnstructuredGrid"))
        self._root = root
        root.create_dataset("Connectivity", data=np.asarray(connectivity, dtype=np.int64),
                            **self._compressed(len(connectivity)))
        root.create_dataset("Offsets", data=np.asarray(offsets, dtype=np.int64))
        root.create_dataset("Types", data=np.asarray(types, dtype=np.uint8))
        # one part, the same at every step: its sizes once, every step's PartOffsets 0
        # (VTK's reader takes the part offset as an index into Offsets too: a part a
        # step would need the cells' Offsets repeated a step)
        for name, size in (("NumberOfPoints", self.nb_points),
                           ("NumberOfCells", self.nb_cells),
                           ("NumberOfConnectivityIds", len(connectivity))):
            root.create_dataset(name, data=np.array([size], dtype=np.int64))
        # steps of points per chunk, so that a chunk is about CHUNK_BYTES
        self._chunk_steps = max(1, CHUNK_BYTES // max(1, 12 * self.nb_points))
        self._points = root.create_dataset(
            "Points", shape=(0, 3), maxshape=(None, 3), dtype=np.float32,
            **self._compressed(self._chunk_steps * self.nb_points, 3))
        root.create_group("PointData")
        root.create_group("CellData")
        steps = root.create_group("Steps")
        steps.attrs["NSteps"] = np.int64(0)
        self._steps = steps
        for name, dtype in (("Values", np.float64), ("PartOffsets", np.int64),
                            ("NumberOfParts", np.int64), ("PointOffsets", np.int64),
                            ("CellOffsets", np.int64), ("ConnectivityIdOffsets", np.int64)):
            self._growing(steps, name, dtype, ())
        steps.create_group("PointDataOffsets")
        steps.create_group("CellDataOffsets")
        # the last step written of each array (None: nothing yet), to spot repeats
        self._last: dict[str, np.ndarray | None] = {"Points": None}
        self._offset: dict[str, int] = {}  # and where its data starts

    # ------------------------------------------------------------------ datasets

    def _compressed(self, rows: int, *columns: int) -> dict[str, Any]:
        return {"chunks": (max(1, rows), *columns), "compression": "gzip",
                "compression_opts": GZIP_LEVEL, "shuffle": True}

    def _growing(self, group: Any, name: str, dtype: Any, tail: tuple[int, ...],
                 rows: int = 1024) -> Any:
        return group.create_dataset(name, shape=(0, *tail), maxshape=(None, *tail),
                                    dtype=dtype, **self._compressed(rows, *tail))

    @staticmethod
    def _extend(dataset: Any, values: np.ndarray) -> int:
        """Append ``values`` along the first axis; return where they start."""
        start = dataset.shape[0]
        dataset.resize(start + len(values), axis=0)
        dataset[start:] = values
        return start

    def _array(self, group: str, name: str, size: int, values: np.ndarray) -> np.ndarray:
        """Append the steps of one array that differ from the step before them; return
        every step's offset into its dataset."""
        values = np.asarray(values)
        nt = len(values)
        if values.shape[1] != size:
            raise ValueError(f"{group} '{name}': {values.shape[1]} values a step, expected "
                             f"{size}")
        key = name if group == "Points" else f"{group}/{name}"
        if key not in self._last:
            if self.nb_steps:
                raise ValueError(f"{group} '{name}' appears after the first step")
            where = self._root[group]
            dtype = np.float32 if values.dtype.kind == "f" else values.dtype
            where.create_dataset(name, shape=(0, *values.shape[2:]),
                                 maxshape=(None, *values.shape[2:]), dtype=dtype,
                                 **self._compressed(self._chunk_steps * size,
                                                    *values.shape[2:]))
            self._steps[f"{group}Offsets"].create_dataset(
                name, shape=(0,), maxshape=(None,), dtype=np.int64,
                **self._compressed(1024))
            self._last[key] = None
        dataset = self._points if group == "Points" else self._root[group][name]
        last = self._last[key]
        new = np.ones(nt, dtype=bool)
        if last is not None:
            new = ~_same(values, np.concatenate([last[None], values[:-1]]))
        elif nt > 1:
            new[1:] = ~_same(values[1:], values[:-1])
        written = self._extend(dataset, values[new].reshape(-1, *values.shape[2:]))
        # a step equal to the one before it points at that one's data
        offsets = np.empty(nt, dtype=np.int64)
        offset = self._offset.get(key, 0)
        for i in range(nt):
            if new[i]:
                offset, written = written, written + size
            offsets[i] = offset
        self._last[key] = values[-1].copy()
        self._offset[key] = offset
        return offsets

    # ------------------------------------------------------------------ steps

    def append(self, times: np.ndarray, points: np.ndarray,
               point_data: dict[str, np.ndarray] | None = None,
               cell_data: dict[str, np.ndarray] | None = None) -> None:
        """Add ``nt`` time steps.

        Parameters
        ----------
        times
            (nt,) [s].
        points
            (nt, nb_points, 3), written as float32.
        point_data, cell_data
            name -> (nt, nb_points[, nc]) or (nt, nb_cells[, nc]); the same names at
            every call. Floats are written as float32.
        """
        times = np.atleast_1d(np.asarray(times, dtype=float))
        nt = len(times)
        offsets = self._array("Points", "Points", self.nb_points,
                              np.asarray(points, dtype=np.float32))
        self._extend(self._steps["PointOffsets"], offsets)
        for group, data, size in (("PointData", point_data, self.nb_points),
                                  ("CellData", cell_data, self.nb_cells)):
            for name, values in (data or {}).items():
                steps = self._array(group, name, size, values)
                self._extend(self._steps[f"{group}Offsets"][name], steps)
        self._extend(self._steps["Values"], times)
        # every step is the one part of the cells written first
        zeros = np.zeros(nt, dtype=np.int64)
        for name in ("PartOffsets", "CellOffsets", "ConnectivityIdOffsets"):
            self._extend(self._steps[name], zeros)
        self._extend(self._steps["NumberOfParts"], zeros + 1)
        self.nb_steps += nt
        self._steps.attrs["NSteps"] = np.int64(self.nb_steps)

    def close(self) -> None:
        """Close the file (what was appended is in it)."""
        self._file.close()

    def __enter__(self) -> TemporalGridWriter:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()


def _same(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per step (first axis): are ``a`` and ``b`` equal, NaN equal to NaN?"""
    equal = (a == b) | (np.isnan(a) & np.isnan(b)) if a.dtype.kind == "f" else a == b
    return equal.reshape(len(a), -1).all(axis=1)


__all__ = ["VERSION", "VTK_LINE", "VTK_QUAD", "TemporalGridWriter", "quantised"]
