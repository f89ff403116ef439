"""Loaded collections the conversation tests parse messages against."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Loaded:
    name: str
    slug: str


COLLECTIONS = (
    Loaded("ICML 2026", "icml2026"),
    Loaded("ICML 2024", "icml2024"),
    Loaded("ICLR 2024", "iclr2024"),
    Loaded("NeurIPS 2023", "neurips2023"),
    Loaded("SciFact", "scifact"),
)
