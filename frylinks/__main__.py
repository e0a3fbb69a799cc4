"""``python -m frylinks``: the ``frylinks`` command."""

from __future__ import annotations

from .cli import main

raise SystemExit(main())
