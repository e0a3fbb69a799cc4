"""Contract checks for plugin types: run them on your link, force and signal types.

Every check is a plain function that raises :class:`AssertionError` with a message
naming the type and what is wrong, so it runs from pytest (or anything else) without
fixtures::

    import my_package.plugin
    from frylinks.testing import check_plugin


    def test_my_plugin_keeps_the_frylinks_contract():
        check_plugin(my_package.plugin)

What is checked, for every type:

* **declarations**: the registry accepts the class (base class, name pattern, every
  parameter a :class:`~frylinks.params.Param` with ``units``), every parameter has a doc
  line, the type has a ``description``; a force type's ``attachments`` are declared
  ``node``/``body`` parameters and each of its ``outputs`` has ``units``, a
  ``long_name``, known ``dims`` and the type name as prefix;
* **shapes** of every method's result for blocks of 0, 1 and many instances;
* **one block of N instances equals N blocks of one** (no instance may see another);
* links: on random configurations on the constraint manifold (reached by the link's
  own rows and free basis, with rotations past pi), the engine's constraint Jacobian
  ``rows @ J`` is the exact time derivative of ``residual`` along arbitrary body
  motions (central differences), first order off the manifold, ``rows @ free_basis ==
  0``, and residual and displacement do not depend on the sign of the quaternions;
* forces: finite wrenches and outputs, ``evaluate`` and ``output_values`` leave their
  inputs unchanged and give the same result when called twice, and ``output_values``
  leaves the type's ``memory`` as it found it;
* settings: outputs of the declared shapes, the same when asked twice, and
  ``output_series`` (many times at once) equal to ``output_values`` at each time;
* signals: orders 1 and 2 of ``evaluate`` are the time derivatives of order 0 (finite
  differences, away from kinks).

**Example parameters.** A type is instantiated from example parameter sets, exactly as a
user would give them beside ``type`` (numbers, lists, signal mappings; a force type's
attachment parameters are left out: the checks place them). A type declares them in a
class attribute ``examples: list[dict]``; a check function's ``instances`` argument
overrides them; a type without required parameters defaults to ``[{}]``. A block of
``n`` instances cycles through the examples, on random node frames.

Numerical settings: links are differenced in time with step ``H = 1e-5``: the
central-difference error is O(H^2) ~ 1e-10 times third derivatives of order one
(measured below 3e-10 for the built-in types), so the tolerance is ``TOL = 1e-7``, while
a row off by 1% in one coefficient makes an error of 1e-2.
"""

from frylinks.testing.common import (
    OFF_MANIFOLD,
    OUTPUT_DIMS,
    T0,
    TOL,
    H,
    N,
    example_instances,
    registry_with,
)
from frylinks.testing.compiled import check_compiled, check_compiled_types, types_system
from frylinks.testing.declarations import check_declarations
from frylinks.testing.force_checks import check_force_type
from frylinks.testing.link_checks import LinkCase, check_link_type
from frylinks.testing.plugin import check_plugin, check_setting_type, check_type
from frylinks.testing.signal_checks import check_signal_type

__all__ = [
    "OFF_MANIFOLD",
    "OUTPUT_DIMS",
    "T0",
    "TOL",
    "H",
    "LinkCase",
    "N",
    "check_compiled",
    "check_compiled_types",
    "check_declarations",
    "check_force_type",
    "check_link_type",
    "check_plugin",
    "check_setting_type",
    "check_signal_type",
    "check_type",
    "example_instances",
    "registry_with",
    "types_system",
]
