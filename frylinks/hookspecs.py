"""Hook specifications: the plugin author's manual.

A plugin is a module (or object) that implements some of these hooks, marked with
``frylinks.hookimpl``, and is announced by an entry point in the group ``frylinks``::

    [project.entry-points.frylinks]
    my_plugin = "my_package.plugin"

Type hooks are called **once**, when a system's registry is built; the classes they
return are then evaluated in vectorised blocks by the engine. No hook is ever called
once per link per step. Run observers are called only when some plugin implements
them. Call hooks with keyword arguments only.
"""

from __future__ import annotations

from typing import Any

import pluggy

NAME = "frylinks"
hookspec = pluggy.HookspecMarker(NAME)
hookimpl = pluggy.HookimplMarker(NAME)


@hookspec
def frylinks_link_types() -> list[type]:
    """Return the link types this plugin provides.

    Called once per registry (when a :class:`~frylinks.System` is created). Each item
    is a subclass of :class:`frylinks.links.LinkType` (often of
    :class:`frylinks.links.AxisLink`) with a unique ``name``, its ``free_dofs`` and its
    declared ``parameters``. One object of the class will hold every link of that type
    in a model and evaluate them at once on arrays.
    """


@hookspec
def frylinks_force_types() -> list[type]:
    """Return the force types this plugin provides.

    Called once per registry. Each item is a subclass of
    :class:`frylinks.forces.ForceType` with a unique ``name``, its ``attachments``,
    declared ``parameters`` (with units) and optional ``outputs``. Its ``evaluate``
    returns the wrenches of all elements of the type in one call.
    """


@hookspec
def frylinks_signal_types() -> list[type]:
    """Return the signal types this plugin provides.

    Called once per registry. Each item is a subclass of
    :class:`frylinks.signals.SignalType` with a unique ``name`` and declared
    ``parameters``; ``evaluate(t, order)`` gives the values (order 0) or derivatives
    (orders 1, 2) of every instance at once.
    """


@hookspec
def frylinks_setting_types() -> list[type]:
    """Return the setting types this plugin provides.

    Called once per registry. Each item is a subclass of
    :class:`frylinks.settings.SettingType` whose ``name`` is a new top-level key of the
    case file (``environment``), with declared ``parameters``. Force types read the
    built object from ``ForceContext.settings[name]``.
    """


@hookspec
def frylinks_run_started(system: Any, t_end: float, dt: float) -> None:
    """Observe the start of a run.

    Called once per run, before the first step, with the :class:`~frylinks.System`,
    the end time and the step [s].
    """


@hookspec
def frylinks_step_completed(system: Any, t: float, state: Any) -> None:
    """Observe the run at each output sample (monitoring, control).

    Called once per output sample (every ``output.every`` accepted steps, and at the
    start), only if a plugin implements it (so runs that nobody observes pay
    nothing). ``state`` is the engine's :class:`~frylinks.engine.State` (plain
    arrays); do not modify it. A compiled run computes the samples of about 20 ms
    at a time and then hands them to the observers one by one; an observer that
    raises (``KeyboardInterrupt`` stops the run, as Ctrl-C does) ends the run at its
    sample, the samples computed after it dropped.
    """


@hookspec
def frylinks_run_finished(system: Any, status: str) -> None:
    """Observe the end of a run.

    Called once per run with its ``status`` (``completed``, ``interrupted at t=...``,
    ``diverged at t=...: ...``).
    """
