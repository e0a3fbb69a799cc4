"""Run a case and name its compiled code for Linux ``perf``.

numba's machine code lives in memory that ``perf`` cannot name: a profile of a run
shows its compiled step as ``[JIT]`` addresses. ``perf`` reads the names of such code
from ``/tmp/perf-<pid>.map``; this script runs a case and, at its end, writes that file
for every function of every compiled library of the process (the kernels the step calls,
and the step itself with the helpers written into it)::

    perf record -F 10000 -o perf.data \\
        python benchmarks/perf_map.py cases/point_absorber.yaml 3600
    perf report -i perf.data --no-children --sort dso,sym

The code of the cache is named too: numba's execution engine knows every symbol it
loaded (an exported function; one written into its callers is counted in theirs). The
run timed is the second one, after a short first run that compiles or loads. numba's
own objects are read here (``library._final_module``, the engine's symbols): a
developer's tool, not part of frylinks.
"""

from __future__ import annotations

import argparse
import gc
import os
import tempfile
import time
import warnings
from pathlib import Path


def compiled_functions() -> list[tuple[int, str]]:
    """The address and LLVM name of every function defined in a library numba compiled
    in this process, and of every symbol its execution engine loaded (the cache's)."""
    from numba.core.registry import CPUDispatcher, cpu_target

    engine = cpu_target.target_context.codegen()._engine
    found = set()
    for name in list(engine._defined_symbols):
        try:
            address = engine._ee.get_function_address(name)
        except Exception:  # (a global, not a function)
            continue
        if address:
            found.add((address, name))
    for obj in gc.get_objects():
        if not isinstance(obj, CPUDispatcher):
            continue
        for cres in obj.overloads.values():
            library = cres.library  # type: ignore[attr-defined]
            module = getattr(library, "_final_module", None)
            if module is None:
                continue
            for fn in module.functions:
                if fn.is_declaration:
                    continue
                try:
                    address = library.get_pointer_to_function(fn.name)
                except Exception:  # (a function the linker dropped)
                    continue
                if address:
                    found.add((address, fn.name))
    return sorted(found)


def write_map(functions: list[tuple[int, str]], path: Path) -> None:
    """``perf``'s map: each function from its address to the next one's."""
    with open(path, "w") as out:
        for i, (address, name) in enumerate(functions):
            end = functions[i + 1][0] if i + 1 < len(functions) else address + 0x10000
            out.write(f"{address:x} {min(end - address, 0x100000):x} {name}\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("case", type=Path)
    parser.add_argument("seconds", type=float, help="the simulated time of the run timed")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    import frylinks
    from frylinks.engine import background

    background.WAIT[0] = True  # (the first run waits for its compile)
    with tempfile.TemporaryDirectory() as folder:
        frylinks.run(args.case, Path(folder) / "first.nc", t_end=0.1)
        start = time.perf_counter()
        frylinks.run(args.case, Path(folder) / "timed.nc", t_end=args.seconds)
        print(f"run of {args.seconds:g} s: {time.perf_counter() - start:.2f} s")
    functions = compiled_functions()
    path = Path(f"/tmp/perf-{os.getpid()}.map")
    write_map(functions, path)
    print(f"{len(functions)} compiled functions named in {path}")


if __name__ == "__main__":
    main()
