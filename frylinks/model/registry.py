"""Plugin discovery: entry points of the group ``frylinks`` loaded into a pluggy manager.

Entry points are loaded here rather than by ``PluginManager.load_setuptools_entrypoints``,
which would silently drop a second plugin of the same name: a plugin that fails to import
is an error naming its entry point and distribution, and two plugins that claim one type
name are an error naming both distributions. A fresh :class:`Registry` is built per
system; nothing is global.
"""

from __future__ import annotations

import importlib.metadata as md
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import pluggy

from frylinks import hookspecs
from frylinks.errors import PluginError
from frylinks.forces import ForceType, Output
from frylinks.links import LinkType
from frylinks.params import Param
from frylinks.settings import SettingType
from frylinks.signals import SignalType

KINDS = {
    "link": ("frylinks_link_types", LinkType),
    "force": ("frylinks_force_types", ForceType),
    "signal": ("frylinks_signal_types", SignalType),
    "setting": ("frylinks_setting_types", SettingType),
}
NAME_PATTERN = re.compile(r"^[a-z][a-z0-9_]*$")
#: Extra dimensions a plugin output may have (after time and the entity).
OUTPUT_DIMS = ("xyz", "quat", "dof")


@dataclass(frozen=True)
class TypeInfo:
    """A registered type and where it came from."""

    kind: str
    name: str
    cls: type[Any]
    plugin: str
    distribution: str
    version: str


class Registry:
    """Link, force, signal and setting types known to a system.

    Parameters
    ----------
    autoload
        Load every entry point of the group ``frylinks`` (the default). Tests pass
        False and :meth:`register` plugins inline.
    """

    def __init__(self, autoload: bool = True) -> None:
        self.pm = pluggy.PluginManager(hookspecs.NAME)
        self.pm.add_hookspecs(hookspecs)
        self.types: dict[str, dict[str, TypeInfo]] = {k: {} for k in KINDS}
        if autoload:
            for ep, dist in _entry_points():
                try:
                    plugin = ep.load()
                except Exception as exc:
                    raise PluginError(
                        f"plugin entry point '{ep.name} = {ep.value}' of distribution "
                        f"'{dist.name if dist else '?'}' failed to import: "
                        f"{type(exc).__name__}: {exc}"
                    ) from exc
                self.register(plugin, name=ep.name, distribution=dist.name if dist else "?",
                              version=dist.version if dist else "?")

    def register(self, plugin: Any, name: str, distribution: str = "local",
                 version: str = "") -> None:
        """Register a plugin object (module or class with hook implementations)."""
        label = f"{distribution}:{name}"
        if self.pm.has_plugin(label):
            return
        self.pm.register(plugin, name=label)
        for kind, (hook, base) in KINDS.items():
            impl_fn = getattr(plugin, hook, None)
            if impl_fn is None:
                continue
            for cls in impl_fn() or []:
                info = TypeInfo(kind, getattr(cls, "name", ""), cls, name, distribution, version)
                _validate(info, base)
                known = self.types[kind].get(info.name)
                if known is not None and known.cls is not cls:
                    raise PluginError(
                        f"{kind} type '{info.name}' is claimed by two plugins: "
                        f"'{known.plugin}' of distribution '{known.distribution}' and "
                        f"'{name}' of distribution '{distribution}'"
                    )
                self.types[kind][info.name] = info

    def get(self, kind: str, name: str) -> TypeInfo | None:
        """The registered type, or None."""
        return self.types[kind].get(name)

    def names(self, kind: str) -> list[str]:
        """Sorted names of the registered types of one kind."""
        return sorted(self.types[kind])

    def observers(self, hook: str) -> bool:
        """True if some plugin implements the run observer ``hook``."""
        return bool(getattr(self.pm.hook, hook).get_hookimpls())

    def all(self) -> Iterable[TypeInfo]:
        for kind in KINDS:
            yield from sorted(self.types[kind].values(), key=lambda i: i.name)


def _entry_points() -> list[tuple[md.EntryPoint, md.Distribution | None]]:
    seen: set[tuple[str, str, str]] = set()
    out: list[tuple[md.EntryPoint, md.Distribution | None]] = []
    for dist in md.distributions():
        for ep in dist.entry_points:
            if ep.group != hookspecs.NAME:
                continue
            key = (dist.metadata["Name"] or "", ep.name, ep.value)
            if key in seen:  # the same distribution found twice on sys.path
                continue
            seen.add(key)
            out.append((ep, dist))
    return out


def _validate(info: TypeInfo, base: type) -> None:
    where = f"{info.kind} type {info.cls!r} of plugin '{info.plugin}' ({info.distribution})"
    if not (isinstance(info.cls, type) and issubclass(info.cls, base)):
        raise PluginError(f"{where} is not a subclass of {base.__module__}.{base.__name__}")
    if not isinstance(info.name, str) or not NAME_PATTERN.match(info.name):
        raise PluginError(f"{where}: name {info.name!r} must match {NAME_PATTERN.pattern}")
    for oname, o in getattr(info.cls, "outputs", {}).items():
        if not oname.startswith(f"{info.name}_"):
            raise PluginError(f"{where}: output '{oname}' must be prefixed '{info.name}_'")
        if not (isinstance(o, Output) and isinstance(o.units, str)
                and isinstance(o.long_name, str) and o.long_name):
            raise PluginError(f"{where}: output '{oname}' needs units and a long_name")
        own = tuple(getattr(info.cls, "dimensions", ()))
        accepted = own if info.kind == "setting" else OUTPUT_DIMS + own
        if any(d not in accepted for d in o.dims):
            raise PluginError(f"{where}: output '{oname}' dims {o.dims}; accepted extra dims: "
                              f"{', '.join(accepted)}")
        if o.rotational_units is not None and not (isinstance(o.rotational_units, str)
                                                   and "dof" in o.dims):
            raise PluginError(f"{where}: output '{oname}' declares rotational_units; they "
                              "are a string, and only for an output over 'dof'")
    for pname, p in getattr(info.cls, "parameters", {}).items():
        if not isinstance(p, Param):
            raise PluginError(f"{where}: parameter '{pname}' is not a frylinks.params.Param")
        if not isinstance(p.units, str):
            raise PluginError(f"{where}: parameter '{pname}' declares no units")
