"""The engine: a system assembled into a :class:`Model`, evaluated and stepped.

* :mod:`.model`: assembly (:func:`assemble`) into arrays and blocks of one type each;
  the :class:`State`.
* :mod:`.evaluate`: the equations of motion at a state, block by block in Python
  (the path of models with a type that has no compiled kernel, and of outputs).
* :mod:`.kernels`: the compiled core (body states, node frames, relative kinematics,
  constraint rows, mass matrices, the constraint solve) in numba.
* :mod:`.compose`: the model's compiled step, composed from the core and the kernels
  of the types it uses, generated once per kind of model and cached on disk.
* :mod:`.background`: a new kind of model's step compiled in a child process while
  the run goes on interpreted (:mod:`frylinks.interpreted`).
* :mod:`.handle`, :mod:`.sampling`, :mod:`.newton`: what a compiled step keeps between
  calls, its output samples, and the generalized-alpha Newton kernels.
"""

from .evaluate import (
    DIVERGED,
    Evaluation,
    Loads,
    accept,
    applied,
    assemble_initial,
    constraint_terms,
    derivative,
    evaluate,
    force_outputs,
    link_context,
    link_outputs,
    mass_blocks,
    project,
    state_derivatives,
    update_angle_refs,
)
from .model import ForceBlock, LinkBlock, Model, State, assemble, body_states

__all__ = [
    "DIVERGED",
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
    "project",
    "state_derivatives",
    "update_angle_refs",
]
