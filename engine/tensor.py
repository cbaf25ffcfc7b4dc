"""The eager Tensor: a NumPy array plus the autograd fields (``stop_gradient``, ``grad``,
the tape node that produced it) and Paddle's Tensor methods and operators.

Arrays are treated as immutable: ops return new arrays and an optimizer updates a parameter
by assigning a new array to ``_array``. ``numpy()`` therefore returns a copy."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..framework import unique_name
from ..framework.arithmetic import OperatorMethods, scale_rule
from ..ops.types import VarType, convert_dtype, to_numpy_dtype


class Tensor(OperatorMethods):
    """Paddle's dynamic-graph Tensor (``paddle.Tensor``)."""

    __slots__ = ("_array", "stop_gradient", "grad", "_name", "_node", "_out_index", "_version",
                 "persistable", "__weakref__")
    __array_priority__ = 100  # ndarray <op> Tensor defers to Tensor's reflected operators

    def __init__(self, value: Any = None, dtype: Any = None, place: Any = None,
                 stop_gradient: bool = True, name: str | None = None):
        array = value._array if isinstance(value, Tensor) else np.array(
            [] if value is None else value)            # a copy: arrays are never shared
        if dtype is not None:
            array = array.astype(to_numpy_dtype(dtype), copy=False)
        self._array = array
        self.stop_gradient = stop_gradient
        self.grad: Tensor | None = None
        self._name = name
        self._node = None          # the tape node whose output this is (None: a leaf)
        self._out_index = 0        # which output of that node
        self._version = 0          # bumped by in-place use (checked by backward)
        self.persistable = False

    @classmethod
    def _wrap(cls, array: np.ndarray, stop_gradient: bool = True) -> "Tensor":
        """A Tensor around ``array`` without copying or checking (the eager fast path)."""
        t = cls.__new__(cls)
        t._array = array
        t.stop_gradient = stop_gradient
        t.grad = None
        t._name = None
        t._node = None
        t._out_index = 0
        t._version = 0
        t.persistable = False
        return t

    # -- metadata -----------------------------------------------------------------------------
    @property
    def name(self) -> str:
        if self._name is None:
            self._name = unique_name.generate("generated_tensor")
        return self._name

    @name.setter
    def name(self, value: str) -> None:
        self._name = value

    @property
    def shape(self) -> list[int]:
        return list(self._array.shape)

    @property
    def dtype(self) -> VarType:
        return convert_dtype(self._array.dtype)

    @property
    def ndim(self) -> int:
        return self._array.ndim

    def dim(self) -> int:
        return self._array.ndim

    @property
    def size(self) -> int:
        return int(self._array.size)

    def numel(self) -> int:
        return int(self._array.size)

    @property
    def place(self) -> str:
        return "Place(cpu)"

    @property
    def is_leaf(self) -> bool:
        return self._node is None

    @property
    def inplace_version(self) -> int:
        return self._version

    # -- values -------------------------------------------------------------------------------
    def numpy(self) -> np.ndarray:
        return self._array.copy()

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        array = self._array if dtype is None else self._array.astype(dtype, copy=False)
        return array.copy() if copy and array is self._array else array

    def item(self, *index) -> Any:
        return self._array.item(*index)

    def tolist(self) -> Any:
        return self._array.tolist()

    def __len__(self) -> int:
        if self._array.ndim == 0:
            raise TypeError("len() of a 0-D Tensor")
        return len(self._array)

    def __bool__(self) -> bool:
        if self._array.size != 1:
            raise ValueError(f"The truth value of a Tensor with {self._array.size} elements is "
                             "ambiguous; use .all() / .any() on tensor.numpy()")
        return bool(self._array.reshape(()))

    def __float__(self) -> float:
        return float(self._array.reshape(()))

    def __int__(self) -> int:
        return int(self._array.reshape(()))

    def __index__(self) -> int:
        return int(self._array.reshape(()))

    def __repr__(self) -> str:
        return format_tensor(self)

    __str__ = __repr__

    # -- autograd -----------------------------------------------------------------------------
    def backward(self, grad_tensor: "Tensor | None" = None, retain_graph: bool = False) -> None:
        """Accumulate d(self)/d(leaf) into the ``grad`` of every leaf that needs it. The
        initial gradient is ``grad_tensor`` or ones shaped like this tensor."""
        _backward([self], [grad_tensor], retain_graph=retain_graph)

    def clear_gradient(self, set_to_zero: bool = True) -> None:
        """Zero ``grad`` in place (``set_to_zero=True``, Paddle's default) or drop it."""
        grad = self.grad
        if grad is None:
            return
        if set_to_zero:
            array = grad._array
            view = _ZERO_VIEWS.get((array.shape, array.dtype))
            grad._array = view if view is not None else zeros_view(array.shape, array.dtype)
        else:
            self.grad = None

    clear_grad = clear_gradient

    def _grad_ivar(self) -> "Tensor | None":
        """The gradient Tensor itself (Paddle's ``_grad_ivar``), or None before backward."""
        return self.grad

    def set_value(self, value: Any) -> None:
        """Replace the value (a NumPy array or Tensor of the same shape), in this dtype."""
        array = np.asarray(value._array if isinstance(value, Tensor) else value)
        if list(array.shape) != list(self._array.shape):
            raise ValueError(f"Variable Shape not match, Variable [ {self.name} ] need tensor "
                             f"with shape {list(self._array.shape)} but load set tensor with "
                             f"shape {list(array.shape)}")
        self._array = array.astype(self._array.dtype, copy=True)

    def detach(self) -> "Tensor":
        """A new leaf sharing this value, with stop_gradient=True."""
        return Tensor._wrap(self._array)

    def clone(self) -> "Tensor":
        """A copy that stays on the tape (gradients flow back through ``assign``)."""
        return _run("assign", {"X": self})

    def astype(self, dtype: Any) -> "Tensor":
        return _run("cast", {"X": self}, {"in_dtype": int(self.dtype),
                                          "out_dtype": int(convert_dtype(dtype))})

    cast = astype

    def _bump_inplace_version(self) -> None:
        self._version += 1

    @property
    def T(self) -> "Tensor":
        return self.transpose(list(range(self._array.ndim))[::-1])

    # -- operators ----------------------------------------------------------------------------
    def _binary(self, op_type: str, other: Any, reverse: bool = False) -> "Tensor":
        if not isinstance(other, Tensor):
            rule = scale_rule(op_type, reverse) if isinstance(
                other, (bool, int, float, np.number)) else None
            if rule is not None:
                scale, bias = rule(float(other))
                return _run("scale", {"X": self}, {"scale": scale, "bias": bias,
                                                   "bias_after_scale": True})
            if not isinstance(other, (bool, int, float, np.number, np.ndarray, list, tuple)):
                return NotImplemented
            other = Tensor._wrap(np.asarray(other, dtype=self._array.dtype))
        elif other._array.dtype != self._array.dtype:
            other = other.astype(self.dtype)   # Paddle casts the right operand to the left's
        lhs, rhs = (other, self) if reverse else (self, other)
        attrs = {"trans_x": False, "trans_y": False} if op_type == "matmul_v2" else {"axis": -1}
        return _run(op_type, {"X": lhs, "Y": rhs}, attrs)

    def __neg__(self) -> "Tensor":
        return _run("scale", {"X": self}, {"scale": -1.0, "bias": 0.0, "bias_after_scale": True})


_ZERO_SCALARS: dict = {}      # dtype -> the 0-D zero every cleared gradient is a view of
_ZERO_VIEWS: dict = {}        # (shape, dtype) -> a broadcast view of that zero


def zeros_view(shape: Sequence[int], dtype: Any) -> np.ndarray:
    """A read-only array of zeros costing no memory (a broadcast 0-D zero); backward replaces
    such a cleared gradient instead of adding to it."""
    key = (tuple(shape), np.dtype(dtype))
    view = _ZERO_VIEWS.get(key)
    if view is None:
        zero = _ZERO_SCALARS.get(key[1])
        if zero is None:
            zero = _ZERO_SCALARS[key[1]] = np.zeros((), key[1])
        view = _ZERO_VIEWS[key] = np.broadcast_to(zero, key[0])
    return view


def is_zeros_view(array: np.ndarray) -> bool:
    return array.base is not None and array.base is _ZERO_SCALARS.get(array.dtype)




class EagerParameter(Tensor):
    """A trainable eager tensor owned by a Layer (Paddle's ``EagerParamBase``)."""

    __slots__ = ("_trainable", "optimize_attr", "regularizer", "need_clip", "is_distributed",
                 "sparse_grad")

    def __init__(self, value: Any, dtype: Any = None, name: str | None = None,
                 trainable: bool = True, optimize_attr: dict | None = None,
                 regularizer=None, need_clip: bool = True):
        super().__init__(value, dtype=dtype, stop_gradient=not trainable,
                         name=name or unique_name.generate("param"))
        self.trainable = trainable
        self.optimize_attr = optimize_attr or {"learning_rate": 1.0}
        self.regularizer = regularizer
        self.need_clip = need_clip
        self.is_distributed = False
        self.sparse_grad = False        # read by a sparse embedding (Paddle: SelectedRows grad)
        self.persistable = True

    @property
    def trainable(self) -> bool:
        return self._trainable

    @trainable.setter
    def trainable(self, value: bool) -> None:
        self._trainable = value
        self.stop_gradient = not value

    def __repr__(self) -> str:
        return "Parameter containing:\n" + format_tensor(self)


def format_tensor(t: Tensor) -> str:
    """Paddle's printed form: ``Tensor(shape=[2, 3], dtype=float32, place=Place(cpu),
    stop_gradient=True,\\n       [[...]])``."""
    array = t._array
    body = np.array2string(array, separator=", ", precision=8, prefix=" " * 7,
                           floatmode="fixed" if array.dtype.kind in "fc" else "maxprec",
                           threshold=1000, edgeitems=3)
    return (f"Tensor(shape={list(array.shape)}, dtype={t.dtype.name_str}, place=Place(cpu), "
            f"stop_gradient={t.stop_gradient},\n       {body})")


def _run(op_type: str, inputs: dict, attrs: dict | None = None):
    return run_op(op_type, inputs, attrs or {})


from .run import run_op  # noqa: E402  (run.py builds on the Tensor defined above)
from .tape import backward as _backward  # noqa: E402  (loaded by run.py)
