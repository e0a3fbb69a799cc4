"""Render docs/hooks.md, the plugin author's manual of every hook, from frylinks/hookspecs.py.

The hook specifications' docstrings are the manual (STYLE: "the docs render it"): this
script writes each hook's signature and docstring, in source order, after the module's
own docstring, turning the reST markup of docstrings into Markdown. Run it after
changing a hook specification::

    python docs/render_hooks.py          # rewrite docs/hooks.md
    python docs/render_hooks.py --check  # exit 1 if docs/hooks.md is out of date

tests/test_hookspecs.py checks that docs/hooks.md is up to date. The script reads the
source of ``frylinks.hookspecs`` (signatures exactly as written there) and imports it
only to know which functions are hook specifications.
"""

from __future__ import annotations

import argparse
import ast
import inspect
import re
import sys
import textwrap
from pathlib import Path

from frylinks import hookspecs

OUTPUT = Path(__file__).resolve().parent / "hooks.md"

HEADER = """\
<!-- Generated from frylinks/hookspecs.py by docs/render_hooks.py: do not edit by hand;
run `python docs/render_hooks.py` after changing a hook specification. -->

# Hooks: the plugin author's manual

"""

HOW = """\
A hook is implemented by a function (or method) of the same name in your plugin module,
marked with `frylinks.hookimpl`. It may take any subset of the specification's
arguments, by name (pluggy passes only those it asks for). The step-by-step guide is
[plugins.md](plugins.md); the contract checks for your types are `frylinks.testing`.
"""

_ROLE = re.compile(r":(?:class|func|meth|mod|attr|data|exc|obj):`(~?)([^`]+)`")
_LITERAL = re.compile(r"``([^`]+)``")


def _role(match: re.Match[str]) -> str:
    target = match.group(2)
    return f"`{target.rsplit('.', 1)[-1] if match.group(1) else target}`"


def markdown(text: str) -> str:
    """Markdown of a reST docstring: roles and ``literals`` become code spans, and a
    paragraph ending in ``::`` introduces a fenced code block (its indented lines)."""
    lines = text.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = _LITERAL.sub(r"`\1`", _ROLE.sub(_role, lines[i]))
        if not line.rstrip().endswith("::"):
            out.append(line)
            i += 1
            continue
        out.append(line.rstrip()[:-1])  # "text::" -> "text:"
        i += 1
        block: list[str] = []
        while i < len(lines) and (not lines[i].strip() or lines[i].startswith((" ", "\t"))):
            block.append(lines[i])
            i += 1
        while block and not block[-1].strip():
            block.pop()
        out += ["", "```", *textwrap.dedent("\n".join(block)).strip("\n").splitlines(), "```"]
        if i < len(lines):
            out.append("")
    return "\n".join(out).strip() + "\n"


def hook_functions(tree: ast.Module) -> list[ast.FunctionDef]:
    """The hook specifications in source order (functions marked ``hookspec``)."""
    marker = f"{hookspecs.NAME}_spec"
    names = {name for name, fn in inspect.getmembers(hookspecs, inspect.isfunction)
             if hasattr(fn, marker)}
    found = [node for node in tree.body if isinstance(node, ast.FunctionDef)
             and node.name in names]
    missing = names - {node.name for node in found}
    if missing:
        raise SystemExit(f"hook specifications not found in the source: {sorted(missing)}")
    return found


def render() -> str:
    """The text of docs/hooks.md."""
    source = Path(inspect.getfile(hookspecs)).read_text(encoding="utf-8")
    tree = ast.parse(source)
    module_doc = ast.get_docstring(tree) or ""
    # the first line is the module's title; the rest introduces plugins and hooks
    intro = module_doc.split("\n\n", 1)[1] if "\n\n" in module_doc else ""
    hooks = hook_functions(tree)
    parts = [HEADER, markdown(intro), "\n", HOW, "\n| hook | what |\n|---|---|\n"]
    for fn in hooks:
        summary = (ast.get_docstring(fn) or "").split("\n\n", 1)[0].replace("\n", " ")
        parts.append(f"| [`{fn.name}`](#{fn.name}) | {markdown(summary).strip()} |\n")
    for fn in hooks:
        returns = f" -> {ast.unparse(fn.returns)}" if fn.returns else ""
        doc = ast.get_docstring(fn)
        if not doc:
            raise SystemExit(f"hook {fn.name} has no docstring")
        parts.append(f"\n## {fn.name}\n\n```python\n@hookimpl\n"
                     f"def {fn.name}({ast.unparse(fn.args)}){returns}:\n    ...\n```\n\n")
        parts.append(markdown(doc))
    return "".join(parts)


def main(argv: list[str] | None = None) -> int:
    """Write docs/hooks.md, or with ``--check`` report whether it is up to date."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 if docs/hooks.md differs from the hook specifications")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        current = OUTPUT.read_text(encoding="utf-8") if OUTPUT.exists() else ""
        if current != text:
            print(f"{OUTPUT} is out of date: run python docs/render_hooks.py", file=sys.stderr)
            return 1
        return 0
    OUTPUT.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
