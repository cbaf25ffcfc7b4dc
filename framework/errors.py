"""The few exception types pyfluid raises for its own reasons.

Each subclasses the builtin that Paddle raises in the same situation, so code written for
Paddle (``except ValueError``) keeps working.
"""
from ..ops.registry import UnknownOpError  # noqa: F401  (re-exported)


class ProgramError(ValueError):
    """A program is malformed: bad slot, attribute, variable or structure."""


class ShapeError(ValueError):
    """Shape or dtype inference failed while an op was appended."""


class ExecutionError(RuntimeError):
    """An op failed while the Executor ran it; the message shows the op and where it was built."""


class FeedError(ValueError):
    """A fed value does not fit the data variable it feeds."""


class FetchError(ValueError):
    """A fetch target that the program cannot produce (unknown name, or no value)."""


class Dy2StaticError(TypeError):
    """Converting a dynamic-graph function to a static program met code it cannot convert
    (a Tensor's value used as a Python bool where no ``cond``/``while_loop`` is built)."""


def tensor_bool_error(var, converting: str, site: str) -> Dy2StaticError:
    return Dy2StaticError(
        f"The value of Tensor '{var.name}' (shape {list(var.shape)}) is used as a Python bool "
        f"at {site} while paddle.jit.to_static converts {converting} into a static program. "
        "Its value exists only when the program runs, so Python cannot decide on it here. "
        "to_static converts `if`, `while`, `for`, `and`/`or`/`not` and `x if c else y` on "
        "Tensors into cond/while_loop ops, but not in code it leaves as it is: functions "
        "marked paddle.jit.not_to_static, lambdas, generators, functions whose source is not "
        "available, modules given to paddle.jit.ignore_module, comprehension conditions and "
        "calls like bool(t) inside them. Rewrite this line with paddle.static.nn.cond / "
        "while_loop or paddle.where, or move it into a converted function.")
