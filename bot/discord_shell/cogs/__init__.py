"""Cogs: thin command handlers that parse, defer, call the engine and render."""
