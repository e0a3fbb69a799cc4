"""The declarations check: what the registry asks of a type's class attributes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from frylinks.errors import PluginError
from frylinks.forces import Output
from frylinks.links import DOFS
from frylinks.model.registry import Registry
from frylinks.testing.common import OUTPUT_DIMS, _explained, _kind_of, _label, _TypesPlugin

# ---------------------------------------------------------------------- declarations

def check_declarations(cls: type[Any]) -> None:
    """Class-level contract of a link, force or signal type (module doc, first item)."""
    kind = _kind_of(cls)
    label = _label(cls)
    with _explained(label, "registering it"):
        try:
            Registry(autoload=False).register(_TypesPlugin([(kind, cls)]),
                                              name="frylinks.testing")
        except PluginError as exc:
            raise AssertionError(f"{label} is refused by the registry: {exc}") from exc
    for pname, p in cls.parameters.items():
        if not (isinstance(p.doc, str) and p.doc.strip()):
            raise AssertionError(f"{label}: parameter '{pname}' has no doc line")
    description = getattr(cls, "description", "")
    if not (isinstance(description, str) and description.strip()):
        raise AssertionError(f"{label}: give it a one-line `description` (shown by "
                             "`frylinks plugins` and the docs)")
    if kind == "link":
        free = cls.free_dofs  # type: ignore[attr-defined]
        if not isinstance(free, tuple) or not set(free) <= set(DOFS) or \
                len(set(free)) != len(free):
            raise AssertionError(f"{label}: free_dofs must be a tuple of distinct names "
                                 f"from {' '.join(DOFS)}, got {free!r}")
    if kind == "force":
        _check_force_declarations(cls, label)


def _check_force_declarations(cls: type, label: str) -> None:
    attachments = cls.attachments  # type: ignore[attr-defined]
    if not isinstance(attachments, tuple) or not attachments:
        raise AssertionError(f"{label}: attachments must be a non-empty tuple of parameter "
                             f"names (('node',), ('body',) or ('master', 'slave')), got "
                             f"{attachments!r}")
    for att in attachments:
        p = cls.parameters.get(att)  # type: ignore[attr-defined]
        if p is None or p.kind not in ("node", "body"):
            raise AssertionError(f"{label}: attachment '{att}' must be declared in "
                                 "parameters as a Param of kind 'node' or 'body'")
    outputs = cls.outputs  # type: ignore[attr-defined]
    if not isinstance(outputs, Mapping):
        raise AssertionError(f"{label}: outputs must be a dict of name -> Output")
    for oname, o in outputs.items():
        where = f"{label}: output '{oname}'"
        if not isinstance(o, Output):
            raise AssertionError(f"{where} is not a frylinks.forces.Output")
        if not (isinstance(oname, str) and oname.startswith(f"{cls.name}_")):  # type: ignore[attr-defined]
            raise AssertionError(f"{where} must carry the type name as prefix "
                                 f"('{cls.name}_...')")  # type: ignore[attr-defined]
        if not isinstance(o.units, str):
            raise AssertionError(f"{where} declares no units (a CF units string, '1' when "
                                 "dimensionless)")
        if not (isinstance(o.long_name, str) and o.long_name.strip()):
            raise AssertionError(f"{where} has no long_name")
        own = tuple(getattr(cls, "dimensions", ()))
        unknown = [d for d in o.dims if d not in OUTPUT_DIMS and d not in own]
        if not isinstance(o.dims, tuple) or unknown:
            raise AssertionError(f"{where}: dims must be a tuple of "
                                 f"{', '.join((*OUTPUT_DIMS, *own))}; got {o.dims!r}")
    for dim in getattr(cls, "dimensions", ()):
        if not (isinstance(dim, str) and dim.startswith(f"{cls.name}_")):  # type: ignore[attr-defined]
            raise AssertionError(f"{label}: dimension {dim!r} must carry the type name as "
                                 f"prefix ('{cls.name}_...')")  # type: ignore[attr-defined]
