"""Optional numba compilation for the engine's inner loops, with a writable kernel cache.

numba is a runtime dependency, but the engine must still work where it cannot be imported (an
exotic platform): every compiled function has a numpy reference beside it, tested to give the
same numbers, and `compile_lazily` returns None when numba is missing so callers take that path.
"""

from __future__ import annotations

import os
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any


def _writable_cache_dir() -> str:
    """Where numba keeps compiled kernels: beside the code when that folder is writable (the
    default), else the user's cache folder, else the temp folder. Without one it can write to,
    numba refuses to compile a cached function at all (a read-only install)."""
    user_cache = os.environ.get("XDG_CACHE_HOME") or Path("~/.cache").expanduser()
    candidates = [
        Path(__file__).parent / "__pycache__",
        Path(user_cache) / "paperbot",
        Path(tempfile.gettempdir()) / f"paperbot-numba-{os.getuid()}",
    ]
    for folder in candidates:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            continue
        if os.access(folder, os.W_OK):
            return str(folder)
    return str(candidates[-1])


numba: Any
try:
    import numba
except ImportError:  # pragma: no cover - the numpy paths are tested directly
    numba = None
else:
    # An operator's own NUMBA_CACHE_DIR wins. Set on numba's config, not in os.environ, so
    # child processes (which may run as another user) choose for themselves.
    if not os.environ.get("NUMBA_CACHE_DIR"):
        numba.config.CACHE_DIR = _writable_cache_dir()


def available() -> bool:
    """Whether compiled kernels can be used (numba is installed)."""
    return numba is not None


def helper(function: Callable[..., Any]) -> Callable[..., Any]:
    """A function that compiled kernels call: compiled when numba is there, else itself."""
    if numba is None:  # pragma: no cover
        return function
    compiled: Callable[..., Any] = numba.njit(cache=True, nogil=True)(function)
    return compiled


def compile_lazily(function: Callable[..., Any]) -> Callable[[], Any]:
    """A getter for `function` compiled (None without numba). numba compiles on the first call
    of the compiled function, or loads it from the cache; the getter itself is cheap."""
    compiled: list[Any] = []
    lock = threading.Lock()

    def get() -> Any:
        if not compiled and numba is not None:
            with lock:
                if not compiled:
                    compiled.append(numba.njit(cache=True, nogil=True)(function))
        return compiled[0] if compiled else None

    return get
