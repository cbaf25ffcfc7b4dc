"""``paddle.jit``: dynamic-to-static conversion by tracing, and saving/loading traced models.
Python control flow is fixed when a function is traced; see ``to_static.py``."""
from .save_load import TranslatedLayer, load, save
from .to_static import StaticFunction, not_to_static, to_static

__all__ = ["StaticFunction", "TranslatedLayer", "load", "not_to_static", "save", "to_static"]
