"""``python -m pigeon.echo``: the same as ``pigeon echo``."""

from pigeon.echo.server import main

raise SystemExit(main())
