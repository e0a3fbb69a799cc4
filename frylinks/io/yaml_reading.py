"""The YAML dialect of case files: ``yaml.safe_load`` with numbers as an engineer
writes them. Case files (:mod:`frylinks.io.case`) and swept values
(:mod:`frylinks.io.loadcases`) are read with it."""

from __future__ import annotations

import re

import yaml


class CaseLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that also reads ``5.0e4`` and ``1e5`` as numbers.

    PyYAML follows YAML 1.1, where a float's exponent needs a sign: ``stiffness: 5.0e4``
    would be the text ``'5.0e4'``. YAML 1.2 (and every engineer) reads a number. Only
    this implicit resolver is added: the loader constructs plain data exactly as
    ``yaml.safe_load`` does and refuses ``!!python`` tags.
    """


CaseLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9_]+)[eE][-+]?[0-9]+$"),
    list("-+0123456789."),
)
