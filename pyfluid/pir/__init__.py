"""``paddle.pir``: the parts of Paddle's new-IR module that build programs. pyfluid builds the
legacy program IR only (see ``pyfluid.pir_utils``), so what is here builds into it."""
from . import core

__all__ = ["core"]
