"""The assignments of a MATLAB input file (a WEC-Sim ``wecSimInputFile.m``), read without
MATLAB.

A WEC-Sim input file is a script of assignments: ``simu.dt = 0.1;``, ``body(1) =
bodyClass('hydroData/rm3.h5');``, ``pto(1).damping = 1200000;``. This module reads such
a script as data, not as MATLAB: each statement must be an assignment whose value is
arithmetic of numbers, strings, vectors and matrices (``[1 2 3]``, ``[1 0; 0 1]``), the
constants ``pi``, ``Inf``, ``true``, ``false``, the values assigned before it (``T = 8;
waves.period = T;``) and a few functions (``zeros``, ``ones``, ``eye``, ``diag``,
``sqrt``, ``sin``, ``cos``, ``abs``, ``deg2rad``). Anything else (a loop, a function of
a toolbox, ``load``) is an :class:`MatlabError` naming the line, never a silent guess.

:func:`read_assignments` gives every assignment in order, with its line and the comment
lines just above it (WEC-Sim's examples name a constraint's Simulink block there: ``%
Floating (3DOF) Joint``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from frylinks.errors import ModelError


class MatlabError(ModelError):
    """A statement that is not an assignment of arithmetic: its line and why."""


@dataclass
class Assignment:
    """``target = value`` at ``line``: the target as a path of names and indices
    (``pto(1).orientation.z`` -> ``("pto", 1, "orientation", "z")``)."""

    target: tuple[str | int, ...]
    value: Any
    line: int
    text: str
    #: the comment lines just above the statement (without ``%``), nearest last
    comments: list[str] = field(default_factory=list)
    #: ``value`` is a class's constructor call: ``bodyClass('rm3.h5')`` -> the class name
    constructor: str | None = None


_TOKEN = re.compile(r"""
    (?P<ws>[ \t]+)
  | (?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
  | (?P<name>[A-Za-z_]\w*)
  | (?P<op>\.\*|\./|\.\^|\.'|[-+*/^()\[\],;.'=])
""", re.VERBOSE)

FUNCTIONS: dict[str, Callable[..., Any]] = {
    "zeros": lambda *n: np.zeros(_shape(n)),
    "ones": lambda *n: np.ones(_shape(n)),
    "eye": lambda *n: np.eye(_shape(n)[0], _shape(n)[1]),
    "diag": lambda v: np.diag(np.ravel(v)),
    "sqrt": np.sqrt, "sin": np.sin, "cos": np.cos, "tan": np.tan, "abs": np.abs,
    "exp": np.exp, "deg2rad": np.radians, "rad2deg": np.degrees,
}
CONSTANTS = {"pi": math.pi, "Inf": math.inf, "inf": math.inf, "true": True, "false": False}


def _shape(n: tuple[Any, ...]) -> tuple[int, ...]:
    dims = [int(v) for v in n]
    return (dims[0], dims[0]) if len(dims) == 1 else tuple(dims)


def _statements(text: str) -> list[tuple[int, str, list[str]]]:
    """``(line, statement, comments above)`` of ``text``: comments (``%`` outside a
    string) cut, ``...`` continuations joined, statements split at ``;`` and at the
    line's end outside brackets."""
    out: list[tuple[int, str, list[str]]] = []
    comments: list[str] = []
    pending, start = "", 0
    for number, raw in enumerate(text.splitlines(), 1):
        code, comment = _split_comment(raw)
        if not pending and not code.strip():
            if comment is not None:
                comments.append(comment.strip())
            elif not raw.strip():
                comments = []   # a blank line ends a comment block
            continue
        if not pending:
            start = number
        if code.rstrip().endswith("..."):
            pending += code.rstrip()[:-3] + " "
            continue
        whole = pending + code
        pending = ""
        for part in _split_top(whole, ";"):
            if part.strip():
                out.append((start, part.strip(), list(comments)))
        comments = []
    return out


def _split_comment(line: str) -> tuple[str, str | None]:
    """The code and the comment (after ``%``, None without one) of a line."""
    quoted = False
    for i, ch in enumerate(line):
        if ch == "'" and (quoted or i == 0 or not (line[i - 1].isalnum()
                                                   or line[i - 1] in ")]}._'")):
            quoted = not quoted
        elif ch == '"' and not quoted:
            j = line.find('"', i + 1)
            if j > 0:
                continue
        elif ch == "%" and not quoted:
            return line[:i], line[i + 1:].lstrip("%")
    return line, None


def _split_top(text: str, sep: str) -> list[str]:
    """``text`` split at ``sep`` outside brackets, parentheses and strings."""
    parts, depth, quoted, begin = [], 0, False, 0
    for i, ch in enumerate(text):
        if ch == "'" and (quoted or i == 0 or not (text[i - 1].isalnum()
                                                   or text[i - 1] in ")]}._'")):
            quoted = not quoted
        elif quoted:
            continue
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(text[begin:i])
            begin = i + 1
    parts.append(text[begin:])
    return parts


class _Parser:
    """One statement's tokens, read by recursive descent."""

    def __init__(self, text: str, line: int,
                 values: Mapping[tuple[str | int, ...], Any]) -> None:
        #: the values assigned before this statement, by target path
        self.text, self.line, self.values = text, line, values
        self.tokens = self._tokens(text)
        self.i = 0

    def fail(self, why: str) -> MatlabError:
        return MatlabError(f"line {self.line}: {why}: {self.text!r}")

    def _tokens(self, text: str) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        i, depth = 0, 0
        while i < len(text):
            ch = text[i]
            prev = out[-1] if out else ("", "")
            # a quote starts a string unless it follows a value (then it transposes)
            if ch == "'" and not (prev[0] in ("number", "name", "string")
                                  or prev[1] in (")", "]", "'")):
                j = i + 1
                value = ""
                while True:
                    k = text.find("'", j)
                    if k < 0:
                        raise self.fail("a string without its closing quote")
                    value += text[j:k]
                    if text[k + 1:k + 2] == "'":   # '' is a quote inside
                        value += "'"
                        j = k + 2
                        continue
                    i = k + 1
                    break
                out.append(("string", value))
                continue
            if ch == '"':
                k = text.find('"', i + 1)
                if k < 0:
                    raise self.fail("a string without its closing quote")
                out.append(("string", text[i + 1:k]))
                i = k + 1
                continue
            m = _TOKEN.match(text, i)
            if m is None:
                raise self.fail(f"cannot read {text[i:]!r}")
            kind = m.lastgroup or ""
            word = m.group()
            i = m.end()
            if kind == "ws":
                if depth and self._separates(out, text, i):
                    out.append(("op", ","))
                continue
            if word == "[":
                depth += 1
            elif word == "]":
                depth -= 1
            out.append((kind, word))
        return out

    @staticmethod
    def _separates(out: list[tuple[str, str]], text: str, i: int) -> bool:
        """Whether the blank before ``text[i]``, inside brackets, separates two elements
        (``[1 -2]``, ``[a b]``) rather than an operator's operands (``[1 - 2]``)."""
        if not out or i >= len(text):
            return False
        kind, word = out[-1]
        if not (kind in ("number", "name", "string") or word in (")", "]", "'")):
            return False   # after an operator or an opening bracket
        ch, after = text[i], text[i + 1:i + 2]
        if ch in "+-":
            return after not in (" ", "\t", "")
        if ch == "." and after in ("*", "/", "^", "'"):
            return False
        return ch.isalnum() or ch in "([.'\"" or ch == "_"

    def peek(self) -> str:
        return self.tokens[self.i][1] if self.i < len(self.tokens) else ""

    def take(self, word: str | None = None) -> tuple[str, str]:
        if self.i >= len(self.tokens):
            raise self.fail("the statement ends too early")
        tok = self.tokens[self.i]
        if word is not None and tok[1] != word:
            raise self.fail(f"expected {word!r}, found {tok[1]!r}")
        self.i += 1
        return tok

    def done(self) -> bool:
        return self.i >= len(self.tokens)

    # -- the statement

    def assignment(self) -> tuple[tuple[str | int, ...], Any, str | None]:
        eq = [k for k, t in enumerate(self.tokens) if t == ("op", "=")]
        if not eq:
            raise self.fail("not an assignment (a call or a command is not translated)")
        target = self.target(eq[0])
        self.i = eq[0] + 1
        constructor = None
        if len(self.tokens) > self.i + 1 and self.tokens[self.i][0] == "name" and \
                self.tokens[self.i][1].endswith("Class") and self.tokens[self.i + 1][1] == "(":
            constructor = self.take()[1]
            self.take("(")
            args = [] if self.peek() == ")" else self.arguments()
            self.take(")")
            value: Any = args
        else:
            value = self.expression()
        if not self.done():
            raise self.fail(f"unexpected {self.peek()!r}")
        return target, value, constructor

    def target(self, end: int) -> tuple[str | int, ...]:
        path: list[str | int] = []
        expect_name = True
        k = 0
        toks = self.tokens[:end]
        while k < len(toks):
            kind, word = toks[k]
            if expect_name:
                if kind != "name":
                    raise self.fail("the left of '=' is not a name")
                path.append(word)
                expect_name = False
            elif word == ".":
                expect_name = True
            elif word == "(":
                close = next((j for j in range(k, len(toks)) if toks[j][1] == ")"), None)
                if close is None:
                    raise self.fail("unbalanced parentheses on the left of '='")
                inner = _Parser(" ".join(t[1] for t in toks[k + 1:close]), self.line,
                                self.values)
                for idx in inner.arguments():
                    if not (isinstance(idx, float | int) and float(idx).is_integer()):
                        raise self.fail("an index on the left of '=' must be a whole number")
                    path.append(int(idx))
                k = close
            else:
                raise self.fail(f"cannot read the left of '=' at {word!r}")
            k += 1
        return tuple(path)

    # -- expressions

    def arguments(self) -> list[Any]:
        args = [self.expression()]
        while self.peek() == ",":
            self.take(",")
            args.append(self.expression())
        return args

    def expression(self) -> Any:
        value = self.term()
        while self.peek() in ("+", "-"):
            op = self.take()[1]
            right = self.term()
            value = value + right if op == "+" else value - right
        return value

    def term(self) -> Any:
        value = self.power()
        while self.peek() in ("*", "/", ".*", "./"):
            op = self.take()[1]
            right = self.power()
            if op == "*" and np.ndim(value) == 2 and np.ndim(right) == 2:
                value = np.asarray(value) @ np.asarray(right)
            elif op in ("*", ".*"):
                value = np.multiply(value, right)
            else:
                value = np.divide(value, right)
        return value

    def power(self) -> Any:
        value = self.unary()
        while self.peek() in ("^", ".^"):
            self.take()
            value = np.power(value, self.unary())
        return value

    def unary(self) -> Any:
        if self.peek() in ("-", "+"):
            op = self.take()[1]
            value = self.unary()
            return np.negative(value) if op == "-" else value
        return self.postfix()

    def postfix(self) -> Any:
        value = self.primary()
        while self.peek() in ("'", ".'"):
            self.take()
            value = np.transpose(np.atleast_2d(value))
        return value

    def primary(self) -> Any:
        kind, word = self.take()
        if kind == "number":
            return float(word)
        if kind == "string":
            return word
        if word == "(":
            value = self.expression()
            self.take(")")
            return value
        if word == "[":
            return self.matrix()
        if kind == "name":
            if self.peek() == "(" and word in FUNCTIONS:
                self.take("(")
                args = [] if self.peek() == ")" else self.arguments()
                self.take(")")
                try:
                    return _plain(FUNCTIONS[word](*args))
                except (TypeError, ValueError) as exc:
                    raise self.fail(f"{word}: {exc}") from None
            path: list[str | int] = [word]
            while self.peek() in (".", "("):
                if self.take()[1] == ".":
                    path.append(self.take()[1])
                    continue
                args = [] if self.peek() == ")" else self.arguments()
                self.take(")")
                if not all(isinstance(a, float) and a.is_integer() for a in args) or \
                        not args:
                    raise self.fail(f"{word}(...) is not a function frylinks evaluates "
                                    f"({', '.join(FUNCTIONS)}) nor a value assigned before "
                                    "(give the value)")
                path += [int(a) for a in args]
            if len(path) == 1 and word in CONSTANTS:
                return CONSTANTS[word]
            value = self.values.get(tuple(path))
            if value is None and len(path) > 1 and isinstance(path[1], int) and \
                    not any(key[:1] == (word,) for key in self.values):
                raise self.fail(f"{word}(...) is not a function frylinks evaluates "
                                f"({', '.join(FUNCTIONS)}) nor a value assigned before "
                                "(give the value)")
            if value is None:
                raise self.fail(f"{'.'.join(str(p) for p in path)} is not a value assigned "
                                "before (only numbers, strings, vectors, matrices and their "
                                "arithmetic are translated; give the value)")
            return value
        raise self.fail(f"unexpected {word!r}")

    def matrix(self) -> Any:
        rows: list[list[Any]] = [[]]
        while self.peek() != "]":
            if self.peek() == ";":
                self.take()
                rows.append([])
                continue
            if self.peek() == ",":
                self.take()
                continue
            rows[-1].append(self.expression())
        self.take("]")
        rows = [r for r in rows if r]
        if not rows:
            return np.zeros(0)
        if all(isinstance(v, str) for r in rows for v in r):
            return "".join(v for r in rows for v in r)
        try:
            blocks = [np.hstack([np.atleast_1d(np.asarray(v, dtype=float)) for v in r])
                      for r in rows]
            return blocks[0] if len(blocks) == 1 else np.vstack(blocks)
        except ValueError:
            raise self.fail("rows of a matrix differ in length") from None


def _plain(value: Any) -> Any:
    arr = np.asarray(value)
    return float(arr) if arr.ndim == 0 else arr


def read_assignments(text: str) -> list[Assignment]:
    """Every assignment of the script ``text``, in order (module doc).

    Raises
    ------
    MatlabError
        At the first statement that is not an assignment of arithmetic, naming its line.
    """
    values: dict[tuple[str | int, ...], Any] = {}

    out = []
    for line, statement, comments in _statements(text):
        parser = _Parser(statement, line, values)
        target, value, constructor = parser.assignment()
        head = target
        while head and isinstance(head[-1], int):
            head = head[:-1]
        if head != target and isinstance(values.get(head), np.ndarray) and not constructor:
            # x(i) = v, x(i, j) = v: an element of an array assigned before (1-based)
            array = values[head].copy()
            index = tuple(int(k) - 1 for k in target[len(head):])
            try:
                array[index if array.ndim == len(index) else index[-1]] = value
            except (IndexError, ValueError):
                raise parser.fail("an element outside the array assigned before") from None
            target, value = head, array
        values[target] = value
        out.append(Assignment(target, value, line, statement, comments, constructor))
    return out


__all__ = ["Assignment", "MatlabError", "read_assignments"]
