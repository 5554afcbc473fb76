from ioboard_submit.cli import main

raise SystemExit(main())
