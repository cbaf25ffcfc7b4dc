"""``paddle.tensor``: the functional tensor API, laid out as Paddle's ``python/paddle/tensor``."""
from .creation import (arange, assign, create_global_var, full, full_like, ones, ones_like,
                       to_tensor, zeros, zeros_like)
from .index_ops import (broadcast_tensors, gather_nd, index_put, nonzero,
                        unique_consecutive)
from .linalg import matmul, norm
from .logic import (equal, greater_equal, greater_than, less_equal, less_than, logical_and,
                    logical_not, logical_or, logical_xor, not_equal)
from .manipulation import (broadcast_to, cast, concat, expand, flatten, gather, reshape, slice,
                           split, squeeze, stack, tensor_array_to_tensor, tile, transpose,
                           unsqueeze)
from .math import (abs, add, add_n, all, any, clip, cumsum, divide, exp, floor, floor_divide,
                   increment, isfinite, log, logsumexp, max, maximum, min, minimum, mod,
                   multiply, pow, prod, reciprocal, relu, remainder, round, rsqrt, scale,
                   sigmoid, sign, sqrt, square, subtract, sum, tanh)
from .random import rand, randn
from .search import argmax, argmin, argsort, topk, where
from .stat import mean, std, var
from .attribute import shape
from .creation import tril, triu
from .creation import fill_constant  # paddle.tensor.fill_constant, not at paddle's top level
from .einsum import einsum
from .linalg import bmm
from .manipulation import take_along_axis
from .math import ceil, cos, sin
from .search import index_select
from .stat import numel
from . import array  # noqa: E402  (paddle.tensor.array; not in paddle's top level, as in Paddle)
from .array import array_length, array_read, array_write, create_array  # noqa: E402,F401


__all__ = [
    "abs", "add", "add_n", "all", "any", "arange", "argmax", "argmin", "argsort", "assign",
    "broadcast_to", "cast", "clip", "concat", "create_global_var", "cumsum", "divide", "equal",
    "exp", "expand", "flatten", "floor", "floor_divide", "full", "full_like", "gather",
    "greater_equal", "greater_than", "increment", "isfinite", "less_equal", "less_than", "log",
    "logical_and", "logical_not", "logical_or", "logical_xor",
    "logsumexp", "matmul", "max", "maximum", "mean", "min", "minimum", "mod", "multiply", "norm",
    "not_equal", "ones", "ones_like", "pow", "prod", "rand", "randn", "reciprocal", "relu",
    "remainder", "reshape", "round", "rsqrt", "scale", "sigmoid", "sign", "slice", "split",
    "sqrt", "square", "squeeze", "stack", "std", "subtract", "sum", "tanh", "tile", "to_tensor",
    "topk", "transpose", "unsqueeze", "var", "where", "zeros", "zeros_like"]
__all__ += ["bmm", "ceil", "cos", "einsum", "index_select", "numel", "shape", "sin",
            "take_along_axis", "tril", "triu"]
__all__ += ["broadcast_tensors", "gather_nd", "index_put", "nonzero", "unique_consecutive"]
