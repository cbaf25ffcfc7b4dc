"""The one place tests locate the user's shared material: ``../shared`` beside the repository
root, or ``$PYFLUID_SHARED``. Tests that need it are skipped with :data:`SKIP_REASON` when it is
absent, and the session summary (tests/conftest.py) says loudly how many were."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("PYFLUID_SHARED") or REPO_ROOT.parent / "shared")
PADDLE_FIXTURES = SHARED / "fixtures" / "paddle"
SEEDS = SHARED / "seeds"
SKIP_REASON = f"shared fixtures absent: {SHARED} (set PYFLUID_SHARED)"

needs_shared = pytest.mark.skipif(not PADDLE_FIXTURES.is_dir(), reason=SKIP_REASON)
