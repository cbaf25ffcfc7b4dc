"""Paddle's ``monkey_patch_variable`` / ``monkey_patch_tensor``: the tensor methods
(``x.sum()``, ``x.reshape(...)``, ``x.max()``...) that forward to the functional API, and
indexing (``indexing.py``: ``x[:, 1]`` appends a ``slice`` op, or runs it eagerly). The
engine and the framework define the classes; the public API gives them these methods when it
is imported."""
from __future__ import annotations

from ..engine.tensor import Tensor
from ..framework.variable import Variable
from .attribute import variable_size
from .indexing import getitem, setitem, variable_setitem
from .variable_index import array_append, array_getitem, is_array


def api_method(name: str):
    """``value.<name>(...)`` = ``paddle.<name>(value, ...)`` (the functional API)."""
    def method(self, *args, **kwargs):
        import pyfluid
        return getattr(pyfluid, name)(self, *args, **kwargs)
    method.__name__ = name
    method.__doc__ = f"``paddle.{name}(self, ...)``."
    return method


# the methods static Variables and eager Tensors share; each class keeps what it defines itself
_METHODS = (
    "abs", "add", "all", "any", "argmax", "argmin", "argsort", "cast", "clip", "cumsum",
    "divide", "equal", "exp", "expand", "flatten", "floor", "gather", "greater_equal",
    "greater_than", "isfinite", "less_equal", "less_than", "log", "logsumexp", "matmul", "max",
    "maximum", "mean", "min", "minimum", "multiply", "not_equal", "pow", "prod", "reciprocal",
    "relu", "reshape", "round", "rsqrt", "scale", "sigmoid", "sign", "split", "sqrt", "square",
    "squeeze", "std", "subtract", "sum", "tanh", "tile", "topk", "transpose", "unsqueeze", "var")
_METHODS += ("bmm", "ceil", "cos", "index_select", "sin", "take_along_axis", "tril", "triu")


def patch_methods() -> None:
    """Give Variables and Tensors their Paddle methods (run once by ``import pyfluid``)."""
    Tensor.__getitem__ = getitem
    Variable.__getitem__ = _variable_getitem
    Variable.append = array_append         # a tensor array (dynamic-to-static's lists)
    Variable.__setitem__ = variable_setitem
    Tensor.__setitem__ = setitem
    Variable.size = variable_size          # eager Tensor.size is a property (an int)
    for cls in (Variable, Tensor):
        for name in _METHODS:
            if name not in vars(cls):
                setattr(cls, name, api_method(name))


def _variable_getitem(self, index):
    return array_getitem(self, index) if is_array(self) else getitem(self, index)
