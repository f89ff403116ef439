"""No Protocol in the engine declares more than 15 methods: each concern gets its own, and
`Store` (stores/store.py) only composes them for the backends and the engine."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import retrieval

LIMIT = 15


def _protocols() -> dict[str, type]:
    found: dict[str, type] = {}
    for info in pkgutil.walk_packages(retrieval.__path__, "retrieval."):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if (
                inspect.isclass(value)
                and getattr(value, "_is_protocol", False)
                and value.__module__ == module.__name__
            ):
                found[f"{module.__name__}.{name}"] = value
    return found


def _declared(protocol: type) -> list[str]:
    return [
        name
        for name, value in vars(protocol).items()
        if callable(value) and not name.startswith("_")
    ]


def test_every_protocol_declares_at_most_fifteen_methods() -> None:
    protocols = _protocols()
    assert "retrieval.stores.protocol.PaperStore" in protocols, "the Protocols were not found"
    too_wide = {
        name: len(_declared(p)) for name, p in protocols.items() if len(_declared(p)) > LIMIT
    }
    assert too_wide == {}


def test_the_feature_protocols_live_beside_their_rows() -> None:
    protocols = _protocols()
    for where in (
        "retrieval.watches.service.WatchStore",
        "retrieval.shortlist.ShortlistStore",
        "retrieval.trending.ActivityStore",
        "retrieval.privacy.UserDataStore",
        "retrieval.nodes.ClusterStore",
    ):
        assert where in protocols
