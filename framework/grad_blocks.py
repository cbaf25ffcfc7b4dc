"""Gradients of the ops that run a sub-block: each gets a grad block, made by running the grad
pass over the forward sub-block (Paddle 2.6's ``_append_backward_ops_`` recursion).

* ``conditional_block`` -> ``conditional_block_grad``: its grad block runs, in the branch's
  scope, when the branch ran; it reads the gradients of the branch's outputs (``Out@GRAD``)
  and writes those of its inputs, which the op copies out (``Input@GRAD``; zeros for an
  untaken branch, except that a variable the branch would have overwritten keeps its
  gradient).
* ``while`` -> ``while_grad``: its grad block runs once per recorded step, newest first, in
  that step's scope; ``Out@GRAD`` (= ``original_output_grad``) are the incoming gradients the
  grad block reads, ``X@GRAD`` the gradients it writes: summed over the steps for a read-only
  input (a parameter), carried from step to step for a loop variable (zero for one the body
  assigns before reading it, where Paddle carries the incoming gradient on).

Grad blocks are created in reverse op order, depth first, each with the block that holds its
grad op as parent and ``forward_block_idx`` set; every gradient a grad block writes is a
variable of that block (the grad op moves it out).
"""
from __future__ import annotations

from ..ops.registry import EMPTY_VAR, grad_name
from ..ops.types import VarType
from .grad_pass import NO_FILL, GradPass


def _differentiate(outer: GradPass, op, targets: list[str], loop: bool):
    """A new grad block (child of the block the grad op goes to) holding the gradient of
    ``op``'s sub-block w.r.t. its ``targets`` outputs."""
    program = op.block.program
    forward = program.blocks[op.attrs["sub_block"]]
    current = program.current_block_idx
    grad_block = program._create_block(parent_idx=outer.grad_block.idx)
    program.current_block_idx = current
    grad_block.forward_block_idx = forward.idx
    grad_block._has_forward_idx = True
    forward.backward_block_idx = grad_block.idx
    incoming = {grad_name(t) for t in targets}
    if loop:    # a loop variable's gradient also comes from the step after (zeros at first)
        carried = set(op.input("X")) & set(op.output("Out"))
        incoming |= {grad_name(v) for v in carried if grad_name(v) not in outer.no_grad}
    for name in sorted(incoming):            # the grad ops of the block read them
        if outer.grad_block._find_var_recursive(name) is None:
            outer._create_grad_var(name)
    GradPass(forward, targets, [], outer.no_grad, None, outer.callbacks, grad_block=grad_block,
             incoming=incoming, loop=loop, block_grads=outer.block_grads).run()
    return grad_block, incoming


def _targets(outer: GradPass, op, available: set[str]) -> list[str]:
    needed = outer.needed.get(id(op), set())
    return [o for o in dict.fromkeys(op.output_arg_names)
            if o in needed and grad_name(o) in available]


def _differentiable(op, name: str, outer: GradPass) -> bool:
    """Whether the gradient of input ``name`` is wanted: not in the no-grad set, and a
    floating-point tensor or an array (a bool or int input, a condition, has none)."""
    var = op.block._find_var_recursive(name)
    if grad_name(name) in outer.no_grad or var is None:
        return False
    return var.type == VarType.LOD_TENSOR_ARRAY or var.dtype in FLOAT_TYPES


def conditional_block_grad(outer: GradPass, op, available: set[str]) -> list[dict]:
    targets = _targets(outer, op, available)
    if not targets:
        return []
    grad_block, _ = _differentiate(outer, op, targets, loop=False)
    inputs = op.input("Input")
    return [{"type": "conditional_block_grad",
             "inputs": {"Cond": op.input("Cond"), "Input": inputs, "Out": op.output("Out"),
                        "Out@GRAD": [grad_name(o) for o in op.output("Out")
                                     if grad_name(o) in available],
                        "Scope": op.output("Scope")},
             "outputs": {"Input@GRAD": [grad_name(x) if _differentiable(op, x, outer)
                                        else EMPTY_VAR for x in inputs]},
             "attrs": {"sub_block": grad_block.idx,
                       "is_scalar_condition": op.attrs.get("is_scalar_condition", False),
                       "skip_eager_deletion_vars": [],
                       "op_device": op.attrs.get("op_device", "")},
             NO_FILL: True}]


def while_grad(outer: GradPass, op, available: set[str]) -> list[dict]:
    targets = _targets(outer, op, available)
    if not targets:
        return []
    grad_block, incoming = _differentiate(outer, op, targets, loop=True)
    _zero_overwritten(op, grad_block, incoming)
    written, read_first = set(), []
    for grad_op in grad_block.ops:           # the incoming gradients, in first-read order
        for name in grad_op.input_arg_names:
            if name in incoming and name not in written and name not in read_first:
                read_first.append(name)
        written.update(grad_op.output_arg_names)
    attrs = {k: (list(v) if isinstance(v, list) else v) for k, v in op.attrs.items()
             if k not in ("op_role", "op_role_var")}
    attrs.update({"sub_block": grad_block.idx, "original_output_grad": read_first,
                  "skip_eager_deletion_vars": []})
    return [{"type": "while_grad",
             "inputs": {"X": op.input("X"), "Out": op.output("Out"), "Out@GRAD": read_first,
                        "StepScopes": op.output("StepScopes")},
             "outputs": {"X@GRAD": [grad_name(x) if grad_name(x) in written else EMPTY_VAR
                                    for x in op.input("X")]},
             "attrs": attrs, NO_FILL: True}]


def _zero_overwritten(op, grad_block, incoming: set[str]) -> None:
    """A loop variable the body assigns before reading it: its value on entry to a step does
    not reach the step's results, so the gradient carried to the step before is zero (Paddle
    2.6 carries the incoming gradient on instead, counting it once per step)."""
    body = op.block.program.blocks[op.attrs["sub_block"]]
    read, written = set(), set()
    for body_op in body.ops:
        read.update(n for n in body_op.input_arg_names if n not in written)
        written.update(body_op.output_arg_names)
    for name in dict.fromkeys(op.input("X")):
        grad = grad_name(name)
        if name in op.output("Out") and name not in read and grad in incoming:
            var = body._find_var_recursive(name)
            if var is None or var.type == VarType.LOD_TENSOR_ARRAY:
                continue
            grad_block.append_op(type="fill_any_like", inputs={"X": [name]},
                                 outputs={"Out": [grad]},
                                 attrs={"value": 0.0, "dtype": int(var.dtype)})


FLOAT_TYPES = frozenset({VarType.FP16, VarType.BF16, VarType.FP32, VarType.FP64})

def no_double_grad(outer: GradPass, op, available: set[str]) -> list[dict]:
    """The grad ops of control flow have no gradient (as in Paddle 2.6)."""
    raise RuntimeError(f"(NotFound) Neither operator {op.type}'s GradOpMaker nor "
                       f"CompGradOpMaker has been registered.\nPlease check whether ({op.type}) "
                       "operator has gradient operator.\nIf not, please set stop_gradient to be "
                       "True for its input and output variables using var.stop_gradient=True.")


BLOCK_GRAD_MAKERS = {"conditional_block": conditional_block_grad, "while": while_grad,
                     "conditional_block_grad": no_double_grad, "while_grad": no_double_grad}
