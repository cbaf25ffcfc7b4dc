"""Variables of a static program: metadata only (name, kind, shape, dtype, flags)."""
from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from ..ops.call_site import is_pyfluid_module, user_site
from ..ops.registry import grad_name
from ..ops.types import Meta, VarType, convert_dtype, to_numpy_dtype
from . import unique_name
from .arithmetic import OperatorMethods, scale_rule
from .desc import VarDesc
from .errors import tensor_bool_error

if TYPE_CHECKING:
    from .block import Block
    from .operator import Operator


class Variable(OperatorMethods):
    """A named value of a Block. Arithmetic on Variables appends ops, as in Paddle."""

    __array_ufunc__ = None      # ``ndarray + var`` defers to Variable.__radd__

    def __init__(self, block: "Block", name: str, type: VarType = VarType.LOD_TENSOR,
                 shape: Sequence[int] | None = None, dtype: Any = None, lod_level: int | None = None,
                 persistable: bool = False, stop_gradient: bool = False, is_data: bool = False,
                 need_check_feed: bool = False, belong_to_optimizer: bool = False):
        self.block = block
        self._name = name
        if isinstance(dtype, int) and dtype == VarType.STRINGS:
            type, dtype, lod_level = VarType.STRINGS, None, None     # a STRINGS "dtype" is a kind
        self.type = VarType(type)
        self._shape = None if shape is None else _check_shape(shape)
        self._dtype = None if dtype is None else convert_dtype(dtype)
        self._lod_level = lod_level       # None: the VarDesc carries no lod_level field
        self._persistable = bool(persistable)
        self._stop_gradient = bool(stop_gradient)
        self.is_data = is_data
        self.need_check_feed = need_check_feed
        self.belong_to_optimizer = belong_to_optimizer
        self.op: "Operator | None" = None
        self.desc_attrs: list = []          # VarDesc.attrs as parsed (kept for round-trips)
        self.has_stop_gradient = False      # whether a parsed VarDesc carried these fields
        self.has_is_parameter = False
        self.has_persistable = True         # (pyfluid always writes persistable)

    # -- properties -------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self._name

    @name.setter
    def name(self, new_name: str) -> None:
        self.block._rename_var(self._name, new_name)

    @property
    def shape(self) -> tuple:
        return self._shape if self._shape is not None else ()

    @property
    def dtype(self) -> VarType:
        return self._dtype if self._dtype is not None else VarType.FP32

    @property
    def has_tensor_desc(self) -> bool:
        return self._shape is not None or self._dtype is not None

    @property
    def lod_level(self) -> int | None:
        """Paddle's: the LoD depth of a tensor (0 unless set), None for a STRINGS variable;
        a SelectedRows has none."""
        if self.type == VarType.SELECTED_ROWS:
            raise Exception("SelectedRows DO NOT support lod")
        if self.type == VarType.STRINGS:
            return None
        return self._lod_level or 0

    @lod_level.setter
    def lod_level(self, value: int | None) -> None:
        self._lod_level = value
        self.block.program._bump()

    @property
    def persistable(self) -> bool:
        return self._persistable

    @persistable.setter
    def persistable(self, value: bool) -> None:
        self._persistable = bool(value)
        self.block.program._bump()

    @property
    def stop_gradient(self) -> bool:
        return self._stop_gradient

    @stop_gradient.setter
    def stop_gradient(self, value: bool) -> None:
        self._stop_gradient = bool(value)
        self.block.program._bump()

    @property
    def is_parameter(self) -> bool:
        return False

    @property
    def desc(self) -> "VarDesc":
        """Paddle's ``var.desc`` accessors (a view; the Variable is the source of truth)."""
        return VarDesc(self)

    @property
    def grad_name(self) -> str:
        return grad_name(self._name)

    @property
    def meta(self) -> Meta:
        return Meta(self.shape, self.dtype)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def _set_meta(self, meta: Meta) -> None:
        self._shape = tuple(int(d) for d in meta.shape)
        self._dtype = convert_dtype(meta.dtype)

    def __repr__(self) -> str:
        from .printer import var_to_text
        return var_to_text(self).strip()

    __str__ = __repr__

    def to_string(self, throw_on_error: bool = False, with_details: bool = False) -> str:
        return repr(self)

    def __bool__(self) -> bool:
        converting = self.block.program._converting
        # to_static: the user's Python `if` on a value not known yet (pyfluid's own code keeps
        # Paddle's rule, a Variable is true)
        if converting is not None and not is_pyfluid_module(
                sys._getframe(1).f_globals.get("__name__")):
            raise tensor_bool_error(self, converting, user_site())
        return True

    def element_size(self) -> int:
        return to_numpy_dtype(self.dtype).itemsize

    def detach(self) -> "Variable":
        """A stop_gradient Variable sharing this one's value (op ``share_data``)."""
        if self.type not in (VarType.LOD_TENSOR, VarType.SELECTED_ROWS):
            raise AssertionError("only support a variable with SELECTED_ROWS or LOD_TENSOR to be "
                                 "detached")
        out = self.block.create_var(
            name=unique_name.generate_with_ignorable_key("detach_" + self.name),
            dtype=self._dtype, type=self.type, persistable=self.persistable, stop_gradient=True)
        out._shape = self._shape
        self.block.append_op(type="share_data", inputs={"X": [self]}, outputs={"Out": [out]})
        return out

    # dynamic-graph methods: a static Variable has no value to give (Paddle's fake interfaces)
    def numpy(self):
        _dynamic_only("numpy")

    def backward(self, *args, **kwargs):
        _dynamic_only("backward")

    def gradient(self):
        _dynamic_only("gradient")

    def clear_gradient(self):
        _dynamic_only("clear_gradient")

    # -- ops through operators (Paddle's patched operators) ------------------------------------
    def _binary(self, op_type: str, other: Any, reverse: bool = False) -> "Variable":
        """``self <op> other`` (``other <op> self`` when ``reverse``), as Paddle appends it."""
        if isinstance(other, (int, float, np.integer, np.floating)) and not isinstance(other, bool):
            rule = scale_rule(op_type, reverse)
            if rule is not None:
                return self._scale(*rule(float(other)))
            # Paddle 2.6: a 0-D constant for ``x <op> c``; for ``c <op> x`` one of x's shape
            # (Paddle's batch-size-like fill when a dim is unknown; pyfluid then uses [1])
            shape = list(self.shape) if reverse and all(d >= 0 for d in self.shape) else \
                [1] if reverse else []
            other = self._constant(shape, other)
        if not isinstance(other, Variable):
            return NotImplemented
        lhs, rhs = (other, self) if reverse else (self, other)
        attrs = {} if op_type == "matmul_v2" else {"axis": -1}
        return self._operator_op(op_type, {"X": lhs, "Y": rhs}, attrs)

    def __neg__(self) -> "Variable":
        return self._scale(-1.0, 0.0)

    @property
    def T(self) -> "Variable":
        perm = list(range(len(self.shape)))[::-1]
        return self.block.program.current_block()._append_with_temporaries(
            "transpose2", {"X": self}, {"axis": perm})

    def astype(self, dtype: Any) -> "Variable":
        return self._operator_op("cast", {"X": self}, {"in_dtype": int(self.dtype),
                                                       "out_dtype": int(convert_dtype(dtype))})

    def _operator_op(self, op_type: str, inputs: dict, attrs: dict) -> "Variable":
        """One op for a Python operator: its output is a fresh ``tmp_<n>`` (``unique_name``
        key "tmp"), as Paddle's patched operators name it."""
        block = self.block.program.current_block()
        out = block.create_var(name=unique_name.generate_with_ignorable_key("tmp"))
        block._append_with_temporaries(op_type, inputs, attrs, outputs={"Out": out})
        return out

    def _scale(self, scale: float, bias: float) -> "Variable":
        """``self * scale + bias`` (``-x``, ``x * 2``, ``x + 1``): one ``scale`` op."""
        return self._operator_op("scale", {"X": self}, {"scale": float(scale), "bias": float(bias),
                                                        "bias_after_scale": True})

    def _constant(self, shape: list, value: float) -> "Variable":
        """The constant operand of ``x <op> c`` (Paddle's create_tensor: a ``tmp_<n>``)."""
        block = self.block.program.current_block()
        out = block.create_var(name=unique_name.generate_with_ignorable_key("tmp"))
        block.append_op(type="fill_constant", outputs={"Out": out},
                        attrs={"shape": shape, "dtype": int(self.dtype), "value": float(value)})
        return out


class Parameter(Variable):
    """A persistable, trainable Variable of the global block."""

    def __init__(self, block: "Block", name: str, shape: Sequence[int], dtype: Any,
                 trainable: bool = True, optimize_attr: dict | None = None, regularizer=None,
                 need_clip: bool = True, **kwargs):
        if shape is None:
            raise ValueError("The shape of Parameter should not be None")
        if dtype is None:
            raise ValueError("The dtype of Parameter should not be None")
        for d in shape:
            if d < 0:
                raise ValueError("Each dimension of shape for Parameter must be greater than 0, "
                                 f"but received {list(shape)}")
        kwargs.pop("persistable", None)
        kwargs.pop("stop_gradient", None)
        super().__init__(block, name, shape=shape, dtype=dtype, persistable=True,
                         stop_gradient=not trainable, **kwargs)
        self.trainable = trainable
        self.optimize_attr = optimize_attr or {"learning_rate": 1.0}
        self.regularizer = regularizer
        self.need_clip = need_clip
        self.do_model_average = None
        self.is_distributed = False

    @property
    def is_parameter(self) -> bool:
        return True

    @property
    def trainable(self) -> bool:
        return self._trainable

    @trainable.setter
    def trainable(self, value: bool) -> None:
        self._trainable = bool(value)
        self.stop_gradient = not value


def _dynamic_only(method: str):
    raise AssertionError(f"'{method}' only can be called by `paddle.Tensor` in dynamic graph "
                         "mode. Suggestions:\n  1. If you are in static graph mode, you can "
                         "switch to dynamic graph mode by turning off `paddle.enable_static()` or "
                         "calling `paddle.disable_static()`.\n  2. If you are using "
                         "`@paddle.jit.to_static`, you can call `paddle.jit.enable_to_static("
                         f"False)`. If you have to translate dynamic graph to static graph, "
                         f"please use other API to replace '{method}'.")


def _check_shape(shape: Sequence[Any]) -> tuple:
    dims = []
    for d in shape:
        d = -1 if d is None else int(d)
        if d < -1:
            raise ValueError("Only -1 can be used in shape to indicate unknown dimension, "
                             f"but received {d}")
        dims.append(d)
    return tuple(dims)
