"""``python -m opsagent``: see ``opsagent/cli.py``."""

from opsagent.cli import main

raise SystemExit(main())
