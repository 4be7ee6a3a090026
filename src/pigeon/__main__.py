from pigeon.cli import main

raise SystemExit(main())
