"""Where a key path sits in a case file's text, and the :class:`CaseError` of a
mistake found after the file was read (at assembly, or when its run is set up), which
names the file, the key path and its line."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import yaml

from frylinks.errors import CaseError, ModelError
from frylinks.io.yaml_reading import CaseLoader


def case_error(file: str | Path, text: str, exc: ModelError,
               given: Mapping[str, Any] | None = None) -> CaseError:
    """The :class:`CaseError` of a mistake found after reading, when the model is assembled
    or its run set up (initial positions that cannot meet the links, a bad ``t_end``).

    Parameters
    ----------
    file, text
        The case file and its text (``System.case_text``), for the line of the key.
    exc
        The error, with its key path.
    given
        Solver values given in place of the file's (``t_end``, ``dt``): an error on one
        of them names the override rather than a line of the file.
    """
    key = exc.path.removeprefix("solver.")
    if given and key in given:
        where = f" ({key} = {given[key]!r} given in place of the case's value)"
    else:
        line = key_line(text, exc.path) if exc.path else None
        where = f" (line {line})" if line else ""
    return CaseError(str(file), exc.path, exc.message + where)


def key_line(text: str, path: str) -> int | None:
    """Line (from 1) of the key path ``path`` in a case file's ``text``, or of its closest
    enclosing key that the text holds; None if the text holds none (or is not YAML).

    Key paths are those of error messages: ``links.pto.spring_damper.stiffness``,
    ``forces.waves.force[2].omega``.
    """
    try:
        root = yaml.compose(text, Loader=CaseLoader)
    except yaml.YAMLError:
        return None
    if root is None:
        return None
    return closest_line(key_lines(root), path)


def within(path: str, key: str) -> bool:
    """True if key path ``path`` is ``key`` or lies under it."""
    return path == key or path.startswith((f"{key}.", f"{key}["))


def closest_line(lines: Mapping[str, int], path: str) -> int | None:
    while path:
        if path in lines:
            return lines[path]
        cut = max(path.rfind("."), path.rfind("["))
        path = path[:cut] if cut > 0 else ""
    return None


def key_lines(root: yaml.Node,
               on_duplicate: Callable[[str, str, int, int], None] | None = None
               ) -> dict[str, int]:
    """Line (from 1) of every key path under the composed ``root``.

    ``on_duplicate(path, key, first_line, line)`` is called for a key given twice in one
    mapping (which loading would silently overwrite).
    """
    lines: dict[str, int] = {}
    loader = CaseLoader("")
    seen: set[int] = set()

    def walk(node: yaml.Node, path: str) -> None:
        if id(node) in seen:  # an alias: walked already (and guards against recursion)
            return
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            keys: dict[str, int] = {}
            for key_node, value_node in node.value:
                key = _key_text(loader, key_node)
                sub = f"{path}.{key}" if path else key
                line = key_node.start_mark.line + 1
                if key in keys and key != "<<" and on_duplicate is not None:
                    on_duplicate(sub, key, keys[key], line)
                keys[key] = line
                lines.setdefault(sub, line)
                walk(value_node, sub)
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                sub = f"{path}[{i}]"
                lines.setdefault(sub, item.start_mark.line + 1)
                walk(item, sub)

    walk(root, "")
    return lines


def _key_text(loader: CaseLoader, node: yaml.Node) -> str:
    """A mapping key as key paths spell it: ``str`` of its value, so ``true:`` is
    ``True`` and ``0x10:`` is ``16``, as in the loaded mapping."""
    if not isinstance(node, yaml.ScalarNode):
        return "?"
    if node.tag == "tag:yaml.org,2002:str":
        return str(node.value)
    try:
        return str(loader.construct_object(node))
    except yaml.YAMLError:  # an unknown tag: loading reports it
        return str(node.value)
