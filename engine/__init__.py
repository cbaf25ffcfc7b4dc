"""The eager (dynamic-graph) engine, beside the static Executor: Tensors, the tape, running one
registered op at once (``run.py``: the same declaration the Executor runs), and backward.
It imports ops and framework only, never the public API."""
from .tensor import EagerParameter, Tensor  # first: run.py and tape.py build on Tensor
from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .run import run_op
from .tape import backward, grad

__all__ = ["EagerParameter", "Tensor", "backward", "enable_grad", "grad", "is_grad_enabled",
           "no_grad", "run_op", "set_grad_enabled"]
