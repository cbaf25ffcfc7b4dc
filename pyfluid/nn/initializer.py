"""``paddle.nn.initializer``: parameter initializers.

An initializer called as ``init(var, block)`` appends one init op (uniform_random,
gaussian_random, truncated_gaussian_random, fill_constant or assign_value, with Paddle 2.6's
attributes) that writes ``var`` in ``block`` (the startup program, for parameters). Called on an
eager Tensor it runs the same op's kernel and stores the result in the tensor.
A seed of 0 means "the program's ``random_seed``"; with that also 0 the op draws from the default
generator that ``pyfluid.seed`` reseeds.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..framework.context import default_main_program
from ..framework.layer_helper import check_type
from ..framework.variable import Variable
from ..ops.registry import get_op
from ..ops.types import VarType, convert_dtype, dtype_name

__all__ = ["Assign", "Constant", "Initializer", "KaimingNormal", "KaimingUniform", "Normal",
           "NumpyArrayInitializer", "TruncatedNormal", "Uniform", "XavierNormal",
           "XavierUniform", "calculate_gain"]


class Initializer:
    """Base class: subclasses say which op and attrs initialize a variable (``_op``)."""

    def __call__(self, var: Any, block: Any = None):
        return self.forward(var, block)

    def forward(self, var: Any, block: Any = None):
        block = block if block is not None else default_main_program().global_block()
        op_type, attrs = self._op(var, block)
        if not isinstance(var, Variable):         # an eager Tensor: compute the value now
            var._array = get_op(op_type).run(**attrs)
            return None
        op = block.append_op(type=op_type, outputs={"Out": var}, attrs=attrs)
        var.op = op
        return op

    def _op(self, var: Any, block: Any) -> tuple[str, dict]:
        raise NotImplementedError

    @staticmethod
    def _seed(seed: int, block: Any) -> int:
        return seed if seed != 0 else block.program.random_seed

    @staticmethod
    def _compute_fans(var: Any) -> tuple[float, float]:
        """(fan_in, fan_out): [in, out] for matrices, [out, in, *kernel] for convolutions."""
        shape = list(var.shape)
        if not shape:
            return 1, 1
        if len(shape) == 1:
            return shape[0], shape[0]
        if len(shape) == 2:
            return shape[0], shape[1]
        receptive = int(np.prod(shape[2:]))
        return shape[1] * receptive, shape[0] * receptive


def _float_dtype(var: Any, api: str) -> int:
    dtype = convert_dtype(var.dtype)
    if dtype_name(dtype) not in ("float16", "bfloat16", "float32", "float64"):
        raise TypeError(f"The data type of 'Out' in {api} must be ['uint16', 'float16', "
                        f"'float32', 'float64'], but received {dtype_name(dtype)}. ")
    return int(dtype)


class ConstantInitializer(Initializer):
    def __init__(self, value: float = 0.0, force_cpu: bool = False):
        if value is None:
            raise ValueError("value must not be none.")
        self._value = value
        self._force_cpu = force_cpu

    def _op(self, var, block):
        return "fill_constant", {"shape": list(var.shape), "dtype": int(convert_dtype(var.dtype)),
                                 "value": float(self._value), "str_value": str(float(self._value)),
                                 "force_cpu": self._force_cpu}


class Constant(ConstantInitializer):
    """Fill with ``value`` (fill_constant)."""

    def __init__(self, value: float = 0.0):
        super().__init__(value=value, force_cpu=False)


class UniformInitializer(Initializer):
    def __init__(self, low: float = -1.0, high: float = 1.0, seed: int = 0, diag_num: int = 0,
                 diag_step: int = 0, diag_val: float = 1.0):
        if low is None or high is None:
            raise ValueError("low and high of Uniform must not be None")
        if low > high:
            raise ValueError(f"Uniform: low ({low}) must not be greater than high ({high})")
        self._low, self._high, self._seed_value = low, high, seed
        self._diag = (diag_num, diag_step, diag_val)

    def _op(self, var, block):
        return "uniform_random", {
            "shape": list(var.shape), "dtype": _float_dtype(var, "uniform_random"),
            "min": float(self._low), "max": float(self._high),
            "seed": self._seed(self._seed_value, block), "diag_num": self._diag[0],
            "diag_step": self._diag[1], "diag_val": float(self._diag[2])}


class Uniform(UniformInitializer):
    """Uniform on [low, high] (uniform_random)."""

    def __init__(self, low: float = -1.0, high: float = 1.0, name: str | None = None):
        super().__init__(low=low, high=high, seed=0)


class NormalInitializer(Initializer):
    def __init__(self, loc: float = 0.0, scale: float = 1.0, seed: int = 0):
        self._mean, self._std, self._seed_value = loc, scale, seed

    _op_type = "gaussian_random"

    def _op(self, var, block):
        return self._op_type, {"shape": list(var.shape), "dtype": _float_dtype(var, self._op_type),
                               "mean": float(self._mean), "std": float(self._std),
                               "seed": self._seed(self._seed_value, block)}


class Normal(NormalInitializer):
    """Normal(mean, std) (gaussian_random)."""

    def __init__(self, mean: float = 0.0, std: float = 1.0, name: str | None = None):
        super().__init__(loc=_required(mean, "mean"), scale=_required(std, "std"), seed=0)


class TruncatedNormalInitializer(NormalInitializer):
    _op_type = "truncated_gaussian_random"


class TruncatedNormal(TruncatedNormalInitializer):
    """Normal(mean, std) truncated to two std (truncated_gaussian_random)."""

    def __init__(self, mean: float = 0.0, std: float = 1.0, name: str | None = None):
        super().__init__(loc=_required(mean, "mean"), scale=_required(std, "std"), seed=0)


class XavierInitializer(Initializer):
    def __init__(self, uniform: bool = True, fan_in: float | None = None,
                 fan_out: float | None = None, seed: int = 0):
        self._uniform, self._fan_in, self._fan_out, self._seed_value = uniform, fan_in, fan_out, seed

    def _op(self, var, block):
        f_in, f_out = self._compute_fans(var)
        fan_in = f_in if self._fan_in is None else self._fan_in
        fan_out = f_out if self._fan_out is None else self._fan_out
        common = {"shape": list(var.shape), "dtype": _float_dtype(var, "xavier_init"),
                  "seed": self._seed(self._seed_value, block)}
        if self._uniform:
            limit = math.sqrt(6.0 / float(fan_in + fan_out))
            return "uniform_random", {**common, "min": -limit, "max": limit}
        return "gaussian_random", {**common, "mean": 0.0,
                                   "std": math.sqrt(2.0 / float(fan_in + fan_out))}


class XavierUniform(XavierInitializer):
    """Uniform on [-x, x], x = sqrt(6 / (fan_in + fan_out)): fc's default weight init."""

    def __init__(self, fan_in: float | None = None, fan_out: float | None = None,
                 name: str | None = None):
        super().__init__(uniform=True, fan_in=fan_in, fan_out=fan_out, seed=0)


class XavierNormal(XavierInitializer):
    """Normal(0, sqrt(2 / (fan_in + fan_out)))."""

    def __init__(self, fan_in: float | None = None, fan_out: float | None = None,
                 name: str | None = None):
        super().__init__(uniform=False, fan_in=fan_in, fan_out=fan_out, seed=0)


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The recommended gain for an activation (Paddle's table)."""
    slope = 0.01 if param is None else float(param)
    gains = {"sigmoid": 1, "linear": 1, "conv1d": 1, "conv2d": 1, "conv3d": 1,
             "conv1d_transpose": 1, "conv2d_transpose": 1, "conv3d_transpose": 1,
             "tanh": 5.0 / 3, "relu": math.sqrt(2.0),
             "leaky_relu": math.sqrt(2.0 / (1 + slope ** 2)), "selu": 3.0 / 4}
    if nonlinearity not in gains:
        raise ValueError(f"nonlinearity function {nonlinearity} is not suppported now.")
    return gains[nonlinearity]


class MSRAInitializer(Initializer):
    def __init__(self, uniform: bool = True, fan_in: float | None = None, seed: int = 0,
                 negative_slope: float = 0, nonlinearity: str = "relu"):
        self._uniform, self._fan_in, self._seed_value = uniform, fan_in, seed
        self._negative_slope, self._nonlinearity = negative_slope, nonlinearity

    def _op(self, var, block):
        fan_in = self._compute_fans(var)[0] if self._fan_in is None else self._fan_in
        gain = calculate_gain(self._nonlinearity, self._negative_slope)
        common = {"shape": list(var.shape), "dtype": _float_dtype(var, "kaiming_init"),
                  "seed": self._seed(self._seed_value, block)}
        if self._uniform:
            limit = gain * math.sqrt(3.0 / float(fan_in))
            return "uniform_random", {**common, "min": -limit, "max": limit}
        return "gaussian_random", {**common, "mean": 0.0, "std": gain / math.sqrt(float(fan_in))}


class KaimingUniform(MSRAInitializer):
    """Uniform on [-x, x], x = gain * sqrt(3 / fan_in)."""

    def __init__(self, fan_in: float | None = None, negative_slope: float = 0.0,
                 nonlinearity: str = "relu"):
        super().__init__(uniform=True, fan_in=fan_in, seed=0, negative_slope=negative_slope,
                         nonlinearity=nonlinearity)


class KaimingNormal(MSRAInitializer):
    """Normal(0, gain / sqrt(fan_in))."""

    def __init__(self, fan_in: float | None = None, negative_slope: float = 0.0,
                 nonlinearity: str = "relu"):
        super().__init__(uniform=False, fan_in=fan_in, seed=0, negative_slope=negative_slope,
                         nonlinearity=nonlinearity)


_ASSIGN_VALUE_ATTR = {VarType.FP32: ("fp32_values", float), VarType.FP64: ("fp64_values", float),
                      VarType.INT32: ("int32_values", int), VarType.INT64: ("int64_values", int),
                      VarType.BOOL: ("bool_values", int)}    # Paddle stores bools as INTS


class NumpyArrayInitializer(Initializer):
    """Copy a NumPy array into the variable (assign_value)."""

    def __init__(self, value: np.ndarray):
        check_type(value, "value", np.ndarray, "NumpyArrayInitializer")
        self._value = value

    def _op(self, var, block):
        dtype = convert_dtype(var.dtype)
        if dtype not in _ASSIGN_VALUE_ATTR:
            raise ValueError(f"Unsupported dtype {self._value.dtype} for parameter "
                             f"'{var.name}' ({dtype_name(dtype)}); use float32/float64/int32/"
                             "int64/bool")
        if self._value.size > 1024 * 1024 * 1024:
            raise ValueError("The size of input is too big. Please consider saving it to file "
                             "and 'load_op' to load it")
        key, cast = _ASSIGN_VALUE_ATTR[dtype]
        return "assign_value", {"shape": list(self._value.shape), "dtype": int(dtype),
                                key: [cast(v) for v in self._value.flat]}


class Assign(NumpyArrayInitializer):
    """Initialize from a NumPy array, list or tuple."""

    def __init__(self, value: Any, name: str | None = None):
        if hasattr(value, "numpy") and not isinstance(value, (np.ndarray, Variable)):
            value = value.numpy()                 # an eager Tensor
        check_type(value, "value", (np.ndarray, list, tuple), "Assign")
        if isinstance(value, (list, tuple)):
            value = np.array(value)
        super().__init__(value)


def _required(value, what: str):
    if value is None:
        raise ValueError(f"{what} should not be None")
    return value
