"""Optional numba compilation for the engine's inner loops, with a writable kernel cache.

numba is a runtime dependency, but the engine must still work where it cannot be imported (an
exotic platform): every compiled function has a numpy reference beside it, tested to give the
same numbers, and `compile_lazily` returns None when numba is missing so callers take that path.

Compiling the kernels takes tens of seconds on a new install (about 48 s for top-k on a 2-core
machine); loading them from the cache afterwards well under one. A serving process compiles
them in a warm-up thread (`warming`), and until a kernel has run once, the getters give other
threads None, so a question asked meanwhile takes the numpy path instead of waiting.
"""

from __future__ import annotations

import os
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
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


class _Warming(threading.local):
    depth = 0  # > 0 while this thread is inside `warming()` (warm-ups nest)


_warming_threads = 0  # threads inside `warming()` now
_warming_lock = threading.Lock()
_this_thread = _Warming()


@contextmanager
def warming() -> Iterator[None]:
    """Compile (or load) kernels in the calling thread: until it leaves, a kernel that has not
    run yet is None to every other thread, which then takes its numpy path rather than wait
    for the compiler."""
    global _warming_threads
    with _warming_lock:
        _warming_threads += 1
    _this_thread.depth += 1
    try:
        yield
    finally:
        _this_thread.depth -= 1
        with _warming_lock:
            _warming_threads -= 1


def compile_lazily(function: Callable[..., Any]) -> Callable[[], Any]:
    """A getter for `function` compiled (None without numba). numba compiles on the first call
    of the compiled function, or loads it from the cache; the getter itself is cheap. While a
    warm-up runs in another thread and this kernel has not run yet, the getter gives None."""
    compiled: list[Any] = []
    ran: list[Any] = []  # the compiled function, once one call of it has returned
    lock = threading.Lock()

    def first_call(*args: Any) -> Any:
        result = compiled[0](*args)
        ran[:] = compiled
        return result

    def get() -> Any:
        if ran:
            return ran[0]
        if numba is None:
            return None
        if _warming_threads and not _this_thread.depth:
            return None  # being compiled by the warm-up: the numpy path answers meanwhile
        with lock:
            if not compiled:
                compiled.append(numba.njit(cache=True, nogil=True)(function))
        return first_call

    return get
