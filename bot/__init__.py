"""paperbot's shells: the Discord bot and the `paperbot` command line."""
