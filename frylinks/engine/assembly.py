"""The start of a run: the initial state measured against the links, refused when it
misses them by more than a tolerance, brought onto them otherwise.

A run used to project any initial state onto the links, however far: a planar link
whose master node was turned 90 degrees from its slave node started the run with both
bodies turned 90 degrees, and only a warning said so. Now every link's residual is
measured first, per constrained DOF in the link's own terms (:attr:`LinkType.
constraint_names`: translations in m, rotations in degrees) and a residual beyond
:class:`AssemblyTolerance` is a :class:`~frylinks.errors.ModelError` at the link's key
path; a smaller one (node positions rounded by their user) is projected as before, and
the :class:`Assembly` returned says by how much each body moved, for the results'
attributes. :func:`body_moves` measures the static equilibrium's moves the same way.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from frylinks.engine.evaluate import constraint_terms, link_context, project
from frylinks.engine.model import Model, State, body_states
from frylinks.errors import ModelError, SimulationError
from frylinks.links import DOFS, LinkContext
from frylinks.params import as_float, check_keys
from frylinks.rotations import quat_conj_multiply

Array = np.ndarray


@dataclass(frozen=True)
class AssemblyTolerance:
    """The largest initial residual of a link the run assembles (case key
    ``solver.assembly_tolerance``): ``length`` [m] on a translation, ``angle_deg``
    [deg] on a rotation. The defaults are far above round-off and a careful user's
    rounding of node positions (mm and hundredths of a degree), and far below a node on
    the wrong side of its body or a node's axes turned by a right angle."""

    length: float = 0.01
    angle_deg: float = 0.1


#: The default tolerance (``solver.assembly_tolerance`` not given).
DEFAULT_TOLERANCE = AssemblyTolerance()
#: Assemble from anywhere, however far the initial state misses the links: for models
#: built to start off them on purpose (the link contract checks' random poses, rough
#: positions a test assembles). A case file says the same with large values.
FROM_ANYWHERE = AssemblyTolerance(math.inf, math.inf)

#: A body moved by less than this fraction of the model's length scale, or turned by
#: less than :data:`ROUND_OFF_DEG`, moved by round-off only (nothing to report).
ROUND_OFF = 1e-12
ROUND_OFF_DEG = 1e-10
#: Moves beyond these (fraction of the length scale; degrees) are worth a warning in
#: the Python API (``frylinks run`` prints any move above round-off).
VISIBLE = 1e-6
VISIBLE_DEG = 1e-6


def is_angle(name: str) -> bool:
    """Whether a constraint row named ``name`` holds an angle [rad] (``rx``, ``ry``,
    ``rz``, or a type's own name starting ``r_``) rather than a length [m]."""
    return name in DOFS[3:] or name.startswith("r_")


@dataclass
class LinkResidual:
    """One link's position residual at a state, per constrained DOF.

    Attributes
    ----------
    link : the link's name.
    names : per constraint row, its name (:attr:`LinkType.constraint_names`).
    values : (nc,) the residuals, translations in m, rotations in degrees.
    angles : (nc,) True where a row is a rotation.
    """

    link: str
    names: tuple[str, ...]
    values: Array
    angles: Array

    @property
    def length(self) -> float:
        """Largest translational residual [m]."""
        v = np.abs(self.values[~self.angles])
        return float(v.max()) if v.size else 0.0

    @property
    def angle_deg(self) -> float:
        """Largest rotational residual [deg]."""
        v = np.abs(self.values[self.angles])
        return float(v.max()) if v.size else 0.0

    def exceeds(self, tolerance: AssemblyTolerance) -> bool:
        return self.length > tolerance.length or self.angle_deg > tolerance.angle_deg

    def shown(self) -> str:
        """``tz 0 m, rx -90 deg, ry 0 deg``."""
        return ", ".join(f"{n} {v:.3g} {'deg' if a else 'm'}"
                         for n, v, a in zip(self.names, self.values, self.angles, strict=True))

    def to_json(self) -> dict[str, float]:
        return {n: float(v) for n, v in zip(self.names, self.values, strict=True)}


@dataclass
class BodyMove:
    """How far a body moved between two states: its COG [m] and its turn [deg]."""

    body: str
    move_m: float
    turn_deg: float


def body_moves(model: Model, before: State, after: State) -> list[BodyMove]:
    """Every body's move from ``before`` to ``after``."""
    moved = np.linalg.norm(after.x - before.x, axis=1)
    # the angle from the rotation between them by atan2: arccos of their dot product
    # loses every turn below 1e-8 rad to round-off, a nanometre's assembly among them
    q = quat_conj_multiply(before.q, after.q)
    turned = np.degrees(2.0 * np.arctan2(np.linalg.norm(q[:, 1:], axis=1), np.abs(q[:, 0])))
    return [BodyMove(name, float(m), float(a))
            for name, m, a in zip(model.body_names, moved, turned, strict=True)]


def largest(moves: list[BodyMove]) -> tuple[float, float]:
    """The largest move [m] and turn [deg] of ``moves`` (0 for none)."""
    return (max((m.move_m for m in moves), default=0.0),
            max((m.turn_deg for m in moves), default=0.0))


@dataclass
class Assembly:
    """What assembling the initial state found and did (:func:`assemble_initial`)."""

    residuals: list[LinkResidual]
    moves: list[BodyMove]
    tolerance: AssemblyTolerance
    length_scale: float = 1.0
    #: (the largest residuals, computed once)
    residual_m: float = field(init=False)
    residual_deg: float = field(init=False)

    def __post_init__(self) -> None:
        self.residual_m = max((r.length for r in self.residuals), default=0.0)
        self.residual_deg = max((r.angle_deg for r in self.residuals), default=0.0)

    @property
    def move_m(self) -> float:
        return largest(self.moves)[0]

    @property
    def turn_deg(self) -> float:
        return largest(self.moves)[1]

    def moved(self, visible: bool = False) -> bool:
        """Whether a body moved beyond round-off (with ``visible``, beyond what the
        Python API warns of)."""
        rel, deg = (VISIBLE, VISIBLE_DEG) if visible else (ROUND_OFF, ROUND_OFF_DEG)
        return self.move_m > rel * self.length_scale or self.turn_deg > deg

    def attributes(self) -> dict[str, Any]:
        """The results' attributes (docs/reference/results.md)."""
        return {
            "assembly_residual_m": self.residual_m,
            "assembly_residual_deg": self.residual_deg,
            "assembly_move_m": self.move_m,
            "assembly_turn_deg": self.turn_deg,
            "assembly_tolerance_m": self.tolerance.length,
            "assembly_tolerance_deg": self.tolerance.angle_deg,
            "assembly_residuals": json.dumps({r.link: r.to_json() for r in self.residuals}),
        }

    def summary(self) -> str:
        """One line: the largest residual and move."""
        text = (f"largest initial link residual {self.residual_m:.3g} m, "
                f"{self.residual_deg:.3g} deg (tolerance {self.tolerance.length:g} m, "
                f"{self.tolerance.angle_deg:g} deg)")
        if self.moved():
            text += (f"; assembling the links moved the bodies by at most "
                     f"{self.move_m:.3g} m and {self.turn_deg:.3g} deg")
        return text

    def notice(self) -> str:
        """What a run says of a move above round-off (empty when there is none)."""
        if not self.moved():
            return ""
        return (f"assembling the links moved the bodies by at most {self.move_m:.3g} m "
                f"and turned them by at most {self.turn_deg:.3g} deg before the first step "
                f"(largest initial residual {self.residual_m:.3g} m, "
                f"{self.residual_deg:.3g} deg)")

    def warning(self) -> str:
        """The Python API's warning of a visible move (empty when there is none)."""
        if not self.moved(visible=True):
            return ""
        violated = [r for r in self.residuals  # (beyond round-off: not 3e-15 deg)
                    if r.length > ROUND_OFF * self.length_scale
                    or r.angle_deg > ROUND_OFF_DEG]
        links = ", ".join(f"'{r.link}' by {r.shown()}" for r in violated) or "none"
        bodies = ", ".join(f"'{m.body}' moved {m.move_m:.3g} m and turned "
                           f"{m.turn_deg:.3g} deg" for m in self.moves
                           if m.move_m > VISIBLE * self.length_scale
                           or m.turn_deg > VISIBLE_DEG)
        return (f"the initial positions do not satisfy the links: violated {links}; "
                f"assembling them, {bodies}")


def link_residuals(model: Model, s: State) -> list[LinkResidual]:
    """Every link's position residual at ``s``, in the model's link order."""
    if not model.nb_rows:
        return [LinkResidual(n, (), np.zeros(0), np.zeros(0, dtype=bool))
                for n in model.link_names]
    b = body_states(model, s)
    ctx = link_context(model, s)
    rels, _, res, _, _ = constraint_terms(model, b, ctx, positions=True)
    out: dict[int, LinkResidual] = {}
    for blk, rel in zip(model.link_blocks, rels, strict=True):
        kind = blk.kind
        n, nc = kind.nb_links, kind.nb_constraints
        values = res[blk.row_start: blk.row_start + n * nc].reshape(n, nc)
        names = constraint_names(kind, rel, ctx, blk.index)
        angles = np.array([is_angle(name) for name in names], dtype=bool)
        shown = np.where(angles, np.degrees(values), values)
        for k, i in enumerate(blk.index):
            out[int(i)] = LinkResidual(model.link_names[int(i)], names, shown[k], angles)
    return [out[i] for i in range(len(model.link_names))]


def constraint_names(kind: Any, rel: Any, ctx: LinkContext, index: Array) -> tuple[str, ...]:
    """A block's row names: its type's :attr:`~frylinks.links.LinkType.
    constraint_names`, or for a type that declares none, each row named after the DOF
    of the relative twist it weighs most at the first link (``tz`` for a row along z;
    ``c1``, ``c2``... beyond, to keep names unique)."""
    names = tuple(getattr(kind, "constraint_names", ()) or ())
    if len(names) == kind.nb_constraints:
        return names
    sub = LinkContext(ctx.t, ctx.signals, ctx.angle_ref[index])
    rows = np.asarray(kind.constraints(rel, sub).rows, dtype=float)
    guessed: list[str] = []
    for k in range(kind.nb_constraints):
        row = np.abs(rows[0, k]) if len(rows) else np.zeros(6)
        name = DOFS[int(np.argmax(row))] if row.any() else f"c{k + 1}"
        guessed.append(name if name not in guessed else f"c{k + 1}")
    return tuple(guessed)


def refusal(residuals: list[LinkResidual], tolerance: AssemblyTolerance) -> ModelError | None:
    """The error of an initial state beyond ``tolerance``, at the worst link's key path
    (None when every link is within it)."""
    over = [r for r in residuals if r.exceeds(tolerance)]
    if not over:
        return None
    worst = max(over, key=lambda r: max(r.length / tolerance.length,
                                        r.angle_deg / tolerance.angle_deg))
    others = [r for r in over if r is not worst]
    aligned = ("its master and slave nodes' axes are not aligned (the link holds the slave "
               "node's axes to its master's: give the two nodes the same orientation in "
               "world at the start)")
    side = ("a node is on the wrong side of its body (a sign of its position) or a body's "
            "initial position is off")
    turned = worst.angle_deg / tolerance.angle_deg >= worst.length / tolerance.length
    first, second = (aligned, side) if turned else (side, aligned)
    text = (f"the initial positions miss link '{worst.link}' by {worst.shown()}, beyond "
            f"solver.assembly_tolerance ({tolerance.length:g} m, {tolerance.angle_deg:g} "
            f"deg): the run would have to {'turn' if turned else 'move'} the bodies to "
            f"assemble it. Most likely {first}; or {second}. Correct the nodes or the "
            "bodies' initial poses (or raise solver.assembly_tolerance to let the run "
            "assemble it)")
    if others:
        text += "; also beyond it: " + ", ".join(f"'{r.link}' ({r.shown()})" for r in others)
    return ModelError(text, f"links.{worst.link}")


def assemble_initial(model: Model, s: State,
                     tolerance: AssemblyTolerance = DEFAULT_TOLERANCE) -> Assembly:
    """Measure a user's initial state ``s`` against the links, and bring it onto them
    (in place).

    Returns
    -------
    Assembly
        Every link's residual before, every body's move.

    Raises
    ------
    ModelError
        When a link's residual exceeds ``tolerance`` (nothing is moved), or the links
        cannot be assembled, at the worst link's key path.
    """
    before = s.copy()
    residuals = link_residuals(model, s)
    error = refusal(residuals, tolerance)
    if error is not None:
        raise error
    try:
        project(model, s, initial=True)
    except SimulationError as exc:
        raise ModelError(str(exc), exc.path) from None
    return Assembly(residuals, body_moves(model, before, s), tolerance, model.length_scale)


def as_tolerance(value: Any) -> AssemblyTolerance:
    """An :class:`AssemblyTolerance` from itself, None (the default) or a mapping
    ``{length: m, angle_deg: deg}`` (either key may be left out)."""
    if value is None:
        return DEFAULT_TOLERANCE
    if isinstance(value, AssemblyTolerance):
        return value
    if isinstance(value, Mapping):
        check_keys(value, ("length", "angle_deg"), "solver.assembly_tolerance")
        kw = {key: as_float(v, f"solver.assembly_tolerance.{key}",
                            "m" if key == "length" else "deg", positive=True)
              for key, v in value.items()}
        return AssemblyTolerance(**kw)
    raise ModelError(f"expected {{length: m, angle_deg: deg}}, got {value!r}",
                     "solver.assembly_tolerance")


def turn_refusal(moves: list[BodyMove], max_turn_deg: float) -> ModelError | None:
    """The error of a static equilibrium that turns a body by more than
    ``max_turn_deg`` from the case's orientation (None otherwise)."""
    over = [m for m in moves if m.turn_deg > max_turn_deg]
    if not over:
        return None
    worst = max(over, key=lambda m: m.turn_deg)
    return ModelError(
        f"the static equilibrium found turns body '{worst.body}' by {worst.turn_deg:.3g} "
        f"deg from its initial orientation (and moves it {worst.move_m:.3g} m), more than "
        f"solver.equilibrium_max_turn_deg = {max_turn_deg:g}: a body that capsizes (its "
        "mass, centre of gravity or hydrostatics), or a link or mooring set up in the "
        "wrong axes. If the turn is meant, raise solver.equilibrium_max_turn_deg",
        "solver.initial_equilibrium")


def equilibrium_attributes(moves: list[BodyMove], max_turn_deg: float) -> dict[str, Any]:
    """The results' attributes of the static equilibrium search."""
    move, turn = largest(moves)
    return {
        "equilibrium_move_m": move,
        "equilibrium_turn_deg": turn,
        "equilibrium_max_turn_deg": max_turn_deg,
        "equilibrium_moves": json.dumps({m.body: {"move_m": m.move_m, "turn_deg": m.turn_deg}
                                         for m in moves}),
    }
