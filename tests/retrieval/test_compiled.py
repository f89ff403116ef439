"""Compiled kernels: a question never waits for the compiler while a warm-up compiles."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from retrieval import compiled

pytestmark = pytest.mark.skipif(not compiled.available(), reason="numba is not installed")


def _double(value: int) -> int:
    return value * 2


def _in_thread(work: Callable[[], Any]) -> Any:
    """What `work` returns when run in another thread."""
    result: list[Any] = []
    thread = threading.Thread(target=lambda: result.append(work()))
    thread.start()
    thread.join(timeout=60)
    return result[0]


class _Warmer:
    """A thread inside `compiled.warming()` until released, as a starting bot's warm-up is."""

    def __init__(self) -> None:
        self.inside = threading.Event()
        self.release = threading.Event()
        self.thread = threading.Thread(target=self._run)

    def _run(self) -> None:
        with compiled.warming():
            self.inside.set()
            self.release.wait(timeout=60)

    def __enter__(self) -> _Warmer:
        self.thread.start()
        assert self.inside.wait(timeout=10)
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.release.set()
        self.thread.join(timeout=10)


def test_without_a_warm_up_the_caller_compiles_and_then_gets_the_same_kernel() -> None:
    get = compiled.compile_lazily(_double)
    first = get()
    assert first is not None
    assert first(21) == 42
    kernel = get()
    assert kernel is get()  # after one run, the getter hands out the dispatcher itself
    assert kernel(5) == 10


def test_while_another_thread_warms_a_kernel_that_never_ran_is_none_here() -> None:
    get = compiled.compile_lazily(_double)
    with _Warmer():
        assert get() is None  # this thread takes the numpy path instead of waiting
    kernel = get()
    assert kernel is not None
    assert kernel(4) == 8


def test_the_warming_thread_itself_compiles() -> None:
    get = compiled.compile_lazily(_double)

    def warm() -> int:
        with compiled.warming():
            kernel = get()
            assert kernel is not None
            return int(kernel(3))

    assert _in_thread(warm) == 6


def test_a_kernel_that_ran_is_used_even_while_a_warm_up_goes_on() -> None:
    get = compiled.compile_lazily(_double)
    assert _in_thread(lambda: get()(1)) == 2
    with _Warmer():
        kernel = get()
        assert kernel is not None
        assert kernel(7) == 14


def test_warm_ups_nest_in_one_thread() -> None:
    get = compiled.compile_lazily(_double)

    def nested() -> bool:
        with compiled.warming():
            with compiled.warming():
                pass
            # still inside the outer warm-up: this thread is the one compiling
            kernel = get()
            return kernel is not None and int(kernel(2)) == 4

    with _Warmer():
        assert _in_thread(nested)
        assert get() is not None  # the nested thread ran it, so every thread may use it now


def test_a_warm_up_that_ended_leaves_no_trace() -> None:
    get = compiled.compile_lazily(_double)
    with _Warmer():
        pass
    kernel = get()
    assert kernel is not None
    assert kernel(0) == 0
