"""The engine: a system assembled into a :class:`Model`, evaluated and stepped.

It stands on the model (:mod:`frylinks.model`) and the plugin API; it knows nothing of
case files, netCDF, the command line or pictures (the I/O layer and those above it
call it).

* :mod:`.model`: assembly (:func:`assemble`) into arrays and blocks of one type each;
  the :class:`State`.
* :mod:`.evaluate`: the equations of motion at a state, block by block in Python
  (the path of models with a type that has no compiled kernel, and of outputs); its
  :func:`link_context`, :func:`constraint_terms`, :func:`point_mass_terms` and
  :func:`mass_blocks` are what the linear analysis builds on.
* :mod:`.kernels`, :mod:`.newton`: the compiled core (body states, node frames,
  relative kinematics, constraint rows, mass matrices, the constraint solve) and the
  generalized-alpha Newton kernels, in numba; :mod:`.linalg`: the constraint system
  on the Python path.
* :mod:`.compose`: the model's compiled step, composed from the core and the kernels
  of the types it uses, generated once per kind of model and cached on disk;
  :mod:`.sampling`: its output samples, several per call.
* :mod:`.background`: a new kind of model's step compiled in a child process while
  the run goes on interpreted (:mod:`frylinks.interpreted`).
* :mod:`.integrators` (``rk4``, ``dop853``), :mod:`.implicit` (``generalized_alpha``),
  :mod:`.schemes` (the integrators by name): time stepping; :mod:`.checkpoint`: what a
  run needs to go on exactly after it stopped.
* :mod:`.assembly`: the initial state measured against the links, refused beyond a
  tolerance, brought onto them within it (:func:`assemble_initial`).
* :mod:`.statics` (static equilibrium, with :mod:`.finite_differences`) and
  :mod:`.joints` (every link's joint at a state, in Arboris' terms).
"""

from frylinks.engine.assembly import (
    DEFAULT_TOLERANCE,
    FROM_ANYWHERE,
    Assembly,
    AssemblyTolerance,
    assemble_initial,
)
from frylinks.engine.evaluate import (
    DIVERGED,
    Evaluation,
    Loads,
    accept,
    applied,
    constraint_terms,
    derivative,
    evaluate,
    force_outputs,
    link_context,
    link_outputs,
    mass_blocks,
    point_mass_terms,
    project,
    state_derivatives,
    update_angle_refs,
)
from frylinks.engine.model import ForceBlock, LinkBlock, Model, State, assemble, body_states

__all__ = [
    "DEFAULT_TOLERANCE",
    "DIVERGED",
    "FROM_ANYWHERE",
    "Assembly",
    "AssemblyTolerance",
    "Evaluation",
    "ForceBlock",
    "LinkBlock",
    "Loads",
    "Model",
    "State",
    "accept",
    "applied",
    "assemble",
    "assemble_initial",
    "body_states",
    "constraint_terms",
    "derivative",
    "evaluate",
    "force_outputs",
    "link_context",
    "link_outputs",
    "mass_blocks",
    "point_mass_terms",
    "project",
    "state_derivatives",
    "update_angle_refs",
]
