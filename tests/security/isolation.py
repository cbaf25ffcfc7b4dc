"""Running a snippet in a child Python with a time and memory limit, so that a hang or a memory
bomb fails the test instead of the test session (or the machine)."""
from __future__ import annotations

import os
import resource
import subprocess
import sys
import textwrap

import pytest


def run_python(code: str, *args: str, timeout: float = 60, memory_mb: int = 1024,
               cwd: str | None = None) -> subprocess.CompletedProcess:
    """Run ``code`` (dedented) in a fresh interpreter limited to ``memory_mb`` of address
    space; a run longer than ``timeout`` seconds fails the calling test as a hang."""
    limit = memory_mb << 20

    def limit_memory():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env["OPENBLAS_NUM_THREADS"] = env["OMP_NUM_THREADS"] = "1"
    try:
        return subprocess.run([sys.executable, "-c", textwrap.dedent(code), *args],
                              capture_output=True, text=True, timeout=timeout, cwd=cwd,
                              env=env, preexec_fn=limit_memory)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the child process hung (no result after {timeout} s)")


def last_line(result: subprocess.CompletedProcess) -> str:
    """The child's last stdout line (the snippets print their verdict last)."""
    lines = result.stdout.strip().splitlines()
    assert lines, f"no output; exit {result.returncode}; stderr:\n{result.stderr[-3000:]}"
    return lines[-1]
