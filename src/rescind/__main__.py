from rescind.cli import main

raise SystemExit(main())
