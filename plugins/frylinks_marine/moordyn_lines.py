"""Dynamic mooring lines through MoorDyn: the ``moordyn`` force type.

Each element is one MoorDyn system (lines, points and line types) coupled to one frylinks
body: MoorDyn's **coupled points** are fairleads fixed on the body, its fixed points are
anchors. The system comes from a MoorDyn input file (``file``, relative to the case file)
or from the case-file keys ``line_types`` and ``lines``, which the type writes into one.
MoorDyn's C library (the ``moordyn`` wheel, 2.7) integrates the lines with its own time
step ``dtM`` between frylinks' steps.

**Coupling.** Once per accepted frylinks step, in the type's ``accept`` kernel: at the
accepted state at ``t_{n+1}`` MoorDyn is advanced from ``t_n`` to ``t_{n+1}``, one MoorDyn
call per ``dtM``, its coupled points moving straight between points of the cubic Hermite
path through the fairleads' accepted positions and velocities at ``t_n`` and ``t_{n+1}``
(MoorDyn moves a coupled point at a constant velocity over a call), so the lines see a
smooth fairlead motion through every accepted state and return the fairlead forces at
``t_{n+1}``. Over the next step the body feels those forces either held (``coupling:
hold``, WEC-Sim's scheme) or extrapolated linearly from the last two accepted steps
(``coupling: extrapolate``, the default). The force depends on no stage or Newton
iterate, so rk4 and generalized-alpha see an explicit force. Measured (halving dt, taut
lines): first order with either scheme, the extrapolation about 15 % more accurate;
docs/marine.md gives the numbers and the costs.

**Compiled.** The kernels call MoorDyn's C API (``MoorDyn_Step``, ``MoorDyn_Init``,
``MoorDyn_Serialize``, ``MoorDyn_Deserialize``) through function addresses and the system
pointer kept as ``int64`` in the kernel data
(:func:`~frylinks_marine.moordyn_library.c_call`, an LLVM call through a
pointer), so a model with MoorDyn lines keeps its compiled step and the step stays cached
on disk (no address is compiled in).

**Initial conditions.** At ``prepare`` each system is created and initialised (MoorDyn's
own static solve) at the body's initial pose. In static mode (``solver.initial_equilibrium``)
and before that, the force is the quasi-static elastic catenary of each line from its
anchor to its fairlead (:func:`frylinks_marine.catenary.solve_line`, the lines' submerged
weight and EA), so the equilibrium is found without MoorDyn; the first accepted state of a
run initialises MoorDyn again where the body then is (unless it did not move), so a moored
body starts at rest up to the difference between MoorDyn's lumped-mass statics and the
continuous catenary.

**Checkpoints.** MoorDyn's state is serialised (``MoorDyn_Serialize``) after every accepted
step into the ``state`` memory array (each 64-bit word as two exact 32-bit halves, so no
bit pattern is read as a NaN); a resumed run deserialises it before its first step and
goes on bit for bit.

**Failures.** A MoorDyn error code, a non-finite fairlead force or one beyond any its lines
can pull with (:data:`UNSTABLE_STRAIN` times their EA: lines gone unstable, caught before
the body feels the force) is recorded in the block's ``status`` and gives NaN forces: the
compiled step stops and :meth:`MoorDynLines.failure` names the element, its file, the lines
and MoorDyn's error. A bad input file is a
:class:`~frylinks.errors.ModelError` naming the file and MoorDyn's message.
"""

from __future__ import annotations

import ctypes
import math
import os
import shutil
import tempfile
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from frylinks.errors import ElementError, ModelError, SimulationError
from frylinks.forces import ForceContext, ForceKernels, ForceType, Output
from frylinks.jit import alive, cross3, kernel, rotate3, scratch
from frylinks.kinematics import NodeFrames
from frylinks.params import Param
from frylinks.signals import SignalSpec

from .catenary import NB_RESULTS, OK, solve_line
from .moordyn_input import (
    LINE_TYPE_KEYS,
    MoorDynInput,
    case_lines,
    read_input,
    side_files,
    with_options,
    write_input,
)
from .moordyn_library import (
    DESERIALIZE,
    ERRORS,
    INIT,
    SERIALIZE,
    SILENT,
    STEP,
    Library,
    c_call,
    captured_output,
    last_error,
)

Array = np.ndarray

#: Our own codes in ``status``: a non-finite fairlead force, a static catenary failure, a
#: fairlead force beyond any the lines can pull with (:data:`UNSTABLE_STRAIN`).
NOT_FINITE = -1000
STATIC_FAILED = -1001
UNSTABLE = -1002
#: A fairlead force above ``UNSTABLE_STRAIN`` times the sum of the EA of the lines on it
#: (a strain no mooring line survives) means MoorDyn's lines went unstable: stopping there,
#: before the force reaches the body, names the lines instead of a runaway body.
UNSTABLE_STRAIN = 1.0

#: ``stage`` of an element (``coupling[:, 0]``): created; initialised at prepare; started.
CREATED, PREPARED, STARTED = 0.0, 1.0, 2.0


# ------------------------------------------------------------------------------ the type

def _outputs() -> dict[str, Output]:
    return {
        "moordyn_fairlead_tension": Output("N", "force of the line on its end B (the "
                                                "fairlead), its end node's weight included",
                                           ("moordyn_line",)),
        "moordyn_anchor_tension": Output("N", "tension of the line's first segment, at its "
                                              "end A (the anchor)", ("moordyn_line",)),
        "moordyn_node_position": Output("m", "position of each node of each line, world "
                                             "axes (node 0 at end A)",
                                        ("moordyn_line", "moordyn_node", "xyz")),
    }


@dataclass
class _System:
    """One element's MoorDyn system: its input, the files MoorDyn reads, its handle."""

    source: str                     # the user's file, or "lines from the case file"
    input: MoorDynInput
    text: str
    folder: str
    handle: int = 0
    words: int = 0                  # 64-bit words of its serialised state
    offsets: Array = field(default_factory=lambda: np.zeros((0, 3)))
    close: Any = None               # closes the handle once (a weakref.finalize)


class MoorDynLines(ForceType):
    """Dynamic mooring lines simulated by MoorDyn, coupled to a body (module doc)."""

    name = "moordyn"
    attachments = ("body",)
    parameters = {
        "body": Param("body", "", "body the fairleads (MoorDyn's coupled points) are on"),
        "file": Param("path", "", "MoorDyn (v2) input file: line types, points, lines, "
                      "options; absolute, or relative to the case file. Its coupled points "
                      "are the fairleads, its fixed points anchors (or give line_types and "
                      "lines instead)", default=None),
        "fairleads": Param("any", "m", "with file: the position on the body of each coupled "
                           "point in the file's order, body axes from the COG, as a list of "
                           "[x, y, z] (default: the file's positions, world axes at the "
                           "start)", default=None),
        "line_types": Param("any", "", "instead of file: line types by name, each {"
                            + ", ".join(f"{k} [{u}]" + ("" if d is None else f" = {d:g}")
                                        for k, (_, u, d, _doc) in LINE_TYPE_KEYS.items())
                            + "}", default=None),
        "lines": Param("any", "", "instead of file: a list of lines, each {line_type, anchor "
                       "[m, world], fairlead [m, body axes from the COG], length [m], "
                       "segments = 20}", default=None),
        "time_step": Param("float", "s", "MoorDyn's own time step dtM, which sub-steps the "
                           "lines between frylinks' steps (default: the file's, else 1e-3)",
                           default=None, positive=True),
        "seabed_stiffness": Param("float", "Pa m-1", "with lines: MoorDyn's seabed "
                                  "stiffness kbot", default=3.0e6, positive=True),
        "seabed_damping": Param("float", "Pa s m-1", "with lines: MoorDyn's seabed damping "
                                "cbot", default=3.0e5, minimum=0.0),
        "coupling": Param("choice", "", "force over a frylinks step: 'extrapolate' (linear, "
                          "from the last two accepted steps; second order) or 'hold' (the "
                          "last accepted step's, WEC-Sim's; first order)",
                          default="extrapolate", choices=("extrapolate", "hold")),
    }
    outputs = _outputs()
    dimensions = ("moordyn_line", "moordyn_node")
    description = ("dynamic mooring lines (MoorDyn's lumped-mass model, its own time step) "
                   "from a MoorDyn input file or case-file keys, fairleads on a body")
    memory = ("coupling", "fairlead_forces", "state")
    examples = [
        {"line_types": {"chain": {"diameter": 0.05, "mass": 50.0, "axial_stiffness": 2.0e8}},
         "lines": [{"line_type": "chain", "anchor": [40.0, 0.0, -20.0],
                    "fairlead": [0.5, 0.0, 0.0], "length": 50.0, "segments": 6}]},
        {"line_types": {"rope": {"diameter": 0.04, "mass": 8.0, "axial_stiffness": 5.0e6,
                                 "drag": 1.6}},
         "lines": [{"line_type": "rope", "anchor": [-20.0, 20.0, -15.0],
                    "fairlead": [0.0, 0.3, -0.2], "length": 36.0, "segments": 5},
                   {"line_type": "rope", "anchor": [-20.0, -20.0, -15.0],
                    "fairlead": [0.0, -0.3, -0.2], "length": 36.0, "segments": 5}],
         "time_step": 2.0e-4, "coupling": "hold"},
    ]

    @classmethod
    def validate(cls, params: Mapping[str, Any]) -> None:
        Library.get()
        has_file, has_lines = params["file"] is not None, params["lines"] is not None
        if has_file == has_lines or (params["line_types"] is None) == has_lines:
            raise ModelError("give either file (a MoorDyn input file) or both line_types "
                             "and lines", "file" if has_file else "lines")
        if has_lines:
            case_lines(params)
            if params["fairleads"] is not None:
                raise ModelError("fairleads go with file; with lines each line gives its "
                                 "fairlead", "fairleads")

    def __init__(self, instances: Sequence[Mapping[str, Any]],
                 signal_specs: list[SignalSpec]) -> None:
        super().__init__(instances, signal_specs)
        n = self.nb_forces
        self._params = [dict(p) for p in instances]
        self._lib = Library.get() if n else None
        self.systems: list[_System] = []
        for i, p in enumerate(instances):
            try:
                self.systems.append(self._system(p))
            except ModelError as exc:
                raise ElementError(exc.message, exc.path, i) from None
        sizes = [len(s.input.coupled) for s in self.systems]
        #: first coupled point of each element in the flat arrays, and the end
        self.point_start = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        m = int(self.point_start[-1])
        self.offsets = np.zeros((m, 3))
        #: per element ``[stage, t_prev, h_prev, accepted steps]`` (memory)
        self.coupling = np.zeros((n, 4))
        #: per coupled point ``[F_prev (3), F_now (3), x_prev (3), v_prev (3)]`` [N, N, m,
        #: m s-1] (memory): the forces of the last two accepted steps, the fairlead's
        #: position and velocity at the last
        self.fairlead_forces = np.zeros((m, 12))
        self.handles = np.zeros(n, dtype=np.int64)
        self.status = np.zeros(n, dtype=np.int64)
        self.failure_info = np.zeros((n, 3))
        self.scheme = np.array([1 if p["coupling"] == "extrapolate" else 0
                                for p in instances], dtype=np.int64)
        self._static_lines()
        self._force_limits()
        self.state = np.zeros(0)
        self.state_start = np.zeros(n + 1, dtype=np.int64)
        #: accepted-step count of the state MoorDyn holds now (-1: not the memory's)
        self.live = np.full(n, -1, dtype=np.int64)
        self._finalizers: list[Any] = []

    # -- building the systems

    def _system(self, p: Mapping[str, Any]) -> _System:
        folder = tempfile.mkdtemp(prefix="frylinks-moordyn-")
        weakref.finalize(self, shutil.rmtree, folder, True)
        options = {"disableOutTime": "1", "writeLog": "0"}
        if p["file"] is not None:
            path = Path(p["file"])
            source = f"file '{path}'"
            try:
                text = path.read_text()
            except (OSError, UnicodeDecodeError) as exc:
                raise ModelError(f"cannot read MoorDyn input file '{path}': "
                                 f"{exc.strerror if isinstance(exc, OSError) else exc}",
                                 "file") from None
            inp = read_input(text, f"MoorDyn input file '{path}'")
            if inp.others:
                raise ModelError(f"MoorDyn input file '{path}' has {inp.others[0]}: bodies "
                                 "and rods are not coupled to frylinks (couple points)", "file")
            if not inp.coupled:
                raise ModelError(f"MoorDyn input file '{path}' has no coupled point (a point "
                                 "with attachment Coupled or Vessel): nothing would hold the "
                                 "body", "file")
            # the case's time step, else the file's, else 1e-3 s (MoorDyn's own default
            # would leave frylinks not knowing it: one MoorDyn call per frylinks step)
            options["dtM"] = (repr(float(p["time_step"])) if p["time_step"] is not None
                              else inp.options.get("dtm", "0.001"))
            options.update(side_files(inp, path.resolve().parent,
                                      f"MoorDyn input file '{path}'"))
            try:
                text = with_options(text, options)
            except ModelError as exc:
                raise ModelError(f"MoorDyn input file '{path}' {exc.message}", "file") from None
            inp = read_input(text, f"MoorDyn input file '{path}'")  # (with those options)
            fair = p["fairleads"]
            if fair is not None:
                arr = np.asarray(fair, dtype=float) if _is_matrix(fair) else None
                if arr is None or arr.shape != (len(inp.coupled), 3):
                    raise ModelError(f"expected {len(inp.coupled)} positions [x, y, z] (one "
                                     f"per coupled point of '{path}'), got {fair!r}",
                                     "fairleads")
        else:
            source = "lines from the case file"
            line_types, lines = case_lines(p)
            opts: dict[str, float] = {
                "dtM": float(p["time_step"] or 1e-3),
                "kbot": float(p["seabed_stiffness"]), "cbot": float(p["seabed_damping"]),
                # water depth, density and gravity are set at prepare from the environment
                "WtrDpth": 1.0e4, "rho": 1025.0, "g": 9.81, "disableOutTime": 1.0,
                "writeLog": 0.0}
            # coupled points start anywhere: MoorDyn_Init puts them at the fairleads
            start = np.array([line["anchor"] + [0.0, 0.0, 1.0] for line in lines])
            text = write_input(line_types, lines, start, opts)
            inp = read_input(text, source)
        system = _System(source, inp, text, folder)
        if p["file"] is None:
            # created at prepare, where the fairleads and the water are known
            system.offsets = np.array([line["fairlead"] for line in case_lines(p)[1]])
            return system
        if p["fairleads"] is not None:
            system.offsets = np.asarray(p["fairleads"], dtype=float).reshape(-1, 3)
        self._create(system)
        return system

    def _create(self, system: _System) -> None:
        """Write the input into the element's folder and create its MoorDyn system (Create
        reads the file and builds the objects; a bad file is a ModelError with MoorDyn's
        message)."""
        assert self._lib is not None
        lib = self._lib.lib
        path = os.path.join(system.folder, "lines.dat")
        with open(path, "w") as f:
            f.write(system.text)
        with captured_output() as printed:
            handle = lib.MoorDyn_Create(path.encode())
            if handle:
                lib.MoorDyn_SetVerbosity(handle, SILENT)
        if not handle:
            raise ModelError(f"MoorDyn cannot read the {system.source}: "
                             f"{last_error(printed[0])}", "file" if "file '" in
                             system.source else "lines")
        system.handle = int(handle)
        system.close = weakref.finalize(self, lib.MoorDyn_Close, ctypes.c_void_p(handle))
        n = ctypes.c_uint()
        lib.MoorDyn_NCoupledDOF(handle, ctypes.byref(n))
        if n.value != 3 * len(system.input.coupled):
            raise ModelError(f"MoorDyn couples {n.value} DOFs of the {system.source}; "
                             f"frylinks couples 3 per coupled point "
                             f"({len(system.input.coupled)} points)", "file")

    def _static_lines(self) -> None:
        """The catenaries that stand for the lines in static mode: each line from a fixed
        point to a coupled point (``cat_point``: the global index of the coupled point, -1
        for a line the catenary cannot stand for)."""
        elem, point, anchor, par, names = [], [], [], [], []
        for i, s in enumerate(self.systems):
            coupled = s.input.coupled
            for lid, ltype, a, b, length, _ in s.input.lines:
                ends = [s.input.points.get(a, ("?", None)), s.input.points.get(b, ("?", None))]
                kinds = [e[0] for e in ends]
                j = -1
                anc = np.full(3, np.nan)
                if sorted(kinds) == ["coupled", "fixed"]:
                    fixed = kinds.index("fixed")
                    anc = np.asarray(ends[fixed][1], dtype=float)
                    j = int(self.point_start[i]) + coupled.index((a, b)[1 - fixed])
                d, mass, ea = s.input.line_types.get(ltype, (math.nan,) * 3)
                rho = float(s.input.options.get("rho", s.input.options.get("wtrdnsty", 1025)))
                g = float(s.input.options.get("g", s.input.options.get("gravity", 9.81)))
                elem.append(i)
                point.append(j)
                anchor.append(anc)
                par.append([length, (mass - rho * math.pi * d * d / 4) * g, 1.0 / ea])
                names.append(f"line {lid}")
        self.cat_elem = np.array(elem, dtype=np.int64)
        self.cat_point = np.array(point, dtype=np.int64)
        self.cat_anchor = np.array(anchor, dtype=float).reshape(-1, 3)
        self.cat_par = np.array(par, dtype=float).reshape(-1, 3)
        self._cat_names = names

    def _force_limits(self) -> None:
        """``limit (nb_points,)`` [N]: :data:`UNSTABLE_STRAIN` times the sum of the EA of
        the lines on each coupled point (inf where a line's EA is a table); and the names
        of those lines, for the message of an unstable line."""
        limit = np.full(int(self.point_start[-1]), np.inf)
        names: list[str] = []
        for i, s in enumerate(self.systems):
            for k, pid in enumerate(s.input.coupled):
                on = [(lid, ltype) for lid, ltype, a, b, *_ in s.input.lines if pid in (a, b)]
                ea = sum(s.input.line_types.get(ltype, (0.0, 0.0, math.nan))[2]
                         for _, ltype in on)
                if on and math.isfinite(ea) and ea > 0:
                    limit[int(self.point_start[i]) + k] = UNSTABLE_STRAIN * ea
                names.append(", ".join(f"line {lid}" for lid, _ in on) or "no line")
        self.force_limit = limit
        self._point_lines = names

    def prepare(self, frames: Sequence[NodeFrames], ctx: ForceContext) -> None:
        """Fairleads in body axes, the environment's water into MoorDyn (lines from the
        case file), MoorDyn's static solve at the initial pose, the serialised state."""
        f = frames[0]
        env = ctx.settings.get("environment")
        rebuilt = False
        for i, s in enumerate(self.systems):
            lo, hi = int(self.point_start[i]), int(self.point_start[i + 1])
            R = f.R[i]
            if self._params[i]["file"] is None:
                depth = _depth(env, s.input)
                rho = 1025.0 if env is None else float(env.rho)
                g = float(np.linalg.norm(ctx.gravity)) or 9.81
                world = f.p[i] + s.offsets @ R.T
                lines = case_lines(self._params[i])[1]
                opts = {k: float(v) for k, v in s.input.options.items()}
                opts.update({"wtrdpth": depth, "rho": rho, "g": g})
                names = {"dtm": "dtM", "kbot": "kbot", "cbot": "cbot", "wtrdpth": "WtrDpth",
                         "rho": "rho", "g": "g", "disableouttime": "disableOutTime",
                         "writelog": "writeLog"}
                s.text = write_input(case_lines(self._params[i])[0], lines, world,
                                     {names[k]: v for k, v in opts.items()})
                s.input = read_input(s.text, s.source)
                self._lib_close(s)
                self._create(s)
                rebuilt = True
            elif len(s.offsets) == 0:
                pos = np.array([s.input.points[j][1] for j in s.input.coupled])
                s.offsets = (pos - f.p[i]) @ R
            self.offsets[lo:hi] = s.offsets
            self.handles[i] = s.handle
        if rebuilt:
            self._static_lines()
            self._force_limits()
        try:
            self._initialise(f)
        except SimulationError as exc:  # (before any step: the lines as given fail)
            raise ModelError(f"{exc}; check the lines' anchors, fairleads and lengths",
                             "lines") from None

    @staticmethod
    def _lib_close(s: _System) -> None:
        """Close ``s``'s MoorDyn system, if it has one (once)."""
        if s.close is not None:
            s.close()
        s.handle = 0
        s.close = None

    def _initialise(self, f: NodeFrames) -> None:
        """MoorDyn_Init of every element at frames ``f`` (the kernel the run starts with),
        then the state's layout and its first serialisation."""
        self.coupling[:] = 0.0
        self.coupling[:, 0] = CREATED
        self.status[:] = 0
        self.__dict__.pop("_kernel_data", None)
        if not self.systems:
            return
        assert self._lib is not None
        lib = self._lib.lib
        moordyn_start(self._data_without_state(), f, 0.0)
        failure = self.failure()
        if failure is not None:
            self.status[:] = 0
            raise SimulationError(failure)
        sizes = []
        for s in self.systems:
            size = ctypes.c_size_t()
            lib.MoorDyn_Serialize(ctypes.c_void_p(s.handle), ctypes.byref(size), None)
            s.words = size.value // 8
            sizes.append(2 * s.words)
        self.state_start = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        self.state = np.zeros(int(self.state_start[-1]))
        save_states(self._data())
        # initialised where the body was put: the run's first accepted state starts it
        # (again, if the body moved to its static equilibrium meanwhile)
        self.coupling[:, 0] = PREPARED

    def _data_without_state(self) -> tuple[Any, ...]:
        words = max((s.words for s in self.systems), default=0)
        return self._tuple(np.zeros(0), np.zeros(len(self.systems) + 1, dtype=np.int64),
                           words)

    def _tuple(self, state: Array, state_start: Array, words: int) -> tuple[Any, ...]:
        m = int(self.point_start[-1])
        lib = self._lib
        return (lib.fns if lib is not None else np.zeros(4, dtype=np.int64), self.handles,
                self.point_start, self.offsets, self.cat_elem, self.cat_point,
                self.cat_anchor, self.cat_par, self.coupling, self.fairlead_forces, state,
                state_start, self.live, self.scheme, self.status, self.failure_info,
                np.zeros(3 * m), np.zeros(3 * m), np.zeros(3 * m), np.zeros(2),
                np.zeros(max(words, 1), dtype=np.int64), np.zeros(1, dtype=np.int64),
                self._dtm(), np.zeros(3 * m), np.zeros(3 * m), self.force_limit)

    def _dtm(self) -> Array:
        """MoorDyn's time step dtM of each element (its file's option; 0: unknown, one
        MoorDyn call per frylinks step)."""
        out = []
        for s in self.systems:
            try:
                out.append(float(s.input.options.get("dtm", "0")))
            except ValueError:
                out.append(0.0)
        return np.array(out, dtype=float)

    def kernel_data(self) -> tuple[Any, ...]:
        words = max((s.words for s in self.systems), default=0)
        return self._tuple(self.state, self.state_start, words)

    def coordinates(self) -> dict[str, list[Any]]:
        lines = max((len(s.input.lines) for s in self.systems), default=0)
        nodes = max((seg for s in self.systems for *_, seg in s.input.lines), default=-1)
        return {"moordyn_line": [str(k + 1) for k in range(lines)],
                "moordyn_node": list(range(nodes + 1))}

    def linearisable(self) -> str | None:
        """Never: the force comes from MoorDyn's line states, advanced at accepted steps
        only (a linear analysis can take the same lines as ``catenary_line``)."""
        return ("its force comes from MoorDyn's line states, advanced at accepted steps "
                "only (use catenary_line for a linear analysis)")

    # -- failures and outputs

    def failure(self) -> str | None:
        """What made the kernels give NaN forces (the first element that failed), or None."""
        for i, code in enumerate(self.status):
            if code == 0:
                continue
            s = self.systems[i]
            where = f"force type 'moordyn' element #{i} ({s.source})"
            t = self.failure_info[i, 0]
            if code == UNSTABLE:
                j = int(self.point_start[i] + self.failure_info[i, 2])
                lines = self._point_lines[j] if 0 <= j < len(self._point_lines) else "?"
                return (f"{where}: {lines} went unstable at t = {t:g} s: MoorDyn's force on "
                        f"coupled point #{int(self.failure_info[i, 2])} exceeds "
                        f"{self.force_limit[j]:.3g} N (a strain of {UNSTABLE_STRAIN:g} at "
                        "its lines' EA); MoorDyn's time_step (dtM) is too large for these "
                        "segments: a smaller time_step, more axial damping or fewer "
                        "segments")
            if code == NOT_FINITE:
                return (f"{where}: MoorDyn gave a non-finite fairlead force at t = {t:g} s "
                        "(the lines went unstable: a smaller time_step, more damping or "
                        "fewer segments)")
            if code == STATIC_FAILED:
                k = int(self.failure_info[i, 1])
                line = self._cat_names[k] if 0 <= k < len(self._cat_names) else "a line"
                return (f"{where}: {line} cannot stand as a catenary for the static "
                        "equilibrium (it must join a fixed point to a coupled point, "
                        "with a constant EA, and reach its fairlead)")
            what = "MoorDyn_Init (the static solve)" if self.failure_info[i, 1] == INIT \
                else "MoorDyn_Step"
            return (f"{where}: {what} failed at t = {t:g} s with error {int(code)}: "
                    f"{ERRORS.get(int(code), 'unknown error')}")
        return None

    def evaluate(self, frames: Sequence[NodeFrames], ctx: ForceContext
                 ) -> tuple[Array, Array]:
        """The kernel's wrenches; raises SimulationError naming the element on failure."""
        force, torque = super().evaluate(frames, ctx)
        message = self.failure()
        if message is not None:
            self.status[:] = 0
            raise SimulationError(message)
        return force, torque

    def accept(self, frames: Sequence[NodeFrames], ctx: ForceContext) -> None:
        super().accept(frames, ctx)
        message = self.failure()
        if message is not None:
            self.status[:] = 0
            raise SimulationError(message)

    def output_values(self, frames: Sequence[NodeFrames], ctx: ForceContext
                      ) -> dict[str, Array]:
        coords = self.coordinates()
        nl, nn = len(coords["moordyn_line"]), len(coords["moordyn_node"])
        n = self.nb_forces
        fair, anchor = np.full((n, nl), np.nan), np.full((n, nl), np.nan)
        nodes = np.full((n, nl, nn, 3), np.nan)
        if self._lib is None:
            return {"moordyn_fairlead_tension": fair, "moordyn_anchor_tension": anchor,
                    "moordyn_node_position": nodes}
        lib = self._lib.lib
        vec = (ctypes.c_double * 3)()
        for i, s in enumerate(self.systems):
            handle = ctypes.c_void_p(s.handle)
            for k, (*_, seg) in enumerate(s.input.lines):
                line = lib.MoorDyn_GetLine(handle, k + 1)
                for j in range(seg + 1):
                    lib.MoorDyn_GetLineNodePos(line, j, vec)
                    nodes[i, k, j] = vec[:]
                lib.MoorDyn_GetLineNodeTen(line, 0, vec)
                anchor[i, k] = math.hypot(*vec[:])
                # the force the line pulls its fairlead with (its end node's weight
                # included: what the body feels), the tension of its first segment
                lib.MoorDyn_GetLineNodeForce(line, seg, vec)
                fair[i, k] = math.hypot(*vec[:])
        return {"moordyn_fairlead_tension": fair, "moordyn_anchor_tension": anchor,
                "moordyn_node_position": nodes}


def _is_matrix(value: Any) -> bool:
    return (isinstance(value, Sequence) and not isinstance(value, str)
            and all(isinstance(r, Sequence) and not isinstance(r, str) for r in value))


def _depth(env: Any, inp: MoorDynInput) -> float:
    """MoorDyn's water depth: the environment's, else just below the deepest anchor."""
    if env is not None and math.isfinite(float(env.depth)):
        return float(env.depth)
    deepest = min((pos[2] for kind, pos in inp.points.values() if kind == "fixed"),
                  default=-1.0)
    return max(-deepest, 1.0)


# ------------------------------------------------------------------------------ kernels
# The C functions are called with the data's work arrays (x, v, fo: 3 per coupled point;
# tt: [t, dt]); their addresses and the systems' handles are int64 data, not constants.

@kernel
def fairlead_kinematics(data: tuple[Any, ...], f: NodeFrames, i: int, x: Array,
                        v: Array) -> None:
    """World positions and velocities of element ``i``'s fairleads into ``x, v`` (flat,
    3 per coupled point, from the element's first point)."""
    point_start, offsets = data[2], data[3]
    r = scratch(3)
    wr = scratch(3)
    for j in range(point_start[i], point_start[i + 1]):
        k = 3 * (j - point_start[i])
        rotate3(f.R[i], offsets[j], r)
        cross3(f.w[i], r, wr)
        for c in range(3):
            x[k + c] = f.p[i, c] + r[c]
            v[k + c] = f.v[i, c] + wr[c]
    alive(point_start)
    alive(offsets)
    alive(data)
    alive(f)
    alive(x)
    alive(v)


@kernel
def save_states(data: tuple[Any, ...]) -> None:
    """Serialise every element's MoorDyn state into the ``state`` memory array, each
    64-bit word as two exact 32-bit halves; the live state is then the memory's."""
    fns, handles, coupling, state, state_start = data[0], data[1], data[8], data[10], data[11]
    live, words, size = data[12], data[20], data[21]
    for i in range(len(handles)):
        size[0] = 8 * len(words)
        c_call(fns[SERIALIZE], (handles[i], size.ctypes.data, words.ctypes.data))
        lo = state_start[i]
        for k in range((state_start[i + 1] - lo) // 2):
            w = words[k]
            state[lo + 2 * k] = float(w & 0xFFFFFFFF)
            state[lo + 2 * k + 1] = float((w >> 32) & 0xFFFFFFFF)
        live[i] = int(coupling[i, 3])
    alive(fns)
    alive(handles)
    alive(coupling)
    alive(state)
    alive(state_start)
    alive(live)
    alive(words)
    alive(size)
    alive(data)


@kernel
def load_state(data: tuple[Any, ...], i: int) -> int:
    """Deserialise element ``i``'s MoorDyn state from the ``state`` memory array (after a
    checkpoint was restored into it)."""
    fns, handles, state, state_start, words = data[0], data[1], data[10], data[11], data[20]
    lo = state_start[i]
    for k in range((state_start[i + 1] - lo) // 2):
        words[k] = np.int64(state[lo + 2 * k]) | (np.int64(state[lo + 2 * k + 1]) << 32)
    rc = c_call(fns[DESERIALIZE], (handles[i], words.ctypes.data))
    alive(fns)
    alive(handles)
    alive(state)
    alive(state_start)
    alive(words)
    alive(data)
    return rc


@kernel
def hermite(x0: float, v0: float, x1: float, v1: float, h: float, s: float) -> float:
    """The cubic through ``x0`` with rate ``v0`` at ``s = 0`` and ``x1``, ``v1`` at
    ``s = 1`` (time ``h`` later), at ``s``."""
    s2 = s * s
    s3 = s2 * s
    return ((2 * s3 - 3 * s2 + 1) * x0 + (s3 - 2 * s2 + s) * h * v0
            + (3 * s2 - 2 * s3) * x1 + (s3 - s2) * h * v1)


@kernel
def _fail(status: Array, info: Array, i: int, code: int, t: float, where: int) -> None:
    """Record element ``i``'s first failure: its code, the time and the C function."""
    if status[i] == 0:
        status[i] = code
        info[i, 0] = t
        info[i, 1] = where
    alive(status)
    alive(info)


@kernel
def moordyn_start(data: tuple[Any, ...], f: NodeFrames, t: float) -> None:
    """MoorDyn_Init (its static solve) of each element not started, at frames ``f``,
    unless it was initialised at prepare at these very fairleads; the fairlead forces
    then, as the previous and the current ones."""
    fns, handles, point_start, coupling, forces = data[0], data[1], data[2], data[8], data[9]
    status, info, x, v, fo, tt = data[14], data[15], data[16], data[17], data[18], data[19]
    for i in range(len(handles)):
        if coupling[i, 0] == STARTED:
            continue
        fairlead_kinematics(data, f, i, x, v)
        lo = point_start[i]
        for j in range(lo, point_start[i + 1]):
            for c in range(3):
                forces[j, 9 + c] = v[3 * (j - lo) + c]
        same = coupling[i, 0] == PREPARED
        for j in range(lo, point_start[i + 1]):
            for c in range(3):
                same = same and forces[j, 6 + c] == x[3 * (j - lo) + c]
        if not same:
            for k in range(len(v)):
                v[k] = 0.0  # the lines start at rest, as the body does
            rc = c_call(fns[INIT], (handles[i], x.ctypes.data, v.ctypes.data))
            if rc != 0:
                _fail(status, info, i, rc, t, INIT)
                continue
            tt[0] = t
            tt[1] = 0.0
            rc = c_call(fns[STEP], (handles[i], x.ctypes.data, v.ctypes.data, fo.ctypes.data,
                                    tt.ctypes.data, tt.ctypes.data + 8))
            if rc != 0:
                _fail(status, info, i, rc, t, STEP)
                continue
            for j in range(lo, point_start[i + 1]):
                for c in range(3):
                    forces[j, c] = fo[3 * (j - lo) + c]
                    forces[j, 3 + c] = fo[3 * (j - lo) + c]
                    forces[j, 6 + c] = x[3 * (j - lo) + c]
        coupling[i, 0] = STARTED
        coupling[i, 1] = t
        coupling[i, 2] = 0.0
    alive(fns)
    alive(handles)
    alive(point_start)
    alive(coupling)
    alive(forces)
    alive(status)
    alive(info)
    alive(x)
    alive(v)
    alive(fo)
    alive(tt)
    alive(data)
    alive(f)


@kernel
def moordyn_accept(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], t: float,
                   signals: Array, states: Array) -> None:
    """At an accepted state: start MoorDyn (the first), or advance it from the last
    accepted time along the cubic Hermite path through the fairleads' accepted states,
    and keep the forces (module doc)."""
    fns, handles, point_start, coupling, forces = data[0], data[1], data[2], data[8], data[9]
    live, status, info, x, v, fo, tt = (data[12], data[14], data[15], data[16], data[17],
                                        data[18], data[19])
    dtm, x1, v1, limit = data[22], data[23], data[24], data[25]
    f = frames[0]
    started = True
    for i in range(len(handles)):
        started = started and coupling[i, 0] == STARTED
    stepped = not started
    if not started:
        moordyn_start(data, f, t)
    else:
        for i in range(len(handles)):
            h = t - coupling[i, 1]
            if not h > 0.0 or status[i] != 0:
                continue
            if live[i] != int(coupling[i, 3]):
                rc = load_state(data, i)
                if rc != 0:
                    _fail(status, info, i, rc, t, STEP)
                    continue
            fairlead_kinematics(data, f, i, x1, v1)
            lo = point_start[i]
            nb = 3 * (point_start[i + 1] - lo)
            # one MoorDyn call per dtM, the fairleads moving straight between the points
            # of the cubic Hermite path through the accepted positions and velocities
            # (MoorDyn moves a coupled point at a constant velocity over a call)
            calls = 1 if not dtm[i] > 0.0 else max(1, math.ceil(h / dtm[i] - 1e-9))
            tau = h / calls
            rc = 0
            for k in range(calls):
                for j in range(lo, point_start[i + 1]):
                    for c in range(3):
                        q = 3 * (j - lo) + c
                        a = hermite(forces[j, 6 + c], forces[j, 9 + c], x1[q], v1[q], h,
                                    k / calls)
                        b = hermite(forces[j, 6 + c], forces[j, 9 + c], x1[q], v1[q], h,
                                    (k + 1) / calls)
                        x[q] = a
                        v[q] = (b - a) / tau
                tt[0] = coupling[i, 1] + k * tau
                tt[1] = tau
                rc = c_call(fns[STEP], (handles[i], x.ctypes.data, v.ctypes.data,
                                        fo.ctypes.data, tt.ctypes.data, tt.ctypes.data + 8))
                if rc != 0:
                    break
            finite = True
            for q in range(nb):
                finite = finite and math.isfinite(fo[q])
            if rc != 0 or not finite:
                _fail(status, info, i, rc if rc != 0 else NOT_FINITE, t, STEP)
                continue
            # a force no line can pull with: unstable lines, stopped before the body
            # feels it (an exploding line grows for a while before MoorDyn sees a NaN)
            wild = -1
            for j in range(lo, point_start[i + 1]):
                q = 3 * (j - lo)
                if wild < 0 and math.sqrt(fo[q] ** 2 + fo[q + 1] ** 2
                                          + fo[q + 2] ** 2) > limit[j]:
                    wild = j - lo
            if wild >= 0:
                _fail(status, info, i, UNSTABLE, t, STEP)
                info[i, 2] = wild
                continue
            for j in range(lo, point_start[i + 1]):
                for c in range(3):
                    q = 3 * (j - lo) + c
                    forces[j, c] = forces[j, 3 + c]
                    forces[j, 3 + c] = fo[q]
                    forces[j, 6 + c] = x1[q]
                    forces[j, 9 + c] = v1[q]
            coupling[i, 1] = t
            coupling[i, 2] = h
            coupling[i, 3] += 1.0
            stepped = True
    if stepped and len(data[10]) > 0:
        save_states(data)
    alive(fns)
    alive(handles)
    alive(point_start)
    alive(coupling)
    alive(forces)
    alive(live)
    alive(status)
    alive(info)
    alive(x)
    alive(v)
    alive(fo)
    alive(tt)
    alive(dtm)
    alive(x1)
    alive(v1)
    alive(limit)
    alive(data)
    alive(frames)
    alive(f)


@kernel
def moordyn_evaluate(data: tuple[Any, ...], frames: tuple[NodeFrames, ...], t: float,
                     signals: Array, gravity: Array, states: Array, static: bool,
                     force: Array, torque: Array) -> None:
    """Each fairlead's force on the body at its COG, with its moment: the static
    catenaries (static mode, or before MoorDyn was initialised), else MoorDyn's accepted
    forces, held or extrapolated linearly in time (module doc); NaN after a failure."""
    point_start, offsets = data[2], data[3]
    cat_elem, cat_point, cat_anchor, cat_par = data[4], data[5], data[6], data[7]
    coupling, forces, scheme, status, info = data[8], data[9], data[13], data[14], data[15]
    f = frames[0]
    r = scratch(3)
    F = scratch(3)
    m = scratch(3)
    p = scratch(3)
    out = scratch(NB_RESULTS)
    cinfo = scratch(3)
    for i in range(len(coupling)):
        if status[i] != 0:
            for c in range(3):
                force[i, 0, c] = math.nan
            continue
        if static or coupling[i, 0] == CREATED:
            for k in range(len(cat_elem)):
                if cat_elem[k] != i:
                    continue
                j = cat_point[k]
                ok = j >= 0
                dist = 0.0
                if ok:
                    rotate3(f.R[i], offsets[j], r)
                    for c in range(3):
                        p[c] = f.p[i, c] + r[c] - cat_anchor[k, c]
                    dist = math.hypot(p[0], p[1])
                    ok = solve_line(dist, p[2], cat_par[k, 0], cat_par[k, 1], cat_par[k, 2],
                                    0.0, 0.0, 0.0, out, cinfo) == OK
                if not ok:
                    if status[i] == 0:
                        status[i] = STATIC_FAILED
                        info[i, 0] = t
                        info[i, 1] = k
                    for c in range(3):
                        force[i, 0, c] = math.nan
                    continue
                d = dist if dist > 0 else 1.0
                F[0] = -out[0] * p[0] / d
                F[1] = -out[0] * p[1] / d
                F[2] = -out[1]
                cross3(r, F, m)
                for c in range(3):
                    force[i, 0, c] += F[c]
                    torque[i, 0, c] += m[c]
            continue
        h = coupling[i, 2]
        a = (t - coupling[i, 1]) / h if scheme[i] == 1 and h > 0.0 else 0.0
        for j in range(point_start[i], point_start[i + 1]):
            rotate3(f.R[i], offsets[j], r)
            for c in range(3):
                F[c] = forces[j, 3 + c] + a * (forces[j, 3 + c] - forces[j, c])
            cross3(r, F, m)
            for c in range(3):
                force[i, 0, c] += F[c]
                torque[i, 0, c] += m[c]
    alive(point_start)
    alive(offsets)
    alive(cat_elem)
    alive(cat_point)
    alive(cat_anchor)
    alive(cat_par)
    alive(coupling)
    alive(forces)
    alive(scheme)
    alive(status)
    alive(info)
    alive(data)
    alive(frames)
    alive(f)
    alive(force)
    alive(torque)


MoorDynLines.kernels = ForceKernels(moordyn_evaluate, accept=moordyn_accept)
