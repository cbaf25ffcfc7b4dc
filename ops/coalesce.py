"""coalesce_tensor: Paddle's op that lays several tensors out in one fused buffer. The RNN
layers (paddle.nn.LSTM/GRU/SimpleRNN) append it to the startup program to pack their weights
for cuDNN; here the outputs are the inputs' values (or ``constant``) and FusedOutput their
concatenation, so such startup programs run and save as Paddle's do."""
from __future__ import annotations

import numpy as np

from .registry import register_op
from .types import AttrType, Meta, to_numpy_dtype

coalesce_tensor = register_op(
    "coalesce_tensor", inputs=["Input*"], outputs=["Output*", "FusedOutput"],
    attrs={"dtype": 5, "copy_data": False, "set_constant": False, "persist_output": False,
           "constant": 0.0, "use_align": True, "align_size": -1,
           "user_defined_size_of_dtype": -1, "concated_shapes": (AttrType.LONGS, []),
           "concated_ranks": (AttrType.LONGS, [])},
    differentiable=False)


@coalesce_tensor.def_infer_shape
def coalesce_tensor_shape(inputs: list, **_):
    sizes = [int(np.prod(m.shape)) if -1 not in m.shape else -1 for m in inputs]
    total = -1 if -1 in sizes else sum(sizes)
    return list(inputs), Meta((total,), inputs[0].dtype)


@coalesce_tensor.def_kernel
def coalesce_tensor_kernel(inputs, *, dtype, copy_data, set_constant, constant):
    np_dtype = to_numpy_dtype(dtype)
    if set_constant:
        outputs = [np.full(x.shape, constant, dtype=np_dtype) for x in inputs]
    elif copy_data:
        outputs = [x.astype(np_dtype, copy=True) for x in inputs]
    else:
        outputs = [np.zeros(x.shape, dtype=np_dtype) for x in inputs]
    fused = np.concatenate([o.ravel() for o in outputs]) if outputs else np.zeros(0, np_dtype)
    return outputs, fused
