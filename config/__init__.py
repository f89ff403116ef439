"""paperbot's settings: one validated object, built on demand."""

from config.settings import Settings, SettingsError, load_settings

__all__ = ["Settings", "SettingsError", "load_settings"]
