"""The op registry and every op declaration. Importing this package registers all ops."""
from . import activation, elementwise, linalg, logic, math, reduce  # noqa: F401
from . import creation, feed_fetch, random  # noqa: F401
from . import py_func  # noqa: F401  (the custom Python operator)
from . import dropout, embedding, loss, optimizer_ops  # noqa: F401
from . import conv, manipulation, norm, pool, slicing  # noqa: F401
from . import index, metric, search  # noqa: F401
from . import double_grad  # noqa: F401,E402  (grad makers of grad ops; after the ops)
from . import fused  # noqa: F401,E402  (fc, fused_elemwise_activation: put in by graph passes)
from .registry import (EMPTY_VAR, GRAD_SUFFIX, OpDef, get_op, grad_name, has_op, register_op,
                       registered_ops)
from .types import AttrType, Meta, VarType, convert_dtype

__all__ = ["AttrType", "EMPTY_VAR", "GRAD_SUFFIX", "Meta", "OpDef", "VarType", "convert_dtype",
           "get_op", "grad_name", "has_op", "register_op", "registered_ops"]
