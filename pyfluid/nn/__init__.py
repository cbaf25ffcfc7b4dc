"""``paddle.nn``."""
from . import functional  # noqa: F401
