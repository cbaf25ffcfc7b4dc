"""Freed memory kept for reuse (glibc), as Paddle's own allocator keeps it.

A network's temporaries are large arrays allocated and freed on every run. glibc returns
freed memory at the top of its heap to the system once more than ``M_TRIM_THRESHOLD`` is
free, and serves allocations above ``M_MMAP_THRESHOLD`` by fresh mappings; both thresholds
start low (a few hundred KiB, adjusted upwards as it goes), so in steady state a run keeps
mapping pages afresh and touching them costs a page fault each (4 KiB): a tenth of a
ResNet-50 inference on the development machine. Raising both thresholds once makes freed
arrays reusable at once. The process then keeps up to ``TRIM`` bytes of freed memory.
``PYFLUID_KEEP_MEMORY=0`` leaves glibc's defaults alone; other C libraries are left alone.
"""
from __future__ import annotations

import ctypes
import os
import sys

MMAP = 256 << 20       # allocations below this come from the heap, whose memory is reused
TRIM = 512 << 20       # freed memory kept at the top of the heap before returning it
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3     # glibc's mallopt parameters


def keep_freed_memory() -> bool:
    """Set glibc's thresholds (once per process; True when set)."""
    if os.environ.get("PYFLUID_KEEP_MEMORY", "1") == "0" or not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):            # not glibc
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP) and mallopt(_M_TRIM_THRESHOLD, TRIM))
