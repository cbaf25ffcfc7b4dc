"""Dynamic-graph (eager) mode: Tensors, the tape autograd engine, and creation functions.
Every eager op runs the registry declaration the static Executor runs (see ``run.py``)."""
from .creation import (arange, full, full_like, ones, ones_like, rand, randn, to_tensor, zeros,
                       zeros_like)
from .engine import backward, grad
from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .run import run_op
from .tensor import EagerParameter, Tensor

__all__ = ["EagerParameter", "Tensor", "arange", "backward", "enable_grad", "full", "full_like",
           "grad", "is_grad_enabled", "no_grad", "ones", "ones_like", "rand", "randn", "run_op",
           "set_grad_enabled", "to_tensor", "zeros", "zeros_like"]
