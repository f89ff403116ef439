"""`python -m bot`: the paperbot command line."""

from bot.cli import main

raise SystemExit(main())
