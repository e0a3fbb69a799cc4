"""YAML case files (docs/reference/case-file.md): read one file into a
:class:`~frylinks.model.system.System`.

The file is parsed as ``yaml.safe_load`` does (no Python tags, no code execution; see
:class:`CaseLoader` for the one difference, numbers like ``5.0e4``) and
turned into the same Python API calls a script makes (``add_body``, ``add_node``,
``add_link``, ``add_force``), so a case file and a script are checked by the same code.
Every mistake becomes a :class:`~frylinks.errors.CaseError` naming the file, the key
path and, where the YAML gives one, the line: a user never sees a traceback for bad
input.

The accepted keys of bodies, nodes and links are read from the signatures of the API
methods, and those of link and force types from their declared parameters, so the case
file cannot drift from the Python API.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import yaml

from frylinks.engine.assembly import as_tolerance
from frylinks.engine.integrators import ADAPTIVE, INTEGRATORS, nb_steps
from frylinks.errors import CaseError, FrylinksError, ModelError
from frylinks.io.key_lines import case_error, closest_line, key_line, key_lines, within
from frylinks.io.loadcases import LoadCaseError, Sweep, read_sweep, set_value
from frylinks.io.runner import RUN_DEFAULTS, System
from frylinks.io.yaml_reading import CaseLoader
from frylinks.model.registry import Registry, TypeInfo
from frylinks.model.system import Body
from frylinks.params import as_float, check_keys, did_you_mean, relative_to, shown

#: The case-file schema version this frylinks reads.
SCHEMA_VERSION = 1
TOP_KEYS = ("frylinks", "name", "description", "gravity", "ground", "bodies", "links",
            "forces", "solver", "output", "sweep")
GROUND_KEYS = ("nodes",)
SOLVER_KEYS = ("t_end", "dt", "integrator", "rtol", "atol", "rho_inf", "initial_equilibrium",
               "assembly_tolerance", "equilibrium_max_turn_deg")
OUTPUT_KEYS = ("every",)
#: Largest ``output.every``: any more is no output at all, and beyond the float range
#: ``dt * every`` cannot be computed.
MAX_EVERY = 10**15


def _keywords(method: Callable[..., Any], skip: tuple[str, ...] = ("self", "name")
              ) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Named parameters of an API method, and those without a default (required)."""
    params = [p for p in inspect.signature(method).parameters.values()
              if p.name not in skip and p.kind is not p.VAR_KEYWORD]
    return (tuple(p.name for p in params),
            tuple(p.name for p in params if p.default is p.empty))


BODY_KEYS, BODY_REQUIRED = _keywords(System.add_body)
NODE_KEYS, _ = _keywords(Body.add_node)
LINK_KEYS, LINK_REQUIRED = _keywords(System.add_link)


def load_case(path: str | Path, *, text: str | None = None,
              overrides: Mapping[str, Any] | None = None) -> tuple[System, dict[str, Any]]:
    """Read a YAML case file into a system and the keyword arguments of its run.

    Parameters
    ----------
    path
        The case file. Error messages name it as given here; relative file paths in
        the case (datasets, time series) are read from its directory.
    text
        The file's text, if already read (a sweep's worker gets the text, not the file).
    overrides
        Key path -> value, set in the case before it is read (one load case of a sweep:
        ``{"links.pto.spring_damper.damping": 2e5}``). Every value is checked as if the
        file gave it; an error on it says which swept value caused it.

    Returns
    -------
    system : System
        The model, with ``description`` and ``case_text`` (the file's text) set.
    solver : dict
        ``t_end``, ``dt``, ``integrator``, ``every``, ``rtol``, ``atol``: the keyword
        arguments of :meth:`System.run`.

    Raises
    ------
    CaseError
        For any mistake in the file, with the file name, key path and what is accepted.
    """
    read = read_case(path, text=text, overrides=overrides)
    return read.system, read.solver


@dataclass
class CaseRead:
    """Everything a case file says: the model, its run's settings, its sweep."""

    system: System
    solver: dict[str, Any]
    #: the ``sweep`` section (None if the file has none)
    sweep: Sweep | None


def read_case(path: str | Path, *, text: str | None = None,
              overrides: Mapping[str, Any] | None = None) -> CaseRead:
    """:func:`load_case`, with the case's ``sweep`` section as well."""
    return _CaseReader(path, text, overrides).read()


class _CaseReader:
    """One reading of one case file: holds its name and the line of every key path."""

    def __init__(self, path: str | Path, text: str | None = None,
                 overrides: Mapping[str, Any] | None = None) -> None:
        self.path = Path(path)
        self.file = str(path)
        self.given_text = text
        self.overrides = dict(overrides or {})
        self.lines: dict[str, int] = {}

    # -- errors --------------------------------------------------------------------------

    def fail(self, path: str, message: str) -> NoReturn:
        """Raise a :class:`CaseError` at ``path``, with the line of the closest key."""
        line = self._line(path)
        where = [f"line {line}"] if line else []
        # a swept value is not in the file: say which one the message is about
        where += [f"swept value {key} = {shown(value)}" for key, value in self.overrides.items()
                  if within(path, key)]
        raise CaseError(self.file, path, f"{message} ({'; '.join(where)})" if where
                        else message)

    def _line(self, path: str) -> int | None:
        return closest_line(self.lines, path)

    def call(self, path: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Call the Python API; its errors become case errors."""
        try:
            return fn(*args, **kwargs)
        except ModelError as exc:
            self.fail(exc.path, exc.message)
        except (TypeError, ValueError) as exc:
            # a value the API did not expect to be handed (a bug to report, but the user
            # still learns where the value sits in the file)
            self.fail(path, f"invalid value: {type(exc).__name__}: {exc}")

    # -- YAML ----------------------------------------------------------------------------

    def parse(self) -> tuple[str, Any]:
        try:
            text = self.given_text if self.given_text is not None else \
                self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise CaseError(self.file, "", "no such file") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise CaseError(self.file, "", f"cannot read the file: {exc}") from None
        try:
            # compose first: it builds nodes only (no objects), and gives lines and
            # duplicate keys, which a mapping would silently overwrite
            root = yaml.compose(text, Loader=CaseLoader)
            if root is not None:
                self.lines = key_lines(root, self._duplicate)
            data = yaml.load(text, Loader=CaseLoader)
        except yaml.constructor.ConstructorError as exc:
            where = _mark(exc.problem_mark)
            if "tag" not in str(exc.problem):  # an unhashable key, a bad !!binary, ...
                raise CaseError(self.file, "", f"{where}YAML error: {exc.problem}") from None
            raise CaseError(self.file, "", f"{where}unsupported YAML tag ({exc.problem}): a "
                            "case file holds plain data only (no !!python tags)") from None
        except RecursionError:  # PyYAML composes nested collections recursively
            raise CaseError(self.file, "", "YAML error: lists or mappings nested too deeply "
                            "(some hundred levels)") from None
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            problem = getattr(exc, "problem", None) or str(exc)
            context = getattr(exc, "context", None)
            problem = f"{context}, {problem}" if context else problem
            raise CaseError(self.file, "", f"{_mark(mark)}YAML syntax error: {problem}"
                            ) from None
        return text, data

    def _duplicate(self, path: str, key: str, first: int, second: int) -> NoReturn:
        raise CaseError(self.file, path, f"key {key!r} appears twice (lines {first} and "
                        f"{second}); names must be unique")

    # -- the model -----------------------------------------------------------------------

    def mapping(self, value: Any, path: str, what: str) -> Mapping[str, Any]:
        """``value`` as a mapping; None (an empty YAML section) is an empty one."""
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            self.fail(path, f"expected a mapping of {what}, got {shown(value)}")
        return value

    def read(self) -> CaseRead:
        text, data = self.parse()
        if data is None:
            self.fail("", "the file is empty; a case starts with 'frylinks: 1'")
        if not isinstance(data, Mapping):
            self.fail("", f"expected a mapping of the keys {', '.join(TOP_KEYS)}, "
                      f"got {shown(data)}")
        sweep = None
        if data.get("sweep") is not None:
            try:
                sweep = read_sweep(data["sweep"], data)
            except LoadCaseError as exc:
                key = str(exc).split(":", 1)[0] if str(exc).startswith("sweep") else "sweep"
                self.fail(key, str(exc).removeprefix(f"{key}: "))
        for key, value in self.overrides.items():
            try:
                set_value(data, key, value)
            except LoadCaseError as exc:
                raise CaseError(self.file, key, str(exc).removeprefix(f"{key}: ")) from None
        # relative file paths (datasets, time series) are read beside the case file
        with relative_to(self.path.parent):
            system, solver = self._model(data, text)
        system.case_settings = dict(solver)  # what run() takes from it
        system.case_file = self.file
        return CaseRead(system, solver, sweep)

    def _model(self, data: Mapping[str, Any], text: str) -> tuple[System, dict[str, Any]]:
        registry = Registry()
        settings = tuple(registry.names("setting"))  # plugins' top-level keys
        self.call("", check_keys, data, (*TOP_KEYS, *settings), "")
        self._check_version(data)
        title = self.text(data, "name", self.path.stem)
        kwargs = {} if data.get("gravity") is None else {"gravity": data["gravity"]}
        system: System = self.call("gravity", System, name=title, registry=registry, **kwargs)
        system.description = self.text(data, "description", "")
        system.case_text = text

        ground = self.mapping(data.get("ground"), "ground", "ground keys (nodes)")
        self.call("ground", check_keys, ground, GROUND_KEYS, "ground")
        self._add_nodes(system.ground, ground.get("nodes"), "ground.nodes")
        for name, spec in self.named(data.get("bodies"), "bodies"):
            self._add_body(system, name, spec)
        if not system.bodies:
            self.fail("bodies", "a case needs at least one body to move: give 'bodies: {name: "
                      "{mass: ..., inertia: ...}}'")
        for name, spec in self.named(data.get("links"), "links"):
            self._add_link(system, name, spec)
        for name, spec in self.named(data.get("forces"), "forces"):
            self._add_force(system, name, spec)
        for key in settings:
            if data.get(key) is not None:
                given = self.mapping(data[key], key, f"{key} keys")
                self.call(key, system.configure, key, **given)
        return system, self._solver(data)

    def text(self, data: Mapping[str, Any], key: str, default: str) -> str:
        """A text entry; absent or empty gives ``default``."""
        value = data.get(key)
        if value is None:
            return default
        if not isinstance(value, str):
            self.fail(key, f"expected a text, got {shown(value)}")
        return value

    def named(self, value: Any, path: str) -> list[tuple[str, Any]]:
        """Entries of a mapping keyed by names (bodies, nodes, links, forces)."""
        entries = list(self.mapping(value, path, f"{path.rsplit('.', 1)[-1]} by name").items())
        for name, _ in entries:
            if not isinstance(name, str):
                self.fail(f"{path}.{name}", f"a name must be text, got {shown(name)}: YAML reads "
                          "yes/no/on/off as true/false and bare numbers as numbers; quote it")
        return entries

    def _check_version(self, data: Mapping[str, Any]) -> None:
        if "frylinks" not in data:
            self.fail("frylinks", f"missing schema version: start the file with "
                      f"'frylinks: {SCHEMA_VERSION}'")
        version = data["frylinks"]
        if version != SCHEMA_VERSION or isinstance(version, bool):
            self.fail("frylinks", f"schema version {shown(version)} is not supported; this "
                      f"frylinks reads version {SCHEMA_VERSION}")

    def _add_nodes(self, body: Body, nodes: Any, path: str) -> None:
        for name, spec in self.named(nodes, path):
            where = f"{path}.{name}"
            spec = self.mapping(spec, where, f"node keys ({', '.join(NODE_KEYS)})")
            self.call(where, check_keys, spec, NODE_KEYS, where)
            self.call(where, body.add_node, name, **spec)

    def _add_body(self, system: System, name: Any, spec: Any) -> None:
        path = f"bodies.{name}"
        spec = self.mapping(spec, path, f"body keys ({', '.join(BODY_KEYS)}, nodes)")
        self.call(path, check_keys, spec, (*BODY_KEYS, "nodes"), path)
        self._require(spec, BODY_REQUIRED, path)
        kwargs = {k: v for k, v in spec.items() if k != "nodes"}
        body = self.call(path, system.add_body, name, **kwargs)
        self._add_nodes(body, spec.get("nodes"), f"{path}.nodes")

    def _type_info(self, system: System, kind: str, spec: Mapping[str, Any], path: str
                   ) -> TypeInfo:
        names = system.registry.names(kind)
        if "type" not in spec:
            self.fail(f"{path}.type", f"missing the {kind} type; known: {', '.join(names)}")
        kind_name = spec["type"]
        info = system.registry.get(kind, kind_name) if isinstance(kind_name, str) else None
        if info is None:
            self.fail(f"{path}.type", f"unknown {kind} type {shown(kind_name)}"
                      f"{did_you_mean(kind_name, names)}; known: {', '.join(names)}")
        return info

    def _add_link(self, system: System, name: Any, spec: Any) -> None:
        path = f"links.{name}"
        spec = self.mapping(spec, path, f"link keys ({', '.join(LINK_KEYS)}, ...)")
        info = self._type_info(system, "link", spec, path)
        self.call(path, check_keys, spec, (*LINK_KEYS, *info.cls.parameters), path)
        self._require(spec, LINK_REQUIRED, path)
        self.call(path, system.add_link, name, **spec)

    def _add_force(self, system: System, name: Any, spec: Any) -> None:
        path = f"forces.{name}"
        spec = self.mapping(spec, path, "force keys (type and the type's parameters)")
        info = self._type_info(system, "force", spec, path)
        self.call(path, check_keys, spec, ("type", *info.cls.parameters), path)
        self.call(path, system.add_force, name, **spec)

    def _require(self, spec: Mapping[str, Any], required: tuple[str, ...], path: str) -> None:
        for key in required:
            if key not in spec:
                self.fail(f"{path}.{key}", "missing required key")

    # -- solver and output ---------------------------------------------------------------

    def _solver(self, data: Mapping[str, Any]) -> dict[str, Any]:
        if "solver" not in data:
            self.fail("solver", "missing section: give at least 'solver: {t_end: ..., dt: ...}'")
        solver = self.mapping(data["solver"], "solver", "solver keys")
        output = self.mapping(data.get("output"), "output", "output keys")
        self.call("solver", check_keys, solver, SOLVER_KEYS, "solver")
        self.call("output", check_keys, output, OUTPUT_KEYS, "output")
        self._require(solver, ("t_end", "dt"), "solver")
        out = dict(RUN_DEFAULTS)
        for key in ("t_end", "dt", "rtol", "atol"):
            if key in solver:
                units = "s" if key in ("t_end", "dt") else ""
                out[key] = self.call(f"solver.{key}", as_float, solver[key], f"solver.{key}",
                                     units, positive=True)
        if "rho_inf" in solver:
            rho = self.call("solver.rho_inf", as_float, solver["rho_inf"], "solver.rho_inf", "")
            if not 0.0 <= rho <= 1.0:
                self.fail("solver.rho_inf", f"expected a spectral radius from 0 (most "
                          f"numerical damping) to 1 (none), got {shown(solver['rho_inf'])}")
            out["rho_inf"] = rho
        integrator = solver.get("integrator", out["integrator"])
        if integrator not in INTEGRATORS:
            self.fail("solver.integrator",
                      f"unknown integrator {shown(integrator)}"
                      f"{did_you_mean(integrator, INTEGRATORS)}; "
                      f"accepted: {', '.join(INTEGRATORS)}")
        out["integrator"] = integrator
        if "initial_equilibrium" in solver:
            value = solver["initial_equilibrium"]
            if not isinstance(value, bool):
                self.fail("solver.initial_equilibrium",
                          f"expected true or false, got {shown(value)}")
            out["initial_equilibrium"] = value
        if "assembly_tolerance" in solver:
            value = self.mapping(solver["assembly_tolerance"], "solver.assembly_tolerance",
                                 "tolerances ({length: m, angle_deg: deg})")
            out["assembly_tolerance"] = self.call("solver.assembly_tolerance", as_tolerance,
                                                  value)
        if "equilibrium_max_turn_deg" in solver:
            out["equilibrium_max_turn_deg"] = self.call(
                "solver.equilibrium_max_turn_deg", as_float,
                solver["equilibrium_max_turn_deg"], "solver.equilibrium_max_turn_deg", "deg",
                positive=True)
        every = output.get("every", out["every"])
        if isinstance(every, bool) or not isinstance(every, int) or not 1 <= every <= MAX_EVERY:
            self.fail("output.every", f"expected a whole number >= 1 (keep one sample every "
                      f"that many steps; at most {MAX_EVERY:.0e}), got {shown(every)}")
        out["every"] = every
        # the integrators need whole numbers of steps (of output intervals for dop853)
        interval = out["dt"] * (every if integrator in ADAPTIVE else 1)
        try:
            nb_steps(out["t_end"], interval)
        except FrylinksError:
            what = "dt * output.every" if integrator in ADAPTIVE else "dt"
            self.fail("solver.t_end", f"t_end = {out['t_end']:g} s must be a whole number "
                      f"of {what} = {interval:g} s")
        for key in ("output", "progress", "resume", "in_memory"):  # (not case keys)
            out.pop(key, None)
        return out


def _mark(mark: Any) -> str:
    return f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""


__all__ = ["SCHEMA_VERSION", "case_error", "key_line", "load_case"]
