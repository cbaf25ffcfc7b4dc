"""Every test starts from fresh default programs, fresh unique-name counters, a fresh global
scope, static mode, and seeded random generators."""
import numpy as np
import pytest

import pyfluid
from pyfluid.executor import Scope, scope_guard
from pyfluid.framework import context, unique_name


@pytest.fixture(autouse=True)
def fresh_state():
    context.reset_default_programs()
    pyfluid.enable_static()
    pyfluid.seed(2024)
    np.random.seed(2024)
    with unique_name.guard(), scope_guard(Scope()):
        yield
    pyfluid.disable_static()
