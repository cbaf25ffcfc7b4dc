"""``paddle.jit``: dynamic-to-static conversion (``to_static``, with Python control flow on
Tensors converted into ``cond``/``while_loop``), saving and loading converted models."""
from .dy2static import ignore_module
from .dy2static.logging_utils import set_code_level, set_verbosity
from .save_load import TranslatedLayer, load, save
from .to_static import StaticFunction, enable_to_static, not_to_static, to_static

__all__ = ["StaticFunction", "TranslatedLayer", "enable_to_static", "ignore_module", "load",
           "not_to_static", "save", "set_code_level", "set_verbosity", "to_static"]
