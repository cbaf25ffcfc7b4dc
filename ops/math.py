"""Scale."""
from __future__ import annotations

from .registry import register_op

# -- scale --------------------------------------------------------------------------------------
scale = register_op("scale", inputs=["X", "ScaleTensor?"], outputs=["Out"],
                    attrs={"scale": 1.0, "bias": 0.0, "bias_after_scale": True},
                    no_grad=["ScaleTensor"],
                    infer_shape=lambda x, scale_tensor=None, **_: x)


@scale.def_kernel
def scale_kernel(x, scale_tensor=None, *, scale, bias, bias_after_scale):
    s = x.dtype.type(scale_tensor.reshape(()) if scale_tensor is not None else scale)
    if bias_after_scale:
        return x * s + x.dtype.type(bias) if bias else x * s
    return (x + x.dtype.type(bias)) * s


@scale.def_grad
def scale_grad(scaletensor, dout, *, scale):
    s = scaletensor.reshape(()) if scaletensor is not None else scale
    return dout * dout.dtype.type(s), None
