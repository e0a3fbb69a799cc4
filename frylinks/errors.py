"""Errors raised by frylinks: one root class, with a message that says where and what."""

from __future__ import annotations


class FrylinksError(Exception):
    """Root of every error frylinks raises on purpose."""


class ModelError(FrylinksError):
    """A physical or structural mistake in a model (bad mass, unknown node, ...).

    Parameters
    ----------
    message
        What is wrong and what is accepted.
    path
        Key path of the offending value (``links.pto.spring_damper.stiffness``), if any.
    """

    def __init__(self, message: str, path: str = "") -> None:
        self.message = message
        self.path = path
        super().__init__(f"{path}: {message}" if path else message)

    def under(self, prefix: str) -> ModelError:
        """Return the same error with ``prefix`` put in front of its key path."""
        path = f"{prefix}.{self.path}" if self.path else prefix
        return type(self)(self.message, path)


class ElementError(ModelError):
    """A :class:`ModelError` of one element of a type's block, raised where the type
    sees its elements together (its constructor): ``element`` is the element's index in
    the block, which the engine turns into its name (``forces.<name>.<path>``)."""

    def __init__(self, message: str, path: str, element: int) -> None:
        super().__init__(message, path)
        self.element = element


class Notice(UserWarning):
    """What a model or run does on its own that its user should know, and that is not
    a mistake (a kernel entry convolved directly where its fit would miss the
    tolerance): ``frylinks`` shows it as ``frylinks: note: <message>``."""


class CaseError(FrylinksError):
    """A mistake in a case file: names the file, the key path and what is accepted."""

    def __init__(self, file: str, path: str, message: str) -> None:
        self.file = file
        self.path = path
        self.message = message
        where = f"case '{file}'" + (f", {path}" if path else "")
        super().__init__(f"{where}: {message}")


class PluginError(FrylinksError):
    """A plugin that cannot be loaded, or two plugins that claim the same type name."""


class SimulationError(FrylinksError):
    """A run that cannot go on (non-finite state, a singular system).

    Parameters
    ----------
    message
        What happened.
    path
        Key path of the element at fault (``links.pto``), if one is, so that the case
        reader can point at its line.
    """

    def __init__(self, message: str, path: str = "") -> None:
        self.path = path
        super().__init__(message)
