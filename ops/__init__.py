"""The op registry and every op declaration. Importing this package registers all ops."""
from . import activation, math, reduce, tensor  # noqa: F401  (each module registers its ops)
from . import init_ops  # noqa: F401  (truncated_gaussian_random, assign_value)
from . import py_func  # noqa: F401  (the custom Python operator)
from . import dropout, embedding, loss, optimizer_ops, unary  # noqa: F401
from . import activation_extra, conv, norm, pool, shape_ops  # noqa: F401  (CNN inference ops)
from . import tensor_extra  # noqa: F401  (pow, reduce_max/min, where, cumsum, gather, tile...)
from . import math_extra  # noqa: F401  (sign, floor, round, elu, reduce_prod, logsumexp...)
from . import loss_extra  # noqa: F401  (sigmoid_cross_entropy_with_logits, bce, huber, nll, kldiv)
from . import double_grad  # noqa: F401,E402  (grad makers of grad ops; after the ops)
from . import fused  # noqa: F401,E402  (fc, fused_elemwise_activation: put in by graph passes)
from . import collective  # noqa: F401,E402  (c_allreduce_sum, c_broadcast...: data parallel)
from .registry import (EMPTY_VAR, GRAD_SUFFIX, OpDef, get_op, grad_name, has_op, register_op,
                       registered_ops)
from .types import AttrType, Meta, VarType, convert_dtype

__all__ = ["AttrType", "EMPTY_VAR", "GRAD_SUFFIX", "Meta", "OpDef", "VarType", "convert_dtype",
           "get_op", "grad_name", "has_op", "register_op", "registered_ops"]
