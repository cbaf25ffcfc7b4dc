"""executor/memory.py: glibc keeps freed memory for reuse unless PYFLUID_KEEP_MEMORY=0."""
import ctypes
import sys

import pytest

from pyfluid.executor.memory import keep_freed_memory


def _glibc() -> bool:
    try:
        ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):
        return False
    return sys.platform.startswith("linux")


def test_the_thresholds_are_set_on_glibc_and_can_be_left_alone(monkeypatch):
    assert keep_freed_memory() is _glibc()
    monkeypatch.setenv("PYFLUID_KEEP_MEMORY", "0")
    assert keep_freed_memory() is False


@pytest.mark.skipif(not _glibc(), reason="glibc only")
def test_a_freed_large_array_is_reused_without_new_pages():
    import resource

    import numpy as np
    keep_freed_memory()

    def run():                    # three 12 MiB temporaries, as a layer makes them
        arrays = [np.ones(3 << 20, np.float32) for _ in range(3)]
        del arrays

    run()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(5):
        run()
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
    assert faults < 100           # glibc's defaults: about 5500 page faults for these runs
