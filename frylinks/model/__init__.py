"""The model a user builds: a :class:`System` of bodies, nodes, links and forces, every
input checked where it is given (docs/architecture.md, docs/reference/case-file.md), and
the plugin registry that knows the link, force, signal and setting types.

* :mod:`.system`: :class:`System`, :class:`Body`, :class:`Node`, the link and force
  definitions, spring-damper and inertia parsing;
* :mod:`.registry`: plugin discovery through the entry-point group ``frylinks``;
* :mod:`.orientation`: orientations as a user writes them, made quaternions;
* :mod:`.geometry`: a body's mesh or shape, and what a drawing of the model needs.

The model never imports the engine: running a system is the I/O layer's
(:class:`frylinks.System` adds ``run``).
"""

from frylinks.model.registry import Registry, TypeInfo
from frylinks.model.system import Body, ForceDef, LinkDef, Node, System

__all__ = ["Body", "ForceDef", "LinkDef", "Node", "Registry", "System", "TypeInfo"]
