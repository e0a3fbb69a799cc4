"""Checks of a whole type or plugin: every type it registers, each by its kind."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from frylinks.errors import PluginError
from frylinks.model.registry import KINDS, Registry
from frylinks.params import parse_params
from frylinks.settings import SettingType
from frylinks.testing.common import (
    T0,
    Instances,
    _close,
    _explained,
    _finite,
    _kind_of,
    _label,
    _shape,
    _TypesPlugin,
    registry_with,
)
from frylinks.testing.force_checks import GRAVITY, check_force_type
from frylinks.testing.link_checks import check_link_type
from frylinks.testing.signal_checks import check_signal_type

# ----------------------------------------------------------------------------- plugin

def check_type(cls: type, instances: Instances | None = None, *,
               registry: Registry | None = None) -> None:
    """Run the checks of ``cls``'s kind: :func:`check_link_type`,
    :func:`check_force_type` or :func:`check_signal_type`."""
    kind = _kind_of(cls)
    if kind == "link":
        check_link_type(cls, instances, registry=registry)
    elif kind == "force":
        check_force_type(cls, instances, registry=registry)
    elif kind == "setting":
        check_setting_type(cls, instances)
    else:
        check_signal_type(cls, instances)


def check_setting_type(cls: type[SettingType], instances: Instances | None = None) -> None:
    """Check a setting type: it builds from its defaults (a system without the section)
    and from each example; its coordinates name every declared dimension; its outputs
    have the shapes of their dimensions and are deterministic functions of time.

    Raises
    ------
    AssertionError
        The first broken rule, naming the type.
    """
    label = _label(cls)
    given = instances if instances is not None else getattr(cls, "examples", None)
    sets: list[Mapping[str, Any]] = [{}] if given is None else [{}, *given]
    for k, p in enumerate(sets):
        what = "its defaults" if k == 0 else f"examples[{k - 1}]"
        if k == 0 and any(q.required for q in cls.parameters.values()):
            continue
        with _explained(label, f"building from {what}"):
            params = parse_params(cls.parameters, p, cls.name)
            cls.validate(params)
            setting = cls(params, GRAVITY)
        coords = setting.coordinates()
        if set(coords) != set(cls.dimensions):
            raise AssertionError(f"{label}: coordinates() gives {sorted(coords)}, the "
                                 f"declared dimensions are {list(cls.dimensions)}")
        for t in (0.0, T0):
            with _explained(label, f"output_values({t:g}) from {what}"):
                out = setting.output_values(t)
                again = setting.output_values(t)
            for name, o in cls.outputs.items():
                if not all(coords[d] for d in o.dims):
                    continue  # not written (a dimension without names)
                shape = tuple(len(coords[d]) for d in o.dims)
                value = _shape(label, f"output {name} from {what}", out.get(name), shape)
                _finite(label, f"output {name} from {what}", value)
                _close(label, f"output {name} called twice", again[name], value, 0, 0)
        times = np.array([0.0, T0, 2 * T0])
        with _explained(label, f"output_series({times.tolist()}) from {what}"):
            series = setting.output_series(times)
        for name, o in cls.outputs.items():
            if not all(coords[d] for d in o.dims):
                continue
            each = np.stack([setting.output_values(t)[name] for t in times.tolist()])
            # (many times at once: the same numbers as one at a time)
            _close(label, f"output_series()['{name}'] against output_values() at each "
                   "time", series.get(name), each, 1e-14, 1e-14)


def check_plugin(plugin: Any, instances: Mapping[str, Instances] | None = None, *,
                 registry: Registry | None = None) -> list[str]:
    """Run the contract checks on every type a plugin's hooks return.

    Parameters
    ----------
    plugin
        A module or object implementing some of ``frylinks_link_types``,
        ``frylinks_force_types`` and ``frylinks_signal_types``.
    instances
        Parameter sets per type name, for types without ``examples`` (or to override
        them).
    registry
        Registry resolving signal types in the examples (default: every installed
        plugin); the plugin's types are added to it where missing.

    Returns
    -------
    list of str
        ``kind:name`` of every type checked.

    Raises
    ------
    AssertionError
        The first broken rule, naming the type.
    """
    types: list[tuple[str, type[Any]]] = []
    for kind, (hook, _) in KINDS.items():
        impl = getattr(plugin, hook, None)
        if impl is None:
            continue
        classes = impl()
        if not isinstance(classes, list):
            raise AssertionError(f"{hook} of {plugin!r} must return a list of classes, got "
                                 f"{classes!r}")
        types += [(kind, cls) for cls in classes]
    if not types:
        raise AssertionError(f"{plugin!r} returns no type from frylinks_link_types, "
                             "frylinks_force_types or frylinks_signal_types")
    try:
        Registry(autoload=False).register(_TypesPlugin(types), name="frylinks.testing")
    except PluginError as exc:
        raise AssertionError(f"{plugin!r} is refused by the registry: {exc}") from exc
    reg = registry_with(types, registry)
    given = instances or {}
    for _, cls in types:
        check_type(cls, given.get(cls.name), registry=reg)
    return [f"{kind}:{cls.name}" for kind, cls in types]
