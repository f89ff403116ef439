"""Stores behind the engine, one package: the Protocols each concern takes (`protocol.py`, and
the features' own beside their rows), the composed `Store` (`store.py`), the two backends over
one set of SQL (`shared.py`, `community.py`, `dialect.py`, `schema.py`) and their opening
(`opening.py`). Kept empty: importing any store module runs this file first, and the features
import `protocol.py`, so anything imported here would import them back."""
