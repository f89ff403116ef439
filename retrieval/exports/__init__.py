"""Exports, in one place: the formats (`formats.py`, pure) and the service that gathers the
papers a user asks for (`service.py`)."""
