"""WAMIT's numeric output files as tables of numbers: which files make one run's set
(:func:`wamit_file_set`), each parsed line by line with errors that name the file, the
line and the layout it should have (:func:`read_table`), and the mode indices checked
(:func:`mode_indices`). What the numbers mean, and their units, is
:mod:`frylinks_marine.wamit_reader`'s business.

A file may be gzip-compressed (``marin_semi.12d.gz``) and may start with WAMIT's title
line (``WAMIT Numeric Output -- Filename ...``); line ends LF or CRLF.
"""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from frylinks.errors import ModelError

Array = np.ndarray

#: The column layouts of the files read, by suffix (WAMIT manual, "numeric output").
LAYOUTS: dict[str, tuple[tuple[int, ...], str]] = {
    ".1": ((4, 5), "PER I J A(I,J) [B(I,J)]"),
    ".2": ((7,), "PER BETA I |X| phase Re(X) Im(X)"),
    ".3": ((7,), "PER BETA I |X| phase Re(X) Im(X)"),
    ".hst": ((3,), "I J C(I,J)"),
    ".8": ((7, 8), "PER BETA [BETA2] I |F| phase Re(F) Im(F)"),
    ".9": ((7, 8), "PER BETA [BETA2] I |F| phase Re(F) Im(F)"),
    ".12d": ((9,), "PER_i PER_j BETA_i BETA_j I |T| phase Re(T) Im(T)"),
    ".12s": ((9,), "PER_i PER_j BETA_i BETA_j I |T| phase Re(T) Im(T)"),
}

#: Suffixes of the files of a set that are read (any one names the set).
WAMIT_SUFFIXES = tuple(LAYOUTS)


def wamit_suffix(path: str | Path) -> str | None:
    """The WAMIT suffix of ``path`` (``.1``, ``.12d``, ...; a ``.gz`` after it is
    skipped), or None if it has none."""
    name = Path(path).name.lower()
    if name.endswith(".gz"):
        name = name[:-3]
    return next((s for s in sorted(WAMIT_SUFFIXES, key=len, reverse=True)
                 if name.endswith(s) and len(name) > len(s)), None)


def wamit_file_set(path: str | Path) -> tuple[Path, dict[str, Path]]:
    """The stem of a WAMIT run and its files present, by suffix.

    Parameters
    ----------
    path
        Any file of the set (``marin_semi.1``, ``marin_semi.hst``,
        ``marin_semi.12d.gz``) or the stem itself (``marin_semi``).

    Returns
    -------
    stem, files
        ``files[".1"]`` etc. for each suffix of :data:`WAMIT_SUFFIXES` whose file, or
        that file gzipped (``.gz`` appended), exists; the plain file first.
    """
    path = Path(path)
    suffix = wamit_suffix(path)
    stem = path
    if suffix is not None:
        stem = path.with_name(path.name[: len(path.name) - len(suffix)
                                        - (3 if path.name.lower().endswith(".gz") else 0)])
    files: dict[str, Path] = {}
    for s in WAMIT_SUFFIXES:
        for candidate in (stem.with_name(stem.name + s), stem.with_name(stem.name + s + ".gz")):
            if candidate.is_file():
                files[s] = candidate
                break
    return stem, files


@dataclass(frozen=True)
class Table:
    """A parsed file: ``rows`` ``(nrows, ncols)`` (NaN pads a row shorter than the
    widest layout), ``lines`` the 1-based line number of each row, ``where`` the
    quoted file name for messages."""

    rows: Array
    lines: Array
    where: str
    layout: str

    def at(self, row: int) -> str:
        """``'file', line N`` of a row, for messages."""
        return f"{self.where}, line {int(self.lines[row])}"


def _text_lines(path: Path) -> Iterator[str]:
    if path.name.lower().endswith(".gz"):
        with gzip.open(path, "rt", encoding="ascii", errors="replace") as f:
            yield from f
    else:
        with path.open("r", encoding="ascii", errors="replace") as f:
            yield from f


def read_table(path: Path, suffix: str) -> Table:
    """The numbers of WAMIT file ``path`` of kind ``suffix`` (a key of :data:`LAYOUTS`).

    Raises
    ------
    ModelError
        For a file that cannot be read or is empty, a line with a number of columns
        the layout does not have, or an entry that is not a number (each naming the
        file, the line and the layout expected).
    """
    widths, layout = LAYOUTS[suffix]
    where = f"'{path}'"
    rows: list[list[float]] = []
    lines: list[int] = []
    try:
        for number, line in enumerate(_text_lines(path), start=1):
            fields = line.split()
            if not fields:
                continue
            if not rows and "WAMIT" in line.upper():
                continue  # the title line of WAMIT's numeric output
            if len(fields) not in widths:
                accepted = " or ".join(str(w) for w in widths)
                raise ModelError(f"{where}, line {number}: {len(fields)} columns; expected "
                                 f"{accepted} ({layout})")
            try:
                rows.append([float(x.replace("D", "E")) for x in fields])
            except ValueError:
                raise ModelError(f"{where}, line {number}: not all numbers ({line.strip()!r})"
                                 f"; expected {layout}") from None
            lines.append(number)
    except (OSError, EOFError) as exc:
        raise ModelError(f"{where}: cannot read the file ({exc})") from None
    if not rows:
        raise ModelError(f"{where}: no data; expected lines of {layout}")
    width = max(widths)
    table = np.full((len(rows), width), np.nan)
    for k, row in enumerate(rows):
        table[k, : len(row)] = row
    return Table(rows=table, lines=np.asarray(lines), where=where, layout=layout)


def mode_indices(table: Table, column: int) -> Array:
    """The mode indices (WAMIT's ``I``, ``J``: ``6 (body - 1) + dof``, from 1) in
    ``column``, as 0-based ints.

    Raises
    ------
    ModelError
        For an index that is not a whole number >= 1 (naming the file and line).
    """
    values = table.rows[:, column]
    bad = np.nonzero(~np.isfinite(values) | (values < 1) | (values != np.round(values)))[0]
    if bad.size:
        k = int(bad[0])
        raise ModelError(f"{table.at(k)}: mode index {values[k]:g} is out of range; expected "
                         "a whole number 1..6 NBODY (6 (body - 1) + dof)")
    return values.astype(int) - 1


def body_count(tables: dict[str, tuple[Table, Array]]) -> int:
    """The number of bodies ``NBODY`` of a run, the largest mode index over 6, the same
    in every file (``tables``: each file's table and its 0-based mode indices).

    Raises
    ------
    ModelError
        When two files disagree, naming the line holding the index of the file with
        more bodies.
    """
    counts = {}
    for suffix, (_, modes) in tables.items():
        k = int(np.argmax(modes))
        counts[suffix] = (int(modes[k]) // 6 + 1, k)
    order = sorted(counts, key=lambda s: counts[s][0])
    fewest, most = order[0], order[-1]
    nb_few, nb_most = counts[fewest][0], counts[most][0]
    if nb_few != nb_most:
        table, modes = tables[most]
        k = counts[most][1]
        raise ModelError(
            f"{table.at(k)}: mode index {int(modes[k]) + 1} means {nb_most} bodies, but "
            f"{tables[fewest][0].where} holds the modes of {nb_few} (1..{6 * nb_few}); "
            "expected the files of one WAMIT run, with one body count")
    return nb_most
