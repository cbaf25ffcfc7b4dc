"""pyfluid: a static-graph deep-learning framework in pure Python on NumPy and protobuf, in the
design of PaddlePaddle's Fluid. ``import pyfluid as paddle`` runs Paddle static-mode code."""
from __future__ import annotations

import importlib.util as _importlib_util

if _importlib_util.find_spec(__name__ + ".framework") is None:
    raise ImportError(
        "pyfluid is imported from its source folder without being installed: the folders "
        "framework/, executor/, ops/ and proto/ become pyfluid.* only through installation. "
        "Run `pip install -e .` (or `pip install .`) in the repository root first.")

from . import framework, ops  # noqa: E402,F401  (registers every op)
from .executor import CPUPlace, LoDTensor
from .framework import (Program, disable_static, enable_static, in_dynamic_mode)
from .ops.random import seed as _seed_ops
from .ops.types import VarType
from .tensor_api import (add, add_n, cast, concat, divide, matmul, maximum, mean, minimum,
                         multiply, relu, reshape, scale, sigmoid, subtract, sum, tanh,
                         transpose)
from . import nn, static  # noqa: E402
from . import dataset  # noqa: E402
from .dataset.reader import batch  # noqa: E402

float16, float32, float64 = VarType.FP16, VarType.FP32, VarType.FP64
int8, int16, int32, int64 = VarType.INT8, VarType.INT16, VarType.INT32, VarType.INT64
uint8, bool = VarType.UINT8, VarType.BOOL  # noqa: A001  (Paddle exports paddle.bool)
__version__ = "0.1.0"


def seed(value: int):
    """Seed pyfluid's default random generator (initializers, dropout, eager randn)."""
    _seed_ops(int(value))


__all__ = [
    "CPUPlace", "LoDTensor", "Program", "add", "add_n", "cast", "concat", "disable_static",
    "divide", "enable_static", "in_dynamic_mode", "matmul", "maximum", "mean", "minimum",
    "multiply", "nn", "relu", "reshape", "scale", "seed", "sigmoid", "static", "subtract", "sum",
    "tanh", "transpose",
]
__all__ += ["batch", "dataset"]
from . import autograd, eager, jit  # noqa: E402
from .tensor_api import abs, exp, log, split, sqrt, square  # noqa: E402,A004
from .eager import (Tensor, arange, full, full_like, grad, is_grad_enabled, no_grad,  # noqa: E402
                    ones, ones_like, rand, randn, set_grad_enabled, to_tensor, zeros, zeros_like)
__all__ += ["Tensor", "abs", "arange", "autograd", "eager", "exp", "jit", "split", "full", "full_like", "grad",
            "is_grad_enabled", "log", "no_grad", "ones", "ones_like", "rand", "randn",
            "set_grad_enabled", "sqrt", "square", "to_tensor", "zeros", "zeros_like"]
from . import optimizer, regularizer  # noqa: E402
from .param_attr import ParamAttr  # noqa: E402
from .static.nn import create_parameter  # noqa: E402
__all__ += ["ParamAttr", "create_parameter", "optimizer", "regularizer"]
from . import fluid  # noqa: E402  (the fluid-era API: paddle.fluid)
__all__ += ["fluid"]
from .tensor_manip import (broadcast_to, expand, flatten, gather, slice, squeeze,  # noqa: E402,A004
                           stack, tile, unsqueeze, where)
from .tensor_math import (argmax, argmin, argsort, clip, cumsum, equal,  # noqa: E402,A004
                          greater_equal, greater_than, less_equal, less_than, max, min,
                          not_equal, pow, topk)
from . import utils  # noqa: E402  (paddle.utils.unique_name)
__all__ += ["argmax", "argmin", "argsort", "broadcast_to", "clip", "cumsum", "equal", "expand",
            "flatten", "gather", "greater_equal", "greater_than", "less_equal", "less_than",
            "max", "min", "not_equal", "pow", "slice", "squeeze", "stack", "tile", "topk",
            "unsqueeze", "utils", "where"]
from .tensor_more import (all, any, assign, floor, floor_divide, increment,  # noqa: E402,A004
                          isfinite, logsumexp, mod, prod, reciprocal, remainder, round, rsqrt,
                          sign, std, var)
from . import linalg  # noqa: E402
__all__ += ["all", "any", "assign", "floor", "floor_divide", "increment", "isfinite", "linalg",
            "logsumexp", "mod", "prod", "reciprocal", "remainder", "round", "rsqrt", "sign",
            "std", "var"]
from . import variable_methods  # noqa: E402,F401  (x[i], x.sum()... on static Variables)
from .io.state_io import load, save  # noqa: E402  (paddle.save / paddle.load of state dicts)
__all__ += ["load", "save"]
