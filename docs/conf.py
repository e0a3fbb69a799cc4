"""Sphinx configuration of the frylinks documentation (Markdown pages through MyST).

Build it with warnings as errors, as tests/test_docs.py does::

    sphinx-build -W --keep-going -b html docs docs/_build/html

The reference pages under ``reference/`` are generated when the build starts, from the
case-file schema, the result variables and the command's parser
(docs/render_reference.py) again; they are kept in git too, so links work unbuilt.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # render_reference

import frylinks  # noqa: E402

project = "frylinks"
author = "the frylinks developers"
copyright = "the frylinks developers"
release = frylinks.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]

# MyST: $...$ and $$...$$ math (theory.md), \begin{align} blocks, heading anchors for
# the in-page links of hooks.md ([`frylinks_link_types`](#frylinks_link_types)).
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_heading_anchors = 3

# numpydoc-style docstrings. The plugin base classes document their class attributes
# under "Class attributes": read it as a parameter list, not as a stray section title.
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_rtype = False
napoleon_custom_sections = [("Class attributes", "params_style")]
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_typehints_description_target = "documented"
autodoc_default_options = {"members": True, "show-inheritance": True}

html_theme = "alabaster"
html_title = f"frylinks {release}"
html_theme_options = {
    "description": "Rigid bodies joined by links, in the time domain, for marine engineering",
    "fixed_sidebar": True,
}


def _render_reference(app: Any) -> None:
    import render_reference

    render_reference.write_pages(HERE / "reference")


def setup(app: Any) -> dict[str, Any]:
    app.connect("builder-inited", _render_reference)
    return {"parallel_read_safe": True}
