"""Every test starts from fresh default programs, fresh unique-name counters, a fresh global
scope, static mode, and seeded random generators. Tests write nothing into the source tree:
no pytest cache (pyproject's addopts), no Hypothesis database."""
import atexit
import shutil
import tempfile

import numpy as np
import pytest

import pyfluid
from pyfluid.executor import Scope, scope_guard
from pyfluid.framework import context, unique_name
from distributed_fixtures import MPI_SKIP_REASON
from shared_fixtures import SHARED, SKIP_REASON

try:
    from hypothesis import settings
except ImportError:      # hypothesis is in the test extra; the suite still runs without it
    pass
else:
    from hypothesis.configuration import set_hypothesis_home_dir
    _hypothesis_home = tempfile.mkdtemp(prefix="pyfluid-hypothesis-")
    atexit.register(shutil.rmtree, _hypothesis_home, ignore_errors=True)
    set_hypothesis_home_dir(_hypothesis_home)
    settings.register_profile("pyfluid", database=None, derandomize=True)
    settings.load_profile("pyfluid")


@pytest.fixture(autouse=True)
def fresh_state():
    context.reset_default_programs()
    pyfluid.enable_static()
    pyfluid.seed(2024)
    np.random.seed(2024)
    with unique_name.guard(), scope_guard(Scope()):
        yield
    pyfluid.disable_static()


def pytest_terminal_summary(terminalreporter):
    """Say loudly how many tests could not run for lack of the shared fixtures."""
    skipped = [r for r in terminalreporter.stats.get("skipped", [])
               if SKIP_REASON in str(getattr(r, "longrepr", ""))]
    if skipped:
        terminalreporter.write_sep(
            "!", f"{len(skipped)} tests SKIPPED: the shared fixtures are not at {SHARED}", red=True)
        terminalreporter.write_line("Put the shared folder beside the repository (../shared) or "
                                    "set PYFLUID_SHARED to run them.")
    without_mpi = [r for r in terminalreporter.stats.get("skipped", [])
                   if MPI_SKIP_REASON in str(getattr(r, "longrepr", ""))]
    if without_mpi:
        terminalreporter.write_sep("!", f"{len(without_mpi)} distributed tests SKIPPED: "
                                        f"{MPI_SKIP_REASON}", red=True)
