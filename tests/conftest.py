"""Fixtures shared by the whole suite."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest


@pytest.fixture
def record_property(record_property: Callable[[str, Any], None]) -> Callable[[str, Any], None]:
    """pytest's ``record_property`` taking numpy scalars too: pytest-xdist workers send
    recorded values to the controller, which cannot serialise numpy types."""

    def record(name: str, value: Any) -> None:
        record_property(name, value.item() if isinstance(value, np.generic) else value)

    return record
