"""numba compilation for the engine's few inner loops, cached in the user's cache folder.

Each kernel is a plain Python function of loops over numpy arrays. With numba it is compiled
at its first call (about a second per kernel on a 2-core machine, then loaded from the cache in
milliseconds); without numba (an exotic platform) the same function runs as Python: slower,
the same numbers. The cache is $NUMBA_CACHE_DIR when set, else $XDG_CACHE_HOME/paperbot/numba
(~/.cache/paperbot/numba), else the temp folder: never inside the installed package.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

Function = TypeVar("Function", bound=Callable[..., Any])


def cache_dir() -> Path:
    """The first writable of the user's cache folder and the temp folder: numba refuses to
    compile a cached function without one (a read-only home)."""
    user_cache = os.environ.get("XDG_CACHE_HOME") or Path("~/.cache").expanduser()
    candidates = [
        Path(user_cache) / "paperbot" / "numba",
        Path(tempfile.gettempdir()) / f"paperbot-numba-{os.getuid()}",
    ]
    for folder in candidates:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            continue
        if os.access(folder, os.W_OK):
            return folder
    return candidates[-1]


numba: Any
try:
    import numba
except ImportError:  # pragma: no cover - exercised by running the kernels' Python functions
    numba = None
else:
    # An operator's own NUMBA_CACHE_DIR wins. Set on numba's config, not in os.environ, so
    # child processes (which may run as another user) choose for themselves.
    if not os.environ.get("NUMBA_CACHE_DIR"):
        numba.config.CACHE_DIR = str(cache_dir())


def available() -> bool:
    """Whether kernels are compiled (numba is installed)."""
    return numba is not None


def kernel(function: Function) -> Function:
    """`function` compiled (cached, releasing the GIL) when numba is there, else itself."""
    if numba is None:  # pragma: no cover
        return function
    compiled: Function = numba.njit(cache=True, nogil=True)(function)
    return compiled


def readonly(array: Any) -> Any:
    """A read-only view: numba compiles once per argument type, and writable arrays (built)
    and read-only ones (memory-mapped) are different types; passing all as read-only views
    compiles each kernel once."""
    view = array.view()
    view.flags.writeable = False
    return view
