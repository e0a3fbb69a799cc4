"""Arboris' names for scripts written against Arboris (``from arboris.all import *``).

frylinks ships no package called ``arboris``; a user (or a test) who runs Arboris-style
code aliases this module, e.g. ``sys.modules["arboris.all"] = frylinks.arboris_compat``.
It provides the ``joints`` module (:mod:`frylinks.joints`), its joint classes and the
numpy helpers Arboris re-exports.
"""

from __future__ import annotations

from numpy import array, dot, eye, pi, zeros

from frylinks import joints
from frylinks.joints import (
    FreeJoint,
    RxJoint,
    RyJoint,
    RyRxJoint,
    RzJoint,
    RzRxJoint,
    RzRyJoint,
    RzRyRxJoint,
)

__all__ = ["FreeJoint", "RxJoint", "RyJoint", "RyRxJoint", "RzJoint", "RzRxJoint",
           "RzRyJoint", "RzRyRxJoint", "array", "dot", "eye", "joints", "pi", "zeros"]
