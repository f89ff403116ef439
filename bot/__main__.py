"""`python -m bot`: the paperbot command line."""

from bot.terminal.cli import main

raise SystemExit(main())
