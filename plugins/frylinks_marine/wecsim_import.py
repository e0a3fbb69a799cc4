"""A WEC-Sim input file (``wecSimInputFile.m`` and the hydrodynamic files it names)
written as a frylinks case file: ``frylinks import wecsim``.

The input file's assignments (:mod:`.matlab_assignments`) are mapped object by object as
docs/wecsim.md tabulates: ``simu`` to the solver, gravity and water; ``waves`` to the
environment's sea; each ``body`` to a body (its mass, inertia, COG from the hydrodynamic
file, ``'equilibrium'`` mass as rho times the file's displaced volume) with its
hydrostatics, radiation and excitation forces (``simu.b2b`` to ``interaction``) and any
damping and drag; ``constraint`` and ``pto`` to links with nodes at their locations (a
PTO's stiffness and damping as the link's spring-damper); ``mooring`` to a mooring
matrix or MoorDyn's lines.

What a WEC-Sim input file does not say is in its Simulink diagram: which block each
constraint and PTO is (Fixed, Floating (3DOF), Translational, ...) and which bodies it
joins. The converter reads the block from the comment above the object (WEC-Sim's
examples write ``% Floating (3DOF) Joint``, ``% Translational PTO``) and joins them as
WEC-Sim's examples do (a constraint from the seabed to the last body, a PTO from the last
body to the body of its own number, or from the seabed for a single body); ``joints``
overrides both. Every guess is said, and every assignment it does not translate is named
with its line, in the result and as comments at the top of the case: nothing is dropped
silently.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from frylinks.errors import ModelError
from frylinks_marine.matlab_assignments import Assignment, read_assignments

#: WEC-Sim's Simulink blocks, as the comments name them, and the link of each.
BLOCKS = {"fixed": "fixed", "floating (3dof)": "planar", "3dof": "planar",
          "floating (6dof)": "free", "6dof": "free", "floating": "free",
          "rotational": "revolute", "translational": "prismatic", "spherical": "spherical"}
#: WEC-Sim's objects the converter reads (another class, a cable, is not translated).
OBJECTS = ("simu", "waves", "body", "constraint", "pto", "mooring")
#: The fields read elsewhere or that frylinks does not need: what each becomes.
NOT_NEEDED = {
    ("simu", "simMechanicsFile"): "the Simulink diagram is not read (the joints are "
                                  "guessed or given with --joint)",
    ("simu", "mode"): "no Simulink modes", ("simu", "explorer"): "frylinks animate draws",
    ("simu", "cicEndTime"): "the memory is a fitted state space (no kernel length)",
    ("simu", "CITime"): "the memory is a fitted state space (no kernel length)",
    ("simu", "paraview"): "frylinks export --vtk writes ParaView files",
    ("simu", "domainSize"): "no visualisation domain",
}


class _Dumper(yaml.SafeDumper):
    """A safe dumper that writes a value given twice twice (no YAML anchors)."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


@dataclass
class Conversion:
    """A converted input file: the case's YAML text, what was guessed and what was not
    translated (each naming its line)."""

    text: str
    guesses: list[str] = field(default_factory=list)
    untranslated: list[str] = field(default_factory=list)


class _Objects:
    """The assignments by object, index and field, with what has been read."""

    def __init__(self, assignments: list[Assignment]) -> None:
        self.all = assignments
        self.used: set[int] = set()
        self.by_path: dict[tuple[str | int, ...], Assignment] = {}
        for k, a in enumerate(assignments):
            self.by_path[a.target] = a
            if len(a.target) == 1 and not a.constructor:
                self.used.add(k)   # a variable of the script: used in values
            if a.constructor and a.target[0] in OBJECTS:
                self.used.add(k)   # read object by object

    def get(self, *path: str | int, default: Any = None) -> Any:
        a = self.by_path.get(path)
        if a is None:
            return default
        self.used.add(self.all.index(a))
        return a.value

    def line(self, *path: str | int) -> Assignment | None:
        return self.by_path.get(path)

    def indices(self, name: str) -> list[int]:
        return sorted({int(a.target[1]) for a in self.all
                       if a.target[0] == name and len(a.target) > 1
                       and isinstance(a.target[1], int)})


def _f(value: Any) -> Any:
    """A YAML-able plain value."""
    if isinstance(value, np.ndarray):
        return [_f(v) for v in value.tolist()] if value.ndim else float(value)
    if isinstance(value, list):
        return [_f(v) for v in value]
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return float(value)
    return value


def _vec(value: Any, n: int, what: str, line: Assignment | None) -> list[float]:
    arr = np.ravel(np.asarray(value, dtype=float))
    if arr.size != n:
        where = f"line {line.line}: " if line else ""
        raise ModelError(f"{where}{what}: expected {n} numbers, got {arr.size}")
    return [float(v) for v in arr]


def _orientation(z: list[float]) -> dict[str, Any] | None:
    """The node orientation turning its z axis onto ``z`` (None: along world z)."""
    v = np.asarray(z, dtype=float)
    v = v / np.linalg.norm(v)
    if np.allclose(v, [0, 0, 1]):
        return None
    axis = np.cross([0.0, 0.0, 1.0], v)
    if np.linalg.norm(axis) < 1e-12:
        return {"axis": [1.0, 0.0, 0.0], "angle_deg": 180.0}
    angle = math.degrees(math.acos(float(np.clip(v[2], -1.0, 1.0))))
    return {"axis": (axis / np.linalg.norm(axis)).tolist(), "angle_deg": angle}


def _relative(path: Path, folder: Path) -> str:
    return os.path.relpath(path.resolve(), folder.resolve())


def import_wecsim(source: str | Path, output: str | Path,
                  joints: Mapping[str, str] | None = None) -> Conversion:
    """The case file of the WEC-Sim input file ``source``, written for ``output`` (file
    paths in it are relative to ``output``'s folder; the file is not written here).

    Parameters
    ----------
    joints
        ``Constraint1 -> "planar:ground:2"``: a constraint's or PTO's block (a link type
        or a WEC-Sim block word: fixed, floating_3dof, floating_6dof, rotational,
        translational, spherical) and the bodies it joins (base then follower: ``ground``
        or a body's number), over the comment's and WEC-Sim's usual ones.

    Raises
    ------
    ModelError
        For a statement that is not an assignment of arithmetic, a hydrodynamic file that
        cannot be read, or a value of the wrong shape, naming the line.
    """
    source = Path(source)
    try:
        text = source.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise ModelError(f"cannot read '{source}': {exc.strerror}") from None
    try:
        objs = _Objects(read_assignments(text))
    except ModelError as exc:
        raise ModelError(f"'{source}', {exc.message}") from None
    conv = Conversion("")
    folder, out_folder = source.resolve().parent, Path(output).resolve().parent
    case: dict[str, Any] = {"frylinks": 1, "name": source.parent.name or source.stem,
                            "description": f"converted from the WEC-Sim input file "
                                           f"{source.name} (frylinks import wecsim)"}
    rho = float(objs.get("simu", "rho", default=1000.0))
    g = float(objs.get("simu", "gravity", default=9.81))
    case["gravity"] = [0.0, 0.0, -g]
    env: dict[str, Any] = {"water_density": rho}
    case["environment"] = env
    bodies, forces = _bodies(objs, folder, out_folder, rho, conv)
    links: dict[str, Any] = {}
    env["depth"] = bodies.pop("__depth__", "infinite")
    waves = _waves(objs, folder, out_folder, conv)
    if waves is not None:
        env["waves"] = waves
    ground_nodes: dict[str, Any] = {}
    _joints(objs, bodies, ground_nodes, links, joints or {}, conv)
    _mooring(objs, bodies, forces, conv)
    if ground_nodes:
        case["ground"] = {"nodes": ground_nodes}
    case["bodies"] = {name: {k: v for k, v in b.items() if not k.startswith("__")}
                      for name, b in bodies.items()}
    if links:
        case["links"] = links
    case["forces"] = forces
    case["solver"], case["output"] = _solver(objs, conv)
    for k, a in enumerate(objs.all):
        if k in objs.used:
            continue
        key = (str(a.target[0]), str(a.target[-1]))
        why = NOT_NEEDED.get(key, "no counterpart in frylinks yet (docs/wecsim.md)")
        conv.untranslated.append(f"line {a.line}: {a.text}: {why}")
    head = [f"Converted from the WEC-Sim input file {source.name} by frylinks import wecsim.",
            "Read docs/wecsim.md for what each key means and where WEC-Sim's defaults "
            "differ."]
    if conv.guesses:
        head += ["", "Guessed (the Simulink diagram holds it; give --joint to change):"]
        head += [f"  {g_}" for g_ in conv.guesses]
    if conv.untranslated:
        head += ["", "Not translated:"] + [f"  {u}" for u in conv.untranslated]
    comments = "".join(f"# {line}".rstrip() + "\n" for line in head)
    conv.text = comments + yaml.dump(case, Dumper=_Dumper, sort_keys=False,
                                     default_flow_style=None, width=92)
    return conv


def _hydro_file(value: Any, folder: Path, a: Assignment | None) -> Path:
    if not isinstance(value, str):
        raise ModelError(f"line {a.line if a else '?'}: bodyClass: expected the "
                         "hydrodynamic file's name")
    path = Path(value) if Path(value).is_absolute() else folder / value
    if not path.is_file():
        raise ModelError(f"line {a.line if a else '?'}: hydrodynamic file '{value}' not "
                         f"found (looked for '{path}')")
    return path


def _bodies(objs: _Objects, folder: Path, out: Path, rho: float,
            conv: Conversion) -> tuple[dict[str, Any], dict[str, Any]]:
    from frylinks_marine.datasets import load_bodies, load_database

    bodies: dict[str, Any] = {}
    forces: dict[str, Any] = {}
    b2b = bool(objs.get("simu", "b2b", default=0))
    state_space = objs.get("simu", "stateSpace")
    nonlinear = objs.get("simu", "nonlinearHydro", default=0)
    for i in objs.indices("body"):
        a = objs.line("body", i)
        args = objs.get("body", i) if a is not None and a.constructor else None
        if not args:
            raise ModelError(f"body({i}) has no bodyClass('FILE') line")
        path = _hydro_file(args[0], folder, a)
        names = list(load_bodies(str(path)).bodies)
        if i > len(names):
            raise ModelError(f"line {a.line if a else '?'}: body({i}): '{args[0]}' holds "
                             f"{len(names)} bodies")
        dataset_body = names[i - 1]
        db = load_database(str(path), body=dataset_body if len(names) > 1 else None)
        if db.water_depth and math.isfinite(db.water_depth):
            bodies["__depth__"] = float(db.water_depth)
        name = _name(dataset_body, i, bodies)
        given = objs.get("body", i, "centerGravity")
        if given is not None:
            cog = np.asarray(_vec(given, 3, f"body({i}).centerGravity",
                                  objs.line("body", i, "centerGravity")))
        elif db.center_of_mass is not None:
            cog = np.asarray(db.center_of_mass, dtype=float)
        else:
            cog = np.zeros(3)
            conv.guesses.append(f"body({i}): '{args[0]}' gives no centre of gravity: the "
                                "COG at the origin (give body(i).centerGravity)")
        mass = objs.get("body", i, "mass")
        if mass is None or isinstance(mass, str):
            volume = _displaced_volume(path, i)
            if volume is not None:
                mass = rho * volume
                how = f"rho {rho:g} kg m-3 times the file's displaced volume {volume:.6g} m3"
            elif db.inertia is not None and db.inertia[0, 0] > 0:
                mass = float(db.inertia[0, 0])
                how = "the dataset's rigid-body mass"
            else:
                raise ModelError(f"body({i}).mass: give the mass in kg (the dataset has no "
                                 "displaced volume for 'equilibrium')")
            conv.guesses.append(f"body({i}) '{name}' mass 'equilibrium': {mass:.7g} kg, "
                                f"{how}")
        inertia = objs.get("body", i, "inertia")
        if inertia is None:
            raise ModelError(f"body({i}).inertia: not given (WEC-Sim requires it)")
        inertia_list = _vec(inertia, 3, f"body({i}).inertia", objs.line("body", i, "inertia"))
        products = objs.get("body", i, "inertiaProducts")
        if products is not None and np.any(products):
            inertia_list += _vec(products, 3, f"body({i}).inertiaProducts", None)
        displacement = objs.get("body", i, "initial", "displacement", default=np.zeros(3))
        position = cog + np.asarray(_vec(displacement, 3, f"body({i}).initial.displacement",
                                         None))
        body: dict[str, Any] = {"mass": float(mass), "inertia": inertia_list,
                                "position": position.tolist(), "__cog__": cog,
                                "__index__": i}
        geometry = objs.get("body", i, "geometryFile")
        if isinstance(geometry, str):
            mesh = Path(geometry) if Path(geometry).is_absolute() else folder / geometry
            # the mesh is drawn about the dataset's origin: placed minus the COG
            body["geometry"] = {"mesh": _relative(mesh, out),
                                "position": (0.0 - cog).tolist()}
        bodies[name] = body
        common = {"body": name, "hydrodynamics": _relative(path, out)}
        if len(names) > 1:
            common["hydrodynamics_body"] = dataset_body
        nl = objs.get("body", i, "nonlinearHydro", default=nonlinear) or 0
        if nl:
            forces[f"{name}_hydrostatics"] = {"type": "nonlinear_hydrostatics", "body": name,
                                              "froude_krylov": int(nl) == 2}
            dt_nl = objs.get("simu", "dtNL")
            if int(nl) == 2 and dt_nl:
                forces[f"{name}_hydrostatics"]["wave_interval"] = float(dt_nl)
            if "geometry" not in body:
                raise ModelError(f"body({i}).geometryFile: nonlinearHydro needs the body's "
                                 "mesh")
        else:
            forces[f"{name}_hydrostatics"] = {"type": "linear_hydrostatics", **common}
        forces[f"{name}_radiation"] = {"type": "radiation", **common, "interaction": b2b}
        if state_space is not None and int(state_space) == 1 and str(path).endswith(".h5"):
            forces[f"{name}_radiation"]["state_space"] = "dataset"
        forces[f"{name}_excitation"] = {"type": "wave_excitation", **common}
        if nl and int(nl) == 2:
            forces[f"{name}_excitation"]["part"] = "diffraction"
        damping = objs.get("body", i, "linearDamping")
        if damping is not None and np.any(damping):
            forces[f"{name}_linear_damping"] = {"type": "linear_damping", "body": name,
                                                "damping": _matrix6(damping)}
        drag = objs.get("body", i, "quadDrag", "drag")
        cd, area = objs.get("body", i, "quadDrag", "cd"), objs.get("body", i, "quadDrag",
                                                                    "area")
        if drag is None and cd is not None and area is not None:
            drag = 0.5 * rho * np.ravel(cd) * np.ravel(area)
        if drag is not None and np.any(drag):
            forces[f"{name}_drag"] = {"type": "quadratic_damping", "body": name,
                                      "damping": _matrix6(drag)}
    if not bodies:
        raise ModelError("no body(i) = bodyClass('FILE') in the file")
    if state_space is not None and int(state_space) == 0:
        conv.guesses.append("simu.stateSpace = 0 (WEC-Sim's direct convolution): frylinks "
                            "fits a state space to the same kernels (fit_tolerance 2 %)")
    return bodies, forces


def _name(dataset_body: str, i: int, bodies: Mapping[str, Any]) -> str:
    name = "".join(c if c.isalnum() or c in "_-" else "_" for c in str(dataset_body))
    if not name or not name[0].isalpha() or name in bodies:
        name = f"body{i}"
    return name


def _displaced_volume(path: Path, i: int) -> float | None:
    if path.suffix.lower() not in (".h5", ".hdf5"):
        return None
    import h5py

    with h5py.File(path, "r") as f:
        key = f"body{i}/properties/disp_vol"
        return float(np.ravel(f[key][()])[0]) if key in f else None


def _matrix6(value: Any) -> Any:
    """A 6-vector or 6x6 matrix as the case takes it: per DOF where it is diagonal."""
    arr = np.asarray(value, dtype=float)
    if arr.size == 36 and np.count_nonzero(arr.reshape(6, 6) - np.diag(np.diag(
            arr.reshape(6, 6)))) == 0:
        arr = np.diag(arr.reshape(6, 6))
    if arr.size == 6:
        names = ("surge", "sway", "heave", "roll", "pitch", "yaw")
        return {n: float(v) for n, v in zip(names, arr.ravel(), strict=True) if v}
    return _f(arr.reshape(6, 6))


def _waves(objs: _Objects, folder: Path, out: Path, conv: Conversion) -> dict[str, Any] | None:
    args = objs.get("waves")
    kind = str(args[0]) if isinstance(args, list) and args else "noWave"
    ramp = objs.get("simu", "rampTime", default=0.0)
    direction = objs.get("waves", "direction", default=0.0)
    if np.size(direction) > 1:
        conv.guesses.append("waves.direction: several directions; the first is taken")
    heading = float(np.ravel(direction)[0])
    common = {"heading_deg": heading, "ramp": float(ramp), "ramp_shape": "half_cosine"}
    if kind in ("noWave", "noWaveCIC"):
        return None
    if kind in ("regular", "regularCIC"):
        return {"type": "regular", "height": float(objs.get("waves", "height")),
                "period": float(objs.get("waves", "period")), **common}
    if kind == "irregular":
        spectrum = str(objs.get("waves", "spectrumType", default="JS"))
        if spectrum not in ("JS", "PM"):
            raise ModelError(f"waves.spectrumType {spectrum!r}: JS or PM are translated")
        sea: dict[str, Any] = {"type": "irregular",
                               "spectrum": "jonswap" if spectrum == "JS" else "pierson_moskowitz",
                               "hs": float(objs.get("waves", "height")),
                               "tp": float(objs.get("waves", "period"))}
        gamma = objs.get("waves", "gamma")
        if spectrum == "JS" and gamma is not None:
            sea["gamma"] = float(gamma)
        option = objs.get("waves", "bem", "option", default="EqualEnergy")
        sea["frequencies"] = "equal_energy" if option == "EqualEnergy" else "equal"
        count = objs.get("waves", "bem", "count")
        if count is not None:
            sea["nb_frequencies"] = int(count)
        span = objs.get("waves", "bem", "range")
        if span is not None:
            sea["omega_range"] = _vec(span, 2, "waves.bem.range", None)
        seed = objs.get("waves", "phaseSeed")
        if seed is not None:
            sea["seed"] = int(seed)
            conv.guesses.append("waves.phaseSeed: frylinks draws its phases from another "
                                "generator: the same seed is another realisation of the sea")
        return {**sea, **common}
    if kind == "elevationImport":
        name = objs.get("waves", "elevationFile")
        if not isinstance(name, str):
            raise ModelError("waves.elevationFile: not given")
        return {"type": "record", "file": _relative(folder / name, out), **common}
    raise ModelError(f"waveClass('{kind}'): noWave, regular, irregular and "
                     "elevationImport are translated (spectrumImport: give the spectrum as "
                     "a table, docs/marine.md)")


def _block(objs: _Objects, kind: str, i: int, given: Mapping[str, str],
           nb: int, conv: Conversion) -> tuple[str, str, str]:
    """``(link type, base, follower)`` of ``constraint(i)`` or ``pto(i)``."""
    a = objs.line(kind, i)
    label = str(objs.get(kind, i)[0]) if a is not None and a.constructor and a.value \
        else f"{kind}{i}"
    if label in given:
        parts = given[label].split(":")
        word = parts[0].lower().replace("_", " ").replace("floating ", "floating (")
        word = word + ")" if word.startswith("floating (") else word
        link = BLOCKS.get(word, parts[0])
        if len(parts) != 3:
            raise ModelError(f"--joint {label}={given[label]}: expected TYPE:BASE:FOLLOWER "
                             "(ground or a body number)")
        return link, parts[1], parts[2]
    words = " ".join(a.comments).lower() if a is not None else ""
    found: str | None = next((BLOCKS[w] for w in sorted(BLOCKS, key=len, reverse=True)
                              if w in words), None)
    if kind == "constraint":
        base, follower = "ground", str(max(1, nb - i + 1))
        link = found or "free"
    else:
        follower = str(i)
        base = str(nb) if nb > i else "ground"
        link = found or "prismatic"
    how = "its comment" if words and any(w in words for w in BLOCKS) else "a default"
    conv.guesses.append(f"{kind}({i}) '{label}': {link} (from {how}), base "
                        f"{'ground' if base == 'ground' else 'body(' + base + ')'}, follower "
                        f"body({follower})")
    return link, base, follower


def _joints(objs: _Objects, bodies: dict[str, Any], ground: dict[str, Any],
            links: dict[str, Any], given: Mapping[str, str], conv: Conversion) -> None:
    by_index = {b["__index__"]: name for name, b in bodies.items()}
    for kind in ("constraint", "pto"):
        for i in objs.indices(kind):
            link, base, follower = _block(objs, kind, i, given, len(by_index), conv)
            location = np.asarray(_vec(objs.get(kind, i, "location", default=np.zeros(3)),
                                       3, f"{kind}({i}).location", None))
            z = objs.get(kind, i, "orientation", "z")
            if z is None and link == "revolute":
                z = [0.0, 1.0, 0.0]   # WEC-Sim's rotational PTOs and hinges pitch (OSWEC)
                conv.guesses.append(f"{kind}({i}): the rotation axis world y (give "
                                    f"{kind}({i}).orientation.z to choose)")
            orientation = _orientation(_vec(z, 3, f"{kind}({i}).orientation.z", None)
                                       if z is not None else [0.0, 0.0, 1.0])
            if link == "planar":   # surge, heave and pitch: the node's plane is world x-z
                orientation = {"axis": [1.0, 0.0, 0.0], "angle_deg": 90.0}
            node = f"{kind}{i}"
            ends = []
            for which in (base, follower):
                if which == "ground":
                    ground[node] = {"position": location.tolist(),
                                    **({"orientation": orientation} if orientation else {})}
                    ends.append(f"ground.{node}")
                    continue
                if not which.isdigit() or int(which) not in by_index:
                    raise ModelError(f"{kind}({i}): no body({which}) to join")
                name = by_index[int(which)]
                b = bodies[name]
                b.setdefault("nodes", {})[node] = {
                    "position": (location - b["__cog__"]).tolist(),
                    **({"orientation": orientation} if orientation else {})}
                ends.append(f"{name}.{node}")
            if link == "free":
                continue
            entry: dict[str, Any] = {"type": link, "master": ends[0], "slave": ends[1]}
            if kind == "pto":
                k = float(objs.get(kind, i, "stiffness", default=0.0))
                c = float(objs.get(kind, i, "damping", default=0.0))
                rest = float(objs.get(kind, i, "equilibriumPosition", default=0.0))
                entry["spring_damper"] = {"stiffness": k, "damping": c,
                                          **({"rest": rest} if rest else {})}
            links[node] = entry


def _mooring(objs: _Objects, bodies: dict[str, Any], forces: dict[str, Any],
             conv: Conversion) -> None:
    first = next(iter(bodies))
    for i in objs.indices("mooring"):
        name = f"mooring{i}"
        if objs.get("mooring", i, "moorDyn"):
            forces[name] = {"type": "moordyn", "body": first, "file": "mooring/lines.txt"}
            conv.guesses.append(f"mooring({i}): MoorDyn's lines of mooring/lines.txt (the "
                                f"folder WEC-Sim reads) on body '{first}'")
            continue
        stiffness = objs.get("mooring", i, "matrix", "stiffness")
        if stiffness is None:
            continue
        entry: dict[str, Any] = {"type": "mooring_matrix", "body": first,
                                 "stiffness": _matrix6(stiffness)}
        damping = objs.get("mooring", i, "matrix", "damping")
        if damping is not None and np.any(damping):
            entry["damping"] = _matrix6(damping)
        pre = objs.get("mooring", i, "matrix", "preTension")
        if pre is not None and np.any(pre):
            entry["pretension"] = _vec(pre, 6, f"mooring({i}).matrix.preTension", None)
        location = objs.get("mooring", i, "location")
        if location is not None and not np.allclose(
                location, bodies[first]["__cog__"]):
            conv.guesses.append(f"mooring({i}).location {np.ravel(location).tolist()}: the "
                                f"matrix acts about body '{first}''s COG in frylinks")
        conv.guesses.append(f"mooring({i}): on body '{first}' (the Simulink diagram says "
                            "which)")
        forces[name] = entry


def _solver(objs: _Objects, conv: Conversion) -> tuple[dict[str, Any], dict[str, Any]]:
    start = float(objs.get("simu", "startTime", default=0.0))
    end = objs.get("simu", "endTime")
    dt = objs.get("simu", "dt", default=0.1)
    if end is None:
        raise ModelError("simu.endTime: not given")
    if start:
        conv.guesses.append(f"simu.startTime {start:g}: frylinks starts at 0; the run lasts "
                            f"endTime - startTime")
    solver = {"t_end": float(end) - start, "dt": float(dt),
              "integrator": {"ode4": "rk4", "ode45": "dop853"}.get(
                  str(objs.get("simu", "solver", default="ode4")), "rk4")}
    every = 1
    dt_out = objs.get("simu", "dtOut")
    if dt_out is not None:
        every = max(1, round(float(dt_out) / float(dt)))
    return solver, {"every": every}


__all__ = ["Conversion", "import_wecsim"]
