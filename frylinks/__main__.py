"""``python -m frylinks``: the ``frylinks`` command."""

from __future__ import annotations

from frylinks.cli import main

raise SystemExit(main())
