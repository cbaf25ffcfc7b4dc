"""The op registry and every op declaration. Importing this package registers all ops: each
family module registers its ops when imported; double_grad and fused come last because they
refer to ops declared before them."""
from . import (  # noqa: F401
    activation, collective, control_flow, conv, creation, dropout, elementwise, embedding,
    feed_fetch, index, index_assign, linalg, logic, loss, manipulation, math, metric, norm,
    optimizer, pool, py_func, random, reduce, search, slicing, tensor_array)
from . import attribute, einsum, rnn  # noqa: F401
from . import (activation_piecewise, activation_smooth, conv_transpose, group_norm,  # noqa: F401
               interpolate, pad)
from . import double_grad, fused, fused_conv  # noqa: F401
from .registry import (EMPTY_VAR, GRAD_SUFFIX, OpDef, get_op, grad_name, has_op, register_op,
                       registered_ops)
from .types import AttrType, Meta, VarType, convert_dtype

__all__ = ["AttrType", "EMPTY_VAR", "GRAD_SUFFIX", "Meta", "OpDef", "VarType", "convert_dtype",
           "get_op", "grad_name", "has_op", "register_op", "registered_ops"]
